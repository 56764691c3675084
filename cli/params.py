"""Parsing of command-line values shared by every command.

A *grid* is how a capacity planner types a sweep: one value (``3.2``), a list
(``1,8,16``) or an inclusive range with a step (``0:2100:300``).
"""

from __future__ import annotations

from typing import Any

from iosizer.model.family import (MAX_GRID_POINTS, check_values, parse_grid,  # noqa: F401  (the grid grammar:
                                  reject_repeats)  # model.family)


def parse_servers(texts: list[str], spec: Any = None) -> list[float]:
    """``--servers`` values (the closed network's station grammar, :func:`iosizer.model.mva._inputs.parse_servers`);
    imported when used: a what-if's start-up imports no closed-network module."""
    from iosizer.model.mva._inputs import parse_servers as parse

    return parse(texts, spec)
