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
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from iosizer.errors import DatasetError
from iosizer.model.family import Column, Role, Schema
from iosizer.units import MIB

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
    #: The think time the source states for every row (0 for fio's closed loops), None if it says none.
    think_time_s: float | None = None
    #: What loading corrected or decided, said in the output (not a warning).
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return int(self.lines.size)

    def inputs(self) -> dict[str, np.ndarray]:
        return {c.name: self.values[c.name] for c in self.schema.inputs if c.name in self.values}

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
    from iosizer.calibration.files import input_problem

    path_text = str(path)
    try:
        problem = input_problem(Path(path))
        if problem is not None:
            raise _fail(path_text, None, problem)
        shape = _scan(Path(path))
    except OSError as error:
        raise _fail(path_text, None, f"cannot read file ({error.strerror or error})") from None
    try:
        first = next(csv.reader([_newlines(shape.head.decode("utf-8-sig")).split("\n", 1)[0]]), [])
    except UnicodeDecodeError:
        raise _fail(path_text, None, "not a UTF-8 text file") from None
    except csv.Error as error:
        raise _fail(path_text, None, f"not a readable CSV file ({error})") from None
    header = _header([first] if first else [], path_text)
    _check_header(header, schema, path_text)
    # A CR not ending a CRLF (old Mac Excel's CR alone, or CR CR LF from Python's csv module in text
    # mode on Windows) is a line end numpy's reader would see as blank lines: read those row by row.
    fast = _fast_columns(Path(path), shape, header, schema) if not shape.stray_cr else None
    if fast is not None:
        arrays, texts, lines = fast
    else:
        try:
            text = Path(path).read_bytes().decode("utf-8-sig")
        except OSError as error:
            raise _fail(path_text, None, f"cannot read file ({error.strerror or error})") from None
        except UnicodeDecodeError:
            raise _fail(path_text, None, "not a UTF-8 text file") from None
        arrays, texts, lines = _row_columns(_newlines(text), header, schema, path_text)

    weights = arrays.pop(WEIGHT_COLUMN, None)
    stderr = arrays.pop(STDERR_COLUMN, None)
    sources = tuple(texts.pop(SOURCE_COLUMN, ()))
    bounds = _relations(path_text, schema, arrays, texts, list(lines)) if RELATION_COLUMN in texts else None
    return Dataset(
        path=path_text,
        sha256=shape.sha256,
        schema=schema,
        values=arrays,
        lines=np.asarray(lines),
        weights=weights,
        stderr=stderr,
        sources=sources,
        extra={name: tuple(v) for name, v in texts.items()},
        bounds=bounds,
    )


def _check_header(header: list[str], schema: Schema, path_text: str) -> None:
    for column in schema.columns:
        if column.required and column.name not in header:
            raise _fail(
                path_text, 1,
                f"missing column '{column.name}' ({column.unit}) required by schema "
                f"'{schema.name}'; the header has: {', '.join(header)}" + _separator_hint(header),
            )
    if WEIGHT_COLUMN in header and STDERR_COLUMN in header:
        raise _fail(path_text, 1, f"give either '{WEIGHT_COLUMN}' or '{STDERR_COLUMN}', not both")


def _separator_hint(header: list[str]) -> str:
    """A header that is one field holding ';' or tabs was written with another separator: say so."""
    if len(header) == 1:
        for separator, name in ((";", "semicolon"), ("\t", "tab"), ("|", "bar")):
            if separator in header[0]:
                return f" (one field: the file looks {name}-separated; iosizer reads comma-separated CSV)"
    return ""


def _numeric_columns(header: list[str], schema: Schema) -> list[Column]:
    """The schema's columns in the file, then ``weight``/``stderr``: everything parsed as a number."""
    weight_like = [
        Column(name, Role.input, "relative" if name == WEIGHT_COLUMN else "observed unit",
               minimum=0.0, minimum_inclusive=False)
        for name in (WEIGHT_COLUMN, STDERR_COLUMN) if name in header
    ]
    return [c for c in schema.columns if c.name in header] + weight_like


@dataclass(frozen=True)
class _Shape:
    """What one streaming pass learns of a file: its hash, header line, commas outside
    quoted fields and line count, so the fast reader can check every row's field count
    and that no blank line shifts the line numbers."""

    sha256: str
    head: bytes
    commas: int
    lines: int
    #: Some CR does not start a CRLF.
    stray_cr: bool = False


#: The streaming pass reads this much at a time: memory stays flat whatever the file size.
_CHUNK_BYTES = MIB


def _scan(path: Path) -> _Shape:
    """Hash the file and count its lines and its commas outside quoted fields, chunk by chunk.

    A quote toggles the inside of a field (a doubled quote toggles twice),
    so the parity of the quotes seen so far says whether a comma separates.
    """
    digest = hashlib.sha256()
    commas = newlines = returns = crlfs = 0
    previous = b""
    inside = 0  # quote parity carried across chunks
    head = b""
    last = b""
    with open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK_BYTES):
            digest.update(chunk)
            if b"\n" not in head and len(head) < 65536:
                head = (head + chunk)[:65536]
            data = np.frombuffer(chunk, dtype=np.uint8)
            quotes = data == ord('"')
            separators = data == ord(",")
            if quotes.any():
                parity = (np.cumsum(quotes, dtype=np.uint8) + inside) % 2  # uint8 wraps at 256: parity kept
                separators &= parity == 0
                inside = int(parity[-1])
            commas += int(np.count_nonzero(separators))
            newlines += chunk.count(b"\n")
            returns += chunk.count(b"\r")
            crlfs += chunk.count(b"\r\n") + (previous.endswith(b"\r") and chunk.startswith(b"\n"))
            previous = last = chunk
    lines = newlines + (1 if last and not last.endswith(b"\n") else 0)
    end = head.find(b"\n")
    return _Shape(digest.hexdigest(), head[: end + 1] if end >= 0 else head, commas, lines, returns != crlfs)


def _newlines(text: str) -> str:
    """Every line end as LF: CR CR LF (one line, written twice through a CRLF translation), CRLF, CR."""
    return text.replace("\r\r\n", "\n").replace("\r\n", "\n").replace("\r", "\n")


def _fast_columns(
    path: Path, shape: _Shape, header: list[str], schema: Schema,
) -> tuple[dict[str, np.ndarray], dict[str, tuple[str, ...]], np.ndarray] | None:
    """The numeric columns by numpy's C parser, validated vectorised; None sends the file to
    :func:`_row_columns`, which reads row by row and names the first bad cell exactly.

    Taken only when the file is regular: no blank lines, every row the header's field count,
    no ``relation`` column (bound codes are parsed per row), every cell a valid number.
    A million rows load in about half a second.
    """
    # A blank line would shift the line numbers the parser does not report.
    if RELATION_COLUMN in header or shape.lines < 2:
        return None
    numeric = _numeric_columns(header, schema)
    index = {name: i for i, name in enumerate(header)}
    # numpy reads the file itself, in chunks: no decoded copy of a large file is held.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an empty file part is the slow path's to explain
            table = np.loadtxt(path, delimiter=",", usecols=[index[c.name] for c in numeric],
                               dtype=np.float64, ndmin=2, comments=None, quotechar='"', skiprows=1,
                               encoding="utf-8-sig")
    except (ValueError, IndexError, UnicodeDecodeError, OSError):
        return None
    rows = table.shape[0]
    for j, column in enumerate(numeric):
        values = table[:, j]
        below = values < column.minimum if column.minimum_inclusive else values <= column.minimum
        bad = ~np.isfinite(values) | below | (values > column.maximum)
        if column.integer:
            bad |= values != np.floor(values)
        if bad.any():
            return None
    # Every line a row (no blank line shifting the numbers), every row the header's field count.
    if shape.lines != rows + 1 or shape.commas != (rows + 1) * (len(header) - 1):
        return None
    texts = _text_columns(path, header, {c.name for c in numeric}, rows)
    if texts is None:
        return None
    arrays = {c.name: np.ascontiguousarray(table[:, j]) for j, c in enumerate(numeric)}
    return arrays, texts, np.arange(2, rows + 2)


def _text_columns(path: Path, header: list[str], numeric: set[str],
                  rows: int) -> dict[str, tuple[str, ...]] | None:
    """The non-numeric columns; None if numpy's parser refuses the file.

    The field count is checked by the caller from the comma count. The
    text columns come from numpy's parser too;
    repeated labels share one string, so a million rows of one ``source``
    cost a million references, not a million strings.
    """
    names = [n for n in header if n not in numeric]
    if not names:
        return {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a blank line: the row reader explains it, numpy must not)
            # Python strings (object), not fixed-width ones: half the parsing time of a million labels.
            cells = np.loadtxt(path, delimiter=",", usecols=[header.index(n) for n in names],
                               dtype=object, ndmin=2, comments=None, quotechar='"', skiprows=1,
                               encoding="utf-8-sig")
    except (ValueError, IndexError, UnicodeDecodeError, OSError):
        return None
    if cells.shape[0] != rows:
        return None
    columns: dict[str, tuple[str, ...]] = {}
    for j, name in enumerate(names):
        cell = cells[:, j]
        if rows and bool((cell == cell[0]).all()):  # one label (a load test's source): no sort of a million strings
            columns[name] = (str(cell[0]).strip(),) * rows
            continue
        distinct, where = np.unique(cell, return_inverse=True)
        labels = np.array([str(v).strip() for v in distinct], dtype=object)
        columns[name] = tuple(labels[where])
    return columns


def _row_columns(
    text: str, header: list[str], schema: Schema, path_text: str,
) -> tuple[dict[str, np.ndarray], dict[str, list[str]], list[int]]:
    """Row-by-row reading: every cell checked, the first bad one named by line and column."""
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as error:
        raise _fail(path_text, None, f"not a readable CSV file ({error})") from None
    numeric = _numeric_columns(header, schema)
    index = {name: i for i, name in enumerate(header)}
    values: dict[str, list[float]] = {c.name: [] for c in numeric}
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
        for column in numeric:
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
    return {name: np.asarray(v, dtype=np.float64) for name, v in values.items()}, texts, lines


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
    """The same domain checks as a CSV row's, vectorised; an error names the point by ``labels``.

    A label names its file and its point (``run.json:qd32``, as a CSV error names ``file:line``),
    so the error starts with it alone; ``path`` (every file read) is not repeated before it.
    """
    for name, array in values.items():
        column = schema.column(name)
        below = array < column.minimum if column.minimum_inclusive else array <= column.minimum
        bad = ~np.isfinite(array) | below | (array > column.maximum)
        if column.integer:
            bad |= array != np.floor(array)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DatasetError(f"{labels[i]}: column '{name}' ({column.unit}) gets {array[i]:g}, "
                               f"outside what schema '{schema.name}' accepts")
