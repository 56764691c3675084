"""Measured datasets: a CSV file checked against the schema its model declares.

A dataset is a CSV file with a header row. Each calibratable model declares a
:class:`Schema`: which columns are inputs and which are the observed metrics
(names carry their units, ``arrival_rate_per_s``), their physical limits, and
whether they must be whole numbers. Every schema also accepts an optional
``weight`` (relative weight of a row) or ``stderr`` (absolute standard error
of the observed value, same unit) column and a free-text ``source`` column;
other columns are carried along untouched.

Published figures are often bounds or approximations ("5 % or less", "a
little under 10 %"). A ``relation`` column says how to read each observed
value (the convention of ``data/measurements``): ``eq``; ``approx``;
``le``/``lt``/``max`` (an upper bound: the fit is penalised only above it);
``ge``/``gt``/``min`` (a lower bound); ``approx_under``/``approx_over`` ("a
little under/over": the target is the middle of the band
value x (1 -/+ approx_pct/100), from an ``approx_pct`` column). The
tolerance is a reader's band, not a measurement error, so it does not weight
the fit: rows count equally unless the file has a ``weight`` or ``stderr``
column.

Loading validates every row once; afterwards the model code trusts the
arrays. An error is one line naming the file, the line, the column and what
was expected::

    data.csv:4: column 'throughput_per_s': expected a number, got 'fast'
"""

from __future__ import annotations

import csv
import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from iosizer.errors import DatasetError
from iosizer.model.family import Column, Role, Schema

WEIGHT_COLUMN = "weight"
RELATION_COLUMN = "relation"
TOLERANCE_COLUMN = "approx_pct"
#: relation -> (bound: +1 upper, -1 lower, 0 a point; target shift in units of approx_pct / 200)
RELATIONS = {
    "eq": (0, 0.0), "approx": (0, 0.0),
    "le": (1, 0.0), "lt": (1, 0.0), "max": (1, 0.0),
    "ge": (-1, 0.0), "gt": (-1, 0.0), "min": (-1, 0.0),
    "approx_under": (0, -1.0), "approx_over": (0, 1.0),
}
STDERR_COLUMN = "stderr"
SOURCE_COLUMN = "source"


@dataclass(frozen=True)
class Dataset:
    """Validated rows of a measurement file, as float64 columns.

    ``values`` maps each present schema column to its array; an optional
    observed column that a row leaves empty is NaN there (and that residual
    is skipped by the fitter). ``lines`` are the 1-based file line numbers of
    the rows, so residuals can point back at the file.
    """

    path: str
    sha256: str
    schema: Schema
    values: dict[str, np.ndarray]
    lines: np.ndarray
    weights: np.ndarray | None = None
    stderr: np.ndarray | None = None
    sources: tuple[str, ...] = ()
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Per row: +1 the observed value is an upper bound, -1 a lower bound, 0 a point.
    bounds: np.ndarray | None = None
    #: What loading found worth saying (a point that breaks Little's law...).
    warnings: tuple[str, ...] = ()

    def __len__(self) -> int:
        return int(self.lines.size)

    def inputs(self) -> dict[str, np.ndarray]:
        return {c.name: self.values[c.name] for c in self.schema.inputs}

    def observed(self) -> dict[str, np.ndarray]:
        return {c.name: self.values[c.name] for c in self.schema.observed if c.name in self.values}


def _fail(path: str, line: int | None, message: str) -> DatasetError:
    where = f"{path}:{line}" if line is not None else path
    return DatasetError(f"{where}: {message}")


def _parse_number(text: str, column: Column, path: str, line: int, schema: str) -> float:
    stripped = text.strip()
    try:
        value = float(stripped)
    except ValueError:
        raise _fail(path, line, f"column '{column.name}': expected a number, got {stripped!r}") from None
    if not math.isfinite(value):
        raise _fail(path, line, f"column '{column.name}': expected a finite number, got {stripped!r}")
    below = value < column.minimum if column.minimum_inclusive else value <= column.minimum
    if below:
        relation = ">=" if column.minimum_inclusive else ">"
        raise _fail(
            path, line,
            f"column '{column.name}': expected a value {relation} {column.minimum:g} "
            f"({column.unit}), got {stripped}",
        )
    if value > column.maximum:
        raise _fail(
            path, line,
            f"column '{column.name}': {stripped} is above the ceiling "
            f"{column.maximum:g} {column.unit} that schema '{schema}' declares",
        )
    if column.integer and value != math.floor(value):
        raise _fail(path, line, f"column '{column.name}': expected a whole number, got {stripped}")
    return value


def _header(rows: list[list[str]], path: str) -> list[str]:
    if not rows:
        raise _fail(path, None, "file is empty (expected a header row and data rows)")
    header = [name.strip() for name in rows[0]]
    seen: set[str] = set()
    for name in header:
        if not name:
            raise _fail(path, 1, "header has an empty column name")
        if name in seen:
            raise _fail(path, 1, f"header names column '{name}' twice")
        seen.add(name)
    return header


def load_dataset(path: str | Path, schema: Schema) -> Dataset:
    """Read and validate ``path`` against ``schema``; raise :class:`DatasetError`."""
    path_text = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise _fail(path_text, None, f"cannot read file ({error.strerror or error})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _fail(path_text, None, "not a UTF-8 text file") from None
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as error:
        raise _fail(path_text, None, f"not a readable CSV file ({error})") from None

    header = _header(rows, path_text)
    for column in schema.columns:
        if column.required and column.name not in header:
            raise _fail(
                path_text, 1,
                f"missing column '{column.name}' ({column.unit}) required by schema "
                f"'{schema.name}'; the header has: {', '.join(header)}",
            )
    if WEIGHT_COLUMN in header and STDERR_COLUMN in header:
        raise _fail(path_text, 1, f"give either '{WEIGHT_COLUMN}' or '{STDERR_COLUMN}', not both")

    numeric = [c for c in schema.columns if c.name in header]
    weight_like = [
        Column(name, Role.input, "relative" if name == WEIGHT_COLUMN else "observed unit",
               minimum=0.0, minimum_inclusive=False)
        for name in (WEIGHT_COLUMN, STDERR_COLUMN) if name in header
    ]
    index = {name: i for i, name in enumerate(header)}
    values: dict[str, list[float]] = {c.name: [] for c in numeric + weight_like}
    texts: dict[str, list[str]] = {n: [] for n in header if n not in values}
    lines: list[int] = []
    for line_number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue  # blank line
        if len(row) != len(header):
            raise _fail(
                path_text, line_number,
                f"expected {len(header)} fields as in the header, got {len(row)}",
            )
        lines.append(line_number)
        for column in numeric + weight_like:
            cell = row[index[column.name]]
            if not cell.strip() and column.role is Role.observed and not column.required:
                values[column.name].append(math.nan)  # optional metric not measured here
                continue
            values[column.name].append(
                _parse_number(cell, column, path_text, line_number, schema.name)
            )
        for name in texts:
            texts[name].append(row[index[name]].strip())
    if not lines:
        raise _fail(path_text, None, "has a header but no data rows")

    arrays = {name: np.asarray(v, dtype=np.float64) for name, v in values.items()}
    weights = arrays.pop(WEIGHT_COLUMN, None)
    stderr = arrays.pop(STDERR_COLUMN, None)
    sources = tuple(texts.pop(SOURCE_COLUMN, ()))
    bounds = _relations(path_text, schema, arrays, texts, lines) if RELATION_COLUMN in texts else None
    return Dataset(
        path=path_text,
        sha256=hashlib.sha256(raw).hexdigest(),
        schema=schema,
        values=arrays,
        lines=np.asarray(lines),
        weights=weights,
        stderr=stderr,
        sources=sources,
        extra={name: tuple(v) for name, v in texts.items()},
        bounds=bounds,
    )


def _relations(
    path: str,
    schema: Schema,
    arrays: dict[str, np.ndarray],
    texts: dict[str, list[str]],
    lines: list[int],
) -> np.ndarray:
    """Bound codes from ``relation``; moves approx_under/approx_over targets
    to the middle of their band in ``arrays`` (the file's own value stays in
    the ``extra`` text columns)."""
    observed = [c.name for c in schema.observed if c.name in arrays]
    if len(observed) != 1:
        raise _fail(path, 1, f"a '{RELATION_COLUMN}' column needs exactly one observed column")
    target = arrays[observed[0]]
    bounds = np.zeros(target.size, dtype=np.int8)
    tolerances = texts.get(TOLERANCE_COLUMN, [""] * target.size)
    for i, (relation, line) in enumerate(zip(texts[RELATION_COLUMN], lines)):
        key = relation.strip().lower() or "eq"
        if key not in RELATIONS:
            raise _fail(
                path, line,
                f"column '{RELATION_COLUMN}': expected one of {', '.join(RELATIONS)}, got {relation!r}",
            )
        bounds[i], shift = RELATIONS[key]
        if shift and tolerances[i].strip():
            tolerance = _parse_number(
                tolerances[i], Column(TOLERANCE_COLUMN, Role.input, "%"), path, line, schema.name
            )
            target[i] *= 1.0 + shift * tolerance / 200.0
    return bounds


def check_columns(values: dict[str, np.ndarray], schema: Schema, path: str,
                  labels: tuple[str, ...]) -> None:
    """The same domain checks as a CSV row's, vectorised; an error names the point by ``labels``."""
    for name, array in values.items():
        column = schema.column(name)
        below = array < column.minimum if column.minimum_inclusive else array <= column.minimum
        bad = ~np.isfinite(array) | below | (array > column.maximum)
        if column.integer:
            bad |= array != np.floor(array)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise _fail(path, None, f"{labels[i]}: column '{name}' ({column.unit}) gets {array[i]:g}, "
                                    f"outside what schema '{schema.name}' accepts")
