"""Answers as tables: the pandas, text and HTML views every result type shares.

A :class:`Table` is rows of plain values sharing columns, with the declared
unit of each column whose name does not carry one. Every answer
(:class:`~iosizer.api.Prediction`, :class:`~iosizer.api.FitReport`, what
:func:`iosizer.ask` returns) builds one and inherits :class:`TableView`:

- ``to_frame()``: a pandas DataFrame, one column per name, units in the
  column names (``threads [1]`` is never written: dimensionless and text
  columns keep their bare name); pandas is the optional extra
  ``iosizer[pandas]`` and is imported only here, on first use;
- ``repr()``: a small aligned table; a value with a 95 % band
  (``<name>_ci_low`` / ``<name>_ci_high`` columns, or bare ``ci_low`` /
  ``ci_high`` after the column they bound) reads ``value [low, high]``;
- ``_repr_html_()``: the same table in HTML for notebooks.

The CLI's tables (:mod:`iosizer.cli.output`) use the same folding of bands
and the same number format, so a notebook and a terminal read alike.
"""

from __future__ import annotations

import html
import json
import math
import shutil
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

from iosizer.errors import MissingExtraError
from iosizer.units import NOT_UNITS, unit_of

#: How an answer's JSON is shaped, stated once for the CLI's --rows help and the HTTP API's schema.
JSON_SHAPE_RULE = (
    "The JSON answer is shaped by the question: one point (one arrival rate, one size) answers one object, "
    "a sweep a list of objects, one per point; a summary of several parts an object of them. "
    "--rows prints the rows the CSV holds, as a list, whatever the input."
)

if TYPE_CHECKING:  # pandas is optional and loads on first to_frame()
    from pandas import DataFrame

__all__ = [
    "AnswerDict",
    "AnswerList",
    "Shown",
    "Table",
    "TableView",
    "band_of",
    "format_number",
    "key_columns",
    "split_columns",
    "unit_label",
    "viewed",
]

#: Suffixes of the two ends of a 95 % band, after the name of what they bound.
LOW, HIGH = "_ci_low", "_ci_high"
#: Bare band columns bound the column just before ``ci_low`` (simulate: simulated, ci_low, ci_high).
BARE_LOW, BARE_HIGH = "ci_low", "ci_high"
#: Rows a text or HTML view shows before it elides the middle (as pandas does).
MAX_ROWS = 20
_EDGE_ROWS = 8


def require_pandas(feature: str = "to_frame()") -> Any:
    """The pandas module, or :class:`MissingExtraError` naming the extra that installs it."""
    try:
        import pandas
    except ImportError:
        raise MissingExtraError(feature, "pandas", "pandas") from None
    return pandas


def format_number(value: Any) -> str:
    """Six significant figures for tables; integers stay integers; None is empty."""
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value).lower()
    if isinstance(value, list):  # a vector output (switching loads): its numbers
        return ", ".join(format_number(v) for v in value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value != 0 and (abs(value) >= 1e7 or abs(value) < 1e-4):
            return f"{value:.6g}"
        return f"{value:,.6g}" if abs(value) >= 1e4 else f"{value:.6g}"
    return str(value)


def unit_label(name: str, unit: str | None) -> str:
    """``name`` with its declared unit appended when the name does not carry one (``lanes``, ``t``)."""
    if unit is None or unit in NOT_UNITS or name.lower() == unit.lower() or unit_of(name) is not None:
        return name
    return f"{name} [{unit}]"


def band_of(columns: Sequence[str]) -> dict[str, tuple[str, str]]:
    """For each column with a 95 % band, the names of its low and high ends."""
    names = set(columns)
    bands: dict[str, tuple[str, str]] = {}
    for i, name in enumerate(columns):
        if name.endswith(LOW) and name[: -len(LOW)] in names and name[: -len(LOW)] + HIGH in names:
            bands[name[: -len(LOW)]] = (name, name[: -len(LOW)] + HIGH)
        elif name == BARE_LOW and BARE_HIGH in names and i > 0 and columns[i - 1] not in (BARE_HIGH,):
            bands[columns[i - 1]] = (BARE_LOW, BARE_HIGH)
    return bands


@dataclass(frozen=True)
class Shown:
    """One displayed column: its header, the column it shows and, if banded, the band's columns."""

    header: str
    name: str
    band: tuple[str, str] | None = None

    def cell(self, row: Mapping[str, Any]) -> str:
        value = format_number(row.get(self.name))
        if self.band is None or self.name not in row:
            return value
        low, high = (row.get(end) for end in self.band)
        if low is None and high is None:
            return value
        return f"{value} [{_end(low)}, {_end(high)}]"


def _end(value: Any) -> str:
    # An infinite band end is None in JSON: say it is unbounded rather than print nothing.
    return "n/a" if value is None else format_number(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def split_columns(widths: Sequence[int], available: int | None, overhead: int = 2, base: int = 0,
                  keep: int = 1) -> list[list[int]]:
    """Column indices in groups that each fit ``available`` characters, the first ``keep`` in every group.

    A column takes its width plus ``overhead`` (padding, border); a table
    ``base`` more. A column wider than the space stands alone: it is never
    cut, so no number is ever wrapped. None: one group, whatever its width.
    """
    every = list(range(len(widths)))
    if available is None or sum(w + overhead for w in widths) + base <= available:
        return [every]
    kept = every[:keep] if len(widths) > keep else []
    fixed = sum(widths[i] + overhead for i in kept) + base
    groups: list[list[int]] = []
    current: list[int] = []
    used = fixed
    for i in every[len(kept):]:
        need = widths[i] + overhead
        if current and used + need > available:
            groups.append(kept + current)
            current, used = [], fixed
        current.append(i)
        used += need
    groups.append(kept + current)
    return groups


def key_columns(numeric: Sequence[bool], widths: Sequence[int], available: int | None) -> int:
    """How many leading columns name a row, to repeat in every folded table.

    A row is named by its leading text columns and the first number after
    them (``mode, lpar2_offered_iops``; ``arrival_rate``), as long as they
    take at most half the width; else by its first column.
    """
    first_number = next((i for i, n in enumerate(numeric) if n), len(numeric) - 1)
    keep = max(1, min(first_number + 1, len(numeric) - 1))
    if available is not None and sum(w + 3 for w in widths[:keep]) > available // 2:
        return 1
    return keep


@dataclass(frozen=True)
class Table:
    """Rows of plain values sharing ``columns``; ``units`` declares units the names do not carry."""

    rows: Sequence[Mapping[str, Any]]
    columns: Sequence[str]
    units: Mapping[str, str] = field(default_factory=dict)
    title: str = ""
    notes: Sequence[str] = ()

    @classmethod
    def of(cls, rows: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None,
           **extra: Any) -> "Table":
        """A table of ``rows``; columns default to every key, in order of first appearance."""
        listed = list(rows)
        if columns is None:
            seen: dict[str, None] = {}
            for row in listed:
                seen.update(dict.fromkeys(row))
            columns = list(seen)
        return cls(listed, list(columns), **extra)

    def labels(self) -> dict[str, str]:
        """Column name -> the name with its unit (see :func:`unit_label`)."""
        return {name: unit_label(name, self.units.get(name)) for name in self.columns}

    def to_frame(self) -> "DataFrame":
        """A pandas DataFrame of every column, units in the column names."""
        pandas = require_pandas()
        frame = pandas.DataFrame([[row.get(c) for c in self.columns] for row in self.rows],
                                 columns=list(self.columns))
        return frame.rename(columns=self.labels())

    def shown(self) -> list[Shown]:
        """The displayed columns: each band folded into the column it bounds."""
        bands = band_of(self.columns)
        ends = {end for pair in bands.values() for end in pair}
        labels = self.labels()
        return [Shown(labels[name], name, bands.get(name)) for name in self.columns if name not in ends]

    def select(self, names: Sequence[str]) -> "Table":
        """Only the columns ``names`` (a name brings its band; a metric/value table keeps those metrics).

        An unknown name raises :class:`InputError` listing the known ones.
        """
        from iosizer.errors import InputError

        wanted = [n.strip() for n in names if n.strip()]
        if _is_metric_table(self.columns):
            known = [str(r.get("metric")) for r in self.rows]
            keep = _with_bands(wanted, known, "metric", "--columns")
            return Table([r for r in self.rows if str(r.get("metric")) in keep], self.columns, self.units,
                         self.title, self.notes)
        labels = self.labels()
        by_label = {label: name for name, label in labels.items()}
        names_given = [by_label.get(n, n) for n in wanted]
        keep = _with_bands(names_given, list(self.columns), "column", "--columns")
        if not keep:
            raise InputError("--columns: give at least one column")
        return Table(self.rows, [c for c in self.columns if c in keep], self.units, self.title, self.notes)

    def layout(self, elide: bool = True) -> tuple[list[str], list[list[str]], list[bool], int]:
        """Headers, the cells of the visible rows, which columns are numbers, and how many rows are elided.

        ``elide``: show the first and last rows of a long table only (a
        notebook's view); False shows every row (the CLI's).
        A metric/value table (one row per metric) folds its ``<metric>_ci_low``
        / ``_ci_high`` rows into the metric's value as columns fold elsewhere.
        """
        if _is_metric_table(self.columns):
            return _metric_layout(self)
        views = self.shown()
        rows, elided = self._visible_rows() if elide else (list(self.rows), 0)
        cells = [[view.cell(row) for view in views] for row in rows]
        numeric = [bool(rows) and all(_is_number(r.get(v.name)) for r in rows if r.get(v.name) is not None)
                   for v in views]
        return [v.header for v in views], cells, numeric, elided

    def _visible_rows(self) -> tuple[list[Mapping[str, Any]], int]:
        """The rows shown, and how many are elided after the first ``_EDGE_ROWS``."""
        rows = list(self.rows)
        if len(rows) <= MAX_ROWS:
            return rows, 0
        return rows[:_EDGE_ROWS] + rows[-_EDGE_ROWS:], len(rows) - 2 * _EDGE_ROWS

    def text(self, width: int | None = None) -> str:
        """An aligned plain-text table, folded into several tables where it is wider than ``width``."""
        if width is None:
            width = shutil.get_terminal_size((100, 24)).columns
        headers, cells, numeric, elided = self.layout()
        widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(headers)]
        lines = [self.title] if self.title else []
        keep = key_columns(numeric, widths, width)
        for number, group in enumerate(split_columns(widths, width, overhead=2, keep=keep)):
            if number:
                lines.append("")

            def line(texts: Sequence[str]) -> str:
                return "  ".join(t.rjust(widths[i]) if numeric[i] else t.ljust(widths[i])
                                 for i, t in zip(group, texts)).rstrip()

            lines.append(line([headers[i] for i in group]))
            for k, row_cells in enumerate(cells):
                if elided and k == _EDGE_ROWS:
                    lines.append(f"... {elided} more rows ...")
                lines.append(line([row_cells[i] for i in group]))
        if not cells:
            lines.append("(no rows)")
        lines.extend(self.notes)
        return "\n".join(lines)

    def html(self) -> str:
        """The table as HTML for a notebook (bands folded as in :meth:`text`)."""
        headers, cells, numeric, elided = self.layout()
        out = ["<div>"]
        if self.title:
            out.append(f"<p><b>{html.escape(self.title)}</b></p>")
        out.append("<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in headers)
                   + "</tr></thead><tbody>")
        for k, row_cells in enumerate(cells):
            if elided and k == _EDGE_ROWS:
                out.append(f"<tr><td colspan=\"{len(headers)}\">... {elided} more rows ...</td></tr>")
            out.append("<tr>" + "".join(f"<td style=\"text-align:{'right' if numeric[i] else 'left'}\">"
                                        f"{html.escape(c)}</td>" for i, c in enumerate(row_cells)) + "</tr>")
        out.append("</tbody></table>")
        out.extend(f"<p>{html.escape(note)}</p>" for note in self.notes)
        out.append("</div>")
        return "\n".join(out)


def _is_metric_table(columns: Sequence[str]) -> bool:
    return list(columns) == ["metric", "value"]


def _with_bands(wanted: Sequence[str], known: Sequence[str], what: str, flag: str) -> set[str]:
    """``wanted`` names with their band ends, each checked against ``known``."""
    from iosizer.errors import InputError

    unknown = [n for n in wanted if n not in known]
    if unknown:
        ends = {end for pair in band_of(list(known)).values() for end in pair}
        listed = ", ".join(n for n in known if n not in ends)  # a band comes with its value
        raise InputError(f"{flag}: no {what} {', '.join(map(repr, unknown))}; the {what}s are: {listed}")
    keep = set(wanted)
    for name in wanted:
        keep.update(end for end in (name + LOW, name + HIGH) if end in known)
    bare = [base for base, ends in band_of(list(known)).items() if ends[0] == BARE_LOW]
    if any(base in keep for base in bare):
        keep.update((BARE_LOW, BARE_HIGH))
    return keep


def _metric_layout(table: Table) -> tuple[list[str], list[list[str]], list[bool], int]:
    """A metric/value table with each metric's band rows folded into its value."""
    values = {str(r.get("metric")): r.get("value") for r in table.rows}
    cells, numbers = [], []
    for name, value in values.items():
        base = name[: -len(LOW)] if name.endswith(LOW) else name[: -len(HIGH)] if name.endswith(HIGH) else None
        if base is not None and base in values and base + LOW in values and base + HIGH in values:
            continue
        text = format_number(value)
        if name + LOW in values and name + HIGH in values:
            text += f" [{_end(values[name + LOW])}, {_end(values[name + HIGH])}]"
        cells.append([unit_label(name, table.units.get(name)), text])
        numbers.append(_is_number(value) or value is None)
    return ["metric", "value"], cells, [False, bool(numbers) and all(numbers)], 0


class TableView:
    """``to_frame()``, ``repr()`` and ``_repr_html_()`` of any answer that can give its :meth:`table`."""

    def table(self) -> Table:
        raise NotImplementedError

    def to_frame(self) -> "DataFrame":
        """The answer as a pandas DataFrame, units in the column names (needs ``iosizer[pandas]``)."""
        return self.table().to_frame()

    def __repr__(self) -> str:
        return self.table().text()

    def _repr_html_(self) -> str:
        return self.table().html()


def _rows_of(data: Any) -> list[dict[str, Any]]:
    """The rows of a JSON answer given no table: a list of objects, or one object of scalars."""
    if isinstance(data, list) and all(isinstance(item, dict) for item in data):
        return [dict(item) for item in data]
    if isinstance(data, dict):
        return [{k: v for k, v in data.items() if not isinstance(v, (dict, list))}]
    return [{"value": data}]


class _AnswerView(TableView):
    _table: Table | None

    def table(self) -> Table:
        return self._table if self._table is not None else Table.of(_rows_of(self.to_dict()))

    def to_dict(self) -> Any:
        raise NotImplementedError


class AnswerDict(dict[str, Any], _AnswerView):
    """What :func:`iosizer.ask` returns for a one-object answer: the JSON object, viewable as a table.

    It is the dict ``--format json`` prints (compare, index and serialise it
    as one); ``table()`` holds the rows the CLI's CSV writes.
    """

    def __init__(self, data: Mapping[str, Any], table: Table | None = None) -> None:
        super().__init__(data)
        self._table = table

    def to_dict(self) -> dict[str, Any]:
        """A plain dict, equal to what ``--format json`` prints."""
        return dict(self)

    __repr__ = _AnswerView.__repr__


class AnswerList(list[Any], _AnswerView):
    """What :func:`iosizer.ask` returns for an answer that is a list: the JSON list, viewable as a table."""

    def __init__(self, data: Iterable[Any], table: Table | None = None) -> None:
        super().__init__(data)
        self._table = table

    def to_dict(self) -> list[Any]:
        """A plain list, equal to what ``--format json`` prints."""
        return list(self)

    __repr__ = _AnswerView.__repr__


def record_table(record: Mapping[str, Any], inputs: Sequence[str], outputs: Sequence[str],
                 units: Mapping[str, str], title: str = "") -> Table:
    """A table of one row per point from a record of equal-length lists (scalars repeat).

    Columns: ``inputs``, then each output followed by its band's ends, then
    any other key of ``record``.
    """
    columns = [name for name in inputs if name in record]
    for name in outputs:
        columns += [c for c in (name, name + LOW, name + HIGH) if c in record]
    columns += [name for name in record if name not in columns]
    length = max((len(v) for v in record.values() if isinstance(v, list)), default=1)
    rows = [{name: (record[name][i] if isinstance(record[name], list) else record[name]) for name in columns}
            for i in range(length)]
    return Table(rows, columns, dict(units), title)


def _fit_rows(document: Mapping[str, Any], stderr: Mapping[str, float]) -> list[dict[str, Any]]:
    return [{"parameter": name, "value": p["value"], "ci_low": p["ci_low"], "ci_high": p["ci_high"],
             "stderr": stderr.get(name) if not p["fixed"] else None, "unit": p["unit"],
             "status": "held" if p["fixed"] else "fitted"}
            for name, p in document["parameters"].items()]


def fit_table(document: Mapping[str, Any], stderr: Mapping[str, float], data: str) -> Table:
    """The parameter table of a calibration document (what ``iosizer calibrate --format json`` prints)."""
    title = (f"Calibration of '{document['model']}' on {data} ({document['n_points']} points): "
             f"R^2 {format_number(document['r2'])}, RMSE {format_number(document['rmse'])}")
    notes = [f"note: {n}" for n in document.get("notes", ())] + [f"warning: {w}" for w in document["warnings"]]
    notes.append(document["confidence"])
    return Table.of(_fit_rows(document, stderr), title=title, notes=notes)


def fit_report(document: Mapping[str, Any], stderr: Mapping[str, float], data: str) -> str:
    """A calibration document as lmfit's ``fit_report()`` reads: statistics, parameters, warnings."""
    rows = _fit_rows(document, stderr)
    held = sum(1 for r in rows if r["status"] == "held")
    statistics = [
        ("model", document["model"]),
        ("data", data),
        ("data points", document["n_points"]),
        ("free parameters", len(rows) - held),
        ("degrees of freedom", document["dof"]),
    ]
    for column, s in document["columns"].items():
        statistics += [(f"RMSE {column}", format_number(s["rmse"])), (f"R-squared {column}", f"{s['r2']:.6f}")]
    pad = max(len(k) for k, _ in statistics)
    lines = ["[[Fit Statistics]]", *(f"    {k.ljust(pad)} = {v}" for k, v in statistics),
             "[[Parameters]] (value +/- standard error (relative), 95 % interval, unit, status)"]
    width = max((len(r["parameter"]) for r in rows), default=0) + 1
    cells = []
    for r in rows:
        value = format_number(r["value"])
        error = r["stderr"]
        if error is not None and math.isfinite(error):
            relative = f" ({100 * abs(error / r['value']):.2f} %)" if r["value"] else ""
            value += f" +/- {format_number(float(error))}{relative}"
        interval = "" if r["ci_low"] is None else f"[{_end(r['ci_low'])}, {_end(r['ci_high'])}]"
        cells.append((f"{r['parameter']}:".ljust(width), value, interval, r["unit"], r["status"]))
    widths = [max((len(c[i]) for c in cells), default=0) for i in range(5)]
    lines += ["    " + "  ".join(c[i].ljust(widths[i]) for i in range(5)).rstrip() for c in cells]
    lines.append("[[Warnings]]")
    lines += [f"    {w}" for w in document["warnings"]] or ["    (none)"]
    lines += [f"    note: {n}" for n in document.get("notes", ())]
    for name, t in document.get("tails", {}).items():
        lines.append(f"    tail {name}: the fitted model is {t['rms_error_pct']:.1f} % off "
                     f"(RMS over {t['n_points']} points)")
    lines.append(document["confidence"])
    return "\n".join(lines)


def viewed(data: Any, table: Table | None = None) -> Any:
    """A JSON answer as :class:`AnswerDict` or :class:`AnswerList` (with ``table`` behind its views); else as is."""
    if isinstance(data, dict):
        return AnswerDict(data, table)
    if isinstance(data, list):
        return AnswerList(data, table)
    return data


# --- a command's answer -------------------------------------------------------------------------------


@dataclass
class Series:
    """One curve: a line, measured points, or a shaded band between y and y_high."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    kind: str = "line"  # line | points | linepoints | bound (an upper bound, drawn v) | band | dashed
    y_high: Sequence[float] | None = None


@dataclass
class Panel:
    x_label: str
    y_label: str
    series: list[Series]
    title: str = ""


@dataclass
class Report:
    """What a command answers, independent of how it is shown (the CLI renders it, the server and
    :func:`iosizer.ask` read its ``data``).

    ``data`` is the JSON document; ``rows`` the table rows (dicts sharing
    ``columns``); ``csv_rows`` defaults to ``rows`` (a command may put a whole
    curve in the CSV and a summary in the table); ``notes`` are printed under
    the table only.
    """

    data: Any
    rows: list[dict[str, Any]]
    title: str = ""
    columns: Sequence[str] | None = None
    csv_rows: list[dict[str, Any]] | None = None
    notes: list[str] = field(default_factory=list)
    #: What ``--plot FILE`` draws: one panel per subplot.
    plot: list[Panel] | None = None
    #: Files the command writes when it is answered (a profile): (target, writer of the whole content to the
    #: temporary path it is given), written together and atomically by whoever renders the answer.
    files: list[tuple[Any, Any]] = field(default_factory=list)
    #: The command's exit status once answered (``report --check`` with a figure out of tolerance: 1).
    exit_code: int = 0


def plain(value: Any) -> Any:
    """JSON-safe: numpy scalars and arrays to Python, non-finite floats to None."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def to_json(data: Any) -> str:
    """What ``--format json`` prints of ``data`` (less the closing newline)."""
    return json.dumps(plain(data), indent=2, allow_nan=False)


def row_list(report: Report) -> list[dict[str, Any]]:
    """The answer as rows: what the CSV holds and ``--rows`` prints (the table's rows where they agree)."""
    return report.csv_rows if report.csv_rows is not None else report.rows


def report_table(report: Report, units: dict[str, str] | None = None) -> "Table":
    """The rows of ``report`` (:func:`row_list`) as a :class:`Table` for notebooks."""
    columns = report.columns if report.csv_rows is None else None
    rows = [{k: plain(v) for k, v in row.items()} for row in row_list(report)]
    return Table.of(rows, list(columns) if columns else None, units=units or {}, title=report.title,
                    notes=list(report.notes))



#: Set by :func:`capture`: the CLI's emit() hands its Report over instead of printing.
_captured: ContextVar[list[Report] | None] = ContextVar("iosizer_captured_reports", default=None)


@contextmanager
def capture() -> Iterator[list[Report]]:
    """Collect the Reports commands emit instead of printing them or drawing their plot files.

    For a caller that renders answers itself (``iosizer serve``, :func:`iosizer.ask`): what
    ``--format json`` prints is ``to_json(report.data)``, and ``report.plot``
    holds the curves ``--plot`` would draw. Only the printing and the
    picture are left out: any other file a command writes (a profile) is
    written as usual.
    """
    reports: list[Report] = []
    token = _captured.set(reports)
    try:
        yield reports
    finally:
        _captured.reset(token)
