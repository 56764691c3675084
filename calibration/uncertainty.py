"""Carry a profile's parameter uncertainty through any what-if.

Two routes, chosen by what the profile knows:

- A fitted profile stores its parameter covariance C and the quantile q of
  its 95 % intervals. The answer y(p) then gets the same band as
  :meth:`FitResult.predict`: y +/- q sqrt(g C g^T), g = dy/dp by central
  differences (the delta method, correlations included).
- A profile without a covariance (an extrapolation to another CPU, whose
  intervals may be asymmetric) is propagated through its interval ends: each
  parameter is moved, one at a time, to both ends of its interval; per
  parameter the downward and upward changes of y are combined in
  quadrature. For one parameter and a monotone answer this is exact: the
  band is the image of the interval. Parameters that share one unknown CPU
  exponent (``Profile.shared_exponent``) move together, as one: all to
  their low ends, then all to their high ends, so the band spans both ends
  of the declared range (their own fit intervals move with them, which
  widens the band by at most their quadrature sum, on the safe side).

Two bands (``band``): ``parameter`` (the default) carries the parameters'
uncertainty only: where the model's mean answer lies. ``prediction`` adds
the fit's residual scatter in quadrature, half-width sqrt(h^2 + (q s)^2),
to every answer named like a fitted column (``scatter_columns`` maps other
names): where a new measurement lies, so a model that misfits its own data
does not look precise. s is the residual RMS scaled by sqrt(n / dof), taken
relative to the value for families fitted on relative errors (load tests:
noise proportional to the value), absolute otherwise.

A parameter whose interval is undefined (an exact fit with no degrees of
freedom) makes every band unbounded: the profile cannot bound the answer,
and the band says so (infinite; ``null`` in JSON). An answer that stops
existing inside an interval (a service rate too low for the offered load)
makes its band unbounded too. Everything is vectorised: ``evaluate`` may
return arrays, and each element gets its own band.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import numpy as np

from iosizer.calibration.fit import NORMAL_QUANTILE
from iosizer.calibration.profile import Profile
from iosizer.errors import IosizerError

Band = dict[str, tuple[np.ndarray, np.ndarray]]


def _interval(estimate: Any) -> tuple[float, float] | None:
    """The stated 95 % interval, value +/- q se when only se is given, None if undefined."""
    if estimate.ci_low is not None and estimate.ci_high is not None:
        return (estimate.ci_low, estimate.ci_high)
    if estimate.stderr is not None and math.isfinite(estimate.stderr):
        half = NORMAL_QUANTILE * estimate.stderr
        return (estimate.value - half, estimate.value + half)
    return None


def _numeric(answer: Mapping[str, Any]) -> dict[str, np.ndarray]:
    out = {}
    for key, value in answer.items():
        array = np.asarray(value)
        if array.dtype.kind in "fiu":
            out[key] = array.astype(np.float64)
    return out


def _unbounded(centre: Mapping[str, np.ndarray]) -> Band:
    return {k: (np.full_like(v, -np.inf), np.full_like(v, np.inf)) for k, v in centre.items()}


BANDS = ("parameter", "prediction")


def propagate(
    profile: Profile, evaluate: Callable[[Mapping[str, float]], Mapping[str, Any]], band: str = "parameter",
    scatter_columns: Mapping[str, str] | None = None,
) -> Band:
    """95 % band (low, high) of each numeric output of ``evaluate(params)``; ``band``: see the module."""
    if band not in BANDS:
        raise ValueError(f"band must be one of {', '.join(BANDS)}, got {band!r}")
    params = profile.values()
    centre = _numeric(evaluate(params))
    uncertain = {n: e for n, e in profile.parameters.items() if e.vary}
    if any(_interval(e) is None for e in uncertain.values()):
        return _unbounded(centre)
    covariance = _covariance(profile)
    if covariance is not None:
        bands = _delta(profile, evaluate, params, centre, covariance)
    else:
        bands = _endpoints(profile, evaluate, params, centre)
    return with_scatter(profile, centre, bands, scatter_columns) if band == "prediction" else bands


def scatter(profile: Profile, column: str) -> tuple[float, bool] | None:
    """The fit's residual scatter in ``column`` as (s, relative), s = RMS x sqrt(n / dof); None if unknown."""
    from iosizer.model.registry import declaration, family_names

    statistics = profile.statistics
    fit = statistics.columns.get(column) if statistics is not None else None
    if fit is None or statistics is None or statistics.dof <= 0:
        return None
    inflate = math.sqrt(statistics.n_points / statistics.dof)
    family = declaration(profile.model) if profile.model in family_names() else None
    relative = bool(family is not None and family.fit is not None and family.fit.relative)
    if relative and fit.relative_rmse is not None:
        return fit.relative_rmse * inflate, True
    return fit.rmse * inflate, False


def with_scatter(profile: Profile, centre: Mapping[str, np.ndarray], bands: Band,
                 scatter_columns: Mapping[str, str] | None = None) -> Band:
    """``bands`` widened by the residual scatter of the fitted column each answer is named after."""
    quantile = NORMAL_QUANTILE
    if profile.statistics is not None and profile.statistics.quantile is not None:
        quantile = profile.statistics.quantile
    out = dict(bands)
    for key, (low, high) in bands.items():
        found = scatter(profile, (scatter_columns or {}).get(key, key))
        if found is None:
            continue
        s, relative = found
        value = centre[key]
        spread = quantile * s * (np.abs(value) if relative else 1.0)
        out[key] = (value - np.hypot(value - low, spread), value + np.hypot(high - value, spread))
    return out


def _covariance(profile: Profile) -> np.ndarray | None:
    if profile.covariance is None or profile.statistics is None or profile.statistics.quantile is None:
        return None
    matrix = np.array([[np.nan if v is None else v for v in row] for row in profile.covariance], dtype=float)
    return matrix if np.all(np.isfinite(matrix)) else None


def _delta(
    profile: Profile, evaluate: Callable, params: Mapping[str, float], centre: dict[str, np.ndarray],
    covariance: np.ndarray,
) -> Band:
    names = profile.covariance_parameters
    gradients = {k: [] for k in centre}
    for i, name in enumerate(names):
        step = 1e-6 * max(abs(params[name]), math.sqrt(max(covariance[i, i], 0.0)), 1e-300)
        sides = {}
        for sign in (1.0, -1.0):
            try:
                sides[sign] = _numeric(evaluate({**params, name: params[name] + sign * step}))
            except (IosizerError, ValueError):  # pydantic refuses a value outside its domain too
                sides[sign] = None
        if sides[1.0] is None and sides[-1.0] is None:
            return _unbounded(centre)
        for key in centre:
            if sides[1.0] is not None and sides[-1.0] is not None:
                slope = (sides[1.0][key] - sides[-1.0][key]) / (2 * step)
            elif sides[1.0] is not None:
                slope = (sides[1.0][key] - centre[key]) / step
            else:
                slope = (centre[key] - sides[-1.0][key]) / step
            gradients[key].append(slope)
    quantile = profile.statistics.quantile
    band = {}
    for key, value in centre.items():
        g = np.stack(gradients[key], axis=-1)  # (..., p)
        variance = np.einsum("...i,ij,...j->...", g, covariance, g)
        half = quantile * np.sqrt(np.maximum(variance, 0.0))
        band[key] = (value - half, value + half)
    return band


def _units(profile: Profile) -> list[list[str]]:
    """The uncertain parameters as independent units: a shared-exponent group is one unit."""
    varying = [n for n, e in profile.parameters.items() if e.vary]
    grouped = [[n for n in group if n in varying] for group in profile.shared_exponent]
    grouped = [g for g in grouped if g]
    taken = {n for g in grouped for n in g}
    return grouped + [[n] for n in varying if n not in taken]


def _endpoints(
    profile: Profile, evaluate: Callable, params: Mapping[str, float], centre: dict[str, np.ndarray]
) -> Band:
    down = {k: np.zeros_like(v) for k, v in centre.items()}
    up = {k: np.zeros_like(v) for k, v in centre.items()}
    for names in _units(profile):
        intervals = {n: _interval(profile.parameters[n]) for n in names}
        for side in (0, 1):
            ends = {n: interval[side] for n, interval in intervals.items()
                    if interval is not None and interval[side] != profile.parameters[n].value}
            if not ends:
                continue
            try:
                moved = _numeric(evaluate({**params, **ends}))
            except (IosizerError, ValueError):  # pydantic refuses a value outside its domain too
                return _unbounded(centre)
            for key, value in centre.items():
                change = moved[key] - value
                down[key] = np.hypot(down[key], np.minimum(change, 0.0))
                up[key] = np.hypot(up[key], np.maximum(change, 0.0))
    return {k: (v - down[k], v + up[k]) for k, v in centre.items()}
