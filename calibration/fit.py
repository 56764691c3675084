"""Bounded non-linear least squares for any model, with honest uncertainty.

A model is a plain function ``model(params, inputs) -> {observed: array}``
(params a name -> float mapping, inputs name -> array); :func:`fit` wraps it,
never the other way round. Parameters are declared with
:class:`Parameter` (initial value, bounds, free or fixed, unit, how it scales
with CPU speed). The free ones are fitted with
:func:`scipy.optimize.least_squares` (trust-region reflective, which honours
the bounds), using an analytic Jacobian when the family declares one (numpy
closed forms, checked against sympy's derivatives in the tests) and finite
differences otherwise.

Residuals. One observed column: r_i = sqrt(w_i) (model_i - observed_i);
relative: r_i = sqrt(w_i) (model_i - observed_i) / observed_i.
Several observed columns of different units (throughput and response time):
each column's residuals are divided by that column's RMS observed value, so
the fit balances relative errors. With a ``stderr`` column:
r_i = (model_i - observed_i) / stderr_i (chi-square).

Uncertainty: one convention, :data:`CONFIDENCE_CONVENTION`, stated in every
report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from iosizer.errors import CalibrationError, IosizerError, UnstableQueueError
from iosizer.model.family import CpuScaling, JacobianFunction

CONFIDENCE_LEVEL = 0.95
#: Two-sided normal quantile of CONFIDENCE_LEVEL: Phi^-1(0.975). The one
#: place it is defined; intervals elsewhere are converted with it.
NORMAL_QUANTILE = 1.959963984540054
CONFIDENCE_CONVENTION = (
    "Intervals are 95 % confidence intervals: estimate +/- t(0.975, n - p) x standard "
    "error, from the covariance s^2 (J^T J)^-1 at the optimum (s^2 the residual "
    "variance; with a stderr column the covariance is (J^T J)^-1 and the normal "
    "quantile is used), clipped to the parameter's bounds."
)

#: Singular values below this fraction of the largest mark unidentifiable directions.
_RANK_TOLERANCE = 1e-7

ModelFunction = Callable[[Mapping[str, float], Mapping[str, np.ndarray]], Mapping[str, np.ndarray]]

@dataclass(frozen=True)
class Parameter:
    """A model parameter: initial (or fixed) value, bounds, unit, CPU scaling."""

    name: str
    value: float
    lower: float = -math.inf
    upper: float = math.inf
    vary: bool = True
    unit: str = ""
    description: str = ""
    cpu_scaling: CpuScaling = CpuScaling.fixed
    #: Bounding exponents of a power-law scaling when only one CPU is known.
    exponent_bounds: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Prediction:
    """Model value at new inputs with its 95 % confidence band (per observed column)."""

    value: dict[str, np.ndarray]
    lower: dict[str, np.ndarray]
    upper: dict[str, np.ndarray]


@dataclass(frozen=True)
class ColumnStatistics:
    rmse: float
    r2: float
    n_points: int


@dataclass(frozen=True)
class FitResult:
    """A calibrated model: values, intervals, goodness of fit, residuals."""

    model_name: str
    parameters: tuple[Parameter, ...]
    params: dict[str, float]
    stderr: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    covariance: np.ndarray
    free: tuple[str, ...]
    statistics: dict[str, ColumnStatistics]
    residuals: dict[str, np.ndarray]
    predicted: dict[str, np.ndarray]
    observed: dict[str, np.ndarray]
    inputs: dict[str, np.ndarray]
    n_points: int
    dof: int
    warnings: tuple[str, ...]
    absolute_sigma: bool
    cost: float
    model: ModelFunction = field(repr=False, compare=False)

    @property
    def primary(self) -> str:
        return next(iter(self.statistics))

    @property
    def rmse(self) -> float:
        """RMSE of the primary (first) observed column, in its unit."""
        return self.statistics[self.primary].rmse

    @property
    def r2(self) -> float:
        return self.statistics[self.primary].r2

    def predict(self, inputs: Mapping[str, object]) -> Prediction:
        """Model at ``inputs`` with a 95 % band from the parameter covariance.

        Band: value +/- q sqrt(g C g^T) (delta method), g the gradient of the
        prediction in the free parameters by central differences.
        """
        arrays = {k: np.asarray(v, dtype=np.float64) for k, v in inputs.items()}
        value = {k: np.asarray(v, dtype=np.float64) for k, v in self.model(self.params, arrays).items()}
        gradients = _gradients(self.model, self.params, self.free, self.parameters, arrays)
        quantile = interval_quantile(self.dof, self.absolute_sigma)
        lower, upper = {}, {}
        for name, centre in value.items():
            g = gradients[name]
            if not self.free:
                half = np.zeros_like(centre)
            else:
                half = quantile * np.sqrt(np.maximum(np.einsum("ni,ij,nj->n", g, self.covariance, g), 0.0))
            lower[name] = centre - half.reshape(centre.shape)
            upper[name] = centre + half.reshape(centre.shape)
        return Prediction(value, lower, upper)

    def report(self) -> str:
        """A readable fit report: parameters, intervals, fit statistics, warnings."""
        by_name = {p.name: p for p in self.parameters}
        lines = [f"Fit of model '{self.model_name}' to {self.n_points} points ({self.dof} degrees of freedom)"]
        for name, value in self.params.items():
            low, high = self.intervals[name]
            unit = by_name[name].unit
            status = "" if by_name[name].vary else "  (fixed)"
            lines.append(f"  {name:<24} {value:>14.6g} {unit:<8} [{low:.6g}, {high:.6g}]{status}")
        for column, stats in self.statistics.items():
            lines.append(f"  {column}: RMSE {stats.rmse:.6g}, R^2 {stats.r2:.6f} ({stats.n_points} points)")
        lines.extend(f"  warning: {w}" for w in self.warnings)
        lines.append(CONFIDENCE_CONVENTION)
        return "\n".join(lines)


def interval_quantile(dof: int, absolute_sigma: bool) -> float:
    """t(0.975, dof) for a scaled covariance, the normal quantile for known errors."""
    from scipy.special import stdtrit

    if absolute_sigma:
        return NORMAL_QUANTILE
    return float(stdtrit(dof, 0.5 + CONFIDENCE_LEVEL / 2)) if dof > 0 else math.inf


def _with(params: Mapping[str, float], names: Sequence[str], values: np.ndarray) -> dict[str, float]:
    updated = dict(params)
    updated.update({n: float(v) for n, v in zip(names, values)})
    return updated


def _gradients(
    model: ModelFunction,
    params: Mapping[str, float],
    free: Sequence[str],
    parameters: Sequence[Parameter],
    inputs: Mapping[str, np.ndarray],
) -> dict[str, np.ndarray]:
    """d model / d free parameters by central differences, staying inside the bounds."""
    bounds = {p.name: (p.lower, p.upper) for p in parameters}
    base = model(params, inputs)
    columns: dict[str, list[np.ndarray]] = {k: [] for k in base}
    for name in free:
        value = params[name]
        step = 1e-6 * max(abs(value), 1e-12)
        low, high = bounds[name]
        up = min(value + step, high)
        down = max(value - step, low)
        plus = model(_with(params, [name], [up]), inputs)
        minus = model(_with(params, [name], [down]), inputs)
        for k in base:
            columns[k].append(
                (np.asarray(plus[k], dtype=np.float64) - np.asarray(minus[k], dtype=np.float64)) / (up - down)
            )
    return {
        k: np.stack([c.ravel() for c in v], axis=1) if v else np.zeros((np.size(base[k]), 0))
        for k, v in columns.items()
    }


def fit(
    model: ModelFunction,
    parameters: Sequence[Parameter],
    inputs: Mapping[str, np.ndarray],
    observed: Mapping[str, np.ndarray],
    *,
    weights: np.ndarray | None = None,
    stderr: np.ndarray | None = None,
    jacobian: JacobianFunction | None = None,
    model_name: str = "model",
    relative: bool = False,
    bounds: np.ndarray | None = None,
    max_seconds: float | None = None,
) -> FitResult:
    """Fit the free ``parameters`` of ``model`` to ``observed`` at ``inputs``.

    ``observed`` maps each observed column to an array (NaN where a row did
    not measure it). ``weights`` are relative row weights; ``stderr`` absolute
    standard errors of a single observed column. ``relative`` fits relative
    errors, (model - observed) / observed, the right choice when measurement
    noise is proportional to the value (load tests); it also makes columns of
    different units comparable without further scaling. ``bounds`` marks rows
    of a single observed column whose value is an upper (+1) or lower (-1)
    bound: their residual counts only when the model crosses the bound.
    ``max_seconds`` bounds the fit's time: past it, the fit stops with a
    :class:`CalibrationError` saying so (a costly model, many columns).
    Raises
    :class:`CalibrationError` when the fit cannot be carried out.
    """
    parameters = tuple(parameters)
    _check_declarations(parameters)
    free = tuple(p.name for p in parameters if p.vary)
    start = {p.name: float(p.value) for p in parameters}
    inputs = {k: np.asarray(v, dtype=np.float64) for k, v in inputs.items()}
    observed, masks, n_points = _observations(observed, len(free), stderr, bounds, relative)
    row_scale = np.sqrt(weights) if weights is not None else None
    if stderr is not None:
        row_scale = 1.0 / stderr
    objective = _Residuals(model, model_name, start, free, inputs, observed, masks,
                           _column_scales(observed, masks, relative, stderr is not None), row_scale, bounds,
                           max_seconds)
    if free:
        best, jac_matrix, cost = _least_squares(objective, parameters, jacobian)
    else:
        best, jac_matrix = start, np.zeros((n_points, 0))
        cost = float(np.sum(objective(np.array([])) ** 2))

    dof = n_points - len(free)
    covariance, errors, warnings = _uncertainty(objective, jac_matrix, cost, dof, free, stderr is not None)
    intervals = _intervals(parameters, best, errors, interval_quantile(dof, stderr is not None), warnings)
    predicted = {k: np.asarray(v, dtype=np.float64) for k, v in model(best, inputs).items()}
    residual_columns = objective.one_sided(predicted)
    return FitResult(
        model_name=model_name, parameters=parameters, params=best, stderr=errors,
        intervals=intervals, covariance=covariance, free=free,
        statistics=_column_statistics(observed, masks, residual_columns),
        residuals=residual_columns, predicted=predicted, observed=observed, inputs=inputs,
        n_points=n_points, dof=dof, warnings=tuple(warnings), absolute_sigma=stderr is not None,
        cost=cost, model=model,
    )


def _observations(
    observed: Mapping[str, np.ndarray], n_free: int, stderr: np.ndarray | None, bounds: np.ndarray | None,
    relative: bool,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    """The observed columns that carry a value (float64), where each has one, and how many values: a
    :class:`CalibrationError` when they cannot be fitted as asked."""
    observed = {k: np.asarray(v, dtype=np.float64) for k, v in observed.items()}
    if stderr is not None and len(observed) != 1:
        raise CalibrationError("a stderr column needs exactly one observed column; use 'weight' instead")
    if bounds is not None and len(observed) != 1:
        raise CalibrationError("bounded observations need exactly one observed column")
    # An optional metric the file leaves empty everywhere carries no information.
    observed = {k: v for k, v in observed.items() if np.isfinite(v).any()}
    masks = {k: np.isfinite(v) for k, v in observed.items()}
    n_points = int(sum(m.sum() for m in masks.values()))
    if n_points == 0:
        raise CalibrationError("no observed values to fit")
    if n_free > 2 * n_points + 2:  # hopeless, and possibly very slow: say so at once
        raise CalibrationError(f"{n_free} free parameters cannot be fitted to {n_points} observations")
    if relative and np.any([np.any(v[masks[k]] == 0) for k, v in observed.items()]):
        raise CalibrationError("relative residuals need non-zero observed values")
    return observed, masks, n_points


def _uncertainty(objective: _Residuals, jac_matrix: np.ndarray, cost: float, dof: int, free: tuple[str, ...],
                 absolute: bool) -> tuple[np.ndarray, dict[str, float], list[str]]:
    """The covariance of the free parameters, their standard errors and the warnings on them; undefined
    (nan) where the model passes through every point and nothing else says the measurements' error."""
    covariance, warnings = _covariance(jac_matrix, cost, dof, free, absolute)
    observed, masks = objective.observed, objective.masks
    signal = float(np.sum(objective.scaled({k: np.where(masks[k], v, 0.0) for k, v in observed.items()}) ** 2))
    if free and dof > 0 and not absolute and cost <= 1e-24 * signal:
        warnings.append(
            "the model passes through every point (zero residuals): the data carry no error "
            "estimate, so the intervals are undefined; add repeat measurements or a stderr column"
        )
        covariance = np.full_like(covariance, np.nan)
    errors = {n: (float(np.sqrt(covariance[i, i])) if np.isfinite(covariance[i, i]) else math.nan)
              for i, n in enumerate(free)}
    return covariance, errors, warnings


def _column_scales(observed: Mapping[str, np.ndarray], masks: Mapping[str, np.ndarray], relative: bool,
                   absolute: bool) -> dict[str, float | np.ndarray]:
    """What each observed column's residuals are divided by (module docstring)."""
    return {
        k: (
            1.0 if absolute  # chi-square: the stated errors are the scale
            else np.where(masks[k], np.abs(v), 1.0) if relative
            else 1.0 if len(observed) == 1
            else float(np.sqrt(np.mean(v[masks[k]] ** 2))) or 1.0
        )
        for k, v in observed.items()
    }


@dataclass
class _Residuals:
    """The fit's objective at the free parameters' values ``x``: the rows model - observed (zero where a
    bound is respected), weighted and column-scaled, measured rows only."""

    model: ModelFunction
    model_name: str
    start: Mapping[str, float]
    free: tuple[str, ...]
    inputs: Mapping[str, np.ndarray]
    observed: Mapping[str, np.ndarray]
    masks: Mapping[str, np.ndarray]
    column_scale: Mapping[str, float | np.ndarray]
    row_scale: np.ndarray | None
    bounds: np.ndarray | None
    max_seconds: float | None

    def __post_init__(self) -> None:
        import time

        self.every_row = {k: bool(m.all()) for k, m in self.masks.items()}
        self.deadline = None if self.max_seconds is None else time.monotonic() + self.max_seconds

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.scaled(self.one_sided(self.evaluate(x)), own=True)  # one_sided's arrays are new

    def scaled(self, columns: Mapping[str, np.ndarray], own: bool = False) -> np.ndarray:
        """Residual or Jacobian rows, weighted and column-scaled, measured rows only.

        At most one new array per column (a million-row fit holds few copies; none when the caller
        ``own``s the columns): scaled in place, rows picked only where some are not measured,
        joined only when there are several columns."""
        parts = []
        for k in self.observed:
            rows = np.asarray(columns[k], dtype=np.float64)
            scale = self.column_scale[k]
            if np.ndim(scale) and rows.ndim > 1:
                scale = scale[:, None]  # type: ignore[index]
            rows = np.divide(rows, scale, out=rows if own and rows.ndim == 1 else None)
            if self.row_scale is not None:
                rows *= self.row_scale if rows.ndim == 1 else self.row_scale[:, None]
            parts.append(rows if self.every_row[k] else rows[self.masks[k]])
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def one_sided(self, columns: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Residuals model - observed, zero where a bound is respected."""
        out = {}
        bounds = self.bounds
        for k, obs in self.observed.items():
            r = np.broadcast_to(np.asarray(columns[k], dtype=np.float64), obs.shape) - obs
            if bounds is not None:
                r = np.where(((bounds > 0) & (r < 0)) | ((bounds < 0) & (r > 0)), 0.0, r)
            out[k] = r
        return out

    def evaluate(self, x: np.ndarray) -> dict[str, np.ndarray]:
        import time

        if self.deadline is not None and time.monotonic() > self.deadline:
            raise CalibrationError(f"model '{self.model_name}' stopped after {self.max_seconds:g} s without "
                                   "converging; fit fewer columns (fewer percentiles)")
        try:
            return dict(self.model(_with(self.start, self.free, x), self.inputs))
        except UnstableQueueError:
            # A trial step into the unstable region: infinite residuals make
            # the trust-region solver reject the step and shrink its radius.
            return {k: np.full(v.shape, np.inf) for k, v in self.observed.items()}
        except IosizerError as error:
            raise CalibrationError(f"model '{self.model_name}' failed during the fit: {error}") from None

    def jacobian(self, jacobian: JacobianFunction) -> Callable[[np.ndarray], np.ndarray]:
        """The declared Jacobian's rows, scaled as the residuals (a respected bound contributes no slope)."""
        def jac(x: np.ndarray) -> np.ndarray:
            rows = dict(jacobian(_with(self.start, self.free, x), self.inputs))
            if self.bounds is not None:
                name = next(iter(self.observed))
                inactive = self.one_sided(self.evaluate(x))[name] == 0
                rows[name] = np.where(inactive[:, None], 0.0, rows[name])
            return self.scaled(rows)

        return jac


def _least_squares(objective: _Residuals, parameters: Sequence[Parameter],
                   jacobian: JacobianFunction | None) -> tuple[dict[str, float], np.ndarray, float]:
    """(best values, Jacobian at the optimum, cost = sum of squared residuals): trust-region reflective
    within the parameters' bounds."""
    from scipy.optimize import least_squares

    free, name = objective.free, objective.model_name
    x0 = np.array([objective.start[n] for n in free])
    lower = np.array([p.lower for p in parameters if p.vary])
    upper = np.array([p.upper for p in parameters if p.vary])
    jac: object = "2-point" if jacobian is None else objective.jacobian(jacobian)
    try:
        with np.errstate(all="ignore"):
            solution = least_squares(objective, x0, jac=jac, bounds=(lower, upper), method="trf",
                                     x_scale="jac", xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=2000)
    except (OverflowError, FloatingPointError, ZeroDivisionError) as error:
        reason = str(error.args[-1]) if error.args else type(error).__name__  # not "(34, '...')"
        raise CalibrationError(f"model '{name}' overflowed during the fit ({reason}); the data are far outside "
                               "the model's numeric range") from None
    except ValueError as error:  # scipy: residuals or Jacobian not finite at the start
        raise CalibrationError(f"model '{name}' could not be fitted: {error}") from None
    if solution.status <= 0:
        raise CalibrationError(f"model '{name}' did not converge: {solution.message}")
    return _with(objective.start, free, solution.x), np.atleast_2d(solution.jac), float(2 * solution.cost)


def _intervals(parameters: Sequence[Parameter], best: Mapping[str, float], errors: Mapping[str, float],
               quantile: float, warnings: list[str]) -> dict[str, tuple[float, float]]:
    """Each parameter's 95 % interval (estimate +/- quantile x stderr, clipped to its bounds; NaN where
    undefined, the value itself where fixed); ``warnings`` gains what the intervals say of the fit."""
    intervals = {}
    for p in parameters:
        value = best[p.name]
        if not p.vary:
            intervals[p.name] = (value, value)
            continue
        half = quantile * errors[p.name]
        if math.isfinite(half):
            intervals[p.name] = (max(value - half, p.lower), min(value + half, p.upper))
        else:  # undefined (too few points, unidentifiable): say so, do not invent a range
            intervals[p.name] = (math.nan, math.nan)
        if math.isfinite(half) and 2 * half > abs(value):
            warnings.append(f"'{p.name}' is poorly identified: its 95 % interval is wider than its value")
        if np.isclose(value, p.lower, rtol=1e-9, atol=0) or np.isclose(value, p.upper, rtol=1e-9, atol=0):
            warnings.append(f"'{p.name}' stopped at a bound ({value:.6g}); the data push it past its domain")
    return intervals


def _column_statistics(observed: Mapping[str, np.ndarray], masks: Mapping[str, np.ndarray],
                       residuals: Mapping[str, np.ndarray]) -> dict[str, ColumnStatistics]:
    """RMSE and R^2 of each observed column over its measured rows."""
    statistics = {}
    for k, obs in observed.items():
        m = masks[k]
        r = residuals[k][m]
        total = float(np.sum((obs[m] - obs[m].mean()) ** 2))
        r2 = 1.0 - float(np.sum(r**2)) / total if total > 0 else math.nan
        statistics[k] = ColumnStatistics(float(np.sqrt(np.mean(r**2))), r2, int(m.sum()))
    return statistics


def _check_declarations(parameters: Sequence[Parameter]) -> None:
    names = [p.name for p in parameters]
    if len(set(names)) != len(names):
        raise CalibrationError(f"parameter names repeat: {names}")
    for p in parameters:
        if not (p.lower <= p.value <= p.upper) or (p.vary and p.lower == p.upper):
            raise CalibrationError(
                f"parameter '{p.name}': initial value {p.value:g} must lie in its bounds "
                f"[{p.lower:g}, {p.upper:g}]"
            )


def _covariance(
    jac: np.ndarray, cost: float, dof: int, free: Sequence[str], absolute_sigma: bool
) -> tuple[np.ndarray, list[str]]:
    """Parameter covariance from the Jacobian, with identifiability warnings."""
    p = len(free)
    warnings: list[str] = []
    if p == 0:
        return np.zeros((0, 0)), warnings
    if dof <= 0:
        warnings.append(
            f"too few points: {jac.shape[0]} observations for {p} free parameters; intervals are undefined"
        )
        return np.full((p, p), np.nan), warnings
    _, singular, vt = np.linalg.svd(jac, full_matrices=False)
    # Finite-difference Jacobians carry ~1e-8 relative noise, so a singular
    # direction shows as a condition number near 1e8, not 1e16; past 1e7 the
    # intervals would be meaningless anyway.
    weak = singular <= _RANK_TOLERANCE * singular[0]
    if weak.any():
        # The null-space directions name the parameters the data cannot separate.
        involved = sorted({free[i] for row in vt[weak] for i in np.flatnonzero(np.abs(row) > 0.1)})
        warnings.append(
            "singular Jacobian: the data cannot identify " + ", ".join(f"'{n}'" for n in involved)
        )
        inverse = np.where(weak, 0.0, 1.0 / np.where(weak, 1.0, singular) ** 2)
        covariance = (vt.T * inverse) @ vt
        for i, name in enumerate(free):
            if name in involved:
                covariance[i, :] = covariance[:, i] = np.nan
    else:
        covariance = (vt.T / singular**2) @ vt
    if not absolute_sigma:
        covariance = covariance * (cost / dof)
    return covariance, warnings
