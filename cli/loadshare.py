"""``iosizer loadshare ...``: port load-sharing policies on a multi-core controller (seed 003).

``iosizer loadshare curve`` and ``compare`` are generated from the family's declared questions
(:mod:`iosizer.model.loadshare`; :mod:`iosizer.cli.questions` attaches them to this group). The options
below are the ones ``iosizer simulate loadshare`` still declares by hand.
"""

from __future__ import annotations

from typing import Annotated

import typer

from iosizer.errors import InputError

app = typer.Typer(
    help="Which policy spreads storage-port queues over cores best (seed 003).",
    no_args_is_help=True,
)

#: Where a default comes from: the family's declaration, never a number here.
DECLARED = "[declared value; see `iosizer params loadshare`]"
NonCore = Annotated[
    float | None, typer.Option("--non-core-pct", help="Fixed time of a write hit that no core spends (link "
                               "transfer, adapter DMA), added to every port's response, % of one I/O's "
                               f"service time (not published; assumed). {DECLARED}")
]
SwitchRule = Annotated[
    str | None, typer.Option("--switch-rule", help="When multi-stage gives a port another core: system-response, "
                             f"equal-response or threshold (see `iosizer params loadshare`). {DECLARED}")
]
SharesOption = Annotated[
    str | None, typer.Option("--shares", metavar="A,B,...", help="Any port mix instead of a scenario: one load "
                             "share per port, comma-separated, normalised (1,2,3,4); --cores then defaults to "
                             "the declared count and the curves are normalised by shared's.")
]
def parse_shares(text: str | None, flag: str = "--shares") -> tuple[float, ...] | None:
    """``--shares 1,2,3,4`` as port shares (None when not given); a one-line error on a bad list
    (checked by the declaration, :func:`iosizer.model.loadshare.parse_shares`)."""
    from iosizer.model.loadshare import parse_shares as declared

    normal = None if text is None else declared(text, flag)
    if normal is None:
        return None
    if not normal:  # an empty list is no mix
        raise InputError(f"{flag} must be numbers separated by commas (1,2,3,4), got {text!r}")
    return tuple(float(v) for v in normal.split(","))
