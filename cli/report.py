"""``iosizer report``: every model family against every published figure, as a report folder.

Its work is :func:`iosizer.tools.report` (the document: :mod:`iosizer.report.document`; the server and
:func:`iosizer.ask` answer it there, as :mod:`iosizer.commands` declares it); here it is parsed, its
progress shown, its folder written (atomically, under the progress bar) and its summary rendered.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from iosizer import tools
from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, emit, progress_bar, write_outputs

OutputDirOption = Annotated[
    Path, typer.Option("--output-dir", help="Report folder to write (replaced as a whole if it is a report; "
                                             "the folder it goes into must exist).")
]
CheckFlag = Annotated[
    bool, typer.Option("--check", help="Exit with status 1 if any published figure is outside its tolerance.")
]
SimulateFlag = Annotated[
    bool, typer.Option("--simulate", help="Also simulate every family at three loads (low, knee, near "
                                          "saturation) beside its analytic answer (takes minutes; needs "
                                          "iosizer[simulate]).")
]


def report(
    output_dir: OutputDirOption = Path("iosizer-report"),
    check: CheckFlag = False,
    simulate: SimulateFlag = False,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    with progress_bar() as progress:
        task = progress.add_task("checking seeds", total=None)

        def told(description: str, done: int, total: int) -> None:
            progress.update(task, description=description, completed=done, total=total)

        answer = tools.report(output_dir, check, simulate, progress=told)
        write_outputs(answer.files)  # the folder, its charts drawn under the bar; the answer printed after it
    emit(replace(answer, files=[]), output_format)
    if answer.exit_code:
        raise typer.Exit(answer.exit_code)


report.__doc__ = tools.report.__doc__  # one help text: the work's (iosizer.tools)
