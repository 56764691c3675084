"""One renderer for every command: a rich table, JSON or CSV, and plots.

A command builds a :class:`Report` (what ``--format json`` prints, the rows
of the table and of the CSV, optional notes) and hands it to :func:`emit`;
no command formats its own output.
"""

from __future__ import annotations

import copy
import csv
import io
import os
import re
import sys
from contextvars import ContextVar
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Sequence

import typer

from iosizer.frames import JSON_SHAPE_RULE, format_number, key_columns, split_columns  # one number format and layout, here and in notebooks
# A command's answer (Report) and its JSON live below the CLI: the server and iosizer.ask read them too.
from iosizer.frames import (Panel, Report, Series, _captured, capture, report_table,  # noqa: F401  (public here)
                            row_list, to_json)
from iosizer.frames import plain as _plain
# One rule for every output file, and one atomic writer (the server and iosizer.ask write a command's files too).
from iosizer.calibration.files import (OUTPUT_RULE, Writer, check_output_path, missing_folder,  # noqa: F401
                                       write_outputs)
# Pictures are drawn below the CLI too (the report's charts); check_plot_path is public here (the --plot callback).
from iosizer.report.plots import check_plot_path  # noqa: F401
from iosizer.report.plots import plot_writer as _plot_writer

if TYPE_CHECKING:
    from iosizer.frames import Table


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


def to_csv(rows: list[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    columns = list(columns or _keys(rows))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _plain(row.get(k)) for k in columns})
    return buffer.getvalue()


def _keys(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Every key of ``rows``, in order of first appearance."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


@dataclass
class _TableChoices:
    """What ``--columns`` and ``--rows`` asked for, set while the command line is parsed."""

    columns: list[str] | None = None
    rows: bool = False


_choices: ContextVar[_TableChoices] = ContextVar("iosizer_table_choices", default=_TableChoices())


def _remember(ctx: typer.Context, **choice: Any) -> None:
    """Keep a choice for emit() until the command's context closes (the next command starts afresh)."""
    current = _choices.get()
    token = _choices.set(_TableChoices(**{"columns": current.columns, "rows": current.rows, **choice}))
    ctx.call_on_close(lambda: _choices.reset(token))


def _remember_columns(ctx: typer.Context, value: str | None) -> str | None:
    _remember(ctx, columns=value.split(",") if value else None)
    return value


def _remember_rows(ctx: typer.Context, value: bool) -> bool:
    _remember(ctx, rows=bool(value))
    return value


def _carrier(
    columns: Annotated[str | None, typer.Option(
        "--columns", metavar="A,B", callback=_remember_columns,
        help="Only these columns (a value brings its 95 % band), in the table, the CSV and --rows; "
             "for a metric/value table, these metrics.")] = None,
    rows: Annotated[bool, typer.Option(
        "--rows", callback=_remember_rows, help="With --format json: always a list of rows. " + JSON_SHAPE_RULE)] = False,
) -> None:
    """Carries the declarations of ``--columns`` and ``--rows`` (typer builds them as every option)."""


@lru_cache(maxsize=1)
def _output_options() -> tuple[Any, ...]:
    """The click options ``--columns`` and ``--rows``, built once from :func:`_carrier`."""
    holder = typer.Typer(add_completion=False)  # only --columns and --rows: no shell-completion options
    holder.command()(_carrier)
    params = tuple(typer.main.get_command(holder).params)
    for param in params:
        param.expose_value = False  # the command's function never sees them; emit() reads _choices
    return params


def add_output_options(command: Any) -> None:
    """Give every command under ``command`` that takes ``--format`` the options ``--columns`` and ``--rows``.

    Commands that already have a flag of that name (``calibrate --columns``)
    keep their own. A group's commands made on demand (a lazy group) get
    them as they are made. The options are hidden from the HTTP API and
    :func:`iosizer.ask` (not exposed), which answer JSON as it is.
    """
    subcommands = getattr(command, "commands", None)
    if subcommands is None:
        flags = {opt for param in command.params for opt in getattr(param, "opts", ())}
        if "--format" in flags:  # idempotent: a second call finds --rows there
            command.params.extend(copy.copy(p) for p in _output_options() if not set(p.opts) & flags)
        return
    if not getattr(command, "_iosizer_output_options", False):
        command._iosizer_output_options = True
        made = command.get_command

        def get_command(ctx: Any, name: str) -> Any:
            found = made(ctx, name)
            if found is not None:
                add_output_options(found)
            return found

        command.get_command = get_command  # this group only: its commands, listed or made on demand
        if hasattr(subcommands, "on_build"):  # a lazy group (cli/lazy.py): each command as it is built
            subcommands.on_build(add_output_options)
    built = subcommands.built() if hasattr(subcommands, "built") else list(subcommands.values())
    for sub in built:
        add_output_options(sub)


def _chosen(report: Report, table: "Table") -> "Table":
    columns = _choices.get().columns
    return table.select(columns) if columns else table


def _rows_json(report: Report) -> list[dict[str, Any]]:
    table = _chosen(report, report_table(report))
    return [{k: row.get(k) for k in table.columns if k in row} for row in table.rows]


def _terminal_width() -> int | None:
    """The width to fit: the terminal's, else COLUMNS, else None (piped: every row on one line)."""
    if sys.stdout.isatty():
        from rich.console import Console

        return Console().width
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else None


#: A rich table's cost beyond its cells: a column's padding and border, the table's last border.
_COLUMN_OVERHEAD, _TABLE_OVERHEAD = 3, 1
#: A text column narrower than this is not wrapped (a name, a mode).
_TEXT_MIN = 24
#: A cell that is a number as format_number writes it, with or without its band.
_SCALAR = r"-?[\d,.]+(?:e[+-]?\d+)?|-?inf|nan|n/a"
_NUMBER = re.compile(rf"(?:{_SCALAR})(?: \[(?:{_SCALAR}), (?:{_SCALAR})\])?")


def _print_table(report: Report) -> None:
    """The report as rich tables that fit the terminal: bands folded, numbers never wrapped.

    A table wider than the terminal is folded into several, each repeating
    the first column; text columns wrap, numeric columns never do.
    """
    from iosizer.frames import Table

    keys = _keys(report.rows)
    # A value's 95 % band is shown with it ("value [low, high]"), even where the command lists its columns.
    columns = [c for name in (report.columns or keys) for c in (name, name + "_ci_low", name + "_ci_high")
               if c == name or c in keys]
    table = _chosen(report, Table([{k: _plain(v) for k, v in r.items()} for r in report.rows], columns))
    headers, cells, numeric, _ = table.layout(elide=False)
    full = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]
    # A text column may wrap its words, never a number it holds (a metric/value table mixes both).
    floor = [max([len(row[i]) for row in cells if _NUMBER.fullmatch(row[i])], default=0) for i in range(len(full))]
    need = [w if numeric[i] else max(floor[i], min(w, max(_TEXT_MIN, len(headers[i]))))
            for i, w in enumerate(full)]
    width = _terminal_width()
    if width is None:  # piped: every row on one line, the one case drawn without importing rich
        lines = _plain_lines(report, headers, cells, numeric, full)
        if lines is not None:
            sys.stdout.write("".join(line + "\n" for line in lines))
            return
    from rich.console import Console

    natural = sum(w + _COLUMN_OVERHEAD for w in full) + _TABLE_OVERHEAD
    console = Console(highlight=False, width=width or max(natural, 40))
    if report.title:
        console.print(report.title, style="bold", soft_wrap=width is None)
    from rich.table import Table as RichTable

    keep = key_columns(numeric, need, width)
    for group in split_columns(need, width, _COLUMN_OVERHEAD, _TABLE_OVERHEAD, keep):
        shown = RichTable()
        for i in group:
            if numeric[i]:  # a number is never wrapped nor cut: its column is as wide as its widest cell
                shown.add_column(headers[i], justify="right", no_wrap=True, min_width=full[i])
            else:
                shown.add_column(headers[i], justify="left", overflow="fold", min_width=floor[i] or None)
        for row in cells:
            shown.add_row(*(row[i] for i in group))
        console.print(shown)
    for note in report.notes:
        console.print(note, soft_wrap=width is None)


#: Text rich would print other than as written: markup tags and escapes, emoji codes, control or
#: non-ASCII characters (their cell widths), edge spaces. Such a report is drawn by rich itself.
_RICH_TEXT = re.compile(r"\\|\[[a-z#/@]|:[^\s:]+:|[^\x20-\x7e]|^\s|\s$")
#: rich's own switches for styles on a pipe (TTY_COMPATIBLE, FORCE_COLOR): with one set, rich draws.
_RICH_ENVIRONMENT = ("TTY_COMPATIBLE", "FORCE_COLOR", "TTY_INTERACTIVE", "JUPYTER_COLUMNS")


def _plain_lines(report: Report, headers: list[str], cells: list[list[str]], numeric: list[bool],
                 widths: list[int]) -> list[str] | None:
    """The piped table exactly as rich prints it (its default heavy-head box, one space of padding,
    numbers right-aligned, headers aligned as their columns, title and notes as written), or None
    where rich would print something else (styles on a pipe, a non-UTF-8 stream, text rich rewrites).
    tests/cli/test_output.py compares the two on generated tables; the README's tables on every run."""
    import builtins

    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    if not cells or encoding != "utf8" or any(name in os.environ for name in _RICH_ENVIRONMENT) \
            or hasattr(builtins, "get_ipython") or os.environ.get("DATABRICKS_RUNTIME_VERSION"):
        return None
    texts = [*headers, *(cell for row in cells for cell in row), *report.notes]
    texts += [report.title] if report.title else []
    if any(not text or _RICH_TEXT.search(text) for text in texts):
        return None

    def line(left: str, middle: str, right: str, fill: str) -> str:
        return left + middle.join(fill * (w + 2) for w in widths) + right

    def row(values: list[str], edge: str) -> str:
        return edge + edge.join(f" {v.rjust(w) if numeric[i] else v.ljust(w)} "
                                for i, (v, w) in enumerate(zip(values, widths))) + edge

    return ([report.title] if report.title else []) + [
        line("┏", "┳", "┓", "━"), row(headers, "┃"), line("┡", "╇", "┩", "━"),
        *(row(r, "│") for r in cells), line("└", "┴", "┘", "─"), *report.notes]


def progress_bar(counts: bool = False) -> Any:
    """A transient rich progress bar on stderr, drawn only when stderr is a terminal.

    stdout carries nothing but the answer, so ``--format json`` stays clean;
    piped or captured stderr gets nothing. ``counts`` adds "done/total".
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = [TextColumn("{task.description}"), BarColumn(), *([MofNCompleteColumn()] if counts else []),
               TimeElapsedColumn()]
    return Progress(*columns, console=Console(stderr=True), transient=True, disable=not sys.stderr.isatty())


def emit(report: Report, output_format: OutputFormat, plot: Path | None = None,
         files: Sequence[tuple[Path, Writer]] = ()) -> None:
    """Write the report to stdout in the requested format, with the plot and ``files`` if asked.

    Everything that can fail comes first: the JSON or CSV text is built and
    every output file (the plot, ``files`` such as a profile) written to a
    temporary sibling; only then are the files renamed into place and the
    answer printed. A command that fails writes nothing.
    """
    files = [*files, *report.files]
    sink = _captured.get()
    if sink is not None:  # the caller renders the answer: nothing printed, no picture drawn
        if files:
            write_outputs(files)  # a profile is still written
        sink.append(report)
        return
    outputs = ([(plot, _plot_writer(report, plot))] if plot is not None else []) + files
    choices = _choices.get()
    if output_format is OutputFormat.json:
        if choices.columns and not choices.rows:
            from iosizer.errors import InputError

            raise InputError("--columns applies to the table, the CSV and --rows; "
                             "--format json without --rows prints the whole answer")
        text: str | None = to_json(_rows_json(report) if choices.rows else report.data) + "\n"
    elif output_format is OutputFormat.csv:
        table = _chosen(report, report_table(report))
        text = to_csv([dict(r) for r in table.rows], table.columns)
    else:
        text = None
    if outputs:
        write_outputs(outputs)
    if text is not None:
        sys.stdout.write(text)
    else:
        _print_table(report)
