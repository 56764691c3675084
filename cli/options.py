"""Options shared by every command, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Callable

import typer

from iosizer.cli.output import OutputFormat, check_output_path, check_plot_path

from iosizer.generated import BAND_HELP, PLOT_HELP, BandKind  # declared once, with the fields

BandOption = Annotated[
    BandKind,
    typer.Option("--band", help=BAND_HELP),
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
    typer.Option("--plot", callback=_plot_target, help=PLOT_HELP),
]
