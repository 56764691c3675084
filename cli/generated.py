"""Typer commands built from :class:`~iosizer.commands.CommandSpec`s (:mod:`iosizer.generated`).

A field becomes a typer option (its flag, then its older ``aliases``; ``--x/--no-x`` for a switch) or
an argument, with its help and metavar; ``--format`` and ``--plot`` are the options every command
shares (:mod:`iosizer.cli.options`). The command parses, calls the spec's ``run`` (with a progress bar
where the spec reports progress) and emits its Report: the CLI, the server and :func:`iosizer.ask` run
the same function on the same fields.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Callable

import typer

from iosizer.cli.options import FormatOption, PlotOption, output_target
from iosizer.cli.output import OutputFormat, emit
from iosizer.commands import CommandSpec, FieldSpec, Role

__all__ = ["typer_function", "typer_parameter"]


def typer_parameter(spec: FieldSpec) -> inspect.Parameter:
    """The typer parameter of one field."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    if spec.role is Role.format:
        return inspect.Parameter(spec.name, keyword, default=OutputFormat.table, annotation=FormatOption)
    if spec.role is Role.plot:
        return inspect.Parameter(spec.name, keyword, default=None, annotation=PlotOption)
    checked = {"callback": output_target(spec.flag)} if spec.role is Role.output else {}
    kind: Any = list[spec.annotation] if spec.many else spec.annotation
    if not spec.required and spec.default is None:
        kind = kind | None
    if spec.argument:
        taken = typer.Argument(metavar=spec.metavar, help=spec.help, show_default=spec.show_default)
    else:
        flags = (f"{spec.flag}/{spec.secondary_flag}",) if spec.secondary_flag else (spec.flag, *spec.aliases)
        # A file the command writes is checked while the options are parsed, before anything is computed.
        taken = typer.Option(*flags, metavar=spec.metavar, help=spec.help, show_default=spec.show_default,
                             **checked)
    default = inspect.Parameter.empty if spec.required else spec.default
    return inspect.Parameter(spec.name, keyword, default=default, annotation=Annotated[kind, taken])


def typer_parameters(fields: list[FieldSpec]) -> list[inspect.Parameter]:
    return [typer_parameter(f) for f in fields]


def typer_function(spec: CommandSpec, name: str | None = None) -> Callable[..., None]:
    """The typer command function of ``spec``: its fields as options, its ``run`` emitted."""
    assert spec.run is not None, spec.name

    def command(**given: Any) -> None:
        output_format = given.pop("output_format", OutputFormat.table)
        plot = given.pop("plot", None)
        if spec.progress is None:
            report = spec.run(**given)
        else:
            from iosizer.cli.output import progress_bar

            with progress_bar(counts=True) as progress:
                task = progress.add_task(spec.progress, total=None)

                def advance(done: int, total: int) -> None:
                    progress.update(task, completed=done, total=total)

                report = spec.run(progress=advance, **given)
        emit(report, output_format, plot)
        if report.exit_code:  # an answer that is also a verdict (report --check): its status after it
            raise typer.Exit(report.exit_code)

    command.__signature__ = inspect.Signature(typer_parameters(spec.fields))  # type: ignore[attr-defined]
    command.__name__ = (name or "_".join(spec.path)).replace("-", "_")
    command.__doc__ = spec.help
    return command
