"""Options shared by every command, declared once."""

from __future__ import annotations

from typing import Annotated

import typer

from iosizer.cli.output import OutputFormat

FormatOption = Annotated[
    OutputFormat,
    typer.Option("--format", "-f", help="Output: a readable table, JSON or CSV."),
]
