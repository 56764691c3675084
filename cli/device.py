"""``iosizer device ...``: a storage device calibrated from a fio sweep.

``iosizer device curve`` is generated from the family's declared question
(:mod:`iosizer.cli.questions` attaches it to this group); ``iosizer size
device`` and ``iosizer simulate device`` from its declared sizing and
simulate hook (:mod:`iosizer.cli.declared`).
"""

from __future__ import annotations

import typer

app = typer.Typer(help="Storage device from a fio queue-depth sweep: latency floor, parallel units, unit service.",
                  no_args_is_help=True)
