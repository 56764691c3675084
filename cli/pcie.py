"""``iosizer pcie ...``: PCIe write path, unaligned accesses, RMW contention (seed 001).

``pcie link`` and ``pcie pattern`` (family ``pcie-link``) and ``pcie rmw`` (family ``rmw``) are
generated from their declared questions in :mod:`iosizer.model.pcie` (:mod:`iosizer.cli.questions`
attaches them to this group).
"""

from __future__ import annotations

import typer

app = typer.Typer(
    help="PCIe write path: link bandwidth, 64-byte-unaligned accesses, RMW contention (seed 001).",
    no_args_is_help=True,
)
