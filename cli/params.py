"""Parsing of command-line values shared by every command.

A *grid* is how a capacity planner types a sweep: one value (``3.2``), a list
(``1,8,16``) or an inclusive range with a step (``0:2100:300``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from iosizer.errors import InputError

if TYPE_CHECKING:
    from iosizer.model.family import ParameterSpec

#: A sweep is for a table or a curve: more points than any plot resolves is
#: almost certainly a typo in the step, and every command answers this many in
#: about a second (lists count as well as ranges).
MAX_GRID_POINTS = 10_000


def parse_grid(text: str, name: str, spec: "ParameterSpec | None" = None) -> list[Any]:
    """Values of ``--name``: ``x``, ``a,b,c`` or ``start:stop:step`` (stop included).

    With ``spec`` (the option's declaration) every value is checked against
    its bounds, and the error names the flag and the bound.
    """
    text = text.strip()
    separator = ":" if ":" in text else ","
    try:
        values = [float(p) for p in text.split(separator)]
    except ValueError:
        values = []
    if not values or (separator == ":" and len(values) != 3):
        raise InputError(
            f"--{name}: expected a number, a list like 1,8,16 or a range like "
            f"0:2100:300, got {text!r}"
        )
    if separator == ":":
        values = _range(*values, name)
    elif len(values) > MAX_GRID_POINTS:
        raise InputError(f"--{name}: the list has {len(values)} values, more than {MAX_GRID_POINTS}")
    return check_values(values, name, spec)


def check_values(values: list[float], name: str, spec: "ParameterSpec | None") -> list[Any]:
    """``values`` checked against ``spec`` (if given), the first bad one named with ``--name``."""
    return values if spec is None else [spec.check(v, f"--{name}") for v in values]


def _range(start: float, stop: float, step: float, name: str) -> list[float]:
    if not (math.isfinite(start) and math.isfinite(stop) and math.isfinite(step)):
        raise InputError(f"--{name}: range bounds and step must be finite")
    if step <= 0 or stop < start:
        raise InputError(
            f"--{name}: range start:stop:step needs step > 0 and stop >= start, "
            f"got {start:g}:{stop:g}:{step:g}"
        )
    count = math.floor((stop - start) / step * (1 + 1e-12)) + 1
    if count > MAX_GRID_POINTS:
        raise InputError(f"--{name}: range has {count} points, more than {MAX_GRID_POINTS}")
    return [start + i * step for i in range(count)]


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
