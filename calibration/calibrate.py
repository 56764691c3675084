"""The calibration loop: measured CSV in, fit result and profile out."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from iosizer.calibration.dataset import Dataset, check_columns, load_dataset
from iosizer.calibration.fit import CONFIDENCE_CONVENTION, FitResult, fit, interval_quantile
from iosizer.calibration.models import get_model
from iosizer.calibration.profile import (
    ColumnFit,
    DatasetReference,
    FitStatistics,
    ParameterEstimate,
    Profile,
)
from iosizer.errors import CalibrationError, DatasetError, InputError
from iosizer.model.family import Schema
from iosizer.units import KIB


@dataclass(frozen=True)
class Calibration:
    """What ``iosizer calibrate`` produces: the fit and the profile that records it.

    ``tails``: measured response percentiles against the fitted model's, per
    percentile column (:func:`tail_check`); empty when the data carry none.
    """

    fit: FitResult
    profile: Profile
    dataset: Dataset
    tails: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: What the calibration decided for the planner (a think time held...), said in the output.
    notes: tuple[str, ...] = ()


#: A measured percentile column: response_p99_s, response_p99_9_us, response_p50_ms.
_TAIL_COLUMN = re.compile(r"^(?:response|latency)_p(\d+(?:_\d+)?)_(s|ms|us)$")
_TIME_SCALE = {"s": 1.0, "ms": 1e-3, "us": 1e-6}


def tail_check(family_name: str, values: Mapping[str, Any], dataset: Dataset) -> dict[str, dict[str, Any]]:
    """The fitted model's response percentiles against measured percentile columns.

    The fit is on the means; the tail is a check of the shape it implies
    (the service-time assumption, the queueing): per column, the relative
    error of the model's percentile at every measured point, its RMS and
    its worst line. Columns named ``response_pP_<s|ms|us>`` (fio's
    ``clat_ns.percentile``: completion latency, submission excluded).
    """
    from iosizer.model.registry import declaration

    family = declaration(family_name)
    if family.tail is None:
        return {}
    checks: dict[str, dict[str, Any]] = {}
    for name, (percentile, measured) in tail_columns(family_name, dataset).items():
        keep = np.isfinite(measured) & (measured > 0)
        if not keep.any():
            continue
        inputs = {k: v[keep] for k, v in dataset.inputs().items()}
        model = family.tail(values, inputs, percentile)
        error = model / measured[keep] - 1.0
        worst = int(np.argmax(np.abs(error)))
        checks[name] = {
            "percentile": percentile, "n_points": int(keep.sum()),
            "rms_error_pct": float(100 * np.sqrt(np.mean(error ** 2))),
            "worst_error_pct": float(100 * error[worst]),
            "worst_line": int(dataset.lines[np.flatnonzero(keep)[worst]]),
        }
    return checks


def tail_summary(tails: Mapping[str, Mapping[str, Any]]) -> dict[str, Any] | None:
    """The tail check in one record: how many percentiles, their RMS error over every point, and the
    percentile the model misses most (largest RMS), with its worst point. None without percentiles."""
    if not tails:
        return None
    worst_name = max(tails, key=lambda name: tails[name]["rms_error_pct"])
    worst = tails[worst_name]
    points = sum(t["n_points"] for t in tails.values())
    overall = math.sqrt(sum(t["rms_error_pct"] ** 2 * t["n_points"] for t in tails.values()) / points)
    return {"n_percentiles": len(tails), "rms_error_pct": overall, "worst_column": worst_name,
            "worst_percentile": worst["percentile"], "worst_rms_error_pct": worst["rms_error_pct"],
            "worst_error_pct": worst["worst_error_pct"], "worst_line": worst["worst_line"]}


def tail_columns(family_name: str, dataset: Dataset) -> dict[str, tuple[float, np.ndarray]]:
    """The dataset's measured percentile columns (``response_pP_<s|ms|us>``): ``{name: (P, values)}``,
    values in the family's ``tail_unit``, NaN where a row has none (or a value <= 0). A family whose
    fit plan names its percentiles (``FitPlan.percentiles``) checks and fits only those."""
    from iosizer.model.registry import declaration

    family = declaration(family_name)
    unit, chosen = family.tail_unit, (family.fit.percentiles if family.fit is not None else ())
    found = {}
    for name in sorted(dataset.extra):
        match = _TAIL_COLUMN.match(name)
        if not match or (chosen and float(match.group(1).replace("_", ".")) not in chosen):
            continue
        try:
            measured = np.array([float(c) if c.strip() else np.nan for c in dataset.extra[name]])
        except ValueError:
            raise DatasetError(f"{dataset.path}: column '{name}' holds a value that is not a number") from None
        measured = measured * _TIME_SCALE[match.group(2)] / _TIME_SCALE[unit]
        found[name] = (float(match.group(1).replace("_", ".")), np.where(measured > 0, measured, np.nan))
    return found


def _relative_rmse(result: FitResult, column: str) -> float | None:
    """RMS of residual / observed over the measured, non-zero points; None if there are none."""
    observed, residual = result.observed[column], result.residuals[column]
    keep = np.isfinite(observed) & np.isfinite(residual) & (observed != 0)
    return _finite_or_none(float(np.sqrt(np.mean((residual[keep] / observed[keep]) ** 2)))) if keep.any() else None


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _where(path: str) -> str:
    """An absolute path for a user's file; shipped data keep their package-relative name
    (``iosizer.data/examples/hba.csv``), the same on every machine."""
    if not Path(path).exists():
        return path
    from importlib import resources

    resolved = Path(path).resolve()
    shipped = Path(str(resources.files("iosizer.data"))).resolve()
    if resolved.is_relative_to(shipped):
        return "iosizer.data/" + resolved.relative_to(shipped).as_posix()
    return str(resolved)


def profile_from_fit(
    result: FitResult,
    model: str,
    options: Mapping[str, Any],
    dataset: Dataset | None = None,
    cpu_name: str | None = None,
    cpu_speed: float | None = None,
) -> Profile:
    """The profile that records ``result``: estimates, statistics, covariance, settings and data used."""
    reference = (
        DatasetReference(path=_where(dataset.path), sha256=dataset.sha256, n_rows=len(dataset))
        if dataset is not None
        else None
    )
    covariance = [[_finite_or_none(v) for v in row] for row in result.covariance.tolist()]
    return Profile(
        model=model,
        options=_recorded_options(model, options),
        parameters=_estimates(result),
        covariance=covariance if result.free else None,
        covariance_parameters=list(result.free),
        statistics=_statistics(result),
        dataset=reference,
        cpu_name=cpu_name,
        cpu_speed=cpu_speed,
    )


def _estimates(result: FitResult) -> dict[str, ParameterEstimate]:
    """Each parameter's value, interval, standard error (0 if held) and CPU scaling."""
    return {
        p.name: ParameterEstimate(
            value=result.params[p.name],
            ci_low=_finite_or_none(result.intervals[p.name][0]),
            ci_high=_finite_or_none(result.intervals[p.name][1]),
            stderr=_finite_or_none(result.stderr.get(p.name, 0.0)) if p.vary else 0.0,
            unit=p.unit,
            vary=p.vary,
            cpu_scaling=p.cpu_scaling.value,
            exponent_bounds=p.exponent_bounds,
        )
        for p in result.parameters
    }


def _statistics(result: FitResult) -> FitStatistics:
    """The fit's goodness overall and per observed column, its warnings and its confidence convention."""
    return FitStatistics(
        rmse=result.rmse,
        r2=_finite_or_none(result.r2),
        n_points=result.n_points,
        dof=result.dof,
        quantile=_finite_or_none(interval_quantile(result.dof, result.absolute_sigma)),
        columns={
            name: ColumnFit(rmse=s.rmse, r2=_finite_or_none(s.r2), n_points=s.n_points,
                            relative_rmse=_relative_rmse(result, name))
            for name, s in result.statistics.items()
        },
        warnings=list(result.warnings),
        confidence=CONFIDENCE_CONVENTION,
    )


def _recorded_options(model: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options a profile records: for a family, its settings and holdable names only (a held
    parameter's value is in the profile's parameters, fixed); otherwise all of them."""
    from iosizer.model.registry import declaration, family_names

    if model not in family_names():
        return dict(options)
    family = declaration(model)
    names = {s.name for s in family.settings} | set(family.fit.holdable if family.fit else ())
    return {k: v for k, v in options.items() if k in names}


def load_measurements(paths: str | Path | Sequence[str | Path], schema: Schema,
                      direction: str | None = None, *, force: bool = False) -> Dataset:
    """A dataset in ``schema`` from a CSV in the family's columns, or from benchmark output.

    One CSV file is read as the family's columns; fio JSON, elbencho CSV and
    vdbench flatfiles (one or several) become load points laid out in the
    family's columns (:mod:`iosizer.calibration.sources`). A failed fio job
    is an error unless ``force``, which leaves it out with a warning.
    """
    from iosizer.calibration.sources import error_text, little_violations, point_columns, read_points, source_kind

    import os

    given = [paths] if isinstance(paths, (str, os.PathLike)) else paths
    if not isinstance(given, Sequence) or not all(isinstance(p, (str, os.PathLike)) for p in given):
        raise InputError(f"measured data is a file path (CSV, fio JSON, elbencho, vdbench) or a list of them, "
                         f"got {type(paths).__name__} {paths!r:.60}")
    if any(not os.fspath(p).strip() or os.fspath(p) == "." for p in given):  # Path('') is the current folder
        raise InputError("a measured data path is empty (or the current folder); give the file's name")
    listed = [Path(p) for p in given]
    if not listed:
        raise InputError("give at least one measurement file")
    if len(listed) == 1 and source_kind(listed[0]) == "csv":
        return load_dataset(listed[0], schema)
    points, sha256 = read_points(listed, direction, keep_failed=force)
    label = ", ".join(str(p) for p in listed)
    failed = [p for p in points if p.error]
    points = [p for p in points if not p.error]
    if not points:
        raise DatasetError(f"{label}: every job failed (fio error {failed[0].error} first); nothing to calibrate")
    dropped = tuple(f"{p.label}: the job failed ({error_text(p.error)}); left out of the fit (--force)"
                    for p in failed)
    values = point_columns(points, schema, label)
    labels = tuple(p.label for p in points)
    check_columns(values, schema, label, labels)
    extra: dict[str, tuple[str, ...]] = {}
    shared = set.intersection(*(set(p.percentiles_s) for p in points)) if points else set()
    if shared:  # completion-latency percentiles every point has: checked against the model's tail
        from iosizer.model.percentiles import percentile_key

        for percentile in sorted(shared):
            extra[f"response_{percentile_key(percentile)}_s"] = tuple(
                f"{p.percentiles_s[percentile]:.9g}" for p in points)
    sizes = [p.block_bytes for p in points]
    if all(s is not None for s in sizes):  # block size as a setting column (hba, replication)
        extra.update({"block_bytes": tuple(f"{s:g}" for s in sizes),
                      "block_kib": tuple(f"{s / KIB:g}" for s in sizes)})  # type: ignore[operator]
    think = {p.think_time_s for p in points}
    return Dataset(path=label, sha256=sha256, schema=schema, values=values,
                   lines=np.arange(1, len(points) + 1), sources=labels, extra=extra,
                   warnings=dropped + tuple(little_violations(points)),
                   think_time_s=think.pop() if len(think) == 1 else None,
                   notes=tuple(dict.fromkeys(n for p in points for n in p.notes)))


def settings_in_columns(dataset: Dataset, option_names: Sequence[str]) -> dict[str, str]:
    """Structural settings given as columns of the file (``servers``, ``block_kib``...).

    A setting is one value for the whole fit: a column that varies across
    rows is an error (fit each configuration on its own).
    """
    found = {}
    per_row = {c.name for c in dataset.schema.inputs}
    for name in option_names:
        cells = [c for c in dataset.extra.get(name, ()) if c != ""]
        if not cells:
            continue
        distinct = sorted(set(cells))
        if len(distinct) > 1:
            if name in per_row:  # also an input column of the fit (device: rows at several block sizes)
                continue
            raise DatasetError(
                f"{dataset.path}: column '{name}' is a setting, one value per fit, but it has "
                f"{len(distinct)} ({', '.join(distinct[:4])}{'...' if len(distinct) > 4 else ''}); "
                "calibrate each configuration separately"
            )
        found[name] = distinct[0]
    return found


def calibrate(
    model_name: str,
    dataset_path: str | Path | Sequence[str | Path],
    options: Mapping[str, Any] | None = None,
    *,
    cpu_name: str | None = None,
    cpu_speed: float | None = None,
    force: bool = False,
    fit_percentiles: bool | Sequence[float] | None = None,
) -> Calibration:
    """Fit ``model_name`` to measured data (see :func:`load_measurements`).

    Settings may be columns of the file; ``options`` override them.
    ``fit_percentiles``: see :func:`calibrate_dataset`.
    """
    model = get_model(model_name)
    given = {k: v for k, v in dict(options or {}).items() if v is not None}
    if set(given) - set(model.option_names):  # before the file is read: a name that applies nowhere
        model.options(given)
    # A family that models one fio direction (device) reads only it; the others sum both.
    direction = (model.family.spec("direction").check(given.get("direction") or model.family.default("direction"),
                                                      "--set direction")
                 if "direction" in model.option_names else None)
    dataset = load_measurements(dataset_path, model.schema, direction, force=force)
    columns = settings_in_columns(dataset, model.option_names)
    for name, value in columns.items():  # a bad setting column is the file's error, not a flag's
        if name not in given:
            try:
                model.options({**given, name: value})
            except InputError as error:
                raise DatasetError(f"{dataset.path}: column '{name}' (a setting, one value per file) holds "
                                   f"{value!r}: {error}") from None
    merged = {**columns, **given}
    notes = list(dataset.notes)
    if "think_time_s" in model.option_names and merged.get("think_time_s") is None \
            and dataset.think_time_s is not None:
        # A benchmark loop has no think time: left free, a fit moves fixed device latency into it
        # (which the response leaves out), and held-out responses come out 37-46 % low (issue 25).
        merged["think_time_s"] = dataset.think_time_s
        notes.append(f"think_time_s held at {dataset.think_time_s:g} s: fio output is a closed loop with no "
                     "think time (--think-time-s sets another value)")
    result = calibrate_dataset(model_name, dataset, model.options(merged), cpu_name=cpu_name,
                               cpu_speed=cpu_speed, force=force, fit_percentiles=fit_percentiles)
    return replace(result, notes=tuple(notes) + result.notes)


def calibrate_dataset(
    model_name: str,
    dataset: Dataset,
    options: Mapping[str, Any] | None = None,
    *,
    cpu_name: str | None = None,
    cpu_speed: float | None = None,
    force: bool = False,
    fit_percentiles: bool | Sequence[float] | None = None,
) -> Calibration:
    """Fit ``model_name`` to an already validated :class:`Dataset`; the fit is judged (:func:`judge`).

    ``fit_percentiles``: the measured percentile columns (``response_pP_<unit>``,
    fio's completion-latency percentiles) of the chosen percentiles (True:
    :data:`FIT_PERCENTILES`, p50 and p99; or a list of P) join the means as
    fit inputs, each against the family's percentile model, every column
    scaled by its RMS (:func:`iosizer.calibration.fit.fit`), the fit bounded
    by :data:`FIT_PERCENTILES_SECONDS`, the fit plan's ``tail_free``
    parameters freed; the others, and all with False, are only checked
    against the fitted model (:func:`tail_check`). None (the default): the
    family's choice (``FitPlan.percentiles_by_default``): p50 and p99 where
    the data carry them, ``tail_free`` held at their declared values, and the
    means alone, with a note, where that fit is refused.
    """
    from functools import partial

    plan = get_model(model_name).family.fit
    once = partial(_calibrate_dataset, model_name, dataset, options, cpu_name=cpu_name, cpu_speed=cpu_speed,
                   force=force)
    if fit_percentiles is not None or plan is None or not plan.percentiles_by_default:
        result = once(fit_percentiles=bool(fit_percentiles) if fit_percentiles is None else fit_percentiles)
        if fit_percentiles or plan is None:
            return result
        return _warn_means_alone(plan, result)
    have = sorted({p for p, _ in tail_columns(model_name, dataset).values()}) \
        if get_model(model_name).family.tail is not None else []
    chosen = [p for p in FIT_PERCENTILES if p in have]
    if chosen and dataset.stderr is None and dataset.bounds is None:
        listed = ", ".join(f"p{p:g}" for p in chosen)
        held = ", ".join(f"{n} at {value}" for n, value in _declared(model_name, plan.tail_free))
        try:
            result = once(fit_percentiles=chosen, free_tails=False)
        except CalibrationError as error:
            why = str(error).removeprefix(f"{dataset.path}: ")  # the files are named once, above
            fallback = (f"the default fit of the percentiles ({listed}) with the means was refused ({why}); "
                        "the means alone are fitted and the percentiles only checked (--fit-percentiles "
                        "asks for them anyway, and fails the same way)")
            result = once(fit_percentiles=False)
            return _warn_means_alone(plan, replace(result, notes=result.notes + (" ".join(fallback.split()),)))
        return replace(result, notes=result.notes + (
            f"percentiles {listed} fitted with the means, by default where the data carry them (the means "
            f"alone may not tell the counts apart)"
            f"{'; ' + held + ' (declared, exact there; --fit-percentiles frees it)' if held else ''}; "
            "--no-fit-percentiles fits the means only",))
    return _warn_means_alone(plan, once(fit_percentiles=False))


def _declared(model_name: str, names: Sequence[str]) -> list[tuple[str, str]]:
    family = get_model(model_name).family
    return [(n, f"{family.spec(n).value:g}") for n in names if family.spec(n).value is not None]


def _warn_means_alone(plan: Any, result: Calibration) -> Calibration:
    """``result`` warning where the means alone leave a whole-number parameter's count open (a flat
    likelihood)."""
    out = []
    for name in plan.whole:
        low, high = result.fit.intervals.get(name, (None, None))
        if low is not None and high is not None and high > low:
            out.append(f"'{name}' is not identified by the means alone: {low:g} to {high:g} fit them about "
                       "equally (a flat likelihood); latency percentiles that follow the model (fio's clat_ns "
                       "percentiles, or latency_pP_us columns) tell the counts apart, and are fitted by default "
                       "where the data carry them")
    return replace(result, fit=replace(result.fit, warnings=result.fit.warnings + tuple(out)))


def _calibrate_dataset(
    model_name: str,
    dataset: Dataset,
    options: Mapping[str, Any] | None = None,
    *,
    cpu_name: str | None = None,
    cpu_speed: float | None = None,
    force: bool = False,
    fit_percentiles: bool | Sequence[float] = False,
    free_tails: bool = True,
) -> Calibration:
    """:func:`calibrate_dataset` with the percentiles' choice made (``free_tails``: vary ``tail_free``)."""
    model = get_model(model_name)
    checked = model.options(dict(options or {}))
    from iosizer.model.family import CPU_SPEED, check_cpu_name

    cpu_name = check_cpu_name(cpu_name)
    if cpu_speed is not None:
        cpu_speed = CPU_SPEED.check(cpu_speed, "--cpu-speed")
    moved: list[str] = []
    parameters = model.parameters(dataset, checked, moved)
    dataset = replace(dataset, warnings=dataset.warnings + tuple(moved))
    function, jacobian, observed = model.function(checked), model.jacobian(checked), dataset.observed()
    if fit_percentiles:
        function, jacobian, observed = _with_percentiles(model_name, model, checked, dataset, fit_percentiles,
                                                         observed)
    plan = model.family.fit
    free_tails = bool(fit_percentiles) and free_tails
    if free_tails and plan.tail_free:  # a service-time variability the percentiles identify
        parameters = _free_for_tails(model, parameters, plan.tail_free, checked)
    run = _budgeted_fit(model_name, model, dataset, function, jacobian, observed, bool(fit_percentiles))
    try:
        result = _fit_counts(run, model, checked, dataset, parameters, free_tails)
    except CalibrationError as error:  # name the data that could not be fitted, as a row error names its file
        raise CalibrationError(f"{dataset.path}: {error}{data_checks(dataset)}") from None
    result = replace(result, warnings=tuple(dataset.warnings) + result.warnings + judge(result, dataset, force))
    profile = profile_from_fit(result, model_name, checked, dataset, cpu_name, cpu_speed)
    from iosizer.calibration.profile import profile_values

    return Calibration(result, profile, dataset, tail_check(model_name, profile_values(profile), dataset))


def _with_percentiles(model_name: str, model: Any, checked: Mapping[str, Any], dataset: Dataset,
                      fit_percentiles: bool | Sequence[float],
                      observed: dict[str, np.ndarray]) -> tuple[Any, None, dict[str, np.ndarray]]:
    """The fit's function, Jacobian and observed columns with the chosen percentile columns joined to the
    means (:func:`calibrate_dataset`); the data's or the family's reason why not is an error."""
    tails = tail_columns(model_name, dataset) if model.family.tail is not None else {}
    if model.family.tail is None:
        raise InputError(f"--fit-percentiles: family '{model_name}' has no percentile model (its percentiles "
                         "are neither fitted nor checked)")
    chosen = model.family.fit.percentiles  # tail_columns keeps only these where a family names them
    if not tails:
        raise InputError(f"--fit-percentiles: {dataset.path} has no percentile column "
                         "(response_pP_s, _ms or _us; fio JSON brings its clat percentiles)"
                         + (f" among {', '.join(f'{p:g}' for p in chosen)}" if chosen else ""))
    if dataset.stderr is not None or dataset.bounds is not None:
        raise InputError("--fit-percentiles: a stderr column or bounded rows apply to one observed column only")
    tails = _chosen_tails(tails, fit_percentiles, dataset)
    function = model.with_percentiles(checked, {name: p for name, (p, _) in tails.items()})
    # The percentiles' slopes are taken numerically: no Jacobian.
    return function, None, {**observed, **{name: values for name, (_, values) in tails.items()}}


def _budgeted_fit(model_name: str, model: Any, dataset: Dataset, function: Any, jacobian: Any,
                  observed: dict[str, np.ndarray], percentiles: bool) -> Callable[[Sequence[Any]], FitResult]:
    """The fit of ``dataset`` from given parameters; with percentiles, every call within one budget of
    :data:`FIT_PERCENTILES_SECONDS` for the whole fit, however many counts a whole-number search tries."""
    import time

    deadline = time.monotonic() + FIT_PERCENTILES_SECONDS if percentiles else None

    def run(chosen: Sequence[Any]) -> FitResult:
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            from iosizer.calibration.whole import SearchStopped

            raise SearchStopped(f"model '{model_name}' stopped after {FIT_PERCENTILES_SECONDS:g} s without "
                                "converging; fit fewer columns (fewer percentiles)")
        return fit(function, chosen, dataset.inputs(), observed, weights=dataset.weights, stderr=dataset.stderr,
                   jacobian=jacobian, model_name=model_name, relative=model.relative, bounds=dataset.bounds,
                   max_seconds=remaining)

    return run


def _fit_counts(run: Callable[[Sequence[Any]], FitResult], model: Any, checked: Mapping[str, Any],
                dataset: Dataset, parameters: Sequence[Any], percentiles: bool) -> FitResult:
    """``run`` from ``parameters``, or, where the family fits a count over the whole numbers
    (:mod:`iosizer.calibration.whole`) and none is held, at each count within its bounds (``percentiles``:
    the plan's ``tail_free`` parameters vary at each count)."""
    plan = model.family.fit
    searched = [name for name in plan.whole if checked.get(name) is None]
    if not searched:
        return run(parameters)
    from iosizer.calibration.whole import fit_whole

    name = searched[0]
    _, low, high = plan.start(dataset.values, {**checked, **model._solve_settings(checked)})[name]

    def at(count: int) -> list[Any]:
        held = model.parameters(dataset, {**checked, name: count})
        return _free_for_tails(model, held, plan.tail_free, checked) if percentiles else held

    return fit_whole(run, at, name, range(int(low), int(high) + 1), len(dataset))


#: The percentiles --fit-percentiles fits unless told which: the median and the usual tail target.
FIT_PERCENTILES = (50.0, 99.0)
#: A percentile fit stops past this (each step solves the percentile model at every point).
FIT_PERCENTILES_SECONDS = 60.0


def _chosen_tails(tails: dict[str, tuple[float, np.ndarray]], chosen: bool | Sequence[float],
                  dataset: Dataset) -> dict[str, tuple[float, np.ndarray]]:
    """The percentile columns of the chosen percentiles (True: those of :data:`FIT_PERCENTILES` the data
    carry); one the data lack is an error naming those they have."""
    have = sorted({p for p, _ in tails.values()})
    wanted_list = [p for p in FIT_PERCENTILES if p in have] if chosen is True else list(chosen)  # type: ignore[arg-type]
    if not wanted_list:
        raise InputError(f"--fit-percentiles: {dataset.path} has none of the default percentiles "
                         f"({', '.join(f'{p:g}' for p in FIT_PERCENTILES)}); choose with --fit-percentile P "
                         f"(it has {', '.join(f'{p:g}' for p in have)})")
    picked = {}
    for wanted in wanted_list:
        found = [name for name, (p, _) in tails.items() if math.isclose(p, float(wanted), rel_tol=0, abs_tol=1e-9)]
        if not found:
            raise InputError(f"--fit-percentile {float(wanted):g}: {dataset.path} has no such percentile column; "
                             f"it has {', '.join(f'{p:g}' for p in have)}")
        picked.update({name: tails[name] for name in found})
    return picked


def _tail_start(value: float, low: float, high: float) -> float:
    """Start a freed variability halfway to its lower bound: at its declared value (1, exponential) a
    family's percentiles may switch from an exact form to an approximate one, a step no slope crosses."""
    return max(low, min(high, 0.5 * (value + low))) if value > low else value


def _free_for_tails(model: Any, parameters: Sequence[Any], names: Sequence[str],
                    checked: Mapping[str, Any]) -> list[Any]:
    """``parameters`` with ``names`` varied over their declared bounds unless the planner holds them."""
    from iosizer.calibration.fit import Parameter

    out = []
    for p in parameters:
        if p.name in names and checked.get(p.name) is None:
            low, high = model.family.spec(p.name, checked).bounds
            p = Parameter(p.name, _tail_start(p.value, low, high), lower=low, upper=high, vary=True, unit=p.unit,
                          description=p.description, cpu_scaling=p.cpu_scaling, exponent_bounds=p.exponent_bounds)
        out.append(p)
    return out


#: Below this R^2 a fit gets a warning; below 0 it fits worse than a constant.
POOR_R2 = 0.9
#: Residual trend: a Spearman rank correlation with the load this unlikely is reported.
TREND_P_VALUE = 0.01
#: How many of the worst points a warning names.
WORST_SHOWN = 3


def data_checks(dataset: Dataset) -> str:
    """What loading the data found (Little's law, failed jobs), appended to a refusal: the reason
    a fit fails is often there, and --force should not be the only way to see it."""
    found = [*dataset.warnings, *dataset.notes]
    return f". Data checks: {'; '.join(found)}" if found else ""


def _worst(result: FitResult, dataset: Dataset, column: str) -> str:
    observed = result.observed[column]
    residual = np.abs(result.residuals[column]) / np.where(observed != 0, np.abs(observed), 1.0)
    measured = np.flatnonzero(np.isfinite(residual))
    values = residual[measured]
    order = None
    if values.size > 4 * WORST_SHOWN:  # the few largest without sorting a million: the same rows, tie-free
        top = np.argpartition(values, values.size - WORST_SHOWN)[-WORST_SHOWN:]
        if np.unique(values[top]).size == WORST_SHOWN and np.count_nonzero(values >= values[top].min()) == WORST_SHOWN:
            order = measured[top[np.argsort(values[top])[::-1]]]
    if order is None:  # few rows, or ties among the largest: the full sort decides their order as it always did
        order = measured[np.argsort(values)[::-1][:WORST_SHOWN]]
    where = [f"line {int(dataset.lines[i])} ({100 * residual[i]:.1f} % off)" for i in order]
    return "worst: " + ", ".join(where)


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing their mean rank."""
    distinct, where, counts = np.unique(values, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)
    return ((upper - counts + 1 + upper) / 2.0)[where]


def _spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Spearman's rho (Pearson's r of the average ranks) and its two-sided p-value from
    t = rho sqrt((n - 2) / (1 - rho^2)) on n - 2 degrees of freedom, as scipy.stats.spearmanr
    computes them; written here because importing scipy.stats costs most of a second,
    more than judging a million-point fit."""
    from scipy.special import stdtr

    rx, ry = _average_ranks(x), _average_ranks(y)
    rx -= rx.mean()  # in place: two million-row copies fewer at the fit's judgement
    ry -= ry.mean()
    rho = float(np.dot(rx, ry) / np.sqrt(np.dot(rx, rx) * np.dot(ry, ry)))
    n = x.size
    if abs(rho) >= 1.0:
        return rho, 0.0
    t = abs(rho) * np.sqrt((n - 2) / (1.0 - rho * rho))
    return rho, float(2.0 * stdtr(n - 2, -t))


#: A fit whose RMS relative residual is at most this is within a measurement's own scale (a storage
#: benchmark repeats to about 1-2 %): on data that flat, R^2 compares the residual with a spread as small.
RELATIVE_RMSE_OK = 0.02
#: With a stderr column: residuals whose RMS is at most this many stated standard errors are within them.
STDERR_RMS_OK = 2.0


def _on_its_scale(result: FitResult, dataset: Dataset, column: str) -> tuple[bool, str]:
    """Whether the fit of ``column`` is within the measurement's own scale, and that scale in words:
    the points' stated stderr when the file gives it, else the RMS relative residual."""
    observed, residual = result.observed[column], result.residuals[column]
    measured = np.isfinite(observed) & np.isfinite(residual)
    if dataset.stderr is not None:
        rms = float(np.sqrt(np.mean((residual[measured] / dataset.stderr[measured]) ** 2)))
        return rms <= STDERR_RMS_OK, f"residuals {rms:.3g} stated stderr RMS, above {STDERR_RMS_OK:g}"
    nonzero = measured & (observed != 0)
    if not nonzero.any():
        return False, "no non-zero value to scale by"
    relative = float(np.sqrt(np.mean((residual[nonzero] / observed[nonzero]) ** 2)))
    return relative <= RELATIVE_RMSE_OK, (f"relative RMSE {100 * relative:.3g} %, above the "
                                          f"{100 * RELATIVE_RMSE_OK:g} % a measurement repeats to")


def judge(result: FitResult, dataset: Dataset, force: bool = False) -> tuple[str, ...]:
    """Goodness of fit, judged: warnings for R^2 < 0.9 or residuals trending with the load.

    A fit worse than a constant (R^2 < 0 on some column) is a
    :class:`CalibrationError` unless ``force``, or unless it is within the
    measurement's own scale (:func:`_on_its_scale`): flat data (every point
    within a percent or two) give R^2 < 0 to a fit within a percent. Data with bounds (published
    "5 % or less" statements) are judged on their trend only: R^2 of a
    bound is not defined. The trend is the Spearman rank correlation of the
    relative residuals with the first input column (the load), reported at
    p < 0.01 with six points or more.
    """
    warnings = []
    load_name = next(iter(result.inputs))
    for column, stats in result.statistics.items():
        within, scale = _on_its_scale(result, dataset, column)
        if dataset.bounds is None and math.isfinite(stats.r2) and stats.r2 < 0 and not within and not force:
            raise CalibrationError(
                f"{dataset.path}: the fit of '{result.model_name}' to {column} is worse than a constant "
                f"(R^2 {stats.r2:.3g}, {scale}); {_worst(result, dataset, column)}. Check the data and the "
                f"family, or pass --force to keep it{data_checks(dataset)}"
            )
        if dataset.bounds is None and math.isfinite(stats.r2) and stats.r2 < POOR_R2 and not within:
            warnings.append(f"{column}: R^2 {stats.r2:.3f} is below {POOR_R2}; {_worst(result, dataset, column)}")
        observed = result.observed[column]
        measured = np.isfinite(observed)
        if measured.sum() >= 6:
            relative = result.residuals[column][measured] / np.where(observed[measured] != 0,
                                                                     np.abs(observed[measured]), 1.0)
            load = result.inputs[load_name][measured]
            # Residuals at rounding level (an exact fit) carry no shape to judge.
            if np.ptp(load) > 0 and np.max(np.abs(relative)) > 1e-9:
                rho, p_value = _spearman(load, relative)
                if p_value < TREND_P_VALUE:
                    warnings.append(
                        f"{column}: residuals trend with {load_name} (Spearman rho {rho:+.2f}, p {p_value:.2g}): "
                        f"the model's shape misses the data's; {_worst(result, dataset, column)}"
                    )
    return tuple(warnings)


def residual_rows(calibration: Calibration) -> list[dict[str, Any]]:
    """One row per measured value: file line, inputs, observed, model, residual."""
    result, dataset = calibration.fit, calibration.dataset
    rows = []
    for column, observed in result.observed.items():
        for i in np.flatnonzero(np.isfinite(observed)):
            row: dict[str, Any] = {"line": int(dataset.lines[i])}
            row.update({name: float(values[i]) for name, values in result.inputs.items()})
            row.update(
                metric=column,
                observed=float(observed[i]),
                model=float(result.predicted[column][i]),
                residual=float(result.residuals[column][i]),
            )
            rows.append(row)
    return rows
