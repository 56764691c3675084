"""``iosizer run SCENARIO``: evaluate a TOML system description through every family that applies."""

from __future__ import annotations

from typing import Annotated

import typer

from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, Report, emit

COLUMNS = ["family", "question", "value", "unit", "note"]
#: Shown after value when some answer has a 95 % band.
BAND_COLUMNS = ["ci_low", "ci_high"]


def run(
    scenario: Annotated[
        str | None,
        typer.Argument(
            help="A scenario TOML file, or the bare name of a shipped example "
            "(oltp_pcie_fabric, replicated_flash_cache, shared_fc_storage, calibrated_fc_port; see --list).",
            show_default=False,
        ),
    ] = None,
    list_examples: Annotated[bool, typer.Option("--list", help="List the shipped example scenarios and exit.")] = False,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Answer every question a scenario file's tables ask: [latency], [pcie], [hba], [loadshare], [replication].

    Keys carry their unit in their name (added_latency_ns, block_kib,
    budget_pct); an unknown key, a value of the wrong type or unit, a
    malformed file or a missing one is a one-line error (exit 2). A bare name
    that is not a file is looked up among the shipped examples. Any table may
    name profile = "my.json" (from 'iosizer calibrate', relative to the
    scenario's folder; a list where the table answers from two families:
    [latency] oltp and dma, [pcie] rmw and pcie-link) and cpu_speed = 1.3
    (as --cpu-speed): its answers then carry 95 % bands, ci_low and ci_high.
    JSON: name, description, source, answers (family, question, value, unit,
    note, ci_low, ci_high) and, with a profile or cpu_speed, notes; CSV: one
    row per answer (ci_low and ci_high only when some answer has a band).
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
    columns = COLUMNS[:3] + BAND_COLUMNS + COLUMNS[3:] if result.banded else COLUMNS
    emit(
        Report(result.to_dict(), rows, title=f"{result.name} ({result.source})", columns=columns,
               notes=([result.description] if result.description else []) + result.notes),
        output_format,
    )
