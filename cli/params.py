"""Parsing of command-line values shared by every command.

A *grid* is how a capacity planner types a sweep: one value (``3.2``), a list
(``1,8,16``) or an inclusive range with a step (``0:2100:300``).
"""

from __future__ import annotations

from iosizer.model.family import (MAX_GRID_POINTS, check_values, parse_grid,  # noqa: F401  (the grid grammar:
                                  reject_repeats)  # model.family)
from iosizer.model.mva._inputs import parse_servers  # noqa: F401  (the closed network's station grammar)
