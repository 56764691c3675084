"""The unit vocabulary: how iosizer names units, read by every surface.

A name carries its unit in its suffix (STYLE: ``added_latency_ns``,
``block_kib``, ``link_gbit_s``; never the ambiguous ``_gbps``). CLI flags,
HTTP fields, scenario keys and ``iosizer params`` read the unit of a name
from here, or from the declaration that names it (a :class:`ParameterSpec`
or a question's :class:`Input`), never from a list of their own.

This module is the bottom layer with :mod:`iosizer.errors`: it imports
nothing from iosizer.
"""

from __future__ import annotations

__all__ = ["KIB", "MIB", "NOT_UNITS", "SUFFIXES", "UNITS", "bytes_from_kib", "stem", "unit_of"]

#: Bytes in a kibibyte: block sizes are given in KiB (``block_kib``), transfers in bytes.
KIB = 1024
#: Bytes in a mebibyte.
MIB = 1024 * KIB

#: The units a declaration may name, with what each means (the vocabulary of ``unit=``).
UNITS: dict[str, str] = {
    "s": "seconds",
    "ms": "milliseconds",
    "us": "microseconds",
    "ns": "nanoseconds",
    "1/s": "per second",
    "t": "any time unit, the same for every time of the answer (the unit of 1/rate)",
    "1/t": "per unit time, in the time unit of the answer",
    "bytes": "bytes",
    "KiB": "kibibytes (1024 bytes)",
    "MB/s": "megabytes per second (10^6 bytes/s)",
    "GB/s": "gigabytes per second (10^9 bytes/s)",
    "Gbit/s": "gigabits per second (10^9 bits/s)",
    "IOPS": "I/O operations per second",
    "%": "percent",
    "1": "dimensionless",
    "x": "a ratio to a reference",
}

#: Unit suffixes of names, longest first so ``_per_s`` wins over ``_s``. ``_mbps`` (MB/s) and the
#: deprecated ``_gbps`` (GB/s, kept as JSON aliases of ``_gbyte_s`` keys) are byte rates.
SUFFIXES: tuple[tuple[str, str], ...] = (
    ("_per_s", "1/s"), ("_gbit_s", "Gbit/s"), ("_gbyte_s", "GB/s"), ("_mbps", "MB/s"), ("_gbps", "GB/s"),
    ("_iops", "IOPS"), ("_bytes", "bytes"), ("_kib", "KiB"), ("_pct", "%"), ("_ns", "ns"), ("_us", "us"),
    ("_ms", "ms"), ("_s", "s"),
)

#: Declared "units" that say nothing on a form: dimensionless numbers and names.
NOT_UNITS = frozenset({"", "1", "name"})


def unit_of(name: str) -> str | None:
    """The unit a name carries in its suffix (``added_latency_ns`` -> ``ns``), or None."""
    for suffix, unit in SUFFIXES:
        if name.endswith(suffix):
            return unit
    return None


def stem(name: str) -> str:
    """``name`` without its unit suffix (``added_latency_ns`` -> ``added_latency``)."""
    for suffix, _ in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def bytes_from_kib(kib: float) -> float:
    """A size in KiB as bytes."""
    return kib * KIB
