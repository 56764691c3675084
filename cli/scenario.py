"""``iosizer run SCENARIO``: evaluate a TOML system description through every family that applies."""

from __future__ import annotations

from typing import Annotated

import typer

from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, Report, emit

COLUMNS = ["family", "question", "value", "unit", "note"]


def run(
    scenario: Annotated[
        str | None,
        typer.Argument(
            help="A scenario TOML file, or the bare name of a shipped example "
            "(oltp_pcie_fabric, replicated_flash_cache; see --list).",
            show_default=False,
        ),
    ] = None,
    list_examples: Annotated[bool, typer.Option("--list", help="List the shipped example scenarios and exit.")] = False,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Answer every question a scenario file's tables ask: [latency], [pcie], [replication].

    Keys carry their unit in their name (added_latency_ns, block_kib,
    budget_pct); an unknown key, a value of the wrong type or unit, a
    malformed file or a missing one is a one-line error (exit 2). A bare name
    that is not a file is looked up among the shipped examples. JSON: name,
    description, source and answers (family, question, value, unit, note);
    CSV: one row per answer.
    """
    from iosizer.report.scenario import example_names, run_scenario
    from iosizer.errors import InputError

    if list_examples:
        rows = [{"example": name} for name in example_names()]
        emit(Report(rows, rows, title="Shipped example scenarios (iosizer run NAME)"), output_format)
        return
    if scenario is None:
        raise InputError("give a scenario file or a shipped example name (iosizer run --list)")
    result = run_scenario(scenario)
    rows = [a.to_dict() for a in result.answers]
    emit(
        Report(result.to_dict(), rows, title=f"{result.name} ({result.source})", columns=COLUMNS,
               notes=[result.description] if result.description else []),
        output_format,
    )
