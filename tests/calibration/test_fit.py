"""The generic fitter: recovery, interval coverage, warnings, weights, bands."""

from __future__ import annotations

import math

import numpy as np
import pytest

from iosizer.calibration.fit import Parameter, fit
from iosizer.calibration.models import get_model
from iosizer.errors import CalibrationError


def exp_plus_line(params, inputs):
    x = inputs["x"]
    return {"y": params["a"] * np.exp(-x / params["b"]) + params["c"] * x + params["d"]}


FOUR = {"a": 3.0, "b": 2.0, "c": 0.5, "d": 1.0}


def four_parameters() -> list[Parameter]:
    return [
        Parameter("a", 1.0, 0.0, 100.0),
        Parameter("b", 1.0, 0.01, 100.0),
        Parameter("c", 0.0, -10.0, 10.0),
        Parameter("d", 0.0, -10.0, 10.0),
    ]


def test_intervals_cover_the_truth_95_percent_of_the_time() -> None:
    # 200 seeded replicates: a 95 % interval should miss ~10 times per
    # parameter; binomial sd is 3.1 %, so [0.88, 0.995] is a 2.3-sd band.
    x = np.linspace(0.0, 10.0, 40)
    truth = exp_plus_line(FOUR, {"x": x})["y"]
    hits = dict.fromkeys(FOUR, 0)
    band_hits = 0
    replicates = 200
    for seed in range(replicates):
        noisy = truth + np.random.default_rng(seed).normal(0.0, 0.05, x.size)
        result = fit(exp_plus_line, four_parameters(), {"x": x}, {"y": noisy})
        for name, true_value in FOUR.items():
            low, high = result.intervals[name]
            hits[name] += low <= true_value <= high
        band = result.predict({"x": np.array([5.0])})
        true_y = exp_plus_line(FOUR, {"x": np.array([5.0])})["y"][0]
        band_hits += band.lower["y"][0] <= true_y <= band.upper["y"][0]
    for name, count in hits.items():
        assert 0.88 <= count / replicates <= 0.995, (name, count)
    assert 0.88 <= band_hits / replicates <= 0.995


def test_linear_fit_matches_textbook_least_squares() -> None:
    # Ordinary least squares by the normal equations, computed here by hand.
    rng = np.random.default_rng(7)
    x = np.linspace(1.0, 5.0, 12)
    y = 2.0 * x + 1.0 + rng.normal(0.0, 0.1, x.size)
    design = np.column_stack([x, np.ones_like(x)])
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ beta
    covariance = resid @ resid / (x.size - 2) * np.linalg.inv(design.T @ design)
    result = fit(
        lambda p, i: {"y": p["slope"] * i["x"] + p["intercept"]},
        [Parameter("slope", 1.0), Parameter("intercept", 0.0)],
        {"x": x},
        {"y": y},
    )
    assert result.params["slope"] == pytest.approx(beta[0], rel=1e-8)
    assert result.stderr["slope"] == pytest.approx(math.sqrt(covariance[0, 0]), rel=1e-6)
    assert result.stderr["intercept"] == pytest.approx(math.sqrt(covariance[1, 1]), rel=1e-6)
    assert result.r2 == pytest.approx(1 - resid @ resid / np.sum((y - y.mean()) ** 2), rel=1e-10)


def test_absolute_stderr_is_not_rescaled() -> None:
    # y = a x with known sigma: se(a) = 1 / sqrt(sum x^2 / sigma^2) exactly.
    x = np.array([1.0, 2.0, 3.0, 4.0])
    sigma = np.array([0.1, 0.2, 0.1, 0.4])
    y = 3.0 * x + np.array([0.05, -0.1, 0.02, 0.3])
    result = fit(lambda p, i: {"y": p["a"] * i["x"]}, [Parameter("a", 1.0)], {"x": x}, {"y": y},
                 stderr=sigma)
    assert result.stderr["a"] == pytest.approx(1 / math.sqrt(np.sum(x**2 / sigma**2)), rel=1e-6)
    assert result.absolute_sigma


def test_weight_two_equals_a_duplicated_row() -> None:
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([1.1, 1.9, 3.3])
    model = lambda p, i: {"y": p["a"] * i["x"]}  # noqa: E731
    weighted = fit(model, [Parameter("a", 1.0)], {"x": x}, {"y": y}, weights=np.array([1.0, 1.0, 2.0]))
    duplicated = fit(model, [Parameter("a", 1.0)], {"x": np.append(x, 3.0)}, {"y": np.append(y, 3.3)})
    assert weighted.params["a"] == pytest.approx(duplicated.params["a"], rel=1e-9)


def test_unidentifiable_parameters_are_named() -> None:
    x = np.linspace(0, 1, 10)
    result = fit(
        lambda p, i: {"y": (p["a"] + p["b"]) * i["x"]},
        [Parameter("a", 1.0, 0, 10), Parameter("b", 2.0, 0, 10)],
        {"x": x},
        {"y": 3.0 * x + 0.01 * np.sin(7 * x)},
    )
    assert any("singular Jacobian" in w and "'a'" in w and "'b'" in w for w in result.warnings)
    assert math.isnan(result.stderr["a"])


def test_too_few_points_and_wide_intervals_warn() -> None:
    result = fit(exp_plus_line, four_parameters(), {"x": np.array([0.0, 1.0, 2.0])},
                 {"y": np.array([4.0, 3.0, 2.5])})
    assert any("too few points: 3 observations for 4 free parameters" in w for w in result.warnings)
    x = np.linspace(0.0, 1.0, 6)
    noisy = fit(lambda p, i: {"y": p["a"] * i["x"]}, [Parameter("a", 1.0)], {"x": x},
                {"y": 0.01 * x + np.array([0.5, -0.5, 0.4, -0.4, 0.3, -0.3])})
    assert any("poorly identified" in w for w in noisy.warnings)


def test_fixed_parameters_stay_fixed() -> None:
    x = np.linspace(0.0, 10.0, 30)
    y = exp_plus_line(FOUR, {"x": x})["y"]
    parameters = four_parameters()
    parameters[3] = Parameter("d", 1.0, vary=False)
    result = fit(exp_plus_line, parameters, {"x": x}, {"y": y})
    assert result.free == ("a", "b", "c")
    assert result.intervals["d"] == (1.0, 1.0)
    assert result.params["b"] == pytest.approx(2.0, rel=1e-6)
    assert "(fixed)" in result.report()
    assert "95 % confidence intervals" in result.report()


def test_bad_declarations_are_calibration_errors() -> None:
    with pytest.raises(CalibrationError, match="initial value 5 must lie in its bounds"):
        fit(exp_plus_line, [Parameter("a", 5.0, 0, 1)], {"x": np.ones(3)}, {"y": np.ones(3)})


def test_analytic_jacobian_of_mmc_matches_finite_differences() -> None:
    options = {"servers": 4}
    lam = np.array([0.5, 2.0, 3.5])
    analytic = get_model("mmc").jacobian(options)({"service_rate_per_s": 1.2}, {"arrival_rate_per_s": lam})
    model = get_model("mmc").function(options)
    h = 1e-6
    numeric = (
        model({"service_rate_per_s": 1.2 + h}, {"arrival_rate_per_s": lam})["mean_response_s"]
        - model({"service_rate_per_s": 1.2 - h}, {"arrival_rate_per_s": lam})["mean_response_s"]
    ) / (2 * h)
    assert analytic["mean_response_s"][:, 0] == pytest.approx(numeric, rel=1e-6)


def test_upper_bounds_only_penalise_crossing() -> None:
    # y = a x with one point measured and two points known only as "<= 1".
    x = np.array([1.0, 2.0, 3.0])
    observed = np.array([2.0, 1.0, 1.0])
    bounds = np.array([0, 1, 1])
    result = fit(lambda p, i: {"y": p["a"] * i["x"]}, [Parameter("a", 1.0, 0.0, 10.0)], {"x": x},
                 {"y": observed}, bounds=bounds)
    # Unbounded, a = 2 fits the first point; the bounds at x = 2, 3 push back:
    # minimise (a - 2)^2 + (2a - 1)^2 + (3a - 1)^2 -> a = (2 + 2 + 3) / 14 = 0.5.
    assert result.params["a"] == pytest.approx(0.5, rel=1e-6)
    loose = fit(lambda p, i: {"y": p["a"] * i["x"]}, [Parameter("a", 1.0, 0.0, 10.0)], {"x": x},
                {"y": np.array([2.0, 10.0, 10.0])}, bounds=bounds)
    assert loose.params["a"] == pytest.approx(2.0, rel=1e-6)  # bounds respected: no pull
    assert loose.residuals["y"][1:].tolist() == [0.0, 0.0]


def test_stderr_with_relative_residuals_gives_honest_intervals() -> None:
    # Review finding: residuals were divided by stderr and again by the value.
    rng = np.random.default_rng(3)
    lam = np.linspace(400, 3600, 10)
    from iosizer.model.queueing import mmc

    hits = 0
    for seed in range(40):
        noise = np.random.default_rng(seed).normal(0, 0.01, lam.size)
        response = mmc(lam, 1000.0, 4).mean_response * (1 + noise)
        result = fit(get_model("mmc").function({"servers": 4}), [Parameter("service_rate_per_s", 1200.0, 900.0 * 1.0000001)],
                     {"arrival_rate_per_s": lam}, {"mean_response_s": response},
                     stderr=0.01 * response, jacobian=get_model("mmc").jacobian({"servers": 4}), relative=True)
        low, high = result.intervals["service_rate_per_s"]
        hits += low <= 1000.0 <= high
    assert hits >= 34  # ~95 % of 40
    del rng


def test_zero_residuals_leave_intervals_undefined() -> None:
    x = np.array([1.0, 1.0, 1.0])
    result = fit(lambda p, i: {"y": p["a"] * i["x"]}, [Parameter("a", 1.0)], {"x": x}, {"y": 2.0 * x})
    assert result.params["a"] == pytest.approx(2.0)
    assert math.isnan(result.intervals["a"][0])
    assert any("zero residuals" in w for w in result.warnings)


def test_an_empty_optional_column_is_dropped() -> None:
    x = np.linspace(1, 5, 6)
    result = fit(lambda p, i: {"y": p["a"] * i["x"], "z": p["a"] * i["x"]}, [Parameter("a", 1.0)], {"x": x},
                 {"y": 2.0 * x + 0.01 * np.sin(x), "z": np.full(x.size, np.nan)})
    assert set(result.statistics) == {"y"}


def test_hopeless_parameter_counts_fail_fast() -> None:
    with pytest.raises(CalibrationError, match="cannot be fitted to 1 observations"):
        fit(lambda p, i: {"y": sum(p.values()) * i["x"]}, [Parameter(f"p{k}", 1.0) for k in range(10)],
            {"x": np.ones(1)}, {"y": np.ones(1)})
