"""``iosizer run SCENARIO``: evaluate a TOML system description through every family that applies."""

from __future__ import annotations

from typing import Annotated

import typer

from iosizer import tools  # the command's work (iosizer.commands declares it; the server answers it there)
from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, emit


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
    emit(tools.run(scenario, list_examples), output_format)


run.__doc__ = tools.run.__doc__  # one help text: the work's
