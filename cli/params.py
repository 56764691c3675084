"""Parsing of command-line values shared by every command.

A *grid* is how a capacity planner types a sweep: one value (``3.2``), a list
(``1,8,16``) or an inclusive range with a step (``0:2100:300``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from iosizer.errors import InputError
from iosizer.model.family import MAX_GRID_POINTS, check_values, parse_grid  # noqa: F401  (the grid grammar: model.family)

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


def parse_sizes(text: str, name: str, spec: "ParameterSpec | None" = None) -> list[Any]:
    """Block sizes: as :func:`parse_grid`, plus ``start:stop`` for doubling sizes.

    ``4:256`` is 4, 8, 16, 32, 64, 128, 256 (the way I/O sizes are swept);
    ``4:256:4`` keeps the linear step.
    """
    parts = text.strip().split(":")
    if len(parts) != 2:
        return parse_grid(text, name, spec)
    try:
        start, stop = float(parts[0]), float(parts[1])
    except ValueError:
        start = stop = math.nan
    if not (math.isfinite(start) and math.isfinite(stop) and 0 < start <= stop):
        raise InputError(f"--{name}: a doubling range start:stop needs 0 < start <= stop, got {text!r}")
    count = int(math.floor(math.log2(stop / start) + 1e-9)) + 1
    if count > 64:
        raise InputError(f"--{name}: {text!r} doubles more than 64 times")
    return check_values([start * 2.0**i for i in range(count)], name, spec)


def reject_repeats(values: list[Any], flag: str, shown: list[str] | None = None) -> None:
    """Refuse a value given twice (``--link 1g,1g``): say which, rather than drop it silently."""
    words = shown or [str(v) for v in values]
    seen: dict[Any, int] = {}
    for i, value in enumerate(values):
        if value in seen:
            first, again = words[seen[value]], words[i]
            which = "given twice" if first == again else f"'{first}' again"
            raise InputError(f"{flag}: '{again}' is {which}; list each once")
        seen[value] = i
