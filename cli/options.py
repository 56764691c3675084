"""Options shared by every command, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iosizer.cli.output import OutputFormat

FormatOption = Annotated[
    OutputFormat,
    typer.Option("--format", "-f", help="Output: a readable table, JSON or CSV."),
]

PlotOption = Annotated[
    Path | None,
    typer.Option("--plot", help="Also draw the answer to this file (.png, .svg or .pdf; needs iosizer[plot])."),
]
