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


def size_command(family: "Family", question: "Question") -> Callable[..., None]:
    """The typer command ``iosizer size <family>`` of the question's declared sizing."""
    from iosizer.calibration.declared_sizing import target_flag

    keyword = inspect.Parameter.KEYWORD_ONLY
    # An input every target searches is no option; one that only some search is (given for the others).
    searched = set.intersection(*({s.search} for s in question.sizing))
    rest = replace(question, inputs=tuple(i for i in question.input_specs if i.name not in searched), plot=None)
    params = []
    for sizing in question.sizing:
        if any(p.name == sizing.target_name for p in params):
            continue
        how = (f"the smallest {sizing.report or sizing.search} that reaches it" if sizing.smallest else
               f"the largest {sizing.report or sizing.search} that keeps within it")
        bound = "at most" if sizing.at_most else "at least"
        text = (f"Target: {sizing.output}" + (" (or its --percentile)" if sizing.percentile else "")
                + f" {bound} this; the answer is {how}.")
        params.append(inspect.Parameter(sizing.target_name, keyword, default=None, annotation=Annotated[
            float | None, typer.Option(target_flag(sizing), help=text)]))
    if any(s.percentile for s in question.sizing):
        flags = " or ".join(target_flag(s) for s in question.sizing if s.percentile)
        params.append(inspect.Parameter("percentile", keyword, default=None, annotation=Annotated[
            float | None, typer.Option("--percentile", metavar="P", help=f"Apply {flags} to the P-th percentile.")]))
    params += declared_group_options(family, rest)
    params.append(inspect.Parameter("output_format", keyword, default=OutputFormat.table, annotation=FormatOption))
    names = [s.target_name for s in question.sizing]

    def command(**given: Any) -> None:
        import iosizer
        from iosizer.cli.output import Report, emit
        from iosizer.cli.questions import given_values

        output_format = given.pop("output_format")
        percentile = given.pop("percentile", None)
        cpu_speed = given.pop("cpu_speed", None)
        targets = {k: given.pop(k) for k in names if k in given}
        values, profile = given_values(family, rest, given)
        answer = iosizer.family(family.name).size(profile, percentile=percentile, cpu_speed=cpu_speed,
                                                  **targets, **values)
        title = answer.title or f"{family.name[:1].upper()}{family.name[1:]} sizing"
        data, records = answer.to_data(), answer.records()
        # One answer: a metric/value table, as every 'iosizer size' command prints one; a sweep (or a
        # question whose answer is always a list): a row each.
        if len(records) > 1 or answer.always_list:
            emit(Report(data=data, rows=answer.shown(), columns=list(answer.columns) or None, title=title,
                        notes=list(answer.notes)), output_format)
            return
        rows = [{"metric": k, "value": v} for k, v in data.items()]
        emit(Report(data=data, rows=rows, title=title, notes=list(answer.notes), csv_rows=records), output_format)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "size_" + _size_name(family).replace("-", "_")
    targets = " and/or ".join(target_flag(s) for s in question.sizing)
    command.__doc__ = (f"{family.summary[:1].upper()}{family.summary[1:]}: sizing for {targets}.\n\n"
                       "Generated from the declaration of the question "
                       f"'{question.command}': a monotone search on its model (galloping, then bisection); "
                       "with --profile, solved again at the corners of its 95 % intervals.")
    return command


# --- the groups --------------------------------------------------------------------------------------


class DeclaredGroup(TyperGroup):
    """A group whose hand-written commands are joined, when named, by one generated per family.

    ``commands`` holds those built so far (the root's start-up walks it: no family module is imported
    then); :meth:`every_command` builds the rest (``--help``, the HTTP catalogue).
    """

    #: The family's question that gets the command (None: none does), and the command of it.
    _question: Callable[["Family"], "Question | None"]
    _command: Callable[["Family", "Question"], Callable[..., None]]

    #: The command's name for a family (its own name unless the group says otherwise).
    _name: Callable[["Family"], str] = staticmethod(lambda family: family.name)

    def every_command(self) -> dict[str, Any]:
        if not getattr(self, "_all", False):
            self._all = True
            from iosizer.model.registry import family_names

            for name in family_names():
                if name not in self.commands:
                    self._made(name)
        return self.commands

    def _made(self, name: str) -> Any:
        from iosizer.errors import InputError
        from iosizer.model.registry import declaration, family_names

        names = family_names()
        if name not in names:  # a command named otherwise than its family (``size cores``)
            for other in names:
                try:
                    if type(self)._name(declaration(other)) == name:
                        return self._made(other)
                except InputError:
                    continue
            return None
        try:
            family = declaration(name)
            question = type(self)._question(family)
        except InputError:
            return None
        if question is None:
            return None
        return self._added(type(self)._name(family), type(self)._command(family, question))

    def _added(self, name: str, function: Callable[..., None]) -> Any:
        from iosizer.cli.output import add_output_options

        if name in self.commands:  # a command written by hand under the same name wins
            return self.commands[name]
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


def _size_name(family: "Family") -> str:
    """``iosizer size <name>``: the family's, unless it declares its sizing command (``size cores``)."""
    words = family.sizing_command.split()
    return words[1] if len(words) == 2 and words[0] == "size" else family.name


class SizeGroup(DeclaredGroup):
    _question = staticmethod(_sizing_question)
    _command = staticmethod(size_command)
    _name = staticmethod(_size_name)

