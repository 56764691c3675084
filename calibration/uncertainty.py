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
return arrays, and each element gets its own band. The moved parameter sets
(2 per parameter, or 2 per unit) are solved in one vectorised call where the
caller's ``evaluate_stack`` can (:func:`stacked`), else one at a time: the
band is the same to the last bit either way.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Hashable, Mapping, Sequence

import numpy as np

from iosizer.calibration.fit import NORMAL_QUANTILE
from iosizer.errors import IosizerError

if TYPE_CHECKING:  # annotations only: a what-if without a profile never loads pydantic's profile model
    from iosizer.calibration.profile import Profile

Band = dict[str, tuple[np.ndarray, np.ndarray]]
#: Answers to several parameter sets at once, in order; None where they cannot be had in one call.
Stack = Callable[[Sequence[Mapping[str, Any]]], "list[dict[str, np.ndarray]] | None"]


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
    scatter_columns: Mapping[str, str] | None = None, evaluate_stack: Stack | None = None,
) -> Band:
    """95 % band (low, high) of each numeric output of ``evaluate(params)``; ``band``: see the module.
    ``evaluate_stack``: the moved parameter sets' answers in one call (:func:`stacked`), or None."""
    if band not in BANDS:
        raise ValueError(f"band must be one of {', '.join(BANDS)}, got {band!r}")
    params = profile.values()
    centre = _numeric(evaluate(params))
    uncertain = {n: e for n, e in profile.parameters.items() if e.vary}
    if any(_interval(e) is None for e in uncertain.values()):
        return _unbounded(centre)
    covariance = _covariance(profile)
    if covariance is not None:
        bands = _delta(profile, evaluate, params, centre, covariance, evaluate_stack)
    else:
        bands = _endpoints(profile, evaluate, params, centre, evaluate_stack)
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
    covariance: np.ndarray, evaluate_stack: Stack | None = None,
) -> Band:
    names = profile.covariance_parameters
    steps = [1e-6 * max(abs(params[name]), math.sqrt(max(covariance[i, i], 0.0)), 1e-300)
             for i, name in enumerate(names)]
    moved = _answers(evaluate, [{**params, name: params[name] + sign * step}
                                for name, step in zip(names, steps) for sign in (1.0, -1.0)], evaluate_stack)
    gradients = {k: [] for k in centre}
    for i, step in enumerate(steps):
        up, down = moved[2 * i], moved[2 * i + 1]
        if up is None and down is None:
            return _unbounded(centre)
        for key in centre:
            if up is not None and down is not None:
                slope = (up[key] - down[key]) / (2 * step)
            elif up is not None:
                slope = (up[key] - centre[key]) / step
            else:
                slope = (centre[key] - down[key]) / step
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
    profile: Profile, evaluate: Callable, params: Mapping[str, float], centre: dict[str, np.ndarray],
    evaluate_stack: Stack | None = None,
) -> Band:
    moves = []
    for names in _units(profile):
        intervals = {n: _interval(profile.parameters[n]) for n in names}
        for side in (0, 1):
            ends = {n: interval[side] for n, interval in intervals.items()
                    if interval is not None and interval[side] != profile.parameters[n].value}
            if ends:
                moves.append({**params, **ends})
    answers = _answers(evaluate, moves, evaluate_stack)
    if any(moved is None for moved in answers):
        return _unbounded(centre)
    down = {k: np.zeros_like(v) for k, v in centre.items()}
    up = {k: np.zeros_like(v) for k, v in centre.items()}
    for moved in answers:
        for key, value in centre.items():
            change = moved[key] - value
            down[key] = np.hypot(down[key], np.minimum(change, 0.0))
            up[key] = np.hypot(up[key], np.maximum(change, 0.0))
    return {k: (v - down[k], v + up[k]) for k, v in centre.items()}


def _answers(evaluate: Callable, moves: list[dict[str, Any]],
             evaluate_stack: Stack | None) -> list[dict[str, np.ndarray] | None]:
    """Each moved parameter set's numeric answer, None where the model refuses it: all in one call where
    ``evaluate_stack`` can, else one at a time."""
    if evaluate_stack is not None and moves:
        found = evaluate_stack(moves)
        if found is not None:
            return list(found)
    answers: list[dict[str, np.ndarray] | None] = []
    for move in moves:
        try:
            answers.append(_numeric(evaluate(move)))
        except (IosizerError, ValueError):  # pydantic refuses a value outside its domain too
            answers.append(None)
    return answers


#: (key, names stacked) found not to stack (a solve scalar in one of them): not tried again.
_UNSTACKABLE: set[Hashable] = set()


def stacked(solve: Callable[[Mapping[str, Any]], Mapping[str, Any]], values: Mapping[str, Any],
            centre: Mapping[str, Any], ndim: int, key: Hashable = None) -> Stack:
    """``evaluate_stack`` for :func:`propagate` from a vectorised ``solve(values)`` whose inputs have
    ``ndim`` axes and whose answer at ``values`` is ``centre``.

    The parameter sets (each laid over ``values``) are stacked along a new
    leading axis, the profile's own values first, and solved once. Used only
    when that first row is ``centre`` bit for bit and every answer has one
    row per set (a model that broadcasts over its parameters); otherwise
    None: a solve that refuses arrays (``float(value)``, ``if value > 0``)
    or mixes the rows is solved one set at a time, and is not tried again
    with the same ``key`` and names moved. A model's error falls back too
    (not remembered), so the loop finds which set the model refuses.
    """
    base = _numeric(centre)

    def evaluate_stack(moves: Sequence[Mapping[str, Any]]) -> list[dict[str, np.ndarray]] | None:
        rows = [values, *({**values, **move} for move in moves)]
        together, moved = dict(values), []
        for name in sorted({n for move in moves for n in move}):
            column = [row.get(name) for row in rows]
            if all(_same(v, column[1]) for v in column[2:]) and _equal(column[0], column[1]):
                # One value in every moved set (4.0 where the values say 4): the first row takes it too,
                # and the check of that row below says whether the answer is still the same.
                together[name] = column[1]
                continue
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in column):
                return None
            together[name] = np.asarray(column, dtype=np.float64).reshape((len(rows),) + (1,) * ndim)
            moved.append(name)
        tried = None if key is None else (key, tuple(moved))
        if tried in _UNSTACKABLE:
            return None
        try:
            solved = _numeric(solve(together))
            answers = [{k: _row(solved[k], i, len(rows), like, ndim) for k, like in base.items()}
                       for i in range(len(rows))]
        except IosizerError:
            return None  # a set the model refuses: the loop finds which
        except Exception:  # noqa: BLE001  (a scalar-only solve: TypeError, ValueError, a shape)
            answers = None
        if answers is None or not all(np.array_equal(answers[0][k], v, equal_nan=True) for k, v in base.items()):
            if tried is not None:
                _UNSTACKABLE.add(tried)
            return None
        return answers[1:]

    return evaluate_stack


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and _equal(a, b))


def _equal(a: Any, b: Any) -> bool:
    """Equal plain values (a string, a number); never an array."""
    return a is b or (isinstance(a, (str, int, float)) and isinstance(b, (str, int, float)) and a == b)


def _row(solved: np.ndarray, i: int, count: int, like: np.ndarray, ndim: int) -> np.ndarray:
    """Row ``i`` of a stacked answer (leading axis: one per set, or 1 where no set moves it), in the shape
    of the single answer ``like``; a ValueError where it has no such row."""
    solved = solved.reshape((1,) * (ndim + 1 - solved.ndim) + solved.shape)
    if solved.ndim > ndim + 1 or solved.shape[0] not in (1, count):
        raise ValueError(f"a stacked answer of shape {solved.shape} for {count} sets of inputs of {ndim} axes")
    row = solved[0] if solved.shape[0] == 1 else solved[i]
    if row.shape == like.shape:
        return row
    return row.reshape(like.shape) if row.size == like.size else np.broadcast_to(row, like.shape)
