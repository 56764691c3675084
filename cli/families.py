"""``iosizer params FAMILY`` and ``iosizer families``: what the family registry declares.

Their work is :mod:`iosizer.tools`' (the server and :func:`iosizer.ask` answer them there, as
:mod:`iosizer.commands` declares them); here they are parsed and rendered.
"""

from __future__ import annotations

from typing import Annotated

import typer

from iosizer import tools
from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, emit


def params(
    family: Annotated[str, typer.Argument(help="A family name (see 'iosizer families').")],
    output_format: FormatOption = OutputFormat.table,
) -> None:
    emit(tools.params(family), output_format)


def families(output_format: FormatOption = OutputFormat.table) -> None:
    emit(tools.families(), output_format)


params.__doc__ = tools.params.__doc__  # one help text: the work's
families.__doc__ = tools.families.__doc__
