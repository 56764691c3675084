"""``iosizer params FAMILY`` and ``iosizer families``: what the family registry declares.

Their work is :mod:`iosizer.commands`' (the server and :func:`iosizer.ask` answer them there); here they
are parsed and rendered.
"""

from __future__ import annotations

from typing import Annotated

import typer

from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, emit


def params(
    family: Annotated[str, typer.Argument(help="A family name (see 'iosizer families').")],
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Every parameter of a family: unit, shipped value, status (published, derived, assumed, fitted) and source."""
    from iosizer import commands

    emit(commands.params(family), output_format)


def families(output_format: FormatOption = OutputFormat.table) -> None:
    """Every model family: what it models, its source and its data columns."""
    from iosizer import commands

    emit(commands.families(), output_format)
