"""``iosizer size <family>`` and ``iosizer simulate <family>``, generated from a question's declaration.

A family whose question declares ``sizing`` gets ``iosizer size <family>``
(one ``--target-...`` option per :class:`~iosizer.model.family.Sizing`, plus
``--percentile`` where a target takes one, the question's other inputs, the
family's settings and parameters, ``--profile``, ``--cpu-speed``); one whose
question has a ``simulate`` hook gets ``iosizer simulate <family>`` (the
question's inputs, settings and parameters, ``--profile``, ``--percentile``
and the run's options of every ``iosizer simulate`` command). A command
written by hand under the same name wins. Nothing here names a family: a
plugin's family gets both as soon as it declares them.

(``iosizer simulate <family>`` is built in :mod:`iosizer.cli.simulate` on the same group.)
The ``size`` and ``simulate`` groups build these commands when a family's
name is invoked (its module is imported then); listing the group's commands
(``--help``, the HTTP catalogue) builds every one.
"""

from __future__ import annotations

import inspect
import typing
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Callable

import typer
from typer.core import TyperGroup

from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat

if TYPE_CHECKING:
    from iosizer.model.family import Family, Question, Sizing, SizingCommand

__all__ = ["SizeGroup", "declared_group_options", "size_command"]


def declared_group_options(family: "Family", question: "Question") -> list[inspect.Parameter]:
    """The question command's options for ``question`` (inputs, settings, parameters, --profile,
    --cpu-speed), without its --band, --percentile, --simulate, --format and --plot."""
    from iosizer.cli.questions import _options

    drop = {"band", "percentile", "simulate", "output_format", "plot"}
    return [p for p in _options(family, replace(question, percentiles=None, plot=None)) if p.name not in drop]


# --- iosizer size <family> ------------------------------------------------------------------------


def _size_options(family: "Family", question: "Question", name: str) -> tuple[list[inspect.Parameter], Any]:
    """The options of ``iosizer size <name>`` for this family (without --format), and a function of the
    command's values (typer's, by parameter name) that answers it."""
    from iosizer.calibration.declared_sizing import command_sizings, searched_by_every

    question, sizings, declared = command_sizings(family, name)
    keyword = inspect.Parameter.KEYWORD_ONLY
    # An input every target searches is no option; one that only some search is (given for the others).
    searched = searched_by_every(sizings)
    rest = replace(question, inputs=tuple(i for i in question.input_specs if i.name not in searched), plot=None)
    flags = dict(declared.flags) if declared else {}  # the published flags: the command's declaration's
    params = _target_options(sizings, declared)
    # A searched setting is the answer, not an option.
    params += _published([p for p in declared_group_options(family, rest) if p.name not in searched], flags)
    own = [s.name for s in declared.settings] if declared else []
    for spec in (declared.settings if declared else ()):
        shown = "" if spec.value is None else f" [default: {spec.value}]"
        params.append(inspect.Parameter(spec.name, keyword, default=None, annotation=Annotated[
            str | None, typer.Option("--" + spec.name.replace("_", "-"), metavar="NUMBER",
                                     help=f"{spec.description}{shown}")]))
    names = [s.target_name for s in sizings if not s.always]

    def answer(given: dict[str, Any]) -> None:
        import iosizer
        from iosizer.cli.output import Report, emit
        from iosizer.cli.questions import given_values

        output_format = given.pop("output_format")
        percentile = given.pop("percentile", None)
        cpu_speed = given.pop("cpu_speed", None)
        targets = {k: given.pop(k) for k in names if k in given}
        settings = {k: given.pop(k) for k in own}  # checked by the answer, against the command's declarations
        profile_name = given.get("profile")
        values, profile = given_values(family, rest, given, flags or None)
        answer = iosizer.family(family.name).size(profile, percentile=percentile, cpu_speed=cpu_speed,
                                                  command=name, profile_name=None if profile_name is None
                                                  else str(profile_name), **targets, **values, **settings)
        title = answer.title or f"{family.name[:1].upper()}{family.name[1:]} sizing"
        data, records = answer.to_data(), answer.records()
        # One answer: a metric/value table, as every 'iosizer size' command prints one (a list or an object
        # left to the JSON); a sweep (or a question whose answer is always a list): a row each.
        if len(records) > 1 or answer.always_list or answer.gathered:
            emit(Report(data=data, rows=answer.shown(), columns=list(answer.columns) or None, title=title,
                        notes=list(answer.notes)), output_format)
            return
        rows = [{"metric": k, "value": v} for k, v in data.items() if not isinstance(v, (list, dict))]
        emit(Report(data=data, rows=rows, title=title, notes=list(answer.notes), csv_rows=records), output_format)

    return params, answer


def _target_options(sizings: "tuple[Sizing, ...]", declared: "SizingCommand | None") -> list[inspect.Parameter]:
    """An option per target of the command (none for a sizing answered on every call), and --percentile
    where a target takes one."""
    from iosizer.calibration.declared_sizing import target_flag

    keyword = inspect.Parameter.KEYWORD_ONLY
    params: list[inspect.Parameter] = []
    for sizing in sizings:
        if sizing.always or any(p.name == sizing.target_name for p in params):
            continue
        how = (f"the smallest {sizing.report or sizing.search} that reaches it" if sizing.smallest else
               f"the largest {sizing.report or sizing.search} that keeps within it")
        bound = "at most" if sizing.at_most else "at least"
        text = (f"Target: {sizing.output}" + (" (or its --percentile)" if sizing.percentile else "")
                + f" {bound} this; the answer is {how}.")
        required = declared is not None and sizing.target_name in declared.required
        params.append(inspect.Parameter(sizing.target_name, keyword, default=... if required else None,
                                        annotation=Annotated[float | None, typer.Option(target_flag(sizing),
                                                                                        help=text)]))
    if any(s.percentile for s in sizings):
        flags_text = " or ".join(target_flag(s) for s in sizings if s.percentile)
        params.append(inspect.Parameter("percentile", keyword, default=None, annotation=Annotated[
            float | None, typer.Option("--percentile", metavar="P",
                                       help=f"Apply {flags_text} to the P-th percentile.")]))
    return params


def _summary(family: "Family", name: str) -> str:
    """The command's help line: its declaration's summary, or the family's and the targets'."""
    from iosizer.calibration.declared_sizing import command_sizings, target_flag

    _, sizings, declared = command_sizings(family, name)
    said = declared.summary if declared else ""
    targets = " and/or ".join(target_flag(s) for s in sizings if not s.always)
    return said or f"{family.summary[:1].upper()}{family.summary[1:]}: sizing for {targets}."


def size_command(family: "Family", question: "Question", name: str | None = None) -> Callable[..., None]:
    """The typer command ``iosizer size <name>`` (default: the family's) of the question's declared sizing."""
    from iosizer.calibration.declared_sizing import command_sizings

    name = name or family.name
    params, answer = _size_options(family, question, name)
    params.append(inspect.Parameter("output_format", inspect.Parameter.KEYWORD_ONLY, default=OutputFormat.table,
                                    annotation=FormatOption))

    def command(**given: Any) -> None:
        answer(given)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "size_" + name.replace("-", "_")
    _, sizings, _ = command_sizings(family, name)
    how = ("the model's own inverse" if any(s.invert for s in sizings) else
           "a monotone search on its model (galloping, then bisection)")
    command.__doc__ = (f"{_summary(family, name)}\n\nGenerated from the declaration of the question "
                       f"'{question.command}': {how}; with --profile, solved again at the corners of its 95 % "
                       "intervals.")
    return command


def shared_size_command(entries: list[tuple["Family", "Question"]], name: str) -> Callable[..., None]:
    """``iosizer size <name>`` where several families declare a sizing of that name: one command with every
    family's options (one option per name; repeatable where one family's is). A profile picks its family;
    otherwise the first family whose options include every option given answers."""
    built = [(family, *_size_options(family, question, name)) for family, question in entries]
    merged: dict[str, inspect.Parameter] = {}
    for _, params, _ in built:
        for param in params:
            had = merged.get(param.name)
            if had is None or (_many(param) and not _many(had)):
                merged[param.name] = param
    params = [*merged.values(), inspect.Parameter("output_format", inspect.Parameter.KEYWORD_ONLY,
                                                  default=OutputFormat.table, annotation=FormatOption)]
    flags = {p.name: _flag_of(p) for p in params}

    def command(**given: Any) -> None:
        from iosizer.errors import InputError

        chosen = {k for k, v in given.items() if v not in (None, [], False) and k != "output_format"}
        profile = given.get("profile")
        if profile is not None:
            from iosizer.calibration.profile import load_profile

            model = load_profile(profile).model
            candidates = [b for b in built if b[0].name == model]
            if not candidates:
                names = " or ".join(b[0].name for b in built)
                raise InputError(f"size {name} takes a profile of {names}, not '{model}'")
        else:
            candidates = [b for b in built if chosen <= {p.name for p in b[1]}]
        if not candidates:  # options of different systems: name each system's own
            takes = {b[0].name: {p.name for p in b[1]} for b in built}
            own = {f: [flags[k] for k in sorted(chosen) if k in names and all(k not in other for g, other in
                                                                            takes.items() if g != f)]
                   for f, names in takes.items()}
            each = "; ".join(f + ": " + " ".join(v) for f, v in own.items() if v)
            raise InputError(f"{' and '.join(x for v in own.values() for x in v)} belong to different systems of "
                             f"'size {name}' ({each}); give the options of one")
        family, own, answer = candidates[0]
        mine = {p.name: p for p in own}
        for key in [k for k in given if k not in mine and k != "output_format"]:
            value = given.pop(key)
            if value not in (None, [], False):
                raise InputError(f"{flags[key]} is no option of {family.name}'s 'size {name}'")
        for key, param in mine.items():
            value = given.get(key)
            if isinstance(value, list) and not _many(param):  # a repeatable option that is single here
                if len(value) > 1:
                    raise InputError(f"{flags[key]} takes one value for {family.name}, got {len(value)}")
                given[key] = value[0] if value else None
        answer(given)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "size_" + name.replace("-", "_")
    command.__doc__ = (", or ".join(_summary(family, name).rstrip(".") for family, _ in entries) +
                       ".\n\nGenerated from the declarations of " + " and ".join(
                           f"'{family.name} {question.command}'" for family, question in entries) +
                       ": a monotone search on the model; a --profile picks its family, otherwise the options "
                       "given do.")
    return command


def _many(param: inspect.Parameter) -> bool:
    base = typing.get_args(param.annotation)[0]
    return "list" in str(base)


def _flag_of(param: inspect.Parameter) -> str:
    args = typing.get_args(param.annotation)
    option = args[1] if len(args) > 1 else None
    # Under Annotated, typer reads the first flag from the option's default.
    decls = [getattr(option, "default", None), *(getattr(option, "param_decls", None) or ())]
    return next((d.split("/")[0] for d in decls if isinstance(d, str) and d.startswith("--")),
                "--" + param.name.replace("_", "-"))


def _published(params: list[inspect.Parameter], flags: Any) -> list[inspect.Parameter]:
    """``params`` with each name of ``flags`` taking its published flag first (its CLI option's first name and
    its HTTP field), the declared flags after it."""
    import copy
    from typing import get_args

    out = []
    for param in params:
        flag = flags.get(param.name)
        if flag is not None:
            kind, info = get_args(param.annotation)[:2]
            info = copy.copy(info)
            # In Annotated form typer reads a first flag given positionally as its ``default``.
            decls = [d for d in (info.default, *info.param_decls) if isinstance(d, str) and d.startswith("-")]
            info.default, info.param_decls = flag, tuple(d for d in decls if d != flag)
            own = "--" + param.name.replace("_", "-")
            info.help = (info.help or "").replace(f"(also {flag}: the older name, deprecated)",
                                                  f"(also {own}: its declared name)")
            param = param.replace(annotation=Annotated[kind, info])
        out.append(param)
    return out


# --- the groups --------------------------------------------------------------------------------------


class DeclaredGroup(TyperGroup):
    """A group whose hand-written commands are joined, when named, by one generated per family.

    ``commands`` holds those built so far (the root's start-up walks it: no family module is imported
    then); :meth:`every_command` builds the rest (``--help``, the HTTP catalogue).
    """

    #: The family's question that gets the command (None: none does), and the command of it.
    _question: Callable[["Family"], "Question | None"]
    _command: Callable[["Family", "Question"], Callable[..., None]]
    #: The commands a family's declaration names (default: the family's own name).
    _names: Callable[["Family"], tuple[str, ...]] = staticmethod(lambda family: (family.name,))

    def every_command(self) -> dict[str, Any]:
        if not getattr(self, "_all", False):
            self._all = True
            from iosizer.model.registry import family_names

            for name in family_names():
                for command in self._declared_names(name):
                    if command not in self.commands:
                        self._made(command, name)
        return self.commands

    def _declared_names(self, family_name: str) -> tuple[str, ...]:
        from iosizer.errors import InputError
        from iosizer.model.registry import declaration

        try:
            family = declaration(family_name)
            return type(self)._names(family) if type(self)._question(family) is not None else ()
        except InputError:
            return ()

    def _family_of(self, name: str) -> str | None:
        """The family whose declaration names the command ``name``: the family of that name, else the one
        declaring it under another name (every family's declaration read then)."""
        from iosizer.model.registry import family_names

        names = family_names()
        if name in names and name in self._declared_names(name):
            return name
        return next((f for f in names if name in self._declared_names(f)), None)

    def _made(self, name: str, family_name: str | None = None) -> Any:
        from iosizer.cli.output import add_output_options

        family_name = family_name or self._family_of(name)
        if family_name is None:
            return None
        from iosizer.model.registry import declaration

        family = declaration(family_name)
        question = type(self)._question(family)
        if question is None:
            return None
        function = type(self)._command(family, question, name) if name != family.name else \
            type(self)._command(family, question)
        app = typer.Typer(add_completion=False, rich_markup_mode=None)
        app.command(name)(function)
        command = typer.main.get_command(app)
        add_output_options(command)
        self.commands[name] = command
        return command

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return self.commands.get(cmd_name) or self._made(cmd_name)

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted(self.every_command())


def _sizing_question(family: "Family") -> "Question | None":
    from iosizer.calibration.declared_sizing import sizing_question

    return sizing_question(family)


def _sizing_names(family: "Family") -> tuple[str, ...]:
    from iosizer.calibration.declared_sizing import sizing_command_names

    return sizing_command_names(family)


class SizeGroup(DeclaredGroup):
    """``iosizer size <name>``: each family's sizing commands; a name several families declare is one command
    of them all (:func:`shared_size_command`)."""

    _question = staticmethod(_sizing_question)
    _command = staticmethod(size_command)
    _names = staticmethod(_sizing_names)

    def _made(self, name: str, family_name: str | None = None) -> Any:
        from iosizer.model.registry import declaration, family_names

        names = family_names()
        if name in names and name in self._declared_names(name):  # a family's own: read no other family
            return super()._made(name, name)
        owners = [f for f in names if name in self._declared_names(f)]
        if len(owners) <= 1:
            return super()._made(name, owners[0] if owners else family_name)
        from iosizer.cli.output import add_output_options

        entries = [(declaration(f), type(self)._question(declaration(f))) for f in owners]
        app = typer.Typer(add_completion=False, rich_markup_mode=None)
        app.command(name)(shared_size_command(entries, name))  # type: ignore[arg-type]
        command = typer.main.get_command(app)
        add_output_options(command)
        self.commands[name] = command
        return command

