"""``iosizer <family> <question>``: a command for every declared question, generated from its declaration.

A question that declares a ``solve`` (:class:`iosizer.model.family.Question`)
gets a command with one option per input (a value, a list ``1,2,3`` or a
range ``0.5:3.5:0.5``; the answer covers every combination), per setting and
per parameter of its family (a given parameter is fixed: no band comes from
it), plus ``--profile``, ``--cpu-speed``, ``--band``, ``--percentile`` (where the
question has percentiles), ``--format`` and ``--plot``. Every value is
checked by its declaration; the answer is :meth:`iosizer.ModelFamily.ask`'s,
so the JSON is byte for byte what ``POST /api/<family>/<question>`` answers.

Nothing here names a family: a plugin's family is a command group as soon as
its package is installed. Groups are built when their name is invoked, so
``iosizer --help`` imports no family module.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Mapping

import typer

from iosizer.cli.lazy import LazyTyperGroup
from iosizer.cli.output import Panel, Report, Series, emit

if TYPE_CHECKING:
    from iosizer.api import Answer
    from iosizer.model.family import Family, Question

__all__ = ["attach", "family_command", "family_group", "given_values", "group_names", "question_command", "resolve"]


def group_names() -> list[str]:
    """Names of the command groups generated for plugin families (their modules are not imported)."""
    from iosizer.model.registry import plugin_names

    return plugin_names()


def _unit_text(unit: str) -> str:
    from iosizer.units import NOT_UNITS

    return "" if unit in NOT_UNITS else f" ({unit})"


def given_values(family: "Family", question: "Question", given: dict[str, Any],
                 flags: dict[str, str] | None = None) -> tuple[dict[str, Any], Any]:
    """:func:`iosizer.generated.given_values` (imported when used: ``iosizer --help`` reads no declaration)."""
    from iosizer.generated import given_values as checked

    return checked(family, question, given, flags)


def _options(family: "Family", question: "Question") -> list[inspect.Parameter]:
    """The command's parameters: its fields (:func:`iosizer.generated.question_fields`) as typer options."""
    from iosizer.cli.generated import typer_parameters
    from iosizer.generated import question_fields

    return typer_parameters(question_fields(family, question))


def question_command(family: "Family", question: "Question") -> Any:
    """The typer command function of one declared question."""

    def command(**given: Any) -> None:
        import iosizer

        output_format = given.pop("output_format")
        plot = given.pop("plot")
        profile_path = given.pop("profile")
        cpu_speed = given.pop("cpu_speed")
        percentiles = given.pop("percentile", None)
        band = given.pop("band").value
        simulate = given.pop("simulate", False)
        values, profile = given_values(family, question, {**given, "profile": profile_path})
        answer = iosizer.family(family.name).ask(question.command, profile, cpu_speed=cpu_speed,
                                                 percentiles=percentiles, band=band, simulate=simulate, **values)
        emit(_report(family, question, answer), output_format, plot)

    command.__signature__ = inspect.Signature(_options(family, question))  # type: ignore[attr-defined]
    command.__name__ = question.command.split()[-1]
    command.__doc__ = f"{question.summary[:1].upper()}{question.summary[1:]}."
    return command


def _report(family: "Family", question: "Question", answer: "Answer") -> Report:
    records = answer.records()
    data = answer.to_data()
    title = f"{_title(family.name, question)}: {question.summary}"
    plot = _panels(question, answer, records)
    if question.shape_table:  # the published form, its deprecated keys and nested objects left to the JSON
        old = {o for olds in question.aliases.values() for o in olds}
        shaped = [{k: _cell(v) for k, v in row.items() if k not in old and not isinstance(v, dict)} for row in
                  (data if isinstance(data, list) else [data])]
        if isinstance(data, dict):
            shaped = [{"metric": k, "value": v} for k, v in shaped[0].items()]
        return Report(data=data, rows=shaped, title=title, notes=list(answer.notes), plot=plot)
    shown = [*question.sweeps, *question.input_names, *answer.outputs]
    # An input left to the solve everywhere (a computed default's NaN: a load at its own limit) has no column.
    shown = [k for k in shown if any(r.get(k) is not None for r in records)]
    return Report(data=data, rows=records, columns=shown, csv_rows=records, title=title,
                  notes=list(answer.notes), plot=plot)


def _cell(value: Any) -> Any:
    """A list in a table or CSV cell: '256 256 8', or '256 x 65536, 8' when it is long."""
    if not isinstance(value, list):
        return value
    if len(value) <= 16:
        return " ".join(map(str, value))
    same = next((i for i, v in enumerate(value) if v != value[0]), len(value))
    rest = value[same:]
    return f"{value[0]} x {same}" + (", " + " ".join(map(str, rest)) if rest else "")


def _title(family: str, question: "Question") -> str:
    """The family and the question, once where the question is at the family's own path."""
    return family if question.path(family) == (family,) else f"{family} {question.command}"


def _panels(question: "Question", answer: "Answer", records: list[dict[str, Any]]) -> list[Panel] | None:
    """The declared plot: y against x, one curve per value of ``series`` (with the band where there is one)."""
    chosen = question.plot
    if chosen is None:
        return None
    x_unit = question.input(chosen.x).unit if chosen.x in question.input_names else ""
    panels = []
    for y in chosen.y:
        groups: dict[Any, list[dict[str, Any]]] = {}
        for row in records:
            groups.setdefault(row.get(chosen.series) if chosen.series else None, []).append(row)
        series = []
        for key, rows in groups.items():
            label = y if key is None else f"{chosen.series} = {key if isinstance(key, str) else format(key, 'g')}"
            xs = [r[chosen.x] for r in rows]
            if all(r.get(f"{y}_ci_low") is not None and r.get(f"{y}_ci_high") is not None for r in rows):
                # one legend entry for every band ('_' hides the others); an unbounded band is not drawn
                series.append(Series("95 % band" if not series else "_band", xs,
                                     [r[f"{y}_ci_low"] for r in rows], "band", [r[f"{y}_ci_high"] for r in rows]))
            series.append(Series(label, xs, [r[y] for r in rows], "line" if len(rows) > 1 else "points"))
            series += [Series(f"{other}" if key is None else f"{other}, {label}", xs, [r[other] for r in rows],
                              "dashed") for shown, other in chosen.beside if shown == y and len(rows) > 1
                       and other in question.output_names]
        series += _levels(chosen, y, answer.values, [r[chosen.x] for r in records])
        series += _references(chosen, y, answer.values)
        y_unit = next((o.unit for o in question.output_specs if o.name == y), "")
        panels.append(Panel(f"{chosen.x}{_unit_text(x_unit)}", f"{y}{_unit_text(y_unit)}", series,
                            f"{answer.family} {answer.question}"))
    return panels


def _levels(plot: Any, output: str, values: Mapping[str, Any], xs: list[Any]) -> list[Series]:
    """A setting ``plot`` draws beside ``output`` (``Plot.beside``): a dashed level at its value across the
    panel (a loss budget)."""
    levels = [(other, values.get(other)) for shown, other in plot.beside if shown == output]
    return [Series(f"{other} = {value:g}", [min(xs), max(xs)], [value, value], "dashed") for other, value in levels
            if isinstance(value, (int, float)) and not isinstance(value, bool) and xs]


def _references(plot: Any, output: str, values: Mapping[str, Any]) -> list[Series]:
    """The published figures ``plot`` shows beside ``output`` (:class:`~iosizer.model.family.Reference`)."""
    series = []
    for reference in (r for r in plot.references if r.output == output):
        if not reference.measurement:  # one point from the answer's values (a catalogue entry's figure)
            x, y = values.get(reference.x), values.get(reference.y)
            if isinstance(x, (int, float)) and isinstance(y, (int, float)):
                series.append(Series(reference.label, [x], [y], "points"))
            continue
        from iosizer.calibration.shipped import read_measurement

        groups: dict[str, list[dict[str, str]]] = {}
        for row in read_measurement(reference.measurement):
            groups.setdefault(row[reference.group] if reference.group else "", []).append(row)
        for group, rows in groups.items():
            series.append(Series(f"{reference.label} ({group})" if group else reference.label,
                                 [float(r[reference.x]) for r in rows], [float(r[reference.y]) for r in rows],
                                 "points"))
    return series


def family_command(name: str) -> Any:
    """The command of family ``name``'s question at the family's own path (``iosizer replication``)."""
    from iosizer.model.registry import declaration

    family = declaration(name)
    question = next(q for q in family.questions if q.answerable and q.path(name) == (name,))
    return question_command(family, question)


def _questions(family: "Family", group: str | None = None) -> list["Question"]:
    """The declared questions under ``group`` (default: the family's own name: ``iosizer <family> <question>``);
    a question at the family's own path (``iosizer replication``) is a command of the root instead."""
    return [q for q in family.questions if q.answerable and q.path(family.name)[0] == (group or family.name)
            and len(q.path(family.name)) > 1]


def _group(family: "Family", questions: list["Question"], text: str | None = None) -> Any:
    """A click group of ``questions``' commands, each built when first used (cli/lazy.py)."""
    from iosizer.cli.lazy import typer_group

    app = typer.Typer(help=text, no_args_is_help=True, rich_markup_mode=None, add_completion=False)
    for question in questions:
        app.command(question.path(family.name)[-1])(question_command(family, question))
    return typer_group(app)


def family_group(name: str) -> Any:
    """The click group of every declared question of family ``name`` (its module is imported now)."""
    from iosizer.model.registry import declaration

    family = declaration(name)
    return _group(family, _questions(family), f"{family.summary} (family '{name}'; iosizer params {name}).")


class _LazyFamily(LazyTyperGroup):
    """A plugin family's command group that imports the family's module only when it is used (listing
    the root's commands, as ``iosizer --help`` does, names it without importing it)."""

    def __init__(self, name: str) -> None:
        from iosizer.model.registry import plugin_module

        super().__init__(name=name, no_args_is_help=True, rich_markup_mode=None,
                         short_help=f"Questions of family '{name}' (plugin {plugin_module(name)}).")
        self._loaded = False
        self._own: Any = None

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            from iosizer.cli.lazy import adopt, command_of
            from iosizer.model.registry import declaration

            if any(q.answerable and q.path(self.name) == (self.name,) for q in declaration(self.name).questions):
                # A question at the family's own path: the name is that command, not a group.
                self._own = command_of(family_command(self.name), self.name)
                return
            built = family_group(self.name)
            self.help = built.help
            adopt(self, built)

    def make_context(self, info_name: Any, args: Any, parent: Any = None, **extra: Any) -> Any:
        self._load()
        if self._own is not None:  # click then invokes the context's command: the question's
            return self._own.make_context(info_name, args, parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)

    def list_commands(self, ctx: Any) -> list[str]:
        self._load()
        return super().list_commands(ctx)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        self._load()
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._load()
        super().format_help(ctx, formatter)


def attach(name: str, group: Any, group_name: str | None = None) -> None:
    """Add family ``name``'s declared questions under ``group_name`` (default: the family's name) to an existing
    click group, never replacing a command."""
    from iosizer.model.registry import declaration

    family = declaration(name)
    new = [q for q in _questions(family, group_name) if q.path(name)[-1] not in group.commands]
    if new:
        from iosizer.cli.lazy import adopt

        adopt(group, _group(family, new))


def builtin_group(name: str) -> Any:
    """The root's group ``name`` of :data:`~iosizer.model.registry.BUILTIN_GROUPS` whose every command is a
    declared question (``iosizer latency``): an empty group their commands are attached to when it is used."""
    # No help of its own: the root gives it the line its listing shows (cli.app._build), so both read the same.
    return typer.Typer(no_args_is_help=True)


def resolve(root: Any, name: str, command: Any) -> Any:
    """The root group's command ``name``: a plugin family's generated group when no command has the name;
    an existing group named after a built-in family gets that family's questions when it is first used."""
    from iosizer.model.registry import BUILTIN_FAMILIES, BUILTIN_GROUPS

    if command is None:
        if name not in group_names():
            return None
        command = _LazyFamily(name)
        root.add_command(command, name)
        return command
    if (name in BUILTIN_FAMILIES or name in BUILTIN_GROUPS) and hasattr(command, "add_command") \
            and not hasattr(command, "_iosizer_lazy"):
        _attach_when_used(name, command)
    return command


def _attach_when_used(name: str, group: Any) -> None:
    """Attach the family's questions the first time the group lists or resolves a command: listing the
    root's commands (``iosizer --help``) imports no family module."""
    get_command, list_commands = group.get_command, group.list_commands
    group._iosizer_lazy = True

    def ready() -> None:
        from iosizer.model.registry import BUILTIN_GROUPS

        if group._iosizer_lazy:
            group._iosizer_lazy = False
            for family in BUILTIN_GROUPS.get(name, (name,)):
                attach(family, group, name)

    def get(ctx: Any, command_name: str) -> Any:
        ready()
        return get_command(ctx, command_name)

    def listed(ctx: Any) -> list[str]:
        ready()
        return list_commands(ctx)

    group.get_command, group.list_commands = get, listed
