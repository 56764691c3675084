"""Parsing of command-line values shared by every command.

A *grid* is how a capacity planner types a sweep: one value (``3.2``), a list
(``1,8,16``) or an inclusive range with a step (``0:2100:300``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from iosizer.errors import InputError
from iosizer.model.family import (MAX_GRID_POINTS, check_values, parse_grid,  # noqa: F401  (the grid grammar:
                                  reject_repeats)  # model.family)

if TYPE_CHECKING:
    from iosizer.model.family import ParameterSpec


def parse_servers(texts: list[str], spec: "ParameterSpec | None" = None) -> list[float]:
    """``--servers`` values: a whole number >= 1, or ``inf``/``delay`` for a delay station.

    With ``spec`` a server count is checked against its declared bounds.
    """
    counts = []
    for text in texts:
        key = text.strip().lower()
        if key in {"inf", "delay", "infinite"}:
            counts.append(math.inf)
            continue
        try:
            value = float(key)
        except ValueError:
            raise InputError(
                f"--servers: expected a whole number >= 1 or 'delay', got {text!r}"
            ) from None
        counts.append(value if spec is None else float(spec.check(value, "--servers")))
    return counts
