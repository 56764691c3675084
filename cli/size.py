"""``iosizer size ...``: how many do I need, and how much does it carry (issue 16).

The group's commands are generated from the families' declared sizing
(:class:`iosizer.cli.declared.SizeGroup`: ``size servers`` and ``size load`` from
the mmc and closed-network declarations, ``size device``, a plugin's); the seed
families' command still written by hand (``size latency``) is in
:mod:`iosizer.cli.size_families`, registered on :data:`app` with :data:`ProfileOption`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iosizer.cli.declared import SizeGroup

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

