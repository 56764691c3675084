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
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Callable

import typer
from typer.core import TyperGroup

from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat

if TYPE_CHECKING:
    from iosizer.model.family import Family, Question

__all__ = ["SizeGroup", "declared_group_options", "size_command"]


def declared_group_options(family: "Family", question: "Question") -> list[inspect.Parameter]:
    """The question command's options for ``question`` (inputs, settings, parameters, --profile,
    --cpu-speed), without its --band, --percentile, --format and --plot."""
    from iosizer.cli.questions import _options

    drop = {"band", "percentile", "output_format", "plot"}
    return [p for p in _options(family, replace(question, percentiles=None, plot=None)) if p.name not in drop]


# --- iosizer size <family> ------------------------------------------------------------------------


def size_command(family: "Family", question: "Question", name: str | None = None) -> Callable[..., None]:
    """The typer command ``iosizer size <name>`` (default: the family's) of the question's declared sizing."""
    from iosizer.calibration.declared_sizing import command_sizings, searched_by_every, target_flag

    name = name or family.name
    question, sizings, declared = command_sizings(family, name)
    keyword = inspect.Parameter.KEYWORD_ONLY
    # An input every target searches is no option; one that only some search is (given for the others).
    searched = searched_by_every(sizings)
    rest = replace(question, inputs=tuple(i for i in question.input_specs if i.name not in searched), plot=None)
    params = []
    for sizing in sizings:
        if sizing.always:  # answered on every call: no target to give
            continue
        if any(p.name == sizing.target_name for p in params):
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
        flags = " or ".join(target_flag(s) for s in sizings if s.percentile)
        params.append(inspect.Parameter("percentile", keyword, default=None, annotation=Annotated[
            float | None, typer.Option("--percentile", metavar="P", help=f"Apply {flags} to the P-th percentile.")]))
    params += _published(declared_group_options(family, rest), declared.flags if declared else {})
    own = [s.name for s in declared.settings] if declared else []
    for spec in (declared.settings if declared else ()):
        shown = "" if spec.value is None else f" [default: {spec.value}]"
        params.append(inspect.Parameter(spec.name, keyword, default=None, annotation=Annotated[
            str | None, typer.Option("--" + spec.name.replace("_", "-"), metavar="NUMBER",
                                     help=f"{spec.description}{shown}")]))
    params.append(inspect.Parameter("output_format", keyword, default=OutputFormat.table, annotation=FormatOption))
    names = [s.target_name for s in sizings if not s.always]

    def command(**given: Any) -> None:
        import iosizer
        from iosizer.cli.output import Report, emit
        from iosizer.cli.questions import given_values

        output_format = given.pop("output_format")
        percentile = given.pop("percentile", None)
        cpu_speed = given.pop("cpu_speed", None)
        targets = {k: given.pop(k) for k in names if k in given}
        settings = {k: given.pop(k) for k in own}  # checked by the answer, against the command's declarations
        values, profile = given_values(family, rest, given, dict(declared.flags) if declared else None)
        answer = iosizer.family(family.name).size(profile, percentile=percentile, cpu_speed=cpu_speed,
                                                  command=name, **targets, **values, **settings)
        title = answer.title or f"{family.name[:1].upper()}{family.name[1:]} sizing"
        data, records = answer.to_data(), answer.records()
        # One answer: a metric/value table, as every 'iosizer size' command prints one (a list or an object
        # left to the JSON); a sweep (or a question whose answer is always a list): a row each.
        if len(records) > 1 or answer.always_list:
            emit(Report(data=data, rows=answer.shown(), columns=list(answer.columns) or None, title=title,
                        notes=list(answer.notes)), output_format)
            return
        rows = [{"metric": k, "value": v} for k, v in data.items() if not isinstance(v, (list, dict))]
        emit(Report(data=data, rows=rows, title=title, notes=list(answer.notes), csv_rows=records), output_format)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "size_" + name.replace("-", "_")
    targets = " and/or ".join(target_flag(s) for s in sizings if not s.always)
    summary = declared.summary if declared and declared.summary else \
        f"{family.summary[:1].upper()}{family.summary[1:]}: sizing for {targets}."
    how = ("the model's own inverse" if any(s.invert for s in sizings) else
           "a monotone search on its model (galloping, then bisection)")
    command.__doc__ = (f"{summary}\n\nGenerated from the declaration of the question '{question.command}': "
                       f"{how}; with --profile, solved again at the corners of its 95 % intervals.")
    return command


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
    _question = staticmethod(_sizing_question)
    _command = staticmethod(size_command)
    _names = staticmethod(_sizing_names)

