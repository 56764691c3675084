"""Options shared by every command, declared once."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Callable

import typer

from iosizer.cli.output import OutputFormat, check_output_path, check_plot_path

class BandKind(str, Enum):
    """Which 95 % band a what-if from a profile prints (iosizer.calibration.uncertainty)."""

    parameter = "parameter"
    prediction = "prediction"


BandOption = Annotated[
    BandKind,
    typer.Option("--band", help="With --profile: 'parameter' bands carry the parameters' uncertainty only (where "
                                "the model's mean answer lies); 'prediction' adds the fit's residual scatter "
                                "(where a new measurement lies, so a misfit model does not look precise)."),
]

FormatOption = Annotated[
    OutputFormat,
    typer.Option("--format", "-f", help="Output: a readable table, JSON or CSV."),
]


def _plot_target(value: Path | None) -> Path | None:
    # Checked while the options are parsed, before any command computes.
    return check_plot_path(value)


def output_target(flag: str) -> Callable[[Path | None], Path | None]:
    """An option callback that checks a file output (``--output``) before the command runs."""

    def check(value: Path | None) -> Path | None:
        return check_output_path(value, flag)

    return check


PlotOption = Annotated[
    Path | None,
    typer.Option("--plot", callback=_plot_target,
                 help="Also draw the answer to this file (.png, .svg or .pdf; needs iosizer[plot]; "
                      "its folder must exist)."),
]
