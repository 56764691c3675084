"""The one loader of the data shipped in :mod:`iosizer.data`.

``data/measurements/*.csv`` hold every number the seed documents publish
(one file per table or figure description, with ``exact`` and ``source``
columns); ``data/profiles/*.json`` hold hardware facts with their sources.
Nothing else in the package opens those files.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from iosizer.errors import DatasetError


@dataclass(frozen=True)
class MeasurementFile:
    name: str
    rows: int
    exact_rows: int
    #: Seed files the rows cite, and the tables/sections within them.
    seeds: tuple[str, ...]
    places: tuple[str, ...]


def _folder(kind: str) -> Any:
    return resources.files("iosizer.data").joinpath(kind)


def measurement_names() -> list[str]:
    return sorted(p.name[:-4] for p in _folder("measurements").iterdir() if p.name.endswith(".csv"))


@lru_cache(maxsize=None)
def _text(kind: str, filename: str) -> str | None:
    # Shipped files never change while the package is imported: read each once (a what-if served
    # many times a second otherwise resolves and reads the same file on every request).
    resource = _folder(kind).joinpath(filename)
    return resource.read_text(encoding="utf-8") if resource.is_file() else None


@lru_cache(maxsize=None)
def _rows(name: str) -> tuple[dict[str, str], ...] | None:
    text = _text("measurements", f"{name}.csv")
    return None if text is None else tuple(csv.DictReader(io.StringIO(text)))


def read_measurement(name: str) -> list[dict[str, str]]:
    """Rows of ``data/measurements/NAME.csv`` as dicts of text (the caller's own copies)."""
    rows = _rows(name)
    if rows is None:
        raise DatasetError(
            f"no shipped measurement '{name}'; available: {', '.join(measurement_names())}"
        )
    return [dict(row) for row in rows]


def measurement_files() -> list[MeasurementFile]:
    """Every shipped measurement file with its row counts and distinct sources."""
    listing = []
    for name in measurement_names():
        rows = read_measurement(name)
        seeds: dict[str, None] = {}
        places: dict[str, None] = {}
        for row in rows:
            # A source reads "<seed file> <where>; <where>..."
            seed, _, where = row.get("source", "").strip().partition(" ")
            if seed:
                seeds[seed] = None
            for part in where.split(";"):
                part = part.strip()
                if part and not part.endswith(".txt"):
                    places[part.split(".txt ")[-1]] = None
        exact = sum(1 for r in rows if r.get("exact", "").strip().lower() == "true")
        listing.append(MeasurementFile(name, len(rows), exact, tuple(seeds), tuple(places)))
    return listing


def hardware_profile(kind: str) -> dict[str, Any]:
    """``data/profiles/KIND.json`` (switches, nics, fc_ports, interconnects, cpus...)."""
    text = _text("profiles", f"{kind}.json")
    if text is None:
        names = sorted(p.name[:-5] for p in _folder("profiles").iterdir() if p.name.endswith(".json"))
        raise DatasetError(f"no shipped hardware profile '{kind}'; available: {', '.join(names)}")
    return json.loads(text)  # parsed per call: the caller's own objects


def measurement_sha256(name: str) -> str:
    """SHA-256 of a shipped measurement file, for the profiles fitted to it."""
    import hashlib

    resource = _folder("measurements").joinpath(f"{name}.csv")
    if not resource.is_file():
        raise DatasetError(f"no shipped measurement '{name}'")
    return hashlib.sha256(resource.read_bytes()).hexdigest()
