"""``iosizer calibrate``, ``iosizer extrapolate`` and ``iosizer datasets``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from iosizer.cli.options import FormatOption, PlotOption, output_target
from iosizer.cli.output import OutputFormat, Panel, Report, Series, emit
from iosizer.cli.params import reject_repeats

OutputPath = Annotated[
    Path | None,
    typer.Option("--output", "-o", callback=output_target("--output"),
                 help="Write the profile here (JSON, written atomically, only if the command succeeds; "
                      "its folder must exist)."),
]
CpuName = Annotated[str | None, typer.Option("--cpu-name", help="CPU the data was measured on.")]


def calibrate(
    model: Annotated[str, typer.Argument(help="closed-network, mmc, dma or oltp.")],
    data: Annotated[Path, typer.Argument(help="Measured points, CSV with the model's columns.")],
    output: OutputPath = None,
    stations: Annotated[
        int | None, typer.Option("--stations", help="closed-network: number of stations K.")
    ] = None,
    think_time_s: Annotated[
        float | None,
        typer.Option("--think-time-s", help="closed-network: fix the think time Z (s); free if omitted."),
    ] = None,
    servers: Annotated[int | None, typer.Option("--servers", help="mmc: number of servers C.")] = None,
    terminals: Annotated[
        int | None, typer.Option("--terminals", help="oltp: jobs in the batch network [declared value; see 'iosizer params oltp'].")
    ] = None,
    cpu_name: CpuName = None,
    cpu_speed: Annotated[
        float | None,
        typer.Option("--cpu-speed", help="Relative per-core speed of that CPU (for extrapolation)."),
    ] = None,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """Fit a model to measured points; print the fit report, save a profile."""
    from iosizer.calibration.calibrate import calibrate as run, residual_rows
    from iosizer.calibration.fit import CONFIDENCE_CONVENTION
    from iosizer.calibration.profile import profile_writer

    # --output and --plot were checked while parsing; both are written at the end, together.
    if cpu_speed is not None:
        from iosizer.model.family import CPU_SPEED

        CPU_SPEED.check(cpu_speed, "--cpu-speed")
    options = {"stations": stations, "think_time_s": think_time_s, "servers": servers, "terminals": terminals}
    result = run(model, data, options, cpu_name=cpu_name, cpu_speed=cpu_speed)

    fit = result.fit
    parameters = {
        name: {
            "value": estimate.value,
            "ci_low": estimate.ci_low,
            "ci_high": estimate.ci_high,
            "unit": estimate.unit,
            "fixed": not estimate.vary,
        }
        for name, estimate in result.profile.parameters.items()
    }
    document: dict[str, Any] = {
        "model": model,
        "parameters": parameters,
        "rmse": fit.rmse,
        "r2": fit.r2,
        "n_points": fit.n_points,
        "dof": fit.dof,
        "columns": {k: {"rmse": s.rmse, "r2": s.r2, "n_points": s.n_points} for k, s in fit.statistics.items()},
        "warnings": list(fit.warnings),
        "confidence": CONFIDENCE_CONVENTION,
        "profile": str(output) if output is not None else None,
    }
    rows = [{"parameter": name, **values} for name, values in parameters.items()]
    notes = [
        f"{column}: RMSE {s.rmse:.6g}, R^2 {s.r2:.6f} over {s.n_points} points"
        for column, s in fit.statistics.items()
    ]
    notes += [f"warning: {w}" for w in fit.warnings]
    notes.append(CONFIDENCE_CONVENTION)
    if output is not None:
        notes.append(f"profile written to {output}")
    emit(
        Report(
            data=document,
            rows=rows,
            title=f"Calibration of '{model}' on {data} ({fit.n_points} points)",
            csv_rows=residual_rows(result),
            notes=notes,
            plot=_fit_panels(fit) if plot is not None else None,
        ),
        output_format,
        plot,
        files=[(output, profile_writer(result.profile))] if output is not None else (),
    )


def _fit_panels(fit: Any) -> list[Panel]:
    """Measured points against the fitted model, one panel per observed column:
    a curve with its 95 % band for one input, model-vs-measured for several."""
    import numpy as np

    panels = []
    if len(fit.inputs) > 1:
        for column, observed in fit.observed.items():
            measured = np.isfinite(observed)
            span = [float(np.nanmin(observed)), float(np.nanmax(observed))]
            panels.append(Panel(f"measured {column}", f"model {column}", [
                Series("model = measured", span, span, "dashed"),
                Series("points", observed[measured], fit.predicted[column][measured], "points"),
            ], f"{fit.model_name}: {column}"))
        return panels
    x_name = next(iter(fit.inputs))
    x = fit.inputs[x_name]
    order = np.argsort(x)
    dense = np.linspace(float(x.min()), float(x.max()), 200)
    if x_name == "population":
        dense = np.unique(np.round(dense))
    band = fit.predict({x_name: dense})
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
    """Predict a profile for another CPU from profiles of one or more CPUs."""
    from iosizer.calibration.extrapolate import extrapolate as run
    from iosizer.calibration.profile import load_profile, profile_writer

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
    emit(
        Report(document, rows, title=f"Extrapolation of '{result.profile.model}' to CPU speed {cpu_speed:g}",
               notes=notes),
        output_format,
        files=[(output, profile_writer(result.profile))] if output is not None else (),
    )


def datasets(output_format: FormatOption = OutputFormat.table) -> None:
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
    emit(
        Report(rows, rows, title="Shipped measurements (data/measurements)",
               notes=["exact: from a table or stated in the text; approximate: read from a figure's description"]),
        output_format,
    )
