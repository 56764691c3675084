"""Carry a profile's parameter uncertainty through any what-if.

Delta method with independent parameters: for an output y(p),
var(y) ~ sum_i (dy/dp_i)^2 se_i^2, se_i each parameter's standard error from
the profile, dy/dp_i by central differences. The band is y +/- 1.96 sd(y),
the same 95 % convention as the fit. Independence is an approximation where
a fit left parameters correlated; it is exact for a single parameter.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

import numpy as np

from iosizer.calibration.profile import Profile
from iosizer.errors import IosizerError

_Z95 = 1.959963984540054


def _standard_error(profile: Profile, name: str) -> float:
    estimate = profile.parameters[name]
    if estimate.stderr is not None and math.isfinite(estimate.stderr):
        return estimate.stderr
    if estimate.ci_low is not None and estimate.ci_high is not None:
        return (estimate.ci_high - estimate.ci_low) / (2 * _Z95)
    return 0.0


def _slopes(
    evaluate: Callable[[Mapping[str, float]], Mapping[str, float]],
    params: Mapping[str, float],
    name: str,
    step: float,
    centre: Mapping[str, float],
) -> dict[str, float]:
    """Central differences; one-sided where a step leaves the model's domain
    (a service rate stepped below stability raises an IosizerError)."""
    value = params[name]
    points = {}
    for sign in (+1.0, -1.0):
        try:
            points[sign] = evaluate({**params, name: value + sign * step})
        except IosizerError:
            points[sign] = None
    if points[1.0] is not None and points[-1.0] is not None:
        return {k: (float(points[1.0][k]) - float(points[-1.0][k])) / (2 * step) for k in centre}
    side = 1.0 if points[1.0] is not None else -1.0
    if points[side] is None:
        return dict.fromkeys(centre, math.nan)
    return {k: (float(points[side][k]) - centre[k]) / (side * step) for k in centre}


def propagate(
    profile: Profile,
    evaluate: Callable[[Mapping[str, float]], Mapping[str, float]],
) -> dict[str, tuple[float, float]]:
    """95 % band (low, high) of each output of ``evaluate(params)``."""
    params = profile.values()
    centre = {k: float(v) for k, v in evaluate(params).items()}
    variance = dict.fromkeys(centre, 0.0)
    for name, value in params.items():
        se = _standard_error(profile, name)
        if se <= 0:
            continue
        step = min(se, 0.25 * abs(value)) if value else se
        slopes = _slopes(evaluate, params, name, step, centre)
        for key in centre:
            variance[key] += (slopes[key] * se) ** 2
    return {
        key: (centre[key] - _Z95 * math.sqrt(v), centre[key] + _Z95 * math.sqrt(v))
        for key, v in variance.items()
        if np.isfinite(v)
    }
