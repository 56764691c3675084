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
    with m - 2 degrees of freedom (normal with exactly two).
  * One CPU: e is unknown; the prediction spans the declared
    ``exponent_bounds`` (for example 0 = I/O-bound, -1 = CPU-bound demand),
    widened by the profile's own interval, and the central value uses the
    mid exponent. The spread between the bounding assumptions is reported.

Intervals are 95 %, as everywhere in iosizer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from iosizer.calibration.profile import ParameterEstimate, Profile
from iosizer.errors import ProfileError

_Z95 = 1.959963984540054


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


def _stderr(estimate: ParameterEstimate) -> float:
    """Standard error from the profile: stored, or from its 95 % interval."""
    if estimate.stderr is not None and estimate.stderr > 0:
        return estimate.stderr
    if estimate.ci_low is not None and estimate.ci_high is not None:
        return max((estimate.ci_high - estimate.ci_low) / (2 * _Z95), 0.0)
    return 0.0


def _weights(variances: np.ndarray) -> np.ndarray:
    """Inverse-variance weights; equal weights when no profile states an error."""
    if np.all(variances <= 0):
        return np.ones_like(variances)
    floor = np.min(variances[variances > 0])
    return 1.0 / np.maximum(variances, floor)


def _check(profiles: Sequence[Profile], cpu_speed: float) -> None:
    if not profiles:
        raise ProfileError("extrapolation needs at least one profile")
    if not (math.isfinite(cpu_speed) and cpu_speed > 0):
        raise ProfileError(f"--cpu-speed must be > 0, got {cpu_speed}")
    first = profiles[0]
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


def _linear(
    name: str, estimates: list[ParameterEstimate], speeds: np.ndarray, target: float, inverse: bool
) -> ParameterExtrapolation:
    values = np.array([e.value for e in estimates])
    errors = np.array([_stderr(e) for e in estimates])
    factor = speeds / target if inverse else np.ones_like(speeds)
    carried, carried_err = values * factor, errors * factor
    weights = _weights(carried_err**2)
    value = float(np.sum(weights * carried) / np.sum(weights))
    stated = np.any(carried_err > 0)
    error = float(1.0 / math.sqrt(np.sum(1.0 / np.maximum(carried_err**2, 1e-300)))) if stated else 0.0
    scatter = float(np.std(carried, ddof=1)) if carried.size > 1 else 0.0
    half = _Z95 * max(error, scatter / math.sqrt(carried.size))
    return ParameterExtrapolation(
        name, "inverse" if inverse else "fixed", value, value - half, value + half, estimates[0].unit
    )


def _power_from_several(
    name: str, estimates: list[ParameterExtrapolation | ParameterEstimate], speeds: np.ndarray,
    target: float,
) -> ParameterExtrapolation:
    values = np.array([e.value for e in estimates])
    if np.any(values <= 0):
        raise ProfileError(f"parameter '{name}' must be > 0 in every profile for a power-law fit")
    log_errors = np.array([_stderr(e) for e in estimates]) / values
    weights = _weights(log_errors**2)
    design = np.column_stack([np.ones_like(speeds), np.log(speeds)])
    normal = design.T @ (weights[:, None] * design)
    covariance = np.linalg.inv(normal)
    coefficients = covariance @ design.T @ (weights * np.log(values))
    m = speeds.size
    if m > 2:
        residuals = np.log(values) - design @ coefficients
        chi2 = float(np.sum(weights * residuals**2)) / (m - 2)
        covariance = covariance * max(chi2, 1.0) if np.any(log_errors > 0) else covariance * chi2
        from scipy.special import stdtrit

        quantile = float(stdtrit(m - 2, 0.975))
    else:
        quantile = _Z95
    point = np.array([1.0, math.log(target)])
    log_value = float(point @ coefficients)
    sd = math.sqrt(max(float(point @ covariance @ point), 0.0))
    exponent_sd = math.sqrt(max(covariance[1, 1], 0.0))
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
    relative = _Z95 * _stderr(estimate) / estimate.value if estimate.value > 0 else 0.0
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
    _check(profiles, cpu_speed)
    speeds = np.array([p.cpu_speed for p in profiles], dtype=np.float64)
    distinct = np.unique(speeds).size
    carried = []
    for name, first in profiles[0].parameters.items():
        estimates = [p.parameters[name] for p in profiles]
        if first.cpu_scaling == "power" and distinct >= 2:
            carried.append(_power_from_several(name, estimates, speeds, cpu_speed))
        elif first.cpu_scaling == "power":
            pooled = _linear(name, estimates, speeds, speeds[0], inverse=False)
            estimate = first.model_copy(
                update={"value": pooled.value, "stderr": (pooled.ci_high - pooled.value) / _Z95}
            )
            carried.append(_power_from_one(name, estimate, float(speeds[0]), cpu_speed))
        else:
            carried.append(
                _linear(name, estimates, speeds, cpu_speed, inverse=first.cpu_scaling == "inverse")
            )

    parameters = {}
    for item, first in zip(carried, profiles[0].parameters.values()):
        parameters[item.name] = first.model_copy(
            update={
                "value": item.value,
                "ci_low": item.ci_low,
                "ci_high": item.ci_high,
                "stderr": (item.ci_high - item.ci_low) / (2 * _Z95),
            }
        )
    source = [f"{p.cpu_name or 'unnamed CPU'} (speed {p.cpu_speed:g})" for p in profiles]
    profile = Profile(
        model=profiles[0].model,
        options=profiles[0].options,
        parameters=parameters,
        cpu_name=cpu_name,
        cpu_speed=cpu_speed,
        extrapolated_from=source,
    )
    return Extrapolation(profile, tuple(carried))
