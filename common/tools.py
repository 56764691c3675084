"""The tool commands' work: what ``iosizer families``, ``params``, ``datasets``, ``extrapolate``, ``run``,
``calibrate`` and ``report`` answer.

Each function returns the :class:`~iosizer.frames.Report` the CLI renders
(``--format json`` prints its ``data``), the server answers and
:func:`iosizer.ask` parses; :mod:`iosizer.commands` declares each one's
fields. Values come validated (by the request model or the command line).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from iosizer.frames import Panel, Report, Series

#: The keys of ``iosizer params --format json`` (the contract), then the extras.
PARAM_KEYS = ("name", "unit", "value", "status", "source")


def families() -> Report:
    """Every model family: what it models, its source and its data columns."""
    from iosizer.api import families as names
    from iosizer.api import family

    rows = []
    for name in names():
        chosen = family(name)
        rows.append({
            "family": name,
            "summary": chosen.summary,
            "source": chosen.source,
            "inputs": [c.name for c in chosen.columns.inputs],
            "outputs": [c.name for c in chosen.columns.outputs],
            "calibratable": chosen.declaration.fit is not None,
            "formula": chosen.formula,
            "service_time": chosen.service_time,
        })
    table = [r | {"inputs": ", ".join(r["inputs"]), "outputs": ", ".join(r["outputs"])} for r in rows]
    return Report(data=rows, rows=table, columns=("family", "summary", "inputs", "outputs", "calibratable"),
                  title="Model families (iosizer params FAMILY lists each one's numbers and its formula)")


def params(family: str) -> Report:
    """Every parameter of a family: unit, shipped value, status (published, derived, assumed, fitted) and source."""
    from iosizer.api import family as named

    chosen = named(family)
    rows = [{key: spec.to_dict()[key] for key in PARAM_KEYS}
            | {"bounds": list(spec.bounds), "kind": spec.kind, "cpu_scaling": spec.cpu_scaling.value}
            for spec in chosen.parameters]
    return Report(
        data=rows,
        rows=rows,
        columns=("name", "unit", "value", "status", "kind", "source"),
        title=f"{chosen.name}: {chosen.summary}",
        notes=[f"formula: {chosen.formula}", f"service time: {chosen.service_time}",
               "fitted values are the shipped calibration's (iosizer calibrate fits your own)"],
    )


def datasets() -> Report:
    """List the shipped measurement files (every figure the seeds publish) and their sources."""
    from iosizer.calibration.shipped import measurement_files

    rows = [
        {
            "dataset": f.name,
            "rows": f.rows,
            "exact": f.exact_rows,
            "approximate": f.rows - f.exact_rows,
            "seed": " ".join(f.seeds),
            "where": "; ".join(f.places),
        }
        for f in measurement_files()
    ]
    return Report(rows, rows, title="Shipped measurements (data/measurements)",
                  notes=["exact: from a table or stated in the text; approximate: read from a figure's description"])



def extrapolate(profiles: list[Path], cpu_speed: float, output: Path | None = None,
                cpu_name: str | None = None) -> Report:
    """Predict a profile for another CPU from profiles of one or more CPUs."""
    from iosizer.calibration.extrapolate import extrapolate as run
    from iosizer.calibration.profile import load_profile, profile_writer
    from iosizer.model.family import reject_repeats

    reject_repeats([path.resolve() for path in profiles], "PROFILES", [str(path) for path in profiles])
    loaded = [load_profile(path) for path in profiles]
    result = run(loaded, cpu_speed, cpu_name)
    rows = [
        {
            "parameter": p.name,
            "scaling": p.scaling,
            "value": p.value,
            "ci_low": p.ci_low,
            "ci_high": p.ci_high,
            "unit": p.unit,
            "exponent": p.exponent,
            "exponent_ci_low": p.exponent_ci[0] if p.exponent_ci else None,
            "exponent_ci_high": p.exponent_ci[1] if p.exponent_ci else None,
            "spread_low": p.assumption_spread[0] if p.assumption_spread else None,
            "spread_high": p.assumption_spread[1] if p.assumption_spread else None,
        }
        for p in result.parameters
    ]
    speeds = sorted({pr.cpu_speed for pr in loaded})
    notes = [f"from {len(loaded)} profile(s) at CPU speed(s) {', '.join(f'{s:g}' for s in speeds)}"]
    if len(speeds) == 1:
        notes.append(
            "one CPU only: power-law parameters span their declared bounding exponents "
            "(spread_low..spread_high), widened by the fit interval"
        )
    notes += [f"warning: {w}" for w in result.warnings]
    if output is not None:
        notes.append(f"profile written to {output}")
    document = {
        "warnings": list(result.warnings),
        "model": result.profile.model,
        "cpu_speed": cpu_speed,
        "cpu_name": cpu_name,
        "parameters": {r["parameter"]: {k: v for k, v in r.items() if k != "parameter"} for r in rows},
        "extrapolated_from": result.profile.extrapolated_from,
        "profile": str(output) if output is not None else None,
    }
    return Report(document, rows, title=f"Extrapolation of '{result.profile.model}' to CPU speed {cpu_speed:g}",
                  notes=notes, files=[(output, profile_writer(result.profile))] if output is not None else [])


#: Columns of ``iosizer run``'s table; ``ci_low`` and ``ci_high`` come after value when some answer has a band.
RUN_COLUMNS = ["family", "question", "value", "unit", "note"]
BAND_COLUMNS = ["ci_low", "ci_high"]


def run(scenario: str | None = None, list_examples: bool = False) -> Report:
    """Answer every question a scenario file's tables ask: [latency], [pcie], [hba], [loadshare], [replication].

    Keys carry their unit in their name (added_latency_ns, block_kib,
    budget_pct); an unknown key, a value of the wrong type or unit, a
    malformed file or a missing one is a one-line error (exit 2). A bare name
    that is not a file is looked up among the shipped examples. Any table may
    name profile = "my.json" (from 'iosizer calibrate', relative to the
    scenario's folder; a list where the table answers from two families:
    [latency] oltp and dma, [pcie] rmw and pcie-link) and cpu_speed = 1.3
    (as --cpu-speed): its answers then carry 95 % bands, ci_low and ci_high.
    JSON: name, description, source, answers (family, question, value, unit,
    note, ci_low, ci_high) and, with a profile or cpu_speed, notes; CSV: one
    row per answer (ci_low and ci_high only when some answer has a band).
    """
    from iosizer.errors import InputError
    from iosizer.report.scenario import example_names, run_scenario

    if list_examples:
        rows = [{"example": name} for name in example_names()]
        return Report(rows, rows, title="Shipped example scenarios (iosizer run NAME)")
    if scenario is None:
        raise InputError("give a scenario file or a shipped example name (iosizer run --list)")
    result = run_scenario(scenario)
    rows = [a.to_dict() for a in result.answers]
    columns = RUN_COLUMNS[:3] + BAND_COLUMNS + RUN_COLUMNS[3:] if result.banded else RUN_COLUMNS
    return Report(result.to_dict(), rows, title=f"{result.name} ({result.source})", columns=columns,
                  notes=([result.description] if result.description else []) + result.notes)


# --- iosizer calibrate -----------------------------------------------------------------------------------------


def calibrate(model: str, data: list[Path] | None = None, columns: bool = False, setting: list[str] | None = None,
              force: bool = False, fit_percentiles: bool | None = None, fit_percentile: list[float] | None = None,
              output: Path | None = None, stations: int | None = None, think_time_s: float | None = None,
              servers: int | None = None, terminals: int | None = None, cpu_name: str | None = None,
              cpu_speed: float | None = None, verbose: bool = False, plot: Path | None = None, *,
              residuals: bool = False) -> Report:
    """Fit a family to measured points; print the fit report, save a profile."""
    from iosizer.calibration.calibrate import calibrate as run
    from iosizer.calibration.profile import profile_writer
    from iosizer.errors import InputError

    if columns:
        return _columns(model)
    if not data:
        raise InputError("give the measured data: a CSV in the family's columns (see --columns) or benchmark output")
    if cpu_speed is not None:
        from iosizer.model.family import CPU_SPEED

        CPU_SPEED.check(cpu_speed, "--cpu-speed")
    options = _settings({"stations": stations, "think_time_s": think_time_s, "servers": servers,
                         "terminals": terminals}, setting)
    chosen = _percentiles_fitted(fit_percentiles, fit_percentile)
    result = run(model, data if len(data) > 1 else data[0], options, cpu_name=cpu_name, cpu_speed=cpu_speed,
                 force=force, fit_percentiles=chosen)
    answer = _fit_report(result, model, output, bool(fit_percentile) or fit_percentiles, verbose, plot, residuals)
    answer.files = [(output, profile_writer(result.profile))] if output is not None else []
    return answer


def _fit_report(result: Any, model: str, output: Path | None, fit_percentiles: bool | None, verbose: bool,
                plot: Path | None, residuals: bool) -> Report:
    """The fit report ``iosizer calibrate`` prints: the API's document, a row per parameter, the notes; the CSV's
    rows are the residuals, one per measured value, built only when ``residuals`` asks (a million-row fit)."""
    from iosizer.api import FitReport
    from iosizer.calibration.calibrate import residual_rows
    from iosizer.calibration.fit import CONFIDENCE_CONVENTION

    fit = result.fit
    document = FitReport(result).to_dict(output)  # one builder: the CLI's JSON is the API's to_dict()
    rows = [{"parameter": name, **values} for name, values in document["parameters"].items()]
    notes = _fit_notes(result, fit_percentiles, verbose)
    notes.append(CONFIDENCE_CONVENTION)
    if output is not None:
        notes.append(f"profile written to {output}")
    return Report(
        data=document,
        rows=rows,
        title=f"Calibration of '{model}' on {result.dataset.path} ({fit.n_points} points)",
        csv_rows=residual_rows(result) if residuals else None,
        notes=notes,
        plot=_fit_panels(fit, result.dataset.schema) if plot is not None else None,
    )


def _settings(options: dict[str, Any], setting: list[str] | None) -> dict[str, Any]:
    """The family's settings given by their own options and by ``--set name=value`` (never both)."""
    from iosizer.errors import InputError

    for name, value in _pairs(setting or []).items():
        if options.get(name) is not None:
            raise InputError(f"--set {name} repeats --{name.replace('_', '-')}")
        options[name] = value
    return options


def _pairs(texts: list[str]) -> dict[str, str]:
    """``--set name=value`` pairs; a name given twice is an error, not a silent override."""
    from iosizer.errors import InputError

    pairs: dict[str, str] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name or not value.strip():
            raise InputError(f"--set expects NAME=VALUE, got {text!r}")
        if name in pairs:
            raise InputError(f"--set {name} is given twice")
        pairs[name] = value.strip()
    return pairs


def _percentiles_fitted(fit_percentiles: bool | None, fit_percentile: list[float] | None) -> bool | list[float] | None:
    """What the fit takes of the percentile columns: the ones named by --fit-percentile (checked), else
    --fit-percentiles/--no-fit-percentiles (None: the family decides)."""
    if not fit_percentile:
        return fit_percentiles
    from iosizer.model.percentiles import PERCENTILE

    return [PERCENTILE.check(p, "--fit-percentile") for p in fit_percentile]


def _fit_notes(result: Any, fit_percentiles: bool | None, verbose: bool) -> list[str]:
    """The lines under a fit report: each column's RMSE and R^2, notes, warnings, the tail check."""
    from iosizer.calibration.calibrate import tail_summary

    fit = result.fit
    notes = [
        f"{column}: RMSE {s.rmse:.6g}, R^2 {s.r2:.6f} over {s.n_points} points"
        for column, s in fit.statistics.items()
    ]
    notes += [f"note: {n}" for n in result.notes]
    notes += [f"warning: {w}" for w in fit.warnings]
    # the fit's own columns say whether the percentiles were fitted (device fits them by default)
    role = "a fit input" if any(name in fit.statistics for name in result.tails) else "checked, not fitted"
    summary = tail_summary(result.tails)
    if verbose or (summary is not None and summary["n_percentiles"] == 1):
        notes += [f"tail {name} ({role}): the fitted model is {t['rms_error_pct']:.1f} % off (RMS over "
                  f"{t['n_points']} points; worst {t['worst_error_pct']:+.1f} % at line {t['worst_line']})"
                  for name, t in result.tails.items()]
    elif summary is not None:  # one line: the warnings above must not drown in one per percentile
        notes.append(f"tail check ({role}) of {summary['n_percentiles']} percentiles: the fitted model is "
                     f"{summary['rms_error_pct']:.1f} % off (RMS over all); worst p{summary['worst_percentile']:g} "
                     f"({summary['worst_rms_error_pct']:.1f} % RMS; {summary['worst_error_pct']:+.1f} % at line "
                     f"{summary['worst_line']}); each percentile: --verbose or JSON 'tails'")
    return notes


def _columns(family_name: str) -> Report:
    """The family's data schema (``calibrate --columns``): which columns are inputs and which measured, with
    units."""
    from iosizer.api import family as named

    family = named(family_name)
    rows = [{"column": c.name, "role": "input" if c.role.value == "input" else "measured", "unit": c.unit,
             "required": c.required, "description": c.description} for c in family.columns.columns]
    settings = [s.name for s in family.declaration.settings]
    notes = [f"settings may be columns too (one value per file), or --set NAME=VALUE: {', '.join(settings)}"
             if settings else "this family has no settings",
             "also accepted: weight or stderr (per row), source (text); fio JSON, elbencho CSV and "
             "vdbench flatfiles are read directly",
             f"example: {family.example()}"]
    return Report(rows, rows, title=f"Columns of '{family.name}' data", notes=notes)


def _fit_panels(fit: Any, schema: Any) -> list[Panel]:
    """Measured points against the fitted model, one panel per observed column:
    a curve with its 95 % band for one input, model-vs-measured for several."""
    import numpy as np

    panels = []
    # An input the same on every row (device: the block size of a one-size sweep) is no axis.
    varying = [k for k, v in fit.inputs.items() if np.ptp(np.asarray(v, dtype=float)) > 0] or list(fit.inputs)[:1]
    held = {k: float(np.asarray(v, dtype=float).reshape(-1)[0]) for k, v in fit.inputs.items() if k not in varying}
    if len(varying) > 1:
        for column, observed in fit.observed.items():
            measured = np.isfinite(observed)
            span = [float(np.nanmin(observed)), float(np.nanmax(observed))]
            panels.append(Panel(f"measured {column}", f"model {column}", [
                Series("model = measured", span, span, "dashed"),
                Series("points", observed[measured], fit.predicted[column][measured], "points"),
            ], f"{fit.model_name}: {column}"))
        return panels
    x_name = varying[0]
    x = fit.inputs[x_name]
    order = np.argsort(x)
    dense = np.linspace(float(x.min()), float(x.max()), 200)
    if any(c.name == x_name and c.integer for c in schema.columns):  # threads, population: whole numbers
        dense = np.unique(np.round(dense))
    band = fit.predict({x_name: dense, **{k: np.full(dense.shape, v) for k, v in held.items()}})
    for column, observed in fit.observed.items():
        measured = np.isfinite(observed)
        panels.append(Panel(x_name, column, [
            Series("95 % band", dense, band.lower[column], "band", band.upper[column]),
            Series("model", dense, band.value[column]),
            Series("measured", x[order][measured[order]], observed[order][measured[order]], "points"),
        ], f"{fit.model_name}: {column}"))
    return panels


# --- iosizer report --------------------------------------------------------------------------------------------


def report(output_dir: Path = Path("iosizer-report"), check: bool = False, simulate: bool = False, *,
           progress: Callable[[str, int, int], None] | None = None) -> Report:
    """Every model family against every published figure: report.md, report.html and plots."""
    from iosizer.report import checks, document

    target = document.check_target(output_dir)
    told = _Told(progress)
    plots = document.have_matplotlib()
    seeds = checks.seed_names()
    told.total = len(seeds) + 2
    seed_reports = []
    for seed in seeds:
        told(f"checking {seed}")
        seed_reports.append(checks.run_seed(seed))
    result = checks.FullReport(seed_reports)
    simulated = None
    if simulate:
        from iosizer.simulate.comparison import points

        told.total += len(points())
        simulated = document.simulation_section(told)
    charts = [(s.seed, f"{chart.name}.png", chart) for s in seed_reports for chart in s.charts] if plots else []
    told.total += len(charts)
    drawn: dict[str, list[tuple[str, str]]] = {}
    for seed, name, chart in charts:
        drawn.setdefault(seed, []).append((name, chart.title))
    data, written = document.documents(result, str(target), drawn, plots, simulated)
    answer = document.summary(result, data, target, plots)
    answer.files = [(target, document.folder_writer([(name, chart) for _, name, chart in charts], written, told))]
    answer.exit_code = 1 if check and result.failed else 0
    return answer


class _Told:
    """A progress callback ``(description, done, total)`` told one step at a time: each call is a step begun."""

    def __init__(self, progress: Callable[[str, int, int], None] | None) -> None:
        self.progress, self.done, self.total = progress, 0, 0

    def __call__(self, description: str) -> None:
        if self.progress is not None:
            self.progress(description, self.done, self.total)
        self.done += 1
