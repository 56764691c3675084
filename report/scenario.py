"""Scenario files: one TOML description of a system, answered by every family that applies.

A scenario names a system and has one optional table per model family::

    name = "Replicated flash cache"
    description = "write-back cache on ESXi, replica over 10GbE or IPoIB"

    [replication]
    link = ["10g", "ipoib56"]
    block_kib = 4
    outstanding = 32

Keys carry their unit in the name (``added_latency_ns``, ``block_kib``,
``budget_pct``), so values are plain numbers: a string such as ``"4KB"``
where a number is expected is an error, and so is a key in another unit
than the schema's (``added_latency_us`` for ``added_latency_ns``), with a
hint. Every error is one :class:`~iosizer.errors.ScenarioError` line naming
the file and the key path (``scenario.toml: replication.block_kib: block_kib
must lie in [0.000976562, 1048576] (KiB), got -4``).

Any table may name the planner's own calibration: ``profile = "my.json"``
(from ``iosizer calibrate``, relative to the scenario file's folder), a
list of two where the table answers from two model families, and
``cpu_speed`` to carry it (or the shipped one) to another CPU. The table is
then answered as the what-if commands answer ``--profile`` and
``--cpu-speed`` (:func:`iosizer.calibration.whatif.what_if`), every answer
that depends on a fitted parameter with its 95 % band (``ci_low``,
``ci_high``, from :meth:`~iosizer.calibration.whatif.WhatIf.bands`).

A family whose questions declare a solve gets its table from the
declarations (:func:`_declared_section`, :func:`_declared_evaluator`): the
keys are the questions' inputs, the family's settings and parameters (a
setting a question sweeps takes a list), with the CLI's and HTTP's names and
units, each value checked by its declaration; the answers come from the one
road (:func:`iosizer.calibration.questions.answer`), as the rows the
question declares (``Question.table``) or one per output and point. A key's
older name stays an alias (``Question.table_keys``: ``[replication]``'s
``links`` for ``link``). A table that asks several questions, possibly of
several families, one answer feeding the next question's input ([latency]:
the round trip its switch tiers add is the OLTP and DMA questions' latency;
[pcie]: the link answered is the RMW network's), is declared by its module
(``TABLES``, :class:`~iosizer.model.family.ScenarioTable`: its keys, the asks
in order, its rows) and generated too (:func:`_several_section`,
:func:`_several_evaluator`); those come first, and the families they answer
from get no table of their own. Sections are evaluated in the order of
:data:`FAMILIES`.

Shipped examples live in :mod:`iosizer.data.scenarios`; :func:`resolve_source`
accepts a path or an example's bare name.
"""

from __future__ import annotations

import difflib
import math
import tomllib
from dataclasses import asdict, dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Callable

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator,
                      model_validator)

from iosizer.errors import IosizerError, ScenarioError

__all__ = [
    "FAMILIES",
    "Answer",
    "Family",
    "ScenarioResult",
    "Sources",
    "example_names",
    "load_scenario",
    "parse_scenario",
    "resolve_source",
    "run_scenario",
]


@dataclass(frozen=True)
class Answer:
    """One answer of a scenario: which family, what question, the value and its unit.

    ``ci_low``/``ci_high``: the answer's 95 % band from a profile's intervals
    (a section naming ``profile`` or ``cpu_speed``); None when there is no
    interval (the shipped exact fits, an answer of the settings alone) or the
    profile cannot bound that end.
    """

    family: str
    question: str
    value: float | int | str | None
    unit: str
    note: str = ""
    ci_low: float | None = None
    ci_high: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: The most entries a list key takes, as a command-line list (iosizer.cli.params.MAX_GRID_POINTS).
_MAX_ENTRIES = 10_000


class Section(BaseModel):
    """Base of every family's table: unknown keys and loose types are errors.

    Every table may also name where its numbers come from: ``profile``, the
    planner's calibrated profile (``iosizer calibrate FAMILY data.csv
    --output my.json``), a path relative to the scenario file's folder, or a
    list of them when the table answers from two families; ``cpu_speed``
    carries the profile (or the shipped one) to a CPU of that relative
    per-core speed, as ``--cpu-speed`` does. Either one gives the answers
    95 % bands (``ci_low``, ``ci_high``).
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    profile: str | list[str] | None = None
    cpu_speed: float | None = None

    @field_validator("profile")
    @classmethod
    def _profile_paths(cls, value: str | list[str] | None) -> str | list[str] | None:
        paths = [value] if isinstance(value, str) else value or []
        if isinstance(value, list) and not value:
            raise ValueError("give a profile file, or a list of them, not an empty list")
        if any(not p.strip() for p in paths):
            raise ValueError("a profile path is empty")
        if len(set(paths)) != len(paths):
            raise ValueError(f"a profile is named twice: {paths}")
        return value

    @field_validator("cpu_speed")
    @classmethod
    def _cpu_speed(cls, value: float | None) -> float | None:
        from iosizer.model.family import CPU_SPEED

        if value is not None:
            try:
                CPU_SPEED.check(value, "cpu_speed")
            except IosizerError as error:
                raise ValueError(str(error)) from None
        return value

    def profile_paths(self) -> list[str]:
        """The ``profile`` key as a list of paths, as the file spells them."""
        return [self.profile] if isinstance(self.profile, str) else list(self.profile or [])

    def given(self, *keys: str) -> dict[str, Any]:
        """The values of ``keys`` the file sets itself (not filled from a default), others None."""
        return {key: getattr(self, key) if key in self.model_fields_set else None for key in keys}


@dataclass(frozen=True)
class Sources:
    """Where one table's numbers come from: the planner's profiles by family, and the CPU.

    ``paths``: each named profile's family and file (resolved against the
    scenario's folder); ``written``: the path as the file spells it, for the
    notes. Built and checked by :func:`section_sources`.
    """

    paths: dict[str, Path] = field(default_factory=dict)
    written: dict[str, str] = field(default_factory=dict)
    cpu_speed: float | None = None

    @property
    def calibrated(self) -> bool:
        """Whether the table asks for a profile or a CPU: then its answers carry 95 % bands."""
        return bool(self.paths) or self.cpu_speed is not None

    def source(self, family: str) -> str:
        """Where ``family``'s values come from, as a note names it: the profile as the file spells it, or the
        shipped one, and the CPU it is carried to."""
        found = f"profile {self.written[family]}" if family in self.paths else f"shipped '{family}' profile"
        return found + (f", carried to CPU speed {self.cpu_speed:g}" if self.cpu_speed is not None else "")

    def what_if(self, family: str, changes: dict[str, Any] | None = None) -> Any:
        """:func:`iosizer.calibration.whatif.what_if` on this table's profile of ``family`` (the shipped
        one if it names none) at its CPU; None when the table names neither a profile of ``family``
        nor a CPU (the family then answers as it ships, with no band)."""
        if family not in self.paths and self.cpu_speed is None:
            return None
        from iosizer.calibration.whatif import what_if

        path = self.paths.get(family)
        answer = what_if(family, path, cpu_speed=self.cpu_speed, changes=changes)
        if path is not None:  # the notes name the file as the scenario does
            answer = replace(answer, source=answer.source.replace(f"profile {path}",
                                                                  f"profile {self.written[family]}", 1))
        return answer


def _band(bands: dict[str, tuple[Any, Any]], key: str, index: int | None = None) -> tuple[float | None, ...]:
    """(ci_low, ci_high) of one answer from :meth:`WhatIf.bands`; an end the profile cannot bound is None."""
    import numpy as np

    if key not in bands:
        return None, None
    ends = []
    for end in bands[key]:
        value = np.asarray(end, dtype=float).reshape(-1)[0 if index is None else index]
        ends.append(float(value) if math.isfinite(value) else None)
    return tuple(ends)


# --------------------------------------------------------------------------
# Registry and schema
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """One scenario table: its key, its schema, its evaluator and the model families it answers from
    (the families whose profiles its ``profile`` key accepts)."""

    key: str
    section: type[Section]
    evaluate: Callable[[Any, Sources], list[Answer]]
    summary: str
    profiles: tuple[str, ...]


def _several_tables() -> list[Family]:
    """A table per declared table of several questions (a family module's ``TABLES``), in the registry's order."""
    from iosizer.model.registry import scenario_tables

    return [Family(t.key, _several_section(t), _several_evaluator(t), t.summary, t.families)
            for t in scenario_tables()]


def _several_section(table: Any) -> type[Section]:
    """The schema of a table of several questions: its declared keys (strict types, bounds, a default or a
    declared value read when left out), a catalogue name checked by its family's catalogue, and the
    table's ``check`` of the keys together; each error one line naming the key (the table for ``check``)."""

    def entry(key: Any) -> Any:
        def check(value: Any) -> Any:
            from iosizer.calibration.family_modules import catalogue_entry

            try:
                catalogue_entry(*key.catalogue, value)
            except IosizerError as error:
                raise ValueError(str(error)) from None
            return value

        return AfterValidator(check)

    fields: dict[str, Any] = {}
    for key in table.keys:
        kind: Any = key.kind | None if key.default is None else key.kind
        if key.catalogue:
            kind = Annotated[kind, entry(key)]
        bounds = {b: getattr(key, b) for b in ("ge", "gt", "le", "lt") if getattr(key, b) is not None}
        given = {"default_factory": key.default} if callable(key.default) else {"default": key.default}
        fields[key.name] = (kind, Field(**given, **bounds, description=key.description))

    def together(self: Section) -> Section:
        if table.check is not None:
            try:
                table.check({key.name: getattr(self, key.name) for key in table.keys})
            except IosizerError as error:
                raise ValueError(str(error)) from None
        return self

    name = "".join(w.title() for w in table.key.replace("-", "_").split("_")) + "Section"
    return create_model(name, __base__=Section, __doc__=table.summary,
                        __validators__={"_together": model_validator(mode="after")(together)}, **fields)


def _several_evaluator(table: Any) -> Callable[[Any, Sources], list[Answer]]:
    """The table's asks in order through the one road (:func:`iosizer.calibration.questions.answer`), each
    answer handed on to the later asks and to the table's rows (``ScenarioTable.rows``)."""

    def evaluate(section: Section, sources: Sources) -> list[Answer]:
        from iosizer.calibration.family_modules import catalogue_entry
        from iosizer.calibration.profile import load_profile
        from iosizer.calibration.questions import answer
        from iosizer.model.family import Asked, TableState

        keys = {key.name: getattr(section, key.name) for key in table.keys}
        profiles = {name: load_profile(path, name) for name, path in sources.paths.items()}
        state = TableState(keys, frozenset(section.model_fields_set), dict(sources.written),
                           {name: sources.source(name) for name in table.families}, sources.cpu_speed,
                           {k.name: catalogue_entry(*k.catalogue, keys[k.name])[1] for k in table.keys
                            if k.catalogue and keys[k.name] is not None})
        for ask in table.asks:
            if ask.when is not None and not ask.when(state):
                continue
            profile = profiles.get(ask.family) if ask.profile != "none" else None
            carried = ask.profile == "table" or profile is not None
            solved = answer(ask.family, ask.question, profile, cpu_speed=sources.cpu_speed if carried else None,
                            **ask.inputs(state))
            state = replace(state, answered={**state.answered, ask.name: Asked(solved.records(), solved.values)})
        return [Answer(table.key, r.question, r.value, r.unit, r.note, r.ci_low, r.ci_high) for r in table.rows(state)]

    return evaluate


def _numbers(unit: str) -> Any:
    """A key taking a number or a list of them: one line naming the key, not pydantic's per-member union errors."""
    from pydantic import BeforeValidator

    def check(value: Any) -> Any:
        items = value if isinstance(value, list) else [value]
        if value is not None and not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
            raise ValueError(f"expected a number or a list of numbers ({unit}), got {value!r}")
        return value

    return BeforeValidator(check)


def _checked(spec: Any, key: str, each: bool = False) -> Any:
    """A key checked by its declaration (each member of a list with ``each``), the message naming the key."""

    def check(value: Any) -> Any:
        try:
            if each and value is not None:
                for item in value if isinstance(value, list) else [value]:
                    spec.check(item, key)
            elif value is not None:
                checked = spec.check(value, key)
                return checked if isinstance(checked, str) else value  # a choice in its normal form
        except IosizerError as error:
            raise ValueError(str(error)) from None
        return value

    return AfterValidator(check)


def _choices(spec: Any, key: str) -> Any:
    """A swept setting's key: a choice, a list of them, "1g,10g" or "all"; each choice once, in its normal form
    (a file listing one twice still runs)."""
    from iosizer.model.family import parse_choices

    def check(value: Any) -> Any:
        if value is None:
            return value
        if isinstance(value, list) and not value:
            raise ValueError(f"give a {spec.name} or a list of them, not an empty list")
        try:
            chosen = [spec.check(v, key) for v in value] if isinstance(value, list) else \
                parse_choices(value, spec, key)
            return list(dict.fromkeys(chosen))
        except IosizerError as error:
            raise ValueError(str(error)) from None

    return AfterValidator(check)


def _declared_section(family: Any, questions: list[Any]) -> type[Section]:
    """A table's schema from the declarations: every input of the questions (a number or a list),
    every setting and parameter of the family (a given parameter is fixed), a setting a question sweeps
    (a choice or a list of them), each with its unit and checked by its declaration, named as the key;
    a key's older names (``Question.table_keys``) are aliases."""
    from pydantic import AliasChoices

    fields: dict[str, Any] = {}
    for question in questions:
        for spec in question.input_specs:
            fields.setdefault(spec.name, (Annotated[float | list[float] | None, _numbers(spec.unit),
                                                    _checked(spec, spec.name, each=True)], Field(
                None, description=f"{spec.description or spec.name} ({spec.unit}); a list answers each value")))
        for repeated in question.repeated:  # one value per item (a demand per station)
            fields.setdefault(repeated.name, (float | str | list[float | str] | None, Field(
                None, description=f"{repeated.name}: a value or a list, one per item")))
    own = [s for q in questions for s in q.settings]
    swept = {n for q in questions for n in q.sweeps}
    for spec in (*own, *family.parameters):
        if spec.name in fields:
            continue
        if spec.name in swept:
            fields[spec.name] = (Annotated[str | list[str] | None, _choices(spec, spec.name)], Field(
                None, description=f"{spec.description or spec.name}: a choice or a list of them"))
            continue
        # A setting written as text (a port mix) takes its text, a number or a list of values.
        kind: Any = bool if spec in own and spec.switch else float | str | list[float | str] if spec.parse else str if (
            spec.choices and isinstance(spec.choices[0], str)) else float
        fields[spec.name] = (Annotated[kind | None, _checked(spec, spec.name)], Field(
            None, description=f"{spec.description or spec.name} ({spec.unit})"))
    for key, olds in ((k, v) for q in questions for k, v in q.table_keys.items()):
        kind, info = fields[key]
        fields[key] = (kind, Field(None, description=f"{info.description} (older key: {', '.join(olds)})",
                                   validation_alias=AliasChoices(key, *olds)))
    name = "".join(w.title() for w in family.name.replace("-", "_").split("_")) + "Section"
    return create_model(name, __base__=Section, __doc__=family.summary, **fields)


def _declared_evaluator(name: str, questions: list[Any]) -> Callable[[Any, Sources], list[Answer]]:
    """Every declared question of family ``name`` at the table's values through the one road
    (:func:`iosizer.calibration.questions.answer`): the rows its ``table`` declares, or one answer per
    output and point."""

    def evaluate(section: Section, sources: Sources) -> list[Answer]:
        from iosizer.calibration.profile import load_profile
        from iosizer.calibration.questions import answer

        profile = load_profile(sources.paths[name], name) if name in sources.paths else None
        given = {k: v for k, v in section.given(*type(section).model_fields).items()
                 if v is not None and k not in ("profile", "cpu_speed")}
        own = {i for q in questions for i in (*q.input_names, *(s.name for s in q.settings))}
        answers = []
        for question in questions:
            mine = {*question.input_names, *(s.name for s in question.settings)}
            values = {k: v for k, v in given.items() if k in mine or k not in own}
            if not sources.calibrated:  # a profile or a CPU answers as the command does: its own values
                values = {**question.table_defaults, **values}
            solved = answer(name, question.command, profile, cpu_speed=sources.cpu_speed, **values)
            if question.table is not None:
                answers += _table_rows(name, question, solved, profile, sources, values)
                continue
            for row in solved.records():
                point = ", ".join(f"{k} = {row[k]:g}" for k in question.input_names)
                for out in question.output_specs:
                    if out.kind == "object" or out.name not in row:  # a formula; a figure with no value here
                        continue
                    answers.append(Answer(name, f"{question.command}: {out.name} at {point}", row[out.name],
                                          out.unit, out.description, row.get(f"{out.name}_ci_low"),
                                          row.get(f"{out.name}_ci_high")))
        return answers

    return evaluate


def _table_rows(name: str, question: Any, solved: Any, profile: Any, sources: Sources,
                given: dict[str, Any]) -> list[Answer]:
    """A question's declared rows (``Question.table``: from the records, the values used and the keys the table
    ``given``); a derived row's band, with a profile or a CPU,
    moves the fitted parameters through every record at once (:func:`_joint_band`)."""
    context = {"source": sources.source(name) if sources.calibrated else None, "values": solved.values,
               "given": given}
    answers = []
    for row in question.table(solved.records(), context):
        ends = (row.ci_low, row.ci_high)
        if row.derive is not None and sources.calibrated:
            ends = _joint_band(name, question, solved, profile, sources.cpu_speed, row.derive)
        answers.append(Answer(name, row.question, row.value, row.unit, row.note, *ends))
    return answers


def _joint_band(name: str, question: Any, solved: Any, profile: Any, cpu_speed: float | None,
                derive: Callable[[list[dict[str, Any]]], float]) -> tuple[float | None, ...]:
    """95 % band of ``derive(records)``, the records solved again at each moved set of the one profile
    every record answers from (the first swept choice's, carried to the CPU): a moved estimate moves
    every choice whose value it is (one profile, not another choice's own value)."""
    import numpy as np

    from iosizer.calibration.questions import resolve
    from iosizer.calibration.uncertainty import propagate

    parts = solved.parts or (({}, solved),)
    carried = resolve(name, profile, cpu_speed, dict(parts[0][0]))[1]
    centre = carried.values()

    def figure(params: dict[str, Any]) -> dict[str, Any]:
        moved = {k: v for k, v in params.items() if v != centre[k]}
        records = []
        for chosen, part in parts:
            at = {**part.values, **{k: v for k, v in moved.items() if part.values.get(k) == centre[k]}}
            out = question.solve(at, {k: np.asarray(v) for k, v in part.inputs.items()})
            flat = {k: np.asarray(v).reshape(-1) for k, v in out.items()}
            count = len(next(iter(part.inputs.values()))) if part.inputs else 1
            records += [{**chosen, **{k: v[i] for k, v in flat.items()}} for i in range(count)]
        return {"value": derive(records)}

    return _band(propagate(carried, figure), "value")


def _declared_tables(several: list[Family]) -> list[Family]:
    """A table for every family whose questions declare a solve and that no table of ``several`` questions
    answers already: its keys are the questions' inputs and the family's settings and parameters, named
    with units."""
    from iosizer.model.registry import declaration, family_names

    tables = []
    taken = {table.key for table in several} | {name for table in several for name in table.profiles}
    for name in family_names():
        declared = declaration(name)
        questions = [q for q in declared.questions if q.answerable and q.scenario]
        if questions and name not in taken:
            tables.append(Family(name, _declared_section(declared, questions), _declared_evaluator(name, questions),
                                 declared.summary, (name,)))
    return tables


#: The tables of several questions first (in the registry's order), then one per family.
FAMILIES: list[Family] = _several_tables()
FAMILIES += _declared_tables(FAMILIES)


def _scenario_model() -> type[BaseModel]:
    """The whole file's schema, built from :data:`FAMILIES` (rebuilt when it grows)."""
    fields: dict[str, Any] = {"name": (str, "unnamed scenario"), "description": (str, "")}
    for family in FAMILIES:
        fields[family.key] = (family.section | None, None)
    return create_model(
        "Scenario", __config__=ConfigDict(extra="forbid", strict=True, frozen=True), **fields
    )


# --------------------------------------------------------------------------
# Errors as one line naming the key path
# --------------------------------------------------------------------------

def _unit_of(key: str) -> str | None:
    from iosizer.units import unit_of

    return unit_of(key)


def _stem(key: str) -> str:
    from iosizer.units import stem

    return stem(key)


def _keys_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys the schema allows in the table at ``loc``."""
    for part in loc:
        field = model.model_fields.get(str(part))
        if field is None:
            return []
        annotation = field.annotation
        inner = [a for a in getattr(annotation, "__args__", (annotation,)) if isinstance(a, type)]
        model = next((a for a in inner if issubclass(a, BaseModel)), None)  # type: ignore[assignment]
        if model is None:
            return []
    return list(model.model_fields)


def _hint(key: str, allowed: list[str]) -> str:
    same_stem = [k for k in allowed if _stem(k) == _stem(key) and k != key]
    if same_stem:
        unit = _unit_of(same_stem[0])
        return (f" (wrong unit? the schema says {same_stem[0]}, in {unit})" if unit
                else f" (wrong unit? the schema key is {same_stem[0]}; see its description in --help)")
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]}?)"
    return f"; allowed keys: {', '.join(allowed)}" if allowed else ""


def _describe(error: dict[str, Any], model: type[BaseModel]) -> str:
    loc = tuple(error["loc"])
    path = ".".join(str(p) for p in loc)
    kind = error["type"]
    given = error.get("input")
    if kind == "extra_forbidden":
        where = ".".join(str(p) for p in loc[:-1])
        return f"{where + ': ' if where else ''}unknown key '{loc[-1]}'{_hint(str(loc[-1]), _keys_at(model, loc[:-1]))}"
    ctx = error.get("ctx", {})
    key = str(loc[-1]) if loc else ""
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        op = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}[kind]
        limit = next(iter(ctx.values()))
        shown = f"{limit:g}" if isinstance(limit, (int, float)) else str(limit)
        return f"{path}: must be {op} {shown}, got {given!r}"
    if kind in ("float_type", "int_type", "float_parsing", "int_parsing", "int_from_float"):
        unit = _unit_of(key)
        wanted = "a whole number" if kind.startswith("int") else "a number"
        extra = f" (the unit, {unit}, is in the key's name)" if unit and isinstance(given, str) else ""
        return f"{path}: expected {wanted}, got {given!r}{extra}"
    if kind in ("string_type", "bool_type", "list_type", "model_type", "dict_type"):
        wanted = {"string_type": "text", "bool_type": "true or false", "list_type": "a list",
                  "model_type": "a table", "dict_type": "a table"}[kind]
        return f"{path}: expected {wanted}, got {given!r}"
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{path + ': ' if path else ''}{message}"


# --------------------------------------------------------------------------
# Loading and running
# --------------------------------------------------------------------------


def _examples() -> Any:
    return resources.files("iosizer.data").joinpath("scenarios")


#: A scenario describes one system in a few tables; a file past this is not one (and would be parsed whole).
MAX_SCENARIO_BYTES = 4 * 2**20


def example_names() -> list[str]:
    """Shipped example scenarios (``data/scenarios/*.toml``), by bare name."""
    return sorted(p.name[:-5] for p in _examples().iterdir() if p.name.endswith(".toml"))


def resolve_source(source: str | Path) -> tuple[str, str]:
    """(label, text) of a scenario: a file path, or a shipped example's bare name."""
    path = Path(source)
    if path.is_file():
        try:
            size = path.stat().st_size
            if size > MAX_SCENARIO_BYTES:
                raise ScenarioError(f"{source}: is {size / 2**20:.0f} MiB, more than a scenario file "
                                    f"({MAX_SCENARIO_BYTES // 2**20} MiB): not a scenario")
            return str(source), path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ScenarioError(f"{source}: cannot read: {error}") from None
    name = str(source).removesuffix(".toml")
    if path.parent == Path(".") and name in example_names():
        return f"{name}.toml", _examples().joinpath(f"{name}.toml").read_text(encoding="utf-8")
    if path.exists():
        raise ScenarioError(f"{source}: not a file")
    raise ScenarioError(f"{source}: no such file (shipped examples: {', '.join(example_names())})")


def parse_scenario(text: str, label: str = "scenario.toml") -> BaseModel:
    """Validate a scenario's TOML text; errors name ``label`` and the key path."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"{label}: malformed TOML: {error}") from None
    model = _scenario_model()
    try:
        scenario = model.model_validate(raw)
    except ValidationError as error:
        problems = error.errors()
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ScenarioError(f"{label}: {_describe(problems[0], model)}{more}") from None
    if all(getattr(scenario, f.key) is None for f in FAMILIES):
        tables = ", ".join(f"[{f.key}]" for f in FAMILIES)
        raise ScenarioError(f"{label}: no family table; give at least one of {tables}")
    return scenario


def load_scenario(source: str | Path) -> BaseModel:
    """Read and validate a scenario file (or a shipped example by name)."""
    label, text = resolve_source(source)
    return parse_scenario(text, label)


@dataclass(frozen=True)
class ScenarioResult:
    name: str
    description: str
    source: str
    answers: list[Answer]
    #: Where the tables naming a profile or a CPU got their numbers (:func:`source_notes`).
    notes: list[str] = field(default_factory=list)

    @property
    def banded(self) -> bool:
        """Whether some answer has a 95 % band (then tables and CSV show ci_low and ci_high)."""
        return any(a.ci_low is not None or a.ci_high is not None for a in self.answers)

    def to_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "description": self.description, "source": self.source,
               "answers": [a.to_dict() for a in self.answers]}
        if self.notes:
            out["notes"] = self.notes
        return out


def section_sources(table: Family, section: Section, folder: Path, label: str = "scenario.toml") -> Sources:
    """Load and check the profiles a table names, against its families and its ``cpu_speed``.

    Every problem is one :class:`ScenarioError` line naming the scenario, the
    key and the profile file: unreadable or malformed, a family the table
    does not answer from, two of one family, or a ``cpu_speed`` the profile
    cannot be carried to (it records no CPU speed, or the step is too far).
    """
    from iosizer.calibration.profile import load_profile
    from iosizer.model.family import cpu_speed_factor

    key = f"{table.key}.profile"
    paths: dict[str, Path] = {}
    names: dict[str, str] = {}
    for name in section.profile_paths():
        path = Path(name).expanduser()
        path = path if path.is_absolute() else folder / path
        try:
            profile = load_profile(path)
        except IosizerError as error:
            raise ScenarioError(f"{label}: {key}: {error}") from None
        if profile.model not in table.profiles:
            raise ScenarioError(f"{label}: {key}: {name} is a '{profile.model}' profile; [{table.key}] answers "
                                f"from {' and '.join(repr(f) for f in table.profiles)} profiles")
        if profile.model in paths:
            raise ScenarioError(f"{label}: {key}: {names[profile.model]} and {name} are both "
                                f"'{profile.model}' profiles; give one per family")
        if section.cpu_speed is not None:
            if profile.cpu_speed is None:
                raise ScenarioError(f"{label}: {table.key}.cpu_speed: {name} records no CPU speed: calibrate "
                                    "with --cpu-speed to carry it to another CPU")
            try:
                cpu_speed_factor(section.cpu_speed, profile.cpu_speed, "cpu_speed")
            except IosizerError as error:
                raise ScenarioError(f"{label}: {table.key}.cpu_speed: {error} ({name})") from None
        paths[profile.model], names[profile.model] = path, name
    return Sources(paths, names, section.cpu_speed)


def evaluate_scenario(scenario: BaseModel, label: str = "scenario.toml", folder: str | Path | None = None
                      ) -> list[Answer]:
    """Every applicable family's answers, in the order of :data:`FAMILIES`.

    ``folder``: where the tables' ``profile`` paths are relative to (the
    scenario file's folder; the working directory when None).
    """
    answers: list[Answer] = []
    for family in FAMILIES:
        section = getattr(scenario, family.key)
        if section is None:
            continue
        sources = section_sources(family, section, Path(folder) if folder is not None else Path("."), label)
        try:
            answers.extend(family.evaluate(section, sources))
        except ScenarioError:
            raise
        except IosizerError as error:  # a value the section allowed but the model refuses
            raise ScenarioError(f"{label}: {family.key}: {error}") from None
    return answers


def source_notes(scenario: BaseModel, answers: list[Answer]) -> list[str]:
    """One line per table that names a profile or a CPU: where its numbers (and bands, if any) come from."""
    notes = []
    for family in FAMILIES:
        section = getattr(scenario, family.key)
        if section is None or (section.profile is None and section.cpu_speed is None):
            continue
        origin = ", ".join(f"profile {name}" for name in section.profile_paths()) or "the shipped profiles"
        if section.cpu_speed is not None:
            origin += f", carried to CPU speed {section.cpu_speed:g}"
        banded = any(a.family == family.key and a.ci_low is not None for a in answers)
        notes.append(f"{family.key}: {origin}; " + ("ci_low/ci_high: 95 % bands from the profiles' intervals"
                                                     if banded else "no bounded interval: a parameter was fitted "
                                                     "exactly (as many points as parameters), so its error is unknown"))
    return notes


def _folder(source: str | Path) -> Path:
    """The folder a scenario's profile paths are relative to: its own, or the shipped examples'."""
    path = Path(source)
    if path.is_file():
        return path.parent
    examples = _examples()
    return examples if isinstance(examples, Path) else Path(str(examples))


def run_scenario(source: str | Path) -> ScenarioResult:
    """Load, validate and evaluate a scenario file (or a shipped example by name)."""
    label, text = resolve_source(source)
    scenario = parse_scenario(text, label)
    answers = evaluate_scenario(scenario, label, _folder(source))
    return ScenarioResult(scenario.name, scenario.description, label,  # type: ignore[attr-defined]
                          answers, source_notes(scenario, answers))
