"""One renderer for every command: a rich table, JSON or CSV, and plots.

A command builds a :class:`Report` (what ``--format json`` prints, the rows
of the table and of the CSV, optional notes) and hands it to :func:`emit`;
no command formats its own output.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sys
import tempfile
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


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
    """What a command answers, independent of how it is shown.

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


def _plain(value: Any) -> Any:
    """JSON-safe: numpy scalars and arrays to Python, non-finite floats to None."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def format_number(value: Any) -> str:
    """Six significant figures for tables; integers stay integers."""
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value != 0 and (abs(value) >= 1e7 or abs(value) < 1e-4):
            return f"{value:.6g}"
        return f"{value:,.6g}" if abs(value) >= 1e4 else f"{value:.6g}"
    return str(value)


def to_json(data: Any) -> str:
    return json.dumps(_plain(data), indent=2, allow_nan=False)


def to_csv(rows: list[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    columns = list(columns or (rows[0].keys() if rows else []))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _plain(row.get(k)) for k in columns})
    return buffer.getvalue()


def _print_table(report: Report) -> None:
    from rich.console import Console
    from rich.table import Table

    columns = list(report.columns or (report.rows[0].keys() if report.rows else []))
    table = Table()
    for name in columns:
        # Fold rather than ellipsise: a truncated number is a wrong number.
        table.add_column(
            name,
            justify="right" if _is_numeric(report.rows, name) else "left",
            overflow="fold",
        )
    for row in report.rows:
        table.add_row(*(format_number(_plain(row.get(name))) for name in columns))
    # Piped output has no terminal width; do not squeeze it into 80 columns.
    width = None if sys.stdout.isatty() else 200
    console = Console(highlight=False, width=width)
    if report.title:
        console.print(report.title, style="bold")
    console.print(table)
    for note in report.notes:
        console.print(note)


def _is_numeric(rows: list[dict[str, Any]], name: str) -> bool:
    return all(isinstance(_plain(r.get(name)), (int, float)) for r in rows if name in r)


#: The one rule for every file or folder iosizer writes, said in every error about one.
OUTPUT_RULE = "iosizer writes only into a folder that exists"


def missing_folder(flag: str, folder: Path, text: str) -> str:
    """The error for an output whose folder is not a folder: missing, or a file in the way."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing == folder:  # '/etc/passwd/x.json': the folder is a file
        return f"{flag}: '{folder}' of '{text}' is a file, not a folder ({OUTPUT_RULE})"
    if existing is not None and not existing.is_dir():
        return (f"{flag}: folder '{folder}' of '{text}' does not exist: '{existing}' is a file, not a folder "
                f"({OUTPUT_RULE})")
    return f"{flag}: folder '{folder}' of '{text}' does not exist ({OUTPUT_RULE}; create it first)"


def check_output_path(path: Path | None, flag: str) -> Path | None:
    """Refuse an output location before anything is computed (one rule for every output).

    The target must not be a folder or a special file, and its folder must
    exist (iosizer never creates folders) and accept a new file, which is
    tried by creating and removing a temporary file there. Errors name the
    flag, the path and the reason, in one line.
    """
    from iosizer.errors import InputError

    if path is None:
        return None
    text = str(path)
    try:
        if path.is_dir():
            empty = " (an empty name is the current folder)" if text == "." else ""
            raise InputError(f"{flag}: '{text}' is a folder{empty}; give a file name")
        if path.exists() and not path.is_file():
            raise InputError(f"{flag}: '{text}' exists and is not a regular file")
        folder = path.parent
        if not folder.is_dir():
            raise InputError(missing_folder(flag, folder, text))
    except OSError as error:
        raise InputError(f"{flag}: cannot use '{text}': {error.strerror or error}") from None
    try:
        handle, probe = tempfile.mkstemp(prefix=".iosizer-probe.", dir=folder)
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        raise InputError(f"{flag}: cannot write '{text}': folder '{folder}' does not accept new files "
                         f"({error.strerror or error})") from None
    return path


def check_plot_path(path: Path | None) -> Path | None:
    """Refuse a bad --plot target before a command computes or writes anything."""
    from iosizer.errors import InputError

    if path is None:
        return None
    suffix = path.suffix.lower().lstrip(".") or "png"
    if suffix not in {"png", "svg", "pdf"}:
        raise InputError(f"--plot: unknown picture type '.{suffix}' (use .png, .svg or .pdf)")
    return check_output_path(path, "--plot")


#: Writes one output's whole content to the temporary path it is given.
Writer = Callable[[Path], None]


def write_outputs(outputs: Sequence[tuple[Path, Writer]]) -> None:
    """Write every output to a temporary file beside its target, then rename each into place.

    Nothing is renamed until every output is complete, so a failure (a plot
    that cannot be drawn, a full disk) leaves no output written, new or
    half-new; each rename is atomic, so a reader sees the old file or the new.
    """
    from iosizer.calibration.files import atomic_paths

    with atomic_paths([target for target, _ in outputs]) as temporaries:
        for temporary, (_, write) in zip(temporaries, outputs):
            write(temporary)


def _plot_writer(report: Report, path: Path) -> Writer:
    """Check that ``report`` can be drawn and return the function that draws it."""
    from iosizer.errors import InputError

    check_plot_path(path)
    if not report.plot:
        raise InputError("--plot: this command has no curve to draw")
    try:
        import matplotlib
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install 'iosizer[plot]'") from None
    suffix = path.suffix.lower().lstrip(".") or "png"

    def draw(temporary: Path) -> None:
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        panels = report.plot or []
        figure, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.2), squeeze=False)
        try:
            for ax, panel in zip(axes[0], panels):
                _draw_panel(ax, panel, report.title)
            figure.tight_layout()
            figure.savefig(temporary, format=suffix, dpi=120)
        finally:
            plt.close(figure)

    return draw


#: Set by :func:`capture`: emit() hands its Report over instead of printing.
_captured: ContextVar[list[Report] | None] = ContextVar("iosizer_captured_reports", default=None)


@contextmanager
def capture() -> Iterator[list[Report]]:
    """Collect the Reports commands emit instead of printing them or drawing their plot files.

    For a caller that renders answers itself (``iosizer serve``): what
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


def _draw_panel(ax: Any, panel: Panel, title: str) -> None:
    for series in panel.series:
        if series.kind == "band":
            ax.fill_between(series.x, series.y, series.y_high, alpha=0.25, label=series.label)
        elif series.kind in ("points", "bound", "linepoints"):
            style = {"points": "o", "bound": "v", "linepoints": "o-"}[series.kind]
            ax.plot(series.x, series.y, style, label=series.label)
        else:
            ax.plot(series.x, series.y, "--" if series.kind == "dashed" else "-", label=series.label)
    ax.set_xlabel(panel.x_label)
    ax.set_ylabel(panel.y_label)
    ax.set_title(panel.title or title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def write_plot(report: Report, path: Path) -> None:
    """Draw ``report.plot`` to ``path`` (PNG, SVG or PDF by suffix), atomically."""
    write_outputs([(path, _plot_writer(report, path))])


def emit(report: Report, output_format: OutputFormat, plot: Path | None = None,
         files: Sequence[tuple[Path, Writer]] = ()) -> None:
    """Write the report to stdout in the requested format, with the plot and ``files`` if asked.

    Everything that can fail comes first: the JSON or CSV text is built and
    every output file (the plot, ``files`` such as a profile) written to a
    temporary sibling; only then are the files renamed into place and the
    answer printed. A command that fails writes nothing.
    """
    sink = _captured.get()
    if sink is not None:  # the caller renders the answer: nothing printed, no picture drawn
        if files:
            write_outputs(list(files))  # a profile is still written
        sink.append(report)
        return
    outputs = ([(plot, _plot_writer(report, plot))] if plot is not None else []) + list(files)
    if output_format is OutputFormat.json:
        text: str | None = to_json(report.data) + "\n"
    elif output_format is OutputFormat.csv:
        rows = report.csv_rows if report.csv_rows is not None else report.rows
        text = to_csv(rows, None if report.csv_rows is not None else report.columns)
    else:
        text = None
    if outputs:
        write_outputs(outputs)
    if text is not None:
        sys.stdout.write(text)
    else:
        _print_table(report)
