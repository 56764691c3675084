"""Extrapolate calibrated profiles to another CPU generation.

Each parameter declares how it scales with relative per-core speed s
(:class:`~iosizer.calibration.fit.CpuScaling`):

- ``fixed``: p(s) = p. Several profiles: their inverse-variance weighted mean.
- ``inverse``: p(s) = k / s. Several profiles: k is the weighted mean of p_i s_i.
- ``power``: p(s) = p_0 s^e.
  * Profiles of two or more distinct CPUs: weighted least squares of
    log p_i = log p_0 + e log s_i, weights 1/var(log p_i) from each profile's
    standard error (var(log p) ~ (se/p)^2). The prediction interval at the new
    speed is exp(+/- q sd) with sd from the regression covariance; with three
    or more CPUs the covariance is inflated by the reduced chi-square when
    the points scatter more than their errors explain, and q is Student's t
    with m - 2 degrees of freedom (normal with exactly two). The prediction
    interval adds the scatter of a new CPU about the power law beyond the
    stated errors. Profiles must all state errors or none: without errors
    the fit is unweighted, and with exactly two CPUs its uncertainty is
    unknown (reported as undefined, with a warning).
  * One CPU: e is unknown; the prediction spans the declared
    ``exponent_bounds`` (for example 0 = I/O-bound, -1 = CPU-bound demand),
    widened by the profile's own interval, and the central value uses the
    mid exponent. The spread between the bounding assumptions is reported.
    Parameters declared with the same range share one unknown exponent (the
    demands of a closed network run on one CPU): the profile records them
    as one group (``shared_exponent``) whose ends move together in a band;
    drawn one by one, their ends cancel in quadrature and a six-station
    band excluded both ends of the declared range (issue 25).

Intervals are 95 %, as everywhere in iosizer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from iosizer.calibration.fit import NORMAL_QUANTILE
from iosizer.calibration.profile import ParameterEstimate, Profile
from iosizer.errors import ProfileError



@dataclass(frozen=True)
class ParameterExtrapolation:
    """How one parameter was carried to the new CPU speed."""

    name: str
    scaling: str
    value: float
    ci_low: float
    ci_high: float
    unit: str
    exponent: float | None = None
    exponent_ci: tuple[float, float] | None = None
    #: One-CPU power law: the values under the two bounding exponents.
    assumption_spread: tuple[float, float] | None = None


@dataclass(frozen=True)
class Extrapolation:
    profile: Profile
    parameters: tuple[ParameterExtrapolation, ...]
    warnings: tuple[str, ...] = ()


def _stderr(estimate: ParameterEstimate) -> float:
    """Standard error from the profile (stored, or from its 95 % interval); NaN if unknown."""
    if estimate.stderr is not None and estimate.stderr > 0:
        return estimate.stderr
    if estimate.ci_low is not None and estimate.ci_high is not None and estimate.ci_high > estimate.ci_low:
        return (estimate.ci_high - estimate.ci_low) / (2 * NORMAL_QUANTILE)
    return math.nan


def _variances(name: str, errors: np.ndarray) -> np.ndarray | None:
    """Squared errors; None when no profile states one. Mixing is refused:
    a profile without an error is not the most precise one, it is unknown."""
    known = np.isfinite(errors)
    if not known.any():
        return None
    if not known.all():
        raise ProfileError(
            f"parameter '{name}' has an interval in some profiles and not in others; "
            "extrapolation needs intervals on every profile or on none"
        )
    return np.maximum(errors, 1e-300) ** 2


def _check(profiles: Sequence[Profile], cpu_speed: float) -> None:
    from iosizer.model.family import CPU_SPEED, cpu_speed_factor

    if not profiles:
        raise ProfileError("extrapolation needs at least one profile")
    CPU_SPEED.check(cpu_speed, "--cpu-speed")
    first = profiles[0]
    dumps = [p.model_dump() for p in profiles]
    for i, dump in enumerate(dumps):
        if dump in dumps[:i]:
            raise ProfileError(
                f"profiles {dumps.index(dump) + 1} and {i + 1} are the same profile (CPU "
                f"{profiles[i].cpu_name or 'unnamed'}, speed {profiles[i].cpu_speed}, same values): one "
                "measurement counted twice would narrow the interval falsely; give each profile once"
            )
    for profile in profiles:
        if profile.model != first.model:
            raise ProfileError(
                f"profiles are for different models: '{first.model}' and '{profile.model}'"
            )
        if profile.options != first.options:
            raise ProfileError(
                f"profiles of model '{first.model}' have different options: "
                f"{first.options} and {profile.options}"
            )
        if profile.cpu_speed is None:
            raise ProfileError(
                f"a profile of model '{profile.model}' has no cpu_speed; calibrate with --cpu-speed"
            )
        if set(profile.parameters) != set(first.parameters):
            raise ProfileError("profiles declare different parameters")
        # Every factor a parameter is carried by stays within the declared range.
        cpu_speed_factor(cpu_speed, profile.cpu_speed, "--cpu-speed")


def _linear(
    name: str, estimates: list[ParameterEstimate], speeds: np.ndarray, target: float, inverse: bool,
    warnings: list[str],
) -> ParameterExtrapolation:
    values = np.array([e.value for e in estimates])
    factor = speeds / target if inverse else np.ones_like(speeds)
    carried = values * factor
    errors = np.array([_stderr(e) for e in estimates]) * factor
    variances = _variances(name, errors)
    weights = np.ones_like(carried) if variances is None else 1.0 / variances
    value = float(np.sum(weights * carried) / np.sum(weights))
    scatter = float(np.std(carried, ddof=1) / math.sqrt(carried.size)) if carried.size > 1 else 0.0
    if variances is None and carried.size == 1:
        half = math.nan
        warnings.append(f"'{name}': its profile states no interval, so the prediction has none")
    elif variances is None:
        half = NORMAL_QUANTILE * scatter
    else:
        half = NORMAL_QUANTILE * max(1.0 / math.sqrt(np.sum(weights)), scatter)
    return ParameterExtrapolation(
        name, "inverse" if inverse else "fixed", value, value - half, value + half, estimates[0].unit
    )


def _power_from_several(
    name: str, estimates: list[ParameterEstimate], speeds: np.ndarray, target: float, warnings: list[str],
) -> ParameterExtrapolation:
    from scipy.special import stdtrit

    values = np.array([e.value for e in estimates])
    if np.any(values <= 0):
        raise ProfileError(f"parameter '{name}' must be > 0 in every profile for a power-law fit")
    variances = _variances(name, np.array([_stderr(e) for e in estimates]) / values)
    weights = np.ones_like(values) if variances is None else 1.0 / variances
    design = np.column_stack([np.ones_like(speeds), np.log(speeds)])
    covariance = np.linalg.inv(design.T @ (weights[:, None] * design))
    coefficients = covariance @ design.T @ (weights * np.log(values))
    m = speeds.size
    point = np.array([1.0, math.log(target)])
    extra = 0.0  # scatter of a new CPU about the power law, beyond the stated errors
    if m > 2:
        residuals = np.log(values) - design @ coefficients
        chi2 = float(np.sum(weights * residuals**2)) / (m - 2)
        if variances is None:
            covariance = covariance * chi2  # unweighted: the scatter is the only error measure
            extra = chi2
        else:
            covariance = covariance * max(chi2, 1.0)
            extra = max(chi2 - 1.0, 0.0) * float(np.mean(variances))
        quantile = float(stdtrit(m - 2, 0.975))
    elif variances is None:
        covariance = np.full_like(covariance, np.nan)
        quantile = NORMAL_QUANTILE
        warnings.append(
            f"'{name}': two CPUs and no stated errors fix the power law exactly; its uncertainty "
            "is unknown (a third CPU, or profiles with intervals, would bound it)"
        )
    else:
        quantile = NORMAL_QUANTILE
        warnings.append(
            f"'{name}': with two CPUs the interval assumes the power law holds exactly; "
            "a third CPU would test it"
        )
    log_value = float(point @ coefficients)
    sd = math.sqrt(max(float(point @ covariance @ point), 0.0) + extra) if np.all(np.isfinite(covariance)) else math.nan
    exponent_sd = math.sqrt(max(covariance[1, 1], 0.0)) if np.isfinite(covariance[1, 1]) else math.nan
    return ParameterExtrapolation(
        name, "power", math.exp(log_value),
        math.exp(log_value - quantile * sd), math.exp(log_value + quantile * sd),
        estimates[0].unit, exponent=float(coefficients[1]),
        exponent_ci=(
            float(coefficients[1] - quantile * exponent_sd),
            float(coefficients[1] + quantile * exponent_sd),
        ),
    )


def _power_from_one(
    name: str, estimate: ParameterEstimate, speed: float, target: float
) -> ParameterExtrapolation:
    low_exponent, high_exponent = sorted(estimate.exponent_bounds)
    ratio = target / speed
    under = sorted((estimate.value * ratio**low_exponent, estimate.value * ratio**high_exponent))
    error = _stderr(estimate)
    relative = NORMAL_QUANTILE * error / estimate.value if estimate.value > 0 and math.isfinite(error) else 0.0
    middle = estimate.value * ratio ** ((low_exponent + high_exponent) / 2)
    return ParameterExtrapolation(
        name, "power", middle, under[0] * (1 - relative), under[1] * (1 + relative), estimate.unit,
        exponent=(low_exponent + high_exponent) / 2, exponent_ci=(low_exponent, high_exponent),
        assumption_spread=(under[0], under[1]),
    )


def extrapolate(
    profiles: Sequence[Profile], cpu_speed: float, cpu_name: str | None = None
) -> Extrapolation:
    """Predict a profile at ``cpu_speed`` from profiles measured on other CPUs."""
    from iosizer.model.family import check_cpu_name

    _check(profiles, cpu_speed)
    cpu_name = check_cpu_name(cpu_name)
    speeds = np.array([p.cpu_speed for p in profiles], dtype=np.float64)
    warnings: list[str] = []
    for speed in np.unique(speeds):
        repeats = int(np.sum(speeds == speed))
        if repeats > 1:
            warnings.append(f"{repeats} profiles at CPU speed {speed:g} are pooled as repeated measurements "
                            "of one CPU (one point of the CPU-scaling fit)")
    carried, shared = _carry(profiles, speeds, cpu_speed, warnings)
    source = [f"{p.cpu_name or 'unnamed CPU'} (speed {p.cpu_speed:g})" for p in profiles]
    profile = Profile(
        model=profiles[0].model,
        options=profiles[0].options,
        parameters=_carried_estimates(carried, profiles[0]),
        cpu_name=cpu_name,
        cpu_speed=cpu_speed,
        extrapolated_from=source,
        shared_exponent=[names for names in shared.values() if len(names) > 1],
        # The fit's residual scatter (a prediction band's) is relative for a load test: it carries over.
        statistics=profiles[0].statistics if len(profiles) == 1 else None,
    )
    return Extrapolation(profile, tuple(carried), tuple(warnings))


def _carry(profiles: Sequence[Profile], speeds: np.ndarray, cpu_speed: float,
           warnings: list[str]) -> tuple[list[ParameterExtrapolation], dict[tuple[float, float], list[str]]]:
    """Each parameter carried to ``cpu_speed`` by its CPU scaling (a power law fitted over two CPUs or
    more, else its declared exponent range), and the names sharing one exponent range when one CPU is given."""
    distinct = np.unique(speeds).size
    carried = []
    shared: dict[tuple[float, float], list[str]] = {}
    for name, first in profiles[0].parameters.items():
        estimates = [p.parameters[name] for p in profiles]
        if first.cpu_scaling == "power" and distinct >= 2:
            carried.append(_power_from_several(name, estimates, speeds, cpu_speed, warnings))
        elif first.cpu_scaling == "power":
            pooled = _linear(name, estimates, speeds, speeds[0], False, [])
            half = pooled.ci_high - pooled.value
            estimate = first.model_copy(update={
                "value": pooled.value, "stderr": half / NORMAL_QUANTILE if math.isfinite(half) else None,
                "ci_low": None, "ci_high": None,
            })
            carried.append(_power_from_one(name, estimate, float(speeds[0]), cpu_speed))
            shared.setdefault(tuple(sorted(first.exponent_bounds)), []).append(name)
        elif first.cpu_scaling == "fixed" and len(profiles) == 1:
            # Nothing about it changes with the CPU: the fit's own interval stays as it was (a whole
            # number's plausible set, a profile-likelihood interval), not re-drawn symmetric about the value.
            carried.append(ParameterExtrapolation(name, "fixed", first.value, _end(first.ci_low, first.value),
                                                  _end(first.ci_high, first.value), first.unit))
        else:
            carried.append(_linear(name, estimates, speeds, cpu_speed, first.cpu_scaling == "inverse", warnings))
    return carried, shared


def _end(bound: float | None, value: float) -> float:
    """An interval's end as stated (NaN when the profile states none, as for a held value)."""
    return math.nan if bound is None else float(bound)


def _carried_estimates(carried: Sequence[ParameterExtrapolation], first: Profile) -> dict[str, ParameterEstimate]:
    """The carried values as a profile's estimates: the first profile's, with the new value and interval."""
    parameters = {}
    for item, estimate in zip(carried, first.parameters.values()):
        if (item.value, item.ci_low, item.ci_high) == (estimate.value, estimate.ci_low, estimate.ci_high):
            parameters[item.name] = estimate  # carried unchanged (a CPU-independent parameter)
            continue
        defined = math.isfinite(item.ci_low) and math.isfinite(item.ci_high)
        parameters[item.name] = estimate.model_copy(
            update={
                "value": item.value,
                "ci_low": item.ci_low if defined else None,
                "ci_high": item.ci_high if defined else None,
                "stderr": (item.ci_high - item.ci_low) / (2 * NORMAL_QUANTILE) if defined else None,
                # A declared value carried to another CPU becomes uncertain: the exponent range
                # gives it an interval, and every answer built on it must carry that band.
                "vary": estimate.vary or (defined and item.ci_high > item.ci_low),
            }
        )
    return parameters
