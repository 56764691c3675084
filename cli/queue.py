"""``iosizer queue ...``: the group that holds the queueing core's declared questions.

Every command under it is generated from a declaration (:mod:`iosizer.cli.questions`): ``mm1``, ``mmc``,
``mg1``, ``md1``, ``ggc`` and ``erlang`` are family ``mmc``'s questions (:mod:`iosizer.model.queueing`),
``mva`` family ``closed-network``'s.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Open queues (M/M/1, M/M/c, M/G/1, M/D/1, G/G/c) and closed networks (MVA).",
    no_args_is_help=True,
)
