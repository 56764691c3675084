"""``iosizer size <name>`` and ``iosizer simulate <command>``: the groups of the generated commands.

Their commands are :mod:`iosizer.generated`'s specs (a question's declared ``sizing``, a declared
:class:`~iosizer.model.family.Simulation` or simulate hook) made typer commands
(:mod:`iosizer.cli.generated`). Nothing here names a family: a plugin's family gets both as soon as it
declares them. A group builds a command when its name is invoked (only the family of that name is read
when there is one); listing the group's commands (``--help``) builds every one.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from iosizer.commands import CommandSpec

__all__ = ["DeclaredGroup", "SizeGroup", "typer_command"]


def typer_command(spec: CommandSpec) -> Any:
    """The click command of a generated spec, with the output options every command takes."""
    from iosizer.cli.generated import typer_function
    from iosizer.cli.output import add_output_options

    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.command(spec.path[-1])(typer_function(spec))
    command = typer.main.get_command(app)
    add_output_options(command)
    return command


class DeclaredGroup(TyperGroup):
    """A group of generated commands: ``commands`` holds those built so far (the root's start-up walks it:
    no family module is imported then); :meth:`every_command` builds the rest."""

    def specs(self, name: str | None) -> list[CommandSpec]:
        """The specs of the command ``name`` (several words: a sub-group's), or of every command (None)."""
        raise NotImplementedError

    def _add(self, spec: CommandSpec) -> None:
        words = spec.path[1:]
        if len(words) == 1:
            self.commands.setdefault(words[0], typer_command(spec))
            return
        group = self.commands.get(words[0])
        if group is None:
            group = self.commands[words[0]] = TyperGroup(name=words[0], help=spec.group_help,
                                                         no_args_is_help=True, rich_markup_mode=None)
        if words[-1] not in group.commands:
            group.add_command(typer_command(spec), words[-1])

    def every_command(self) -> dict[str, Any]:
        if not getattr(self, "_all", False):
            self._all = True
            for spec in self.specs(None):
                self._add(spec)
        return self.commands

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands:
            for spec in self.specs(cmd_name):
                self._add(spec)
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted(self.every_command())


class SizeGroup(DeclaredGroup):
    """``iosizer size <name>``: each family's sizing commands; a name several families declare is one command
    of them all (:func:`iosizer.generated.size_command`)."""

    def specs(self, name: str | None) -> list[CommandSpec]:
        from iosizer.generated import size_command, size_commands

        if name is None:
            return size_commands()
        spec = size_command(name)
        return [] if spec is None else [spec]
