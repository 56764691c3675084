"""Extrapolation across CPU generations."""

from __future__ import annotations

import math

import pytest

from iosizer.calibration.extrapolate import extrapolate
from iosizer.calibration.profile import ParameterEstimate, Profile
from iosizer.errors import InputError, ProfileError


def profile(speed: float, rate: float, think: float = 0.1, stderr: float = 0.01, model: str = "mmc") -> Profile:
    return Profile(
        model=model,
        options={"servers": 4},
        parameters={
            "service_rate_per_s": ParameterEstimate(
                value=rate, stderr=stderr * rate, unit="1/s", cpu_scaling="power", exponent_bounds=(0.0, 1.0)
            ),
            "wire_s": ParameterEstimate(value=think, stderr=0.001, unit="s", cpu_scaling="fixed"),
            "cpu_work_s": ParameterEstimate(value=0.02 / speed, stderr=1e-4, unit="s", cpu_scaling="inverse"),
        },
        cpu_name=f"cpu{speed:g}",
        cpu_speed=speed,
    )


def test_power_law_from_two_cpus_recovers_the_exponent() -> None:
    # rate = 1.3 s^0.7: two CPUs determine it; the third speed is predicted.
    profiles = [profile(1.0, 1.3), profile(2.0, 1.3 * 2**0.7)]
    result = extrapolate(profiles, 3.0, "new")
    rate = next(p for p in result.parameters if p.name == "service_rate_per_s")
    assert rate.exponent == pytest.approx(0.7, abs=1e-9)
    assert rate.value == pytest.approx(1.3 * 3**0.7, rel=1e-9)
    assert rate.ci_low < rate.value < rate.ci_high
    assert result.profile.cpu_speed == 3.0 and result.profile.cpu_name == "new"
    assert result.profile.extrapolated_from == ["cpu1 (speed 1)", "cpu2 (speed 2)"]


def test_three_cpus_with_scatter_widen_the_interval() -> None:
    clean = extrapolate([profile(1, 1.0), profile(2, 2**0.5), profile(4, 2.0)], 8.0)
    noisy = extrapolate([profile(1, 1.0), profile(2, 2**0.5 * 1.1), profile(4, 2.0)], 8.0)
    width = lambda r: r.parameters[0].ci_high - r.parameters[0].ci_low  # noqa: E731
    assert clean.parameters[0].value == pytest.approx(8**0.5, rel=1e-9)
    assert width(noisy) > 3 * width(clean)


def test_one_cpu_spans_the_bounding_assumptions() -> None:
    result = extrapolate([profile(1.0, 1.0, stderr=0.0)], 2.0)
    rate, wire, work = result.parameters
    assert rate.assumption_spread == pytest.approx((1.0, 2.0))  # exponent 0 .. 1
    assert rate.value == pytest.approx(math.sqrt(2.0))  # mid exponent 0.5
    assert (rate.ci_low, rate.ci_high) == pytest.approx((1.0, 2.0))
    assert wire.value == pytest.approx(0.1)  # fixed
    assert work.value == pytest.approx(0.01)  # inverse: 0.02 / 2


def test_incompatible_profiles_are_refused() -> None:
    with pytest.raises(ProfileError, match="different models"):
        extrapolate([profile(1, 1.0), profile(2, 1.5, model="other")], 3.0)
    no_speed = profile(1, 1.0).model_copy(update={"cpu_speed": None})
    with pytest.raises(ProfileError, match="has no cpu_speed"):
        extrapolate([no_speed], 2.0)
    with pytest.raises(InputError, match=r"--cpu-speed must lie in \[0.015625, 64\]"):
        extrapolate([profile(1, 1.0)], -1.0)


def test_a_profile_without_an_error_is_not_the_most_precise() -> None:
    # Review finding: a missing error used to count as the smallest variance.
    with_error = profile(1.0, 1.0)
    without = profile(2.0, 1.5).model_copy(update={"parameters": {
        **profile(2.0, 1.5).parameters,
        "service_rate_per_s": ParameterEstimate(value=1.5, unit="1/s", cpu_scaling="power",
                                                exponent_bounds=(0.0, 1.0)),
    }})
    with pytest.raises(ProfileError, match="interval in some profiles and not in others"):
        extrapolate([with_error, without], 4.0)


def test_two_cpus_without_errors_leave_the_uncertainty_undefined() -> None:
    def bare(speed: float, rate: float) -> Profile:
        p = profile(speed, rate)
        estimate = ParameterEstimate(value=rate, unit="1/s", cpu_scaling="power", exponent_bounds=(0.0, 1.0))
        return p.model_copy(update={"parameters": {**p.parameters, "service_rate_per_s": estimate}})

    result = extrapolate([bare(1.0, 1.0), bare(2.0, 2**0.5)], 4.0)
    rate = result.parameters[0]
    assert rate.value == pytest.approx(2.0) and rate.exponent == pytest.approx(0.5)
    assert math.isnan(rate.ci_low)
    assert result.profile.parameters["service_rate_per_s"].ci_low is None
    assert any("uncertainty is unknown" in w for w in result.warnings)


def test_scatter_of_a_third_cpu_widens_the_prediction() -> None:
    # Three CPUs off the power law by 10 %: the interval at a new CPU must
    # cover the scatter, not only the profiles' own (1 %) errors.
    speeds = [1.0, 2.0, 4.0]
    rates = [1.0, 2**0.5 * 1.1, 2.0 * 0.9]
    result = extrapolate([profile(s, r) for s, r in zip(speeds, rates)], 3.0)
    rate = result.parameters[0]
    assert (rate.ci_high - rate.ci_low) / rate.value > 0.2


def test_a_cpu_independent_parameter_keeps_its_own_interval_on_another_cpu() -> None:
    """A whole number's plausible set and a profile-likelihood interval are not re-drawn symmetric about the
    value when the profile is carried to another CPU (the device's parallel_units came out -1.5..3.5 units,
    and every band of `device curve --cpu-speed` was null)."""
    import math

    import iosizer
    from iosizer.calibration.whatif import on_cpu

    shipped = iosizer.family("device").shipped()
    carried = on_cpu(shipped, 1.5)
    for name in ("parallel_units", "unit_service_us"):  # fixed CPU scaling
        assert carried.parameters[name] == shipped.parameters[name]
    answer = iosizer.family("device").ask("curve", outstanding=[4, 16], cpu_speed=1.5)
    for low, high in answer.bands.values():
        assert all(math.isfinite(v) for v in [*low, *high])
