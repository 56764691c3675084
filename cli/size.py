"""``iosizer size ...``: how many do I need, and how much does it carry (issue 16).

The group's commands are generated from the families' declared sizing
(:class:`iosizer.cli.declared.SizeGroup`: ``size servers`` and ``size load`` from
the mmc and closed-network declarations, ``size device``, a plugin's); the seed
families' commands still written by hand are in :mod:`iosizer.cli.size_families`,
registered on :data:`app` with :data:`ProfileOption` and :func:`_emit`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from iosizer.cli.declared import SizeGroup
from iosizer.cli.output import OutputFormat, Report, emit

app = typer.Typer(
    cls=SizeGroup,  # a family that declares sizing gets 'iosizer size <its command>' (iosizer.cli.declared)
    help="Sizing: the smallest servers, cores, ports or outstanding I/Os for a target, and the largest load "
         "or latency within one.",
    no_args_is_help=True,
)

ProfileOption = Annotated[
    Path | None,
    typer.Option("--profile", help="Calibrated profile; the answer then carries the interval of its parameters."),
]


def _metric_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"metric": k, "value": v} for k, v in data.items() if not isinstance(v, (list, dict))]


def _emit(data: Any, title: str, notes: list[str], output_format: OutputFormat) -> None:
    if isinstance(data, list):
        emit(Report(data=data, rows=data, title=title, notes=notes), output_format)
    else:
        emit(Report(data=data, rows=_metric_rows(data), title=title, notes=notes, csv_rows=[data]), output_format)
