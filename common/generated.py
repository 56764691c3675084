"""The commands generated from the declarations, as :class:`~iosizer.commands.CommandSpec`s.

A question's options (:func:`question_fields`: its inputs, the family's settings and parameters, the
options every what-if takes), ``iosizer size <name>`` of a question's declared ``sizing``
(:func:`size_command`) and ``iosizer simulate <command>`` of a declared
:class:`~iosizer.model.family.Simulation` or a question's simulate hook (:func:`simulate_command`) are
built here from the registry, with the function that answers each (``CommandSpec.run``, a
:class:`~iosizer.frames.Report`). The CLI builds its typer commands from these specs
(:mod:`iosizer.cli.generated`), the server its routes and :func:`iosizer.ask` its keywords: one
declaration, one list of fields, one function, on every surface. Nothing here names a family.
"""

from __future__ import annotations

import enum
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from iosizer.commands import FORMAT, PLOT, CommandSpec, FieldSpec, Role
from iosizer.errors import InputError
from iosizer.frames import Report
from iosizer.units import NOT_UNITS, unit_of

if TYPE_CHECKING:
    from iosizer.model.family import Family, Question, Sizing, SizingCommand

__all__ = ["BandKind", "family_simulations", "given_values", "question_fields", "simulate_command",
           "simulate_commands", "size_command", "size_commands"]


class BandKind(str, enum.Enum):
    """Which 95 % band a what-if from a profile prints (:mod:`iosizer.calibration.uncertainty`)."""

    parameter = "parameter"
    prediction = "prediction"


BAND_HELP = ("With --profile: 'parameter' bands carry the parameters' uncertainty only (where the model's mean "
             "answer lies); 'prediction' adds the fit's residual scatter (where a new measurement lies, so a misfit "
             "model does not look precise).")
PLOT_HELP = PLOT.help
SIMULATE_HELP = ("Answer the --percentile values from a simulation (iosizer.simulate.tails: 5 replications, seed 0): "
                 "response_pP (wait_pP) becomes the simulated mean, with its 95 % interval in _sim_low/_sim_high and "
                 "the analytic value in _model. At most 10 points.")

#: The output columns of every simulation's table (a curve's input columns lead).
SIMULATION_COLUMNS = ["metric", "analytic", "simulated", "ci_low", "ci_high", "within_ci", "gap_pct"]


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _field(name: str, help: str, annotation: Any = str, *, flag: str | None = None, many: bool = False,
           default: Any = None, role: Role = Role.plain, required: bool = False, **more: Any) -> FieldSpec:
    """An option (an argument when ``flag`` is ``""``) of a generated command; its JSON key is its flag's."""
    flag = _flag(name) if flag is None else flag or None
    key = flag.lstrip("-").replace("-", "_") if flag else name
    more["unit"] = more.get("unit") or unit_of(key)  # declared, else the name's own suffix (_s, _us, _pct)
    return FieldSpec(key=key, name=name, role=role, flag=flag, annotation=annotation, many=many, required=required,
                     default=default, help=help, metavar=more.pop("metavar", None), **more)


def _unit(unit: str | None) -> str | None:
    return None if not unit or unit in NOT_UNITS else unit


def _bounds(spec: Any) -> tuple[float, float] | None:
    bounds = getattr(spec, "bounds", None)
    if bounds and all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds):
        return float(bounds[0]), float(bounds[1])
    return None


def _unit_text(unit: str | None) -> str:
    return f" ({unit})" if _unit(unit) else ""


# --- a question's options ---------------------------------------------------------------------------


def question_fields(family: "Family", question: "Question") -> list[FieldSpec]:
    """``iosizer <family> <question>``'s options: inputs, settings, parameters, then the options every
    what-if takes (``--profile``, ``--cpu-speed``, ``--band``, ``--percentile`` where the question has
    percentiles, ``--simulate`` where it is simulated, ``--format``, ``--plot``)."""
    fields = _input_fields(question) + _option_fields(family, question)
    fallback = "the shipped one." if question.shipped else "none (give every parameter)."
    several = " Repeated (profiles of different CPUs): combined by extrapolation to --cpu-speed." \
        if question.several_profiles else ""
    fields.append(_field("profile", f"A '{family.name}' profile (iosizer calibrate) to take parameters from; "
                                    f"default: {fallback}{several}", Path, role=Role.profile,
                         many=question.several_profiles))
    fields.append(_field("cpu_speed", "Carry the profile to a CPU of this relative per-core speed (the band widens).",
                         float))
    fields.append(_field("band", BAND_HELP, BandKind, default=BandKind.parameter))
    if question.percentiles is not None:
        fields.append(_field("percentile", "Also the P-th percentile (repeatable).", float, many=True, metavar="P"))
    from iosizer.simulate.hooks import simulates, simulation_help

    if simulates(family.name, question):
        fields.append(_field("simulate", simulation_help(family.name, question) or SIMULATE_HELP, bool,
                             default=False, is_flag=True))
    return [*fields, FORMAT, PLOT]


def _aliases(question: "Question", name: str) -> tuple[str, ...]:
    return tuple(_flag(old) for old in question.aliases.get(name, ()))


def _aka(question: "Question", name: str) -> str:
    olds = _aliases(question, name)
    return f" (also {', '.join(olds)}: the older name, deprecated)" if olds else ""


def _input_fields(question: "Question") -> list[FieldSpec]:
    fields = []
    for spec in question.input_specs:
        default = " [required]" if spec.required else f" [default: {spec.default_text}]"
        text = (f"{spec.description or spec.name}{_unit_text(spec.unit)}; a list 1,2,3 or a range "
                f"start:stop:step sweeps it.{default}")
        if spec.argument:
            fields.append(_field(spec.name, text, flag="", metavar=spec.name.upper(), show_default=False,
                                 unit=_unit(spec.unit), bounds=_bounds(spec)))
            continue
        fields.append(_field(spec.name, text + _aka(question, spec.name), many=spec.repeatable, metavar="VALUES",
                             aliases=_aliases(question, spec.name), unit=_unit(spec.unit), bounds=_bounds(spec)))
    for repeated in question.repeated:  # a list given one item at a time: --demand 0.005 --demand 0.003
        fields.append(_field(repeated.name, repeated.description + _aka(question, repeated.name), many=True,
                             metavar="VALUE", aliases=_aliases(question, repeated.name)))
    return fields


def _option_fields(family: "Family", question: "Question") -> list[FieldSpec]:
    """A field per setting and parameter of the family the question takes (one per name)."""
    fields = []
    taken = {r.name for r in question.repeated} | set(question.input_names)
    for spec in question.options(family.parameters):
        if spec.name in taken:
            continue
        declared = dict(unit=_unit(spec.unit), bounds=_bounds(spec), declared=spec.value,
                        suggestions=tuple(str(c) for c in spec.choices or ()))
        if spec.switch:  # on/off: a flag, as --ecrc always was
            fields.append(_field(spec.name, f"{spec.description or spec.name} [default: "
                                            f"{'on' if spec.value else 'off'}]", bool, is_flag=True,
                                 secondary_flag=f"--no-{spec.name.replace('_', '-')}", show_default=False,
                                 **declared))
            continue
        if spec.kind == "setting":
            shown = " [default: all]" if spec.name in question.sweep_all else \
                "" if spec.value in (None, "") else f" [default: {spec.value}]"
            many = f"; a list {','.join(map(str, spec.choices[:2]))} or all sweeps it" \
                if spec.name in question.sweeps else ""
            text = f"{spec.description or spec.name}{_unit_text(spec.unit)}{many}{shown}"
        else:
            text = (f"{spec.description or spec.name}{_unit_text(spec.unit)}; fixes it (default: the profile's, "
                    f"{spec.status})")
        textual = spec.parse is not None or bool(spec.choices) and isinstance(spec.choices[0], str)
        fields.append(_field(spec.name, text + _aka(question, spec.name), metavar="TEXT" if textual else "NUMBER",
                             aliases=_aliases(question, spec.name), **declared))
    return fields


def given_values(family: "Family", question: "Question", given: dict[str, Any],
                 flags: dict[str, str] | None = None) -> tuple[dict[str, Any], Any]:
    """A command's values checked by their declarations (inputs as sweeps), and the profile loaded.
    ``flags``: the option a name was published under where it is not its own (named in errors)."""
    from iosizer.model.family import parse_grid

    profile_path = given.pop("profile", None)
    inputs = set(question.input_names)
    values = {}
    listed = {r.name for r in question.repeated}
    for name, text in given.items():
        if text is None or text == []:
            continue
        if name in listed:  # checked item by item by the answer (a demand by its station's declaration)
            values[name] = list(text)
            continue
        if name in question.sweeps:  # the answer parses its choices (1g,10g or all)
            values[name] = text
            continue
        spec = question.input(name) if name in inputs else question.option(family.parameters, name)
        flag = (flags or {}).get(name, _flag(name))
        if name in inputs:  # a sweep; a repeatable input's sweeps in turn (Input.repeatable)
            values[name] = [v for part in (text if isinstance(text, list) else [text])
                            for v in parse_grid(part, flag[2:], spec)]
        else:
            values[name] = spec.check(text, flag)
    return values, _profiles(family, question, profile_path)


def _profiles(family: "Family", question: "Question", given: Any) -> Any:
    """The profile(s) a command was given, loaded; several are profiles of different CPUs (extrapolated)."""
    paths = given if isinstance(given, list) else [] if given is None else [given]
    if not paths:
        return None
    from iosizer.calibration.profile import load_profile
    from iosizer.model.family import reject_repeats

    reject_repeats([Path(p).resolve() for p in paths], "--profile", [str(p) for p in paths])
    models = (family.name, *question.also) if question.also else family.name
    profiles = [load_profile(p, models) for p in paths]
    return profiles[0] if len(profiles) == 1 else profiles


def _group_fields(family: "Family", question: "Question") -> list[FieldSpec]:
    """The question's options without --band, --percentile, --simulate, --format and --plot: what a size or
    simulate command of it takes besides its own."""
    drop = {"band", "percentile", "simulate", "output_format", "plot"}
    return [f for f in question_fields(family, replace(question, percentiles=None, plot=None)) if f.name not in drop]


def _units(family: "Family") -> dict[str, str]:
    return {spec.name: spec.unit for spec in family.parameters}


# --- iosizer size <name> ---------------------------------------------------------------------------


def _published(fields: list[FieldSpec], flags: dict[str, str]) -> list[FieldSpec]:
    """``fields`` with each name of ``flags`` taking its published flag first (its CLI option's first name
    and its HTTP field), the declared flags after it."""
    out = []
    for f in fields:
        flag = flags.get(f.name)
        if flag is not None:
            others = tuple(d for d in (f.flag, *f.aliases) if d and d != flag)
            text = f.help.replace(f"(also {flag}: the older name, deprecated)", f"(also {_flag(f.name)}: its "
                                                                                 "declared name)")
            f = replace(f, key=flag.lstrip("-").replace("-", "_"), flag=flag, aliases=others, help=text)
        out.append(f)
    return out


def _target_fields(sizings: "tuple[Sizing, ...]", declared: "SizingCommand | None") -> list[FieldSpec]:
    """A field per target of the command (none for a sizing answered on every call), and --percentile where
    a target takes one."""
    from iosizer.calibration.declared_sizing import target_flag

    fields: list[FieldSpec] = []
    for sizing in sizings:
        if sizing.always or any(f.name == sizing.target_name for f in fields):
            continue
        how = (f"the smallest {sizing.report or sizing.search} that reaches it" if sizing.smallest else
               f"the largest {sizing.report or sizing.search} that keeps within it")
        bound = "at most" if sizing.at_most else "at least"
        text = (f"Target: {sizing.output}" + (" (or its --percentile)" if sizing.percentile else "")
                + f" {bound} this; the answer is {how}.")
        required = declared is not None and sizing.target_name in declared.required
        fields.append(_field(sizing.target_name, text, float, flag=target_flag(sizing), required=required))
    if any(s.percentile for s in sizings):
        flags = " or ".join(target_flag(s) for s in sizings if s.percentile)
        fields.append(_field("percentile", f"Apply {flags} to the P-th percentile.", float, metavar="P"))
    return fields


def _size_summary(family: "Family", name: str) -> str:
    """The command's help line: its declaration's summary, or the family's and the targets'."""
    from iosizer.calibration.declared_sizing import command_sizings, target_flag

    _, sizings, declared = command_sizings(family, name)
    said = declared.summary if declared else ""
    targets = " and/or ".join(target_flag(s) for s in sizings if not s.always)
    return said or f"{family.summary[:1].upper()}{family.summary[1:]}: sizing for {targets}."


def _family_size(family: "Family", name: str) -> CommandSpec:
    """``iosizer size <name>`` of one family's declared sizing."""
    from iosizer.calibration.declared_sizing import command_sizings, searched_by_every

    question, sizings, declared = command_sizings(family, name)
    # An input every target searches is no option; one that only some search is (given for the others).
    searched = searched_by_every(sizings)
    rest = replace(question, inputs=tuple(i for i in question.input_specs if i.name not in searched), plot=None)
    flags = dict(declared.flags) if declared else {}  # the published flags: the command's declaration's
    fields = _target_fields(sizings, declared)
    fields += _published([f for f in _group_fields(family, rest) if f.name not in searched], flags)
    own = [s.name for s in declared.settings] if declared else []
    for spec in (declared.settings if declared else ()):
        shown = "" if spec.value is None else f" [default: {spec.value}]"
        fields.append(_field(spec.name, f"{spec.description}{shown}", metavar="NUMBER"))
    targets = [s.target_name for s in sizings if not s.always]

    def run(**given: Any) -> Report:
        from iosizer.api import family as typed

        percentile, cpu_speed = given.pop("percentile", None), given.pop("cpu_speed", None)
        chosen = {k: given.pop(k) for k in targets if k in given}
        settings = {k: given.pop(k) for k in own}  # checked by the answer, against the command's declarations
        profile_name = given.get("profile")
        values, profile = given_values(family, rest, given, flags or None)
        answer = typed(family.name).size(profile, percentile=percentile, cpu_speed=cpu_speed, command=name,
                                         profile_name=None if profile_name is None else str(profile_name),
                                         **chosen, **values, **settings)
        return _size_report(family, answer)

    how = ("the model's own inverse" if any(s.invert for s in sizings) else
           "a monotone search on its model (galloping, then bisection)")
    text = (f"{_size_summary(family, name)}\n\nGenerated from the declaration of the question "
            f"'{question.command}': {how}; with --profile, solved again at the corners of its 95 % intervals.")
    return CommandSpec(("size", name), [*fields, FORMAT], text=text, run=run, units=_units(family))


def _size_report(family: "Family", answer: Any) -> Report:
    title = answer.title or f"{family.name[:1].upper()}{family.name[1:]} sizing"
    data, records = answer.to_data(), answer.records()
    # One answer: a metric/value table, as every 'iosizer size' command prints one (a list or an object left
    # to the JSON); a sweep (or a question whose answer is always a list): a row each.
    if len(records) > 1 or answer.always_list or answer.gathered:
        return Report(data=data, rows=answer.shown(), columns=list(answer.columns) or None, title=title,
                      notes=list(answer.notes))
    rows = [{"metric": k, "value": v} for k, v in data.items() if not isinstance(v, (list, dict))]
    return Report(data=data, rows=rows, title=title, notes=list(answer.notes), csv_rows=records)


def _shared_size(owners: "list[Family]", name: str) -> CommandSpec:
    """``iosizer size <name>`` where several families declare a sizing of that name: one command with every
    family's options (one per name; repeatable where one family's is). A profile picks its family; otherwise
    the first family whose options include every option given answers."""
    built = [(family, _family_size(family, name)) for family in owners]
    merged: dict[str, FieldSpec] = {}
    for _, spec in built:
        for f in spec.fields:
            had = merged.get(f.name)
            if had is None or (f.many and not had.many):
                merged[f.name] = f
    flags = {f.name: f.flag for f in merged.values()}
    if "profile" in merged:  # any of the families' profiles: it picks the family
        systems = " or ".join(repr(f.name) for f in owners)
        merged["profile"] = replace(merged["profile"], help=f"A profile (iosizer calibrate) of {systems} to take "
                                                            "parameters from: it picks the system sized.")

    def run(**given: Any) -> Report:
        chosen = {k for k, v in given.items() if _given(v)}
        profile = given.get("profile")
        if profile is not None:
            from iosizer.calibration.profile import load_profile

            model = load_profile(profile).model
            candidates = [b for b in built if b[0].name == model]
            if not candidates:
                raise InputError(f"size {name} takes a profile of {' or '.join(b[0].name for b in built)}, "
                                 f"not '{model}'")
        else:
            candidates = [b for b in built if chosen <= {f.name for f in b[1].fields}]
        if not candidates:  # options of different systems: name each system's own
            takes = {b[0].name: {f.name for f in b[1].fields} for b in built}
            own = {f: [flags[k] for k in sorted(chosen) if k in names and all(k not in other for g, other in
                                                                            takes.items() if g != f)]
                   for f, names in takes.items()}
            each = "; ".join(f + ": " + " ".join(v) for f, v in own.items() if v)
            raise InputError(f"{' and '.join(x for v in own.values() for x in v)} belong to different systems of "
                             f"'size {name}' ({each}); give the options of one")
        family, spec = candidates[0]
        mine = {f.name: f for f in spec.fields if f.role is not Role.format}
        for key in [k for k in given if k not in mine]:
            if _given(given.pop(key)):
                raise InputError(f"{flags[key]} is no option of {family.name}'s 'size {name}'")
        for key, f in mine.items():
            value = given.get(key)
            if isinstance(value, list) and not f.many:  # a repeatable option that is single here
                if len(value) > 1:
                    raise InputError(f"{flags[key]} takes one value for {family.name}, got {len(value)}")
                given[key] = value[0] if value else None
        assert spec.run is not None
        return spec.run(**given)

    text = (", or ".join(_size_summary(family, name).rstrip(".") for family in owners) +
            ".\n\nGenerated from the declarations of " + " and ".join(
                f"'{family.name} {question.command}'" for family, question in
                ((f, _sizing_question(f)) for f in owners)) +
            ": a monotone search on the model; a --profile picks its family, otherwise the options given do.")
    fields = [f for f in merged.values() if f.role is not Role.format]
    units = {k: v for _, spec in built for k, v in spec.units.items()}
    return CommandSpec(("size", name), [*fields, FORMAT], text=text, run=run, units=units)


def _given(value: Any) -> bool:
    """Whether an option was given (0 is a value: not False, not left out)."""
    return value is not None and value is not False and not (isinstance(value, list) and not value)


def _sizing_question(family: "Family") -> "Question":
    from iosizer.calibration.declared_sizing import sizing_question

    question = sizing_question(family)
    assert question is not None
    return question


def _sizing_names(family_name: str) -> tuple[str, ...]:
    from iosizer.calibration.declared_sizing import sizing_command_names
    from iosizer.model.registry import declaration

    try:
        return sizing_command_names(declaration(family_name))
    except InputError:  # a plugin that does not load lists no command
        return ()


def size_command(name: str) -> CommandSpec | None:
    """``iosizer size <name>``, or None when no family declares a sizing command of that name: the family of
    that name first (no other family's module is read), else every family that declares it."""
    from iosizer.model.registry import family_names

    names = family_names()
    if name in names and name in _sizing_names(name):
        owners = [name]
    else:
        owners = [f for f in names if name in _sizing_names(f)]
    return _size_command(tuple(owners), name) if owners else None


@lru_cache(maxsize=None)
def _size_command(owners: tuple[str, ...], name: str) -> CommandSpec:
    from iosizer.model.registry import declaration

    families = [declaration(f) for f in owners]
    return _family_size(families[0], name) if len(families) == 1 else _shared_size(families, name)


def size_commands() -> list[CommandSpec]:
    """Every ``iosizer size`` command (every family's module is imported)."""
    from iosizer.model.registry import family_names

    names = dict.fromkeys(n for f in family_names() for n in _sizing_names(f))
    return [spec for n in names if (spec := size_command(n)) is not None]


# --- iosizer simulate <command> ---------------------------------------------------------------------


def _run_fields() -> list[FieldSpec]:
    """The run's options, which every simulation takes."""
    return [
        _field("replications", "Independent replications [20 unless --target-ci-pct].", int),
        _field("target_ci_pct", "Add replications until every targeted metric's 95 % half-width is within this "
                                "percent of its mean.", float, unit="%"),
        _field("max_seconds", "Wall-time budget of the whole run, at most an hour, held within a replication too "
                              "(one cut short is dropped, never counted); the answer says if it ran out first, and "
                              "fewer than 2 replications within it is an error saying how long one takes [600].",
               float),
        _field("seed", "Seed of the replications' independent streams (same seed, same answer).", int, default=0),
        _field("workers", "Local processes running the library engine's replications [the CPU count]; 1 runs them "
                          "here.", int),
        _field("scheduler", "Run the replications on this Dask scheduler (tcp://host:port; needs iosizer[cluster]).",
               metavar="ADDRESS"),
        _field("engine", "numpy (every replication of a batch at once, in this process), or the system's library, "
                         "ciw or simpy, as the independent second engine [numpy where the system vectorises and no "
                         "--scheduler is given, else its library]."),
        _field("run_length", "Customers or cycles measured per replication [the system's default].", int),
    ]


def _run_options(given: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
    """The run's keywords of :func:`iosizer.simulate.simulate` and ``run_length``, taken out of ``given``."""
    runs = {f.name: given.pop(f.name) for f in _run_fields() if f.name != "run_length"}
    return runs, given.pop("run_length")


def _simulation_report(result: Any) -> Report:
    rows = result.rows()
    point = [name for name, _ in result.experiment.metrics[0].point]  # a curve's input columns lead
    return Report(rows, rows, title=f"Simulation vs analytic: {result.experiment.title}",
                  columns=point + SIMULATION_COLUMNS, notes=result.notes())


def _declared_simulation(family: "Family", question: "Question") -> CommandSpec:
    """``iosizer simulate <command>`` of ``question``'s :class:`~iosizer.model.family.Simulation`."""
    simulation = question.simulate
    key = question.command.split()[-1]
    path = ("simulate", *simulation.command.split())
    if simulation.refused:
        def refused() -> Report:
            raise InputError(simulation.refused)

        return CommandSpec(path, [FORMAT], text=simulation.summary, run=refused, group_help=simulation.group)
    fields = [_field(o.name, o.help, o.kind, flag=o.flag, many=o.many, required=o.required, default=o.default,
                     metavar=o.metavar) for o in simulation.options]

    def run(progress: Callable[[int, int], None] | None = None, **given: Any) -> Report:
        from iosizer.simulate import simulate

        runs, run_length = _run_options(given)
        options = simulation.keywords(given)
        if run_length is not None:
            options["run_length"] = run_length
        return _simulation_report(simulate(family.name, key, progress=progress, **runs, **options))

    return CommandSpec(path, [*fields, *_run_fields(), FORMAT], text=simulation.summary, run=run,
                       units=_units(family), progress=f"simulating {family.name} {key}", group_help=simulation.group)


def _hook_simulation(family: "Family", question: "Question") -> CommandSpec:
    """``iosizer simulate <family>`` of a question's declared simulate hook."""
    fields = [f for f in _group_fields(family, question) if f.name != "cpu_speed"]
    if question.percentiles is not None:
        fields.append(_field("percentile", "Also the P-th percentile, simulated as the empirical percentile of "
                                           "each replication's records (repeatable).", float, many=True,
                             metavar="P"))

    def run(progress: Callable[[int, int], None] | None = None, **given: Any) -> Report:
        from iosizer.simulate.declared import simulate_declared

        (runs, run_length), percentiles = _run_options(given), given.pop("percentile", None)
        values, profile = given_values(family, question, given)
        return _simulation_report(simulate_declared(family.name, question.command, profile, percentiles=percentiles,
                                                    run_length=run_length, progress=progress, **runs, **values))

    text = (f"{question.summary[:1].upper()}{question.summary[1:]}: simulated (the question's declared simulate "
            "hook) beside the analytic answer, with 95 % replication intervals.")
    return CommandSpec(("simulate", family.name), [*fields, *_run_fields(), FORMAT], text=text, run=run,
                       units=_units(family), progress=f"simulating {family.name} {question.command}")


@lru_cache(maxsize=None)
def _family_simulations(family_name: str) -> tuple[tuple[CommandSpec, ...], CommandSpec | None]:
    """The simulate commands family ``family_name`` declares: its Simulations' (a refused one after the ones
    that run), and its simulate hook's (``simulate <family>``, or None)."""
    from iosizer.model.family import Simulation
    from iosizer.model.registry import declaration
    from iosizer.simulate.declared import simulated_question

    try:
        family = declaration(family_name)
    except InputError:
        return (), None
    simulated = sorted((q for q in family.questions if isinstance(q.simulate, Simulation) and q.simulate.command),
                       key=lambda q: bool(q.simulate.refused))
    hooked = simulated_question(family)
    return (tuple(_declared_simulation(family, q) for q in simulated),
            None if hooked is None else _hook_simulation(family, hooked))


def simulate_commands(families: Iterable[str] | None = None) -> list[CommandSpec]:
    """The ``iosizer simulate`` commands of ``families`` (default: every family; their modules imported):
    every declared Simulation's (a path taken twice is the first's), then each simulate hook's at
    ``simulate <family>`` where no Simulation took that name."""
    from iosizer.model.registry import family_names

    names = list(family_names() if families is None else families)
    found: dict[tuple[str, ...], CommandSpec] = {}
    for name in names:
        for spec in _family_simulations(name)[0]:
            found.setdefault(spec.path, spec)
    for name in names:
        hook = _family_simulations(name)[1]
        if hook is not None and not any(path[1] == name for path in found):
            found[hook.path] = hook
    return list(found.values())


def family_simulations(family_name: str) -> list[CommandSpec]:
    """The simulate commands of one family (no other family's module is read): its Simulations', then its
    simulate hook's unless one of them took the family's name."""
    declared, hook = _family_simulations(family_name)
    taken = any(spec.path[1] == family_name for spec in declared)
    return [*declared, *([hook] if hook is not None and not taken else [])]


def simulate_command(path: tuple[str, ...]) -> CommandSpec | None:
    """``iosizer simulate WORDS`` (``path`` without ``simulate``), or None: the family named by its first word
    is read first, then every family."""
    from iosizer.model.registry import family_names

    if path and path[0] in family_names():
        spec = next((s for s in family_simulations(path[0]) if s.path[1:] == tuple(path)), None)
        if spec is not None:
            return spec
    return next((s for s in simulate_commands() if s.path[1:] == tuple(path)), None)
