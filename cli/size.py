"""``iosizer size ...``: how many do I need, and how much does it carry (issue 16).

Every command of the group is generated from the families' declared sizing
(:class:`iosizer.cli.declared.SizeGroup`: ``size servers`` and ``size load`` from
the mmc and closed-network declarations, ``size latency`` from the latency tiers
question's, ``size device``, a plugin's).
"""

from __future__ import annotations

import typer

from iosizer.cli.declared import SizeGroup

app = typer.Typer(
    cls=SizeGroup,  # a family that declares sizing gets 'iosizer size <its command>' (iosizer.cli.declared)
    help="Sizing: the smallest servers, cores, ports or outstanding I/Os for a target, and the largest load "
         "or latency within one.",
    no_args_is_help=True,
)
