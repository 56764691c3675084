"""``iosizer report``'s folder: every model family against every published figure, as one document.

The checks come from :mod:`iosizer.report.checks`; here they become blocks
(headings, paragraphs, tables, lists, pictures) rendered twice, as Markdown
and as self-contained HTML, beside ``report.json``, the charts
(:mod:`iosizer.report.plots`) and a marker file. :func:`folder_writer` writes
the whole folder into the temporary folder it is given;
:func:`iosizer.calibration.files.write_outputs` puts it in place as a whole.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

from iosizer.calibration.files import FolderWriter, missing_folder
from iosizer.errors import InputError
from iosizer.frames import Panel, Report, Series, format_number, to_json

#: Written in every report folder: only such a folder is ever replaced.
MARKER = ".iosizer-report"
PLOTS_SKIPPED = "plots skipped: matplotlib is not installed (pip install 'iosizer[plot]')"

_RELATION = {"eq": "", "approx": "≈ ", "le": "≤ ", "lt": "< ", "ge": "≥ ", "max": "max ",
             "approx_under": "a little under ", "approx_over": "a little over ", "range": "range "}
_STATUS = {"pass": "yes", "fail": "**NO**", "expected_miss": "no (expected miss)"}

#: Told what the report is doing: (description, steps done, steps in all).
Progress = Callable[[str, int, int], None]


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def check_target(output_dir: Path) -> Path:
    """The folder to write; refuse anything the report must not replace."""
    target = output_dir.expanduser()
    if target.exists():
        if not target.is_dir():
            raise InputError(f"--output-dir: '{output_dir}' exists and is not a folder")
        if any(target.iterdir()) and not (target / MARKER).is_file():
            raise InputError(f"--output-dir: '{output_dir}' is a non-empty folder that is not an iosizer report; "
                             "choose a new folder (it is replaced as a whole)")
    parent = target.absolute().parent
    if not parent.is_dir():
        # One rule for every output: the folder it goes into must exist.
        raise InputError(missing_folder("--output-dir", parent, str(output_dir)))
    try:
        probe = tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".probe", dir=parent)
        os.rmdir(probe)
    except OSError as error:
        raise InputError(f"--output-dir: cannot write '{output_dir}': folder '{parent}' does not accept "
                         f"new folders ({error.strerror or error})") from None
    return target


# -- the document, rendered twice -------------------------------------------


def _number(value: Any) -> str:
    return "" if value is None else format_number(value)


def _published(check: Any) -> str:
    if not check.published_text:
        return ""
    return _RELATION.get(check.relation or "eq", "") + check.published_text


def _accepted(check: Any) -> str:
    if check.accepted_low is None and check.accepted_high is None:
        return ""
    low = "−∞" if check.accepted_low is None else format_number(check.accepted_low)
    high = "∞" if check.accepted_high is None else format_number(check.accepted_high)
    return f"[{low}, {high}]"


def document(result: Any, charts: dict[str, list[tuple[str, str]]], plots_note: str | None) -> list[tuple]:
    """The report as blocks: ('h1'|'h2'|'h3'|'p', text), ('table', head, rows), ('list', items), ('img', src, alt)."""
    blocks = _overview(result)
    if plots_note:
        blocks.append(("p", plots_note))
    for seed in result.seeds:
        blocks += _seed_blocks(seed, charts.get(seed.seed))
    return blocks


def _overview(result: Any) -> list[tuple]:
    """The opening blocks: what was checked, the pass counts by kind and by seed, the tolerance rules."""
    from iosizer._version import __version__
    from iosizer.report.checks import EXPECTED_MISS, NO_PROVIDER, NOT_MODELLED

    checks = sum(s.total for s in result.seeds)
    kinds = result.kinds()
    return [
        ("h1", "iosizer report"),
        ("p", f"iosizer {__version__}: every model family, with its shipped calibrated profiles, against every "
              "published figure in data/measurements/."),
        ("p", f"Predictions: {kinds['prediction']['passed']} of {kinds['prediction']['total']} pass (numbers the "
              "model computed from other inputs). Fit inputs: "
              f"{kinds['fit_input']['passed']} of {kinds['fit_input']['total']} (numbers the shipped profiles were "
              f"calibrated on). Configuration: {kinds['configuration']['passed']} of "
              f"{kinds['configuration']['total']} (stated setup values the models take as inputs)."),
        ("table", ["seed", "predictions pass / total", "fit inputs pass / total",
                   "configuration pass / total"], [
            [s.seed, *(f"{k['passed']} / {k['total']}" for k in (s.kinds()[n] for n in
                                                                  ("prediction", "fit_input", "configuration")))]
            for s in result.seeds]),
        ("p", f"All kinds: {result.passed} of {checks} checks pass, {result.failed} fail, "
              f"{result.count(EXPECTED_MISS)} are expected misses (listed with their reasons, counted apart); "
              f"{result.count(NOT_MODELLED)} published rows have no model counterpart (listed with the reason); "
              f"{result.count(NO_PROVIDER)} measurement files belong to seeds with no provider yet."),
        ("table", ["seed", "passed / total", "failed", "expected misses", "not modelled", "status"], [
            [s.seed, f"{s.passed} / {s.total}", str(len(s.failures)), str(s.count(EXPECTED_MISS)),
             str(s.count(NOT_MODELLED)),
             "no provider yet" if not s.has_provider else ("FAIL" if s.failures else "ok")]
            for s in result.seeds]),
        ("p", "Tolerances: an exact printed value is met to half a unit of its last printed digit; an approximate "
              "one within the transcribed band (approx_pct); bounds (≤, <, ≥) one-sided; 'a little under/over' "
              "between the value and the value ∓ approx_pct. Every row states its reason. An expected miss is a "
              "figure the shipped model is known not to reproduce; it does not fail --check."),
    ]


def _seed_blocks(seed: Any, charts: list[tuple[str, str]] | None) -> list[tuple]:
    """One seed's section: its files, its checks, then its failures, expected misses, unmodelled rows and plots."""
    from iosizer.report.checks import CHECKED, EXPECTED_MISS, NOT_MODELLED

    blocks: list[tuple] = [("h2", seed.seed)]
    if not seed.has_provider:
        blocks.append(("p", "No provider yet: these measurement files are not checked."))
        blocks.append(("list", [c.file for c in seed.checks]))
        return blocks
    blocks.append(("h3", "Measurement files"))
    blocks.append(_files_table(seed))
    blocks.append(("h3", f"Checks ({seed.passed} / {seed.total} pass)"))
    blocks.append(_checks_table([c for c in seed.checks if c.status in CHECKED]))
    failing = seed.failures
    if failing:
        blocks.append(("h3", "Failures"))
        blocks.append(("list", [f"{c.figure}: {c.quantity}: published {_published(c)}, model "
                                f"{_number(c.model)} ({c.note})" for c in failing]))
    misses = [c for c in seed.checks if c.status == EXPECTED_MISS]
    if misses:
        blocks.append(("h3", "Expected misses"))
        blocks.append(("list", [f"{c.figure}: {c.quantity}: published {_published(c)}, model "
                                f"{_number(c.model)}. Reason: {c.expected_miss_reason}" for c in misses]))
    rest = [c for c in seed.checks if c.status == NOT_MODELLED]
    if rest:
        blocks.append(("h3", f"Not modelled ({len(rest)} rows)"))
        blocks.append(("table", ["file", "line", "row", "published", "reason"], [
            [c.file, str(c.line), c.figure if c.quantity in c.figure else f"{c.figure}: {c.quantity}",
             c.published_text,
             c.note] for c in rest]))
    if charts:
        blocks.append(("h3", "Plots"))
        blocks.extend(("img", src, alt) for src, alt in charts)
    return blocks


def _files_table(seed: Any) -> tuple:
    """Each measurement file of a seed: its family, rows, and how its checks came out."""
    from iosizer.report.checks import CHECKED, EXPECTED_MISS, NOT_MODELLED

    files: dict[str, list[Any]] = {}
    for c in seed.checks:
        files.setdefault(c.file, []).append(c)
    owners = _families_of_files()
    return ("table", ["file", "family", "rows", "checks", "passed", "expected misses", "not modelled"], [
        [name, owners.get(name, ""), str(len({c.line for c in records})),
         str(sum(c.status in CHECKED for c in records)),
         str(sum(c.status == "pass" for c in records)), str(sum(c.status == EXPECTED_MISS for c in records)),
         str(sum(c.status == NOT_MODELLED for c in records))]
        for name, records in sorted(files.items()) if name])


def _checks_table(checked: list[Any]) -> tuple:
    """The checked rows, predictions first, then fit inputs, then configuration."""
    order = {"prediction": 0, "fit_input": 1, "configuration": 2}
    return ("table", ["kind", "figure", "quantity", "unit", "published", "model", "difference",
                      "accepted", "within", "tolerance reason", "source", "note"], [
        [c.kind or "", c.figure, c.quantity, c.unit, _published(c), _number(c.model), _number(c.difference),
         _accepted(c), _STATUS[c.status], c.tolerance_reason, c.source, c.note]
        for c in sorted(checked, key=lambda c: order.get(c.kind or "", 3))])


def _families_of_files() -> dict[str, str]:
    """Which family reproduces each shipped measurement file: the registry's declarations say so."""
    from iosizer.model.registry import declaration, family_names

    return {measurement: name for name in family_names() for measurement in declaration(name).measurements}


def _md_cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def to_markdown(blocks: list[tuple]) -> str:
    out = []
    for block in blocks:
        kind = block[0]
        if kind in ("h1", "h2", "h3"):
            out.append("#" * int(kind[1]) + " " + block[1])
        elif kind == "p":
            out.append(block[1])
        elif kind == "list":
            out.append("\n".join(f"- {_md_cell(item)}" for item in block[1]))
        elif kind == "img":
            out.append(f"![{block[2]}]({block[1]})")
        elif kind == "table":
            head, rows = block[1], block[2]
            lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in rows]
            out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


_CSS = ("body{font-family:sans-serif;margin:2em;max-width:110em}table{border-collapse:collapse;font-size:.85em}"
        "td,th{border:1px solid #bbb;padding:.2em .4em;vertical-align:top}th{background:#eee}"
        "img{max-width:100%;margin:1em 0}")


def to_html(blocks: list[tuple]) -> str:
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8"><title>iosizer report</title>',
           f"<style>{_CSS}</style></head><body>"]
    for block in blocks:
        kind = block[0]
        if kind in ("h1", "h2", "h3"):
            out.append(f"<{kind}>{e(block[1])}</{kind}>")
        elif kind == "p":
            out.append(f"<p>{e(block[1])}</p>")
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{e(str(item))}</li>" for item in block[1]) + "</ul>")
        elif kind == "img":
            out.append(f'<img src="{e(block[1])}" alt="{e(block[2])}">')
        elif kind == "table":
            head, rows = block[1], block[2]
            out.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"
                       + "".join("<tr>" + "".join(f"<td>{e(str(c)).replace('**', '')}</td>" for c in row) + "</tr>"
                                 for row in rows) + "</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# -- the simulations beside the analytic answers (--simulate) ---------------


def simulation_section(progress: Callable[[str], None] | None = None) -> tuple[list[dict[str, Any]], list[tuple]]:
    """Every family simulated at three load levels (:mod:`iosizer.simulate.comparison`): the JSON data and the
    document's blocks; ``progress`` is told as each point starts."""
    from iosizer.simulate.comparison import REPORT_REPLICATIONS, compare

    tables = compare(progress=progress)
    blocks: list[tuple] = [
        ("h2", "Analytic vs simulation"),
        ("p", f"Each family's shipped configuration simulated at three loads (low, knee, near saturation): "
              f"{REPORT_REPLICATIONS} independent replications per point (seed 0), the simulated mean with its 95 % "
              "interval, and the analytic value's error gap_pct = (analytic - simulated) / simulated x 100. "
              "'inside' is **no** where the analytic value lies outside the simulated interval: the approximation's "
              "error exceeds the simulation's own uncertainty. "
              "Exact models (Erlang C, exact MVA) belong inside; see `iosizer simulate --help`."),
    ]
    data = []
    for table in tables:
        blocks.append(("h3", f"{table.family}: {table.analytic_method} against {table.simulator}"))
        head = ["level", "load", "metric", "analytic", "simulated", "95 % interval", "inside", "gap_pct"]
        blocks.append(("table", head, [
            [r["level"], r["load"], r["metric"], format_number(r["analytic"]), format_number(r["simulated"]),
             f"[{format_number(r['ci_low'])}, {format_number(r['ci_high'])}]", "yes" if r["within_ci"] else "**no**",
             "" if r["gap_pct"] is None else f"{r['gap_pct']:+.2f}"] for r in table.rows]))
        data.append({"family": table.family, "analytic_method": table.analytic_method,
                     "simulator": table.simulator, "rows": table.rows})
    return data, blocks


# -- the folder --------------------------------------------------------------


def folder_writer(charts: list[tuple[str, Any]], documents: dict[str, str],
                  progress: Callable[[str], None] | None = None) -> FolderWriter:
    """What writes the report folder into the empty folder it is given: each chart (``(file name, chart)``)
    drawn, then the ``documents`` (file name: text) and the marker; ``progress`` is told before each step."""
    from iosizer.report.plots import plot_writer

    def write(folder: Path) -> None:
        for name, chart in charts:
            if progress is not None:
                progress(f"drawing {chart.name}")
            picture = Report(None, [], title=chart.title, plot=[_panel(p) for p in chart.panels])
            plot_writer(picture, folder / name)(folder / name)
        if progress is not None:
            progress("writing the report")
        for name, text in documents.items():
            (folder / name).write_text(text, encoding="utf-8")
        (folder / MARKER).write_text(json.dumps({"generator": "iosizer report"}) + "\n", encoding="utf-8")

    return FolderWriter(write)


def _panel(panel: Any) -> Panel:
    return Panel(panel.x_label, panel.y_label,
                 [Series(s.label, s.x, s.y, s.kind, s.y_high) for s in panel.series], panel.title)


def documents(result: Any, where: str, drawn: dict[str, list[tuple[str, str]]], plots: bool,
              simulated: tuple[list[dict[str, Any]], list[tuple]] | None) -> tuple[dict[str, Any], dict[str, str]]:
    """report.json's data, and the folder's documents by file name (report.md, report.html, report.json)."""
    data = result.to_dict(where)
    data["plots"] = [src for pairs in drawn.values() for src, _ in pairs]
    data["plots_skipped"] = None if plots else PLOTS_SKIPPED
    blocks = document(result, drawn, None if plots else PLOTS_SKIPPED.capitalize() + ".")
    if simulated is not None:
        data["simulation"] = simulated[0]
        blocks += simulated[1]
    return data, {"report.md": to_markdown(blocks), "report.html": to_html(blocks),
                  "report.json": to_json(data) + "\n"}


def summary(result: Any, data: dict[str, Any], target: Path, plots: bool) -> Report:
    """What the command prints: one row per seed, one CSV row per check, the failures and misses as notes."""
    from iosizer.report.checks import EXPECTED_MISS

    rows = [{"seed": s["seed"],
             **{f"{kind}s" if kind != "configuration" else kind: f"{c['passed']}/{c['total']}"
                for kind, c in s["kinds"].items()},
             "passed": s["passed"], "total": s["total"], "failed": s["failed"],
             "expected_misses": s["expected_misses"], "not_modelled": s["not_modelled"],
             "status": "no provider yet" if not s["provider"] else ("FAIL" if s["failed"] else "ok")}
            for s in data["seeds"]]
    csv_rows = [{"seed": s["seed"], **c} for s in data["seeds"] for c in s["checks"]]
    notes = [f"failure: {s['seed']}: {f}" for s in data["seeds"] for f in s["failures"]]
    notes += [f"expected miss: {s['seed']}: {c['figure']}: {c['quantity']} (see report.md for the reason)"
              for s in data["seeds"] for c in s["checks"] if c["status"] == EXPECTED_MISS]
    if not plots:
        notes.append(PLOTS_SKIPPED)
    notes.append(f"report written to {target / 'report.md'} (and report.html)")
    kinds = result.kinds()
    title = (f"Published figures: predictions {kinds['prediction']['passed']}/{kinds['prediction']['total']} pass "
             f"(fit inputs {kinds['fit_input']['passed']}/{kinds['fit_input']['total']}, configuration "
             f"{kinds['configuration']['passed']}/{kinds['configuration']['total']}); "
             f"all: {result.passed} pass, {result.failed} fail")
    return Report(data, rows, title=title, csv_rows=csv_rows, notes=notes)
