"""The calibration loop on the queueing core: synthetic data, known truth.

Datasets are generated from known parameters with seeded, proportional
(1 %) noise and fitted back; the 95 % intervals must cover the truth about
95 % of the time (checked over replicates, not on one lucky seed).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from iosizer.calibration.calibrate import calibrate, residual_rows
from iosizer.calibration.dataset import Dataset
from iosizer.calibration.fit import fit
from iosizer.calibration.models import get_model
from iosizer.model.registry import declaration

CLOSED_NETWORK_SCHEMA = declaration("closed-network").columns
from iosizer.errors import CalibrationError, InputError
from iosizer.model.mva import mva
from iosizer.model.queueing import mmc

DEMANDS_S = (0.005, 0.003, 0.002)
THINK_S = 0.1
TRUTH = {"demand_1_s": 0.005, "demand_2_s": 0.003, "demand_3_s": 0.002, "think_time_s": 0.1}
POPULATIONS = np.arange(1, 61, 3)


def load_test(seed: int, with_response: bool = True) -> dict[str, np.ndarray]:
    curve = mva(DEMANDS_S, THINK_S, int(POPULATIONS.max())).curve
    rng = np.random.default_rng(seed)
    columns = {
        "population": POPULATIONS.astype(float),
        "throughput_per_s": curve.throughput[POPULATIONS - 1] * (1 + rng.normal(0, 0.01, POPULATIONS.size)),
    }
    if with_response:
        columns["response_time_s"] = curve.response_time[POPULATIONS - 1] * (
            1 + rng.normal(0, 0.01, POPULATIONS.size)
        )
    return columns


def write_csv(path: Path, columns: dict[str, np.ndarray]) -> Path:
    names = list(columns)
    lines = [",".join(names)] + [
        ",".join(repr(float(columns[n][i])) for n in names) for i in range(len(columns[names[0]]))
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_closed_network_recovers_demands_and_think_time(tmp_path: Path) -> None:
    result = calibrate("closed-network", write_csv(tmp_path / "lt.csv", load_test(3)), {"stations": 3})
    fit_ = result.fit
    for name, true_value in TRUTH.items():
        low, high = fit_.intervals[name]
        assert low <= true_value <= high, name
    # The bottleneck and the think time are pinned down to about 1 %; the
    # other stations are only weakly identified by throughput data.
    assert fit_.params["demand_1_s"] == pytest.approx(0.005, rel=0.01)
    assert fit_.params["think_time_s"] == pytest.approx(0.1, rel=0.02)
    assert fit_.statistics["throughput_per_s"].r2 > 0.999
    rows = residual_rows(result)
    assert len(rows) == 2 * POPULATIONS.size and rows[0]["line"] == 2


def test_closed_network_interval_coverage_over_replicates() -> None:
    # 60 replicates. The bottleneck demand and the think time are always
    # identified: coverage of their 95 % intervals should be >= ~88 %
    # (binomial sd 2.8 %; measured 96-97 % over 150 replicates). The two
    # other stations are exchangeable ((3, 2) ms and (2, 3) ms give the same
    # curves): when a fit lands on D2 = D3 the Jacobian is singular there, so
    # their intervals must be undefined and the warning must name them.
    options = {"stations": 3, "think_time_s": None}
    hits = dict.fromkeys(TRUTH, 0)
    for seed in range(60):
        columns = load_test(100 + seed)
        data = Dataset("synthetic", "0" * 64, CLOSED_NETWORK_SCHEMA, columns, np.arange(POPULATIONS.size))
        result = fit(get_model("closed-network").function(options), get_model("closed-network").parameters(data, options), data.inputs(),
                     data.observed(), relative=True)
        singular = any("singular Jacobian" in w for w in result.warnings)
        for name, value in TRUTH.items():
            low, high = result.intervals[name]
            if np.isnan(low):
                assert singular and f"'{name}'" in " ".join(result.warnings)
                assert name in ("demand_2_s", "demand_3_s")
                hits[name] += 1  # honestly undefined, not wrongly narrow
            else:
                hits[name] += low <= value <= high
        # Whatever the split, the pair's total is pinned down.
        pair = result.params["demand_2_s"] + result.params["demand_3_s"]
        assert pair == pytest.approx(0.005, rel=0.05)
    assert all(count >= 53 for count in hits.values()), hits


def test_closed_network_with_throughput_only_and_fixed_think_time(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "x.csv", load_test(5, with_response=False))
    result = calibrate("closed-network", path, {"stations": 3, "think_time_s": 0.1})
    assert result.fit.free == ("demand_1_s", "demand_2_s", "demand_3_s")
    assert result.fit.params["think_time_s"] == 0.1
    assert result.fit.params["demand_1_s"] == pytest.approx(0.005, rel=0.02)
    assert result.profile.options == {"stations": 3, "servers": "1", "think_time_s": 0.1}


def test_mmc_recovers_the_service_rate(tmp_path: Path) -> None:
    hits = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        lam = np.linspace(0.4, 3.6, 10)
        response = mmc(lam, 1.0, 4).mean_response * (1 + rng.normal(0, 0.01, lam.size))
        path = write_csv(tmp_path / f"m{seed}.csv", {"arrival_rate_per_s": lam, "mean_response_s": response})
        result = calibrate("mmc", path, {"servers": 4})
        low, high = result.fit.intervals["service_rate_per_s"]
        hits += low <= 1.0 <= high
        assert result.fit.params["service_rate_per_s"] == pytest.approx(1.0, rel=0.02)
    assert hits >= 34  # ~95 % of 40, binomial sd 3.4 %


def test_options_are_checked() -> None:
    with pytest.raises(InputError, match="--terminals does not apply to model 'closed-network'"):
        get_model("closed-network").options({"stations": 2, "terminals": 3})
    # servers per station do apply (issue 27): one for all, or one per station, each a count or 'delay'
    assert get_model("closed-network").options({"stations": 2, "servers": 3})["servers"] == "3"
    with pytest.raises(InputError, match="servers must list whole numbers"):
        get_model("closed-network").options({"stations": 2, "servers": "1,0"})
    with pytest.raises(InputError, match="needs --stations"):
        get_model("closed-network").options({})
    with pytest.raises(CalibrationError, match="unknown model 'pcie'"):
        get_model("pcie")


def test_a_profile_names_shipped_data_by_package_and_a_users_file_by_absolute_path(tmp_path) -> None:
    import shutil

    import iosizer
    from iosizer.calibration.calibrate import calibrate

    example = iosizer.family("mmc").example()
    shipped = calibrate("mmc", example, {"servers": 4}).profile.dataset.path
    assert shipped == "iosizer.data/examples/" + Path(example).name  # the same on every machine
    copy = tmp_path / "mine.csv"
    shutil.copy(example, copy)
    assert calibrate("mmc", copy, {"servers": 4}).profile.dataset.path == str(copy.resolve())


def test_measured_percentiles_can_be_fit_inputs(cli, tmp_path) -> None:
    """--fit-percentiles: p99 columns join the means as fit inputs (checked only, without it)."""
    import iosizer
    from iosizer.model.queueing import mmc
    from iosizer.model.percentiles import mmc_response_quantile

    rates = np.array([400.0, 1200.0, 2000.0, 2800.0, 3400.0])
    mean = np.asarray(mmc(rates, 1000.0, 4).mean_response)
    p99 = np.asarray(mmc_response_quantile(rates, 1000.0, 4, 99))
    # The means say mu = 1000/s; the p99s are 10 % longer than M/M/4 at 1000/s gives: a heavier tail.
    data = {"arrival_rate_per_s": rates, "mean_response_s": mean, "response_p99_s": p99 * 1.10}
    means_only = iosizer.family("mmc").calibrate(data, servers=4)
    both = iosizer.family("mmc").calibrate(data, servers=4, fit_percentiles=True)
    rate = {"means": means_only.params["service_rate_per_s"], "both": both.params["service_rate_per_s"]}
    assert rate["means"] == pytest.approx(1000.0, rel=1e-6)  # the percentiles were only checked
    assert rate["both"] < rate["means"]  # pulled toward the slower service the tail implies
    assert "response_p99_s" in both.calibration.fit.statistics
    assert "response_p99_s" not in means_only.calibration.fit.statistics
    path = tmp_path / "tails.csv"
    path.write_text("arrival_rate_per_s,mean_response_s,servers,response_p99_s\n" + "".join(
        f"{r},{m},4,{q}\n" for r, m, q in zip(rates, mean, p99 * 1.10)))
    shown = cli.json("calibrate", "mmc", str(path), "--fit-percentiles")
    assert shown["parameters"]["service_rate_per_s"]["value"] == pytest.approx(rate["both"], rel=1e-6)
    assert "response_p99_s" in shown["columns"]
    no_tails = tmp_path / "means.csv"
    no_tails.write_text("arrival_rate_per_s,mean_response_s,servers\n400,0.001,4\n800,0.00102,4\n")
    assert "no percentile column" in cli.fails("calibrate", "mmc", str(no_tails), "--fit-percentiles")
    assert "no percentile model" in cli.fails("calibrate", "hba", str(iosizer.family("hba").example()),
                                              "--fit-percentiles")
