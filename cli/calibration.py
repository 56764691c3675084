"""``iosizer calibrate``, ``iosizer extrapolate`` and ``iosizer datasets``.

Their work is :mod:`iosizer.tools`' (the server and :func:`iosizer.ask` answer them there, as
:mod:`iosizer.commands` declares them); here they are parsed and rendered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iosizer import tools
from iosizer.cli.generated import typer_function
from iosizer.commands import declared_command
from iosizer.cli.options import FormatOption, PlotOption, output_target
from iosizer.cli.output import OutputFormat, emit, progress_bar

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
    # --output and --plot were checked while parsing; both are written at the end, together.
    with progress_bar() as progress:  # a large file takes seconds to read and fit; shown on a terminal only
        if data and not columns:
            progress.add_task(f"calibrating {model} on {', '.join(p.name for p in data)}", total=None)
        answer = tools.calibrate(model, data, columns, setting, force, fit_percentiles, fit_percentile, output,
                                 stations, think_time_s, servers, terminals, cpu_name, cpu_speed, verbose, plot,
                                 residuals=output_format is OutputFormat.csv)
    emit(answer, output_format, None if columns else plot)


calibrate.__doc__ = tools.calibrate.__doc__  # one help text: the work's (iosizer.tools)


extrapolate = typer_function(declared_command(("extrapolate",)))  # generated from its declaration


datasets = typer_function(declared_command(("datasets",)))  # generated from its declaration


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


