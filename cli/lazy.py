"""Command groups that build a command only when it is asked for.

typer builds a click command from a function's signature (every option, its
type, its help) when the command tree is made: for ~50 commands that is most
of a command's start-up. Here a group holds, per name, either the built
command or how to build it; ``iosizer queue mmc`` builds ``queue`` and
``mmc`` and nothing else, and a help listing shows a command not yet built
from its help text alone (what click's listing reads). The commands built
are typer's own (``typer.main.get_command_from_info``), so options, help and
errors are the same as in a tree built at once.

typer converts every option value with a pydantic ``TypeAdapter``: importing
pydantic for that is a third of a what-if's start-up. A plain value (a
number written plainly, a string, a choice) is converted here the way the
adapter converts it; anything else, and every value the adapter would
refuse, still goes through typer's own path, so values and error messages
are typer's (tests/cli/test_lazy_cli.py compares both on every option).
"""

from __future__ import annotations

import copy
import inspect
import math
import re
from dataclasses import dataclass, field
from enum import Enum
from functools import partial
from importlib import import_module
from typing import Any, Callable, Iterator, MutableMapping, get_args, get_origin

import typer
import typer.main
from typer import _click
from typer._coercion import RuntimeParam, build_runtime_param
from typer._param_types import coerce_cli_choice
from typer.core import TyperCommand, TyperGroup

__all__ = ["LazyCommands", "LazyTyperGroup", "adopt", "load", "typer_group"]


class _Pending:
    """How to build one command, and the help its line in a listing shows until it is built."""

    __slots__ = ("build", "help", "short_help", "hidden", "deprecated")

    def __init__(self, build: Callable[[], Any], help: str | None = None, short_help: str | None = None,
                 hidden: bool = False, deprecated: bool | str = False) -> None:
        self.build, self.help, self.short_help = build, help, short_help
        self.hidden, self.deprecated = hidden, deprecated


class LazyCommands(MutableMapping[str, Any]):
    """A group's commands by name, each built on first access (``[name]``, ``get``, ``values``, ``items``).

    Names, order, ``in`` and ``len`` never build anything. ``on_build`` hooks run on every command as it
    is built or added (the output options of :func:`iosizer.cli.output.add_output_options`).
    """

    def __init__(self, built: MutableMapping[str, Any] | None = None) -> None:
        self._slots: dict[str, Any] = dict(built or {})
        self._hooks: list[Callable[[Any], None]] = []

    def add_lazy(self, name: str, build: Callable[[], Any], help: str | None = None,
                 short_help: str | None = None, hidden: bool = False, deprecated: bool | str = False) -> None:
        """Register ``name``, built by ``build()`` when first used; ``help`` is its listing's text till then."""
        self._slots[name] = _Pending(build, help, short_help, hidden, deprecated)

    def pending(self, name: str) -> bool:
        return isinstance(self._slots.get(name), _Pending)

    def built(self) -> list[Any]:
        """The commands built so far (nothing is built)."""
        return [c for c in self._slots.values() if not isinstance(c, _Pending)]

    def on_build(self, hook: Callable[[Any], None]) -> None:
        self._hooks.append(hook)

    def stub(self, name: str) -> Any:
        """A help-only stand-in for a pending command with known help (None if built or help unknown)."""
        slot = self._slots.get(name)
        if not isinstance(slot, _Pending) or (slot.help is None and slot.short_help is None):
            return None
        return TyperCommand(name, help=slot.help, short_help=slot.short_help, hidden=slot.hidden,
                            deprecated=slot.deprecated)

    def __getitem__(self, name: str) -> Any:
        slot = self._slots[name]
        if isinstance(slot, _Pending):
            command = slot.build()
            for hook in self._hooks:
                hook(command)
            self._slots[name] = slot = plain_first(command)
        return slot

    def __setitem__(self, name: str, command: Any) -> None:
        for hook in self._hooks:
            hook(command)
        self._slots[name] = plain_first(command)

    def __delitem__(self, name: str) -> None:
        del self._slots[name]

    def __contains__(self, name: object) -> bool:
        return name in self._slots

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._slots))

    def __len__(self) -> int:
        return len(self._slots)

    def __repr__(self) -> str:
        return f"LazyCommands({list(self._slots)})"


class LazyTyperGroup(TyperGroup):
    """A typer group over :class:`LazyCommands`: listing names builds nothing, and the help listing
    shows a command not yet built from its help text."""

    _listing = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not isinstance(self.commands, LazyCommands):
            self.commands = LazyCommands(self.commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self._listing:
            stub = self.commands.stub(cmd_name) if isinstance(self.commands, LazyCommands) else None
            if stub is not None:
                return stub
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        # typer's listing, reading each command's short help (from the stand-in while it is not built).
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False


#: Numbers written plainly: Python's float() and int() read them as pydantic does (checked in the tests);
#: at most 300 characters (Python refuses longer integer strings).
_PLAIN_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_PLAIN_INT = re.compile(r"[+-]?[0-9]+")
_FULL = object()  # "not a plain value: typer's own path"


def _plain(annotation: Any, info: Any, value: Any, ctx: Any) -> Any:
    """``value`` converted as typer's adapter for ``annotation`` would, or :data:`_FULL`."""
    if info.parser is not None:
        return _FULL
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        try:
            return coerce_cli_choice(value, choices=tuple(annotation), case_sensitive=info.case_sensitive, ctx=ctx)
        except ValueError:
            return _FULL  # the adapter words the refusal
    if annotation in (float, int):
        if info.min is not None or info.max is not None or info.clamp:
            return _FULL
        if type(value) is annotation:
            return value if annotation is int or math.isfinite(value) else _FULL
        if isinstance(value, str) and len(value) <= 300:
            if annotation is float and _PLAIN_FLOAT.fullmatch(value):
                number = float(value)
                return number if math.isfinite(number) else _FULL
            if annotation is int and _PLAIN_INT.fullmatch(value):
                return int(value)
        return _FULL
    if annotation is str:
        return value if type(value) is str else _FULL
    if annotation is bool:
        return value if type(value) is bool else _FULL
    if get_origin(annotation) is list and isinstance(value, (list, tuple)):
        (item,) = get_args(annotation) or (_FULL,)
        items = [_plain(item, info, v, ctx) for v in value] if item is not _FULL else [_FULL]
        return _FULL if any(i is _FULL for i in items) else items
    return _FULL


@dataclass(frozen=True)
class _PlainFirst(RuntimeParam):
    """typer's runtime conversion of one parameter, plain values done without pydantic."""

    descriptor: Any = None
    _typer: list[Any] = field(default_factory=list)  # typer's own conversion, built when first needed

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        found = _plain(self.annotation, self.parameter_info, value, ctx)
        if found is not _FULL:
            return found
        if not self._typer:
            self._typer.append(build_runtime_param(self.descriptor))
        return self._typer[0]._coerce_value(value, param=param, ctx=ctx)


def _plain_param(param: Any) -> None:
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", False) is not None:
        return  # not typer's, or already converting
    if descriptor.file_annotation is None:  # files: typer's (it opens them)
        param._runtime_param = _PlainFirst(parameter_info=descriptor.parameter_info,
                                           annotation=descriptor.annotation, descriptor=descriptor)


def plain_first(command: Any) -> Any:
    """Give ``command``'s typer parameters, and the ``--help`` option click adds, the conversion above."""
    for param in getattr(command, "params", ()):
        _plain_param(param)
    made = getattr(command, "get_help_option", None)
    if made is not None and not getattr(made, "_plain_first", False):
        def get_help_option(ctx: Any) -> Any:
            option = made(ctx)
            if option is not None:
                _plain_param(option)
            return option

        get_help_option._plain_first = True  # type: ignore[attr-defined]
        command.get_help_option = get_help_option
    return command


def _options(pretty_exceptions_short: bool, rich_markup_mode: Any) -> dict[str, Any]:
    return {"pretty_exceptions_short": pretty_exceptions_short, "rich_markup_mode": rich_markup_mode}


def add_command_info(commands: LazyCommands, info: Any, *, pretty_exceptions_short: bool = True,
                     rich_markup_mode: Any = None) -> str:
    """Register a typer ``CommandInfo`` (``app.command()``'s record) to be built on use; its name."""
    name = info.name or typer.main.get_command_name(info.callback.__name__)
    text = inspect.cleandoc(info.help) if info.help is not None else inspect.getdoc(info.callback)
    commands.add_lazy(name, partial(typer.main.get_command_from_info, info,
                                    **_options(pretty_exceptions_short, rich_markup_mode)),
                      help=text, short_help=info.short_help, hidden=info.hidden, deprecated=info.deprecated)
    return name


def add_group_info(commands: LazyCommands, info: Any, *, pretty_exceptions_short: bool = True,
                   suggest_commands: bool = True, rich_markup_mode: Any = None) -> str | None:
    """Register a typer ``TyperInfo`` (``app.add_typer()``'s record) to be built on use; its name
    (None for a group without a name, whose commands typer merges into its parent: not registered)."""
    solved = typer.main.solve_typer_info_defaults(info)
    if not solved.name:
        return None
    commands.add_lazy(solved.name, partial(group_from_info, info, pretty_exceptions_short=pretty_exceptions_short,
                                           suggest_commands=suggest_commands, rich_markup_mode=rich_markup_mode),
                      help=solved.help, short_help=solved.short_help, hidden=solved.hidden,
                      deprecated=solved.deprecated)
    return solved.name


def group_from_info(info: Any, *, pretty_exceptions_short: bool = True, suggest_commands: bool = True,
                    rich_markup_mode: Any = None) -> Any:
    """``typer.main.get_group_from_info``, with each command and sub-group built when first used."""
    instance = info.typer_instance
    options = _options(pretty_exceptions_short, rich_markup_mode)
    if any(not typer.main.solve_typer_info_defaults(sub).name for sub in instance.registered_groups):
        # typer merges a nameless sub-group's commands into this one: built at once, as typer does.
        return typer.main.get_group_from_info(info, suggest_commands=suggest_commands, **options)
    commands = LazyCommands()
    for command_info in instance.registered_commands:
        add_command_info(commands, command_info, **options)
    for group_info in instance.registered_groups:
        add_group_info(commands, group_info, suggest_commands=suggest_commands, **options)
    shell = copy.copy(instance)  # the group itself (callback, help, its own options) without its commands
    shell.registered_commands, shell.registered_groups = [], []
    outer = copy.copy(info)
    outer.typer_instance = shell
    if typer.main.solve_typer_info_defaults(outer).cls is None:
        outer.cls = LazyTyperGroup
    group = typer.main.get_group_from_info(outer, suggest_commands=suggest_commands, **options)
    group.commands = commands
    return group


def typer_group(app: "typer.Typer") -> Any:
    """``typer.main.get_group(app)`` with lazily built commands."""
    return group_from_info(typer.main.TyperInfo(app), pretty_exceptions_short=app.pretty_exceptions_short,
                           suggest_commands=app.suggest_commands, rich_markup_mode=app.rich_markup_mode)


def adopt(group: Any, source: Any) -> None:
    """Add ``source``'s commands to ``group`` (never replacing one), unbuilt ones staying unbuilt."""
    theirs, ours = source.commands, group.commands
    for name in list(theirs):
        if name in ours:
            continue
        if isinstance(theirs, LazyCommands) and isinstance(ours, LazyCommands) and theirs.pending(name):
            ours._slots[name] = theirs._slots[name]
        else:
            group.add_command(theirs[name], name)


def load(target: str, name: str) -> Any:
    """The object ``"package.module:attribute"`` names; ``"...:factory()"`` is called with ``name``."""
    module, _, attribute = target.partition(":")
    call = attribute.endswith("()")
    found = getattr(import_module(module), attribute.removesuffix("()"))
    return found(name) if call else found


def command_of(found: Any, name: str, *, pretty_exceptions_short: bool = True, suggest_commands: bool = True,
               rich_markup_mode: Any = None) -> Any:
    """A click command from a typer app (a lazy group), a click command, or a command function."""
    options = _options(pretty_exceptions_short, rich_markup_mode)
    if isinstance(found, _click.Command):
        return found
    holder = typer.Typer()
    if isinstance(found, typer.Typer):
        holder.add_typer(found, name=name)
        return group_from_info(holder.registered_groups[0], suggest_commands=suggest_commands, **options)
    holder.command(name)(found)
    return typer.main.get_command_from_info(holder.registered_commands[0], **options)
