"""``iosizer calibrate``, ``iosizer extrapolate`` and ``iosizer datasets``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from iosizer import tools  # datasets' work (iosizer.commands declares it)
from iosizer.cli.options import FormatOption, PlotOption, output_target
from iosizer.cli.output import OutputFormat, Panel, Report, Series, emit, progress_bar
from iosizer.errors import InputError

OutputPath = Annotated[
    Path | None,
    typer.Option("--output", "-o", callback=output_target("--output"),
                 help="Write the profile here (JSON, written atomically, only if the command succeeds; "
                      "its folder must exist)."),
]
CpuName = Annotated[str | None, typer.Option("--cpu-name", help="CPU the data was measured on.")]


def calibrate(
    model: FamilyArgument,
    data: DataFiles = None,
    columns: ColumnsFlag = False,
    setting: SetOption = None,
    force: ForceFlag = False,
    fit_percentiles: FitPercentilesFlag = None,
    fit_percentile: FitPercentileOption = None,
    output: OutputPath = None,
    stations: StationsOption = None,
    think_time_s: ThinkTimeOption = None,
    servers: ServersOption = None,
    terminals: TerminalsOption = None,
    cpu_name: CpuName = None,
    cpu_speed: CpuSpeedOption = None,
    verbose: VerboseFlag = False,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """Fit a family to measured points; print the fit report, save a profile."""
    from iosizer.calibration.calibrate import calibrate as run
    from iosizer.calibration.profile import profile_writer

    if columns:
        _print_columns(model, output_format)
        return
    if not data:
        raise InputError("give the measured data: a CSV in the family's columns (see --columns) or benchmark output")
    # --output and --plot were checked while parsing; both are written at the end, together.
    if cpu_speed is not None:
        from iosizer.model.family import CPU_SPEED

        CPU_SPEED.check(cpu_speed, "--cpu-speed")
    options = _settings({"stations": stations, "think_time_s": think_time_s, "servers": servers,
                         "terminals": terminals}, setting)
    chosen = _percentiles_fitted(fit_percentiles, fit_percentile)
    fit_percentiles = bool(fit_percentile) or fit_percentiles
    with progress_bar() as progress:  # a large file takes seconds to read and fit; shown on a terminal only
        progress.add_task(f"calibrating {model} on {', '.join(p.name for p in data)}", total=None)
        result = run(model, data if len(data) > 1 else data[0], options, cpu_name=cpu_name, cpu_speed=cpu_speed,
                     force=force, fit_percentiles=chosen)

    emit(
        _fit_report(result, model, output, output_format, fit_percentiles, verbose, plot),
        output_format,
        plot,
        files=[(output, profile_writer(result.profile))] if output is not None else (),
    )


def _fit_report(result: Any, model: str, output: Path | None, output_format: OutputFormat,
                fit_percentiles: bool, verbose: bool, plot: Any) -> Report:
    """The fit report ``iosizer calibrate`` prints: the API's document, a row per parameter, the notes."""
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
        # One row per measured value: built only when CSV is asked for (a million-row fit).
        csv_rows=residual_rows(result) if output_format is OutputFormat.csv else None,
        notes=notes,
        plot=_fit_panels(fit, result.dataset.schema) if plot is not None else None,
    )


def _settings(options: dict[str, Any], setting: list[str] | None) -> dict[str, Any]:
    """The family's settings given by their own options and by ``--set name=value`` (never both)."""
    for name, value in _pairs(setting or []).items():
        if options.get(name) is not None:
            raise InputError(f"--set {name} repeats --{name.replace('_', '-')}")
        options[name] = value
    return options


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


def _pairs(texts: list[str]) -> dict[str, str]:
    """``--set name=value`` pairs; a name given twice is an error, not a silent override."""
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


def _print_columns(family_name: str, output_format: OutputFormat) -> None:
    """The family's data schema: which columns are inputs and which measured, with units."""
    import iosizer

    family = iosizer.family(family_name)
    rows = [{"column": c.name, "role": "input" if c.role.value == "input" else "measured", "unit": c.unit,
             "required": c.required, "description": c.description} for c in family.columns.columns]
    settings = [s.name for s in family.declaration.settings]
    notes = [f"settings may be columns too (one value per file), or --set NAME=VALUE: {', '.join(settings)}"
             if settings else "this family has no settings",
             "also accepted: weight or stderr (per row), source (text); fio JSON, elbencho CSV and "
             "vdbench flatfiles are read directly",
             f"example: {family.example()}"]
    emit(Report(rows, rows, title=f"Columns of '{family.name}' data", notes=notes), output_format)


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


def extrapolate(
    profiles: Annotated[list[Path], typer.Argument(help="Profiles calibrated on one or more CPUs.")],
    cpu_speed: Annotated[float, typer.Option("--cpu-speed", help="Relative per-core speed of the target CPU.")],
    output: OutputPath = None,
    cpu_name: CpuName = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    emit(tools.extrapolate(profiles, cpu_speed, output, cpu_name), output_format)


extrapolate.__doc__ = tools.extrapolate.__doc__  # one help text: the work's (iosizer.tools)


def datasets(output_format: FormatOption = OutputFormat.table) -> None:
    emit(tools.datasets(), output_format)


datasets.__doc__ = tools.datasets.__doc__  # one help text: the work's (iosizer.tools)


FamilyArgument = Annotated[str, typer.Argument(help="A family (see 'iosizer families').")]

DataFiles = Annotated[
    list[Path] | None,
    typer.Argument(help="Measured points: a CSV in the family's columns (see --columns), or fio JSON, "
                        "elbencho CSV or vdbench flatfile output (one or several files)."),
]

ColumnsFlag = Annotated[
    bool, typer.Option("--columns", help="Print the family's data columns (names with units) and exit.")
]

SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", metavar="NAME=VALUE",
                 help="A setting or a parameter to hold (repeatable), e.g. --set servers=8; "
                      "see 'iosizer params FAMILY'."),
]

ForceFlag = Annotated[
    bool, typer.Option("--force", help="Keep a fit that is worse than a constant (R^2 < 0); calibrate on the "
                                       "jobs of a fio file that did not fail, leaving the failed ones out.")
]

FitPercentilesFlag = Annotated[
    bool | None, typer.Option("--fit-percentiles/--no-fit-percentiles",
                              help="Fit measured percentile columns (response_pP_s/_ms/_us, fio's clat "
                                   "percentiles; p50 and p99 unless --fit-percentile) with the means, against "
                                   "the family's percentile model, freeing its service variability; "
                                   "--no-fit-percentiles: only check them. Default: device fits them where "
                                   "the data carry them (service_scv held), the other families only check them.")
]

FitPercentileOption = Annotated[
    list[float] | None,
    typer.Option("--fit-percentile", metavar="P",
                 help="A percentile to fit (repeatable; implies --fit-percentiles) [default: 50 and 99]; the "
                      "others the data carry are checked only.")
]

StationsOption = Annotated[
    int | None, typer.Option("--stations", help="closed-network: number of stations K.")
]

ThinkTimeOption = Annotated[
    float | None,
    typer.Option("--think-time-s", help="closed-network: fix the think time Z (s); free if omitted."),
]

ServersOption = Annotated[int | None, typer.Option("--servers", help="mmc: number of servers C.")]

TerminalsOption = Annotated[
    int | None, typer.Option("--terminals", help="oltp: jobs in the batch network [declared value; see 'iosizer params oltp'].")
]

CpuSpeedOption = Annotated[
    float | None,
    typer.Option("--cpu-speed", help="Relative per-core speed of that CPU (for extrapolation)."),
]

VerboseFlag = Annotated[
    bool, typer.Option("--verbose", "-v", help="Print the tail check per percentile, not its one-line summary "
                                               "(JSON always has both: 'tails', 'tail_summary').")
]


