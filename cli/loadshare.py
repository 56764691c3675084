"""``iosizer loadshare ...``: port load-sharing policies on a multi-core controller (seed 003).

``iosizer loadshare curve`` and ``compare`` are generated from the family's declared questions
(:mod:`iosizer.model.loadshare`; :mod:`iosizer.cli.questions` attaches them to this group).
"""

from __future__ import annotations

import typer


app = typer.Typer(
    help="Which policy spreads storage-port queues over cores best (seed 003).",
    no_args_is_help=True,
)

