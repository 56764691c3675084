"""The one road from a declared question to its answer: values, the solve, 95 % bands.

:func:`answer` is what every surface of a declared question calls
(``iosizer.family(name).ask``, the generated CLI command and HTTP endpoint,
``iosizer.ask``, scenario tables): the values come from a profile (the
shipped one, the planner's, carried to another CPU) with the settings and
parameters the planner gives, each checked by its declaration; the inputs
by theirs; the bands from :func:`iosizer.calibration.uncertainty.propagate`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from iosizer.errors import InputError, ProfileError
from iosizer.frames import Table, TableView
from iosizer.model.registry import declaration

if TYPE_CHECKING:
    from iosizer.calibration.profile import Profile
    from iosizer.model.family import Question

__all__ = ["MAX_POINTS", "Answer", "Resolved", "answer", "resolve", "resolved"]

#: The most points one answer computes (every combination of the inputs' values): a sweep is for a
#: table or a curve, as a command-line list (iosizer.cli.params.MAX_GRID_POINTS).
MAX_POINTS = 10_000


@dataclass(frozen=True, repr=False)  # repr: the table (iosizer.frames.TableView)
class Answer(TableView):
    """A declared question's answer: one record per point of the inputs' grid.

    ``inputs``: each input's values over the grid (1-D, every combination
    of the values given, the first input varying slowest); ``outputs``: the
    declared outputs and any ``<output>_pP`` percentiles at each point;
    ``bands``: 95 % bands ``(low, high)`` of the outputs that depend on a
    profile's fitted parameters; ``notes``: the sources of the values used;
    ``objects``: the outputs declared ``kind="object"`` (one JSON value each);
    ``order``: the outputs as ``solve`` returned them. :meth:`to_data` is what ``iosizer <family> <question> --format json``
    prints and ``POST /api/<family>/<question>`` answers.
    """

    family: str
    question: str
    inputs: Mapping[str, Any]
    outputs: Mapping[str, Any]
    bands: Mapping[str, tuple[Any, Any]]
    notes: tuple[str, ...] = ()
    integers: frozenset[str] = frozenset()
    values: Mapping[str, Any] = field(default_factory=dict)
    #: Columns after the bands (``--simulate``'s ``<key>_model``, ``_sim_low``, ``_sim_high``).
    trailing: Mapping[str, Any] = field(default_factory=dict)
    #: Trailing columns every published shape keeps (a declared simulation's ``--simulate`` columns).
    carried: tuple[str, ...] = ()
    #: A swept setting's answers (``Question.sweeps``): ({setting: choice}, that choice's answer) each.
    parts: tuple[tuple[Mapping[str, Any], "Answer"], ...] = ()
    objects: Mapping[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = ()

    def records(self) -> list[dict[str, Any]]:
        """One dict per point: inputs, outputs, then ``<output>_ci_low`` / ``_ci_high``; None where the
        number is not finite (an unbounded band end), and no key where a declared ``optional`` output
        has no value. A swept setting leads each record with its choice."""
        import math

        if self.parts:
            return [{**chosen, **row} for chosen, part in self.parts for row in part.records()]

        def plain(array: Any, i: int, integer: bool = False) -> Any:
            if array.dtype.kind in "OUS":  # a text output (Output.text): its words as they are
                if isinstance(array[i], list):  # a vector output: its numbers
                    return array[i]
                return None if array[i] is None else str(array[i])
            value = float(array[i])
            if not math.isfinite(value):
                return None
            return int(value) if integer else value

        optional = {o.name for o in declaration(self.family).question(self.question).output_specs if o.optional}
        keys = [k for k in self.order if k in self.outputs or k in self.objects] or list(self.outputs)
        columns = self.inputs or self.outputs  # no inputs: the rows the solve picked (Question.rows)
        count = len(next(iter(columns.values()))) if columns else 1
        rows = []
        for i in range(count):
            row = {k: plain(v, i, k in self.integers) for k, v in self.inputs.items()}
            for key in keys:
                value = self.objects[key] if key in self.objects else plain(self.outputs[key], i, key in self.integers)
                if value is not None or key not in optional:
                    row[key] = value
            for key, (low, high) in self.bands.items():
                row[f"{key}_ci_low"], row[f"{key}_ci_high"] = plain(low, i), plain(high, i)
            row.update({k: plain(v, i) for k, v in self.trailing.items()})
            rows.append(row)
        return rows

    def to_data(self) -> Any:
        """One point: its record (unless the question is ``always_list``); a sweep: the list of records; in
        the question's published shape where it declares one (``Question.shape``)."""
        asked = declaration(self.family).question(self.question)
        rows = self.records()
        if asked.shape is not None:
            shaped = asked.shape(rows, self.values)
            if self.carried and len(shaped) == len(rows):  # a shape names its keys: the carried ones come back
                shaped = [{**row, **{k: raw[k] for k in self.carried if k in raw and k not in row}}
                          for row, raw in zip(shaped, rows)]
            rows = shaped
        return rows[0] if len(rows) == 1 and not asked.always_list else rows

    def to_json(self) -> str:
        """:meth:`to_data` as the CLI prints it (two-space indent, no NaN)."""
        import json

        return json.dumps(self.to_data(), indent=2, allow_nan=False)

    def to_dict(self) -> Any:
        """What ``--format json`` prints: :meth:`to_data`."""
        return self.to_data()

    def table(self) -> Table:
        """The records as ``to_frame()``, ``repr()`` and ``_repr_html_()`` show them (declared units)."""
        asked = declaration(self.family).question(self.question)
        units = {item.name: item.unit for item in (*asked.inputs, *asked.outputs) if not isinstance(item, str)}
        return Table.of(self.records(), units=units, title=f"{self.family} {self.question}", notes=self.notes)


def answer(family_name: str, question: str,
           params: "Profile | Sequence[Profile] | Mapping[str, Any] | None" = None, *,
           cpu_speed: float | None = None, percentiles: Sequence[float] | None = None,
           band: str = "parameter", **given: Any) -> Answer:
    """The answer of ``question`` of family ``family_name`` (see :meth:`iosizer.ModelFamily.ask`).

    ``params`` may be several profiles (of CPUs of different speeds): they are combined by
    extrapolation to ``cpu_speed`` (:func:`iosizer.calibration.extrapolate.extrapolate`).
    """
    from iosizer.calibration.uncertainty import BANDS

    if band not in BANDS:
        raise InputError(f"band must be one of {', '.join(BANDS)}, got {band!r}")
    asked = declaration(family_name).question(question)
    if asked.solve is None:
        raise InputError(f"question '{asked.command}' of family '{family_name}' declares no solve: "
                         f"ask it as a command (iosizer.ask('{asked.command}', ...))")
    given = _itemised(asked, _unaliased(asked, given))
    if asked.sweeps:
        return _swept(family_name, asked, params, cpu_speed, percentiles, band, given)
    return _one(family_name, asked, params, cpu_speed, percentiles, band, given)


@dataclass
class Resolved:
    """The values a question is answered on, resolved from what the planner gave (:func:`resolved`)."""

    #: The question's inputs as given (None: its default sweep).
    inputs: dict[str, Any]
    #: Every parameter and setting by name, the question's own settings, what a catalogue entry brings,
    #: ``family`` (a question of ``also``), ``profile_origin``, ``profile_cpu_name`` and ``defaulted``.
    values: dict[str, Any]
    #: The family's parameters and settings alone, as resolved.
    declared: dict[str, Any]
    #: The profile whose intervals band the answer (None: no profile answers).
    profile: "Profile | None"
    #: One line naming where the values come from.
    source: str
    #: The planner's profile (or a catalogue entry's fit), the first of several; None: none.
    first: Any
    #: The settings and parameters the planner gave (after the question's own settings were taken).
    changes: dict[str, Any]
    #: The family whose values answer (``Question.also``: the profile's).
    answering: str
    #: What a catalogue entry brought (empty: no entry named).
    brought: dict[str, Any]
    #: Whether the answer carries the profile's band.
    banded: bool


def resolved(family_name: str, asked: "Question", params: Any, cpu_speed: float | None,
             given: dict[str, Any]) -> Resolved:
    """What a question is answered on: its inputs (popped from ``given``), its own settings checked, the
    catalogue entry named, the profile given (or the shipped one, a catalogue entry's fit, the values given)
    resolved with the settings and parameters given. The question road and the sizing road both start here."""
    inputs = {k: given.pop(k) for k in list(given) if k in asked.input_names}
    changes = dict(params) if isinstance(params, Mapping) else {}
    changes.update(given)
    base = params if not isinstance(params, Mapping) else None
    missing = [spec for spec in asked.input_specs if spec.required and inputs.get(spec.name) is None]
    if missing:  # the question's own input first: what is asked before what it is asked of
        raise _needs(asked, missing[0])
    own = _own_settings(family_name, asked, changes, base)
    for spec in asked.input_specs:
        clash = [n for n in spec.reads if inputs.get(spec.name) is not None and own.get(n) is not None]
        if clash:
            raise InputError(f"give --{spec.name.replace('_', '-')} or --{clash[0].replace('_', '-')}, not both")
    if base is None:  # no profile: what the question assumes of a parameter left out
        changes.update({k: v for k, v in asked.defaults.items() if changes.get(k) is None})
    if base is None and not asked.shipped and not asked.catalogue:
        _require_parameters(family_name, asked, changes, cpu_speed)
    _exclusive(family_name, changes)
    assumed = _own_cpu(asked, own, base, cpu_speed)
    base, brought = _catalogue(family_name, asked, own, base)
    answering = _answering(family_name, asked, base)
    declared, profile, source = _values_of(family_name, asked, answering, base, cpu_speed, assumed, changes)
    if asked.catalogue and own.get(asked.catalogue) is not None:
        source = source.replace("the planner's profile", f"the shipped fit of {own[asked.catalogue]}", 1)
    values = {**declared, **own, **brought}
    if assumed:
        from iosizer.model.family import cpu_speed_factor

        values["cpu_speed_factor"] = cpu_speed_factor(cpu_speed, profile.cpu_speed or 1.0,  # type: ignore[union-attr]
                                                      "--cpu-speed")
    if asked.also:
        values["family"] = answering
    first = base[0] if isinstance(base, (list, tuple)) and base else base
    values["profile_origin"] = None
    if first is not None and not brought:
        from iosizer.calibration.profile import origin

        values["profile_origin"] = origin(first)
    values["profile_cpu_name"] = None if profile is None or brought else profile.cpu_name  # after any carry
    banded = profile is not None and (asked.shipped_bands or base is not None or cpu_speed is not None)
    return Resolved(inputs, values, declared, profile, source, first, changes, answering, brought, banded)


def _values_of(family_name: str, asked: "Question", answering: str, base: Any, cpu_speed: float | None,
               assumed: bool, changes: Mapping[str, Any]) -> tuple[dict[str, Any], "Profile | None", str]:
    """:func:`resolve`, or no profile at all where none is needed (no parameter of the family asked, or
    every one given); ``assumed``: ``cpu_speed`` is the question's own CPU assumption, no carry."""
    if base is None and asked.takes == () and not any(v is not None for v in changes.values()):
        return {}, None, "the values given"  # no parameter of the family: no profile
    if base is None and cpu_speed is None and _every_parameter_given(answering, changes):
        return _given_values(answering, changes), None, "the values given"
    return resolve(answering, base, None if assumed else cpu_speed, changes)


def _one(family_name: str, asked: "Question", params: Any, cpu_speed: float | None,
         percentiles: Sequence[float] | None, band: str, given: dict[str, Any]) -> Answer:
    """The answer at one choice of every swept setting: the inputs' grid solved on one set of values."""
    import numpy as np

    got = resolved(family_name, asked, params, cpu_speed, given)
    inputs, values, declared, profile, source = got.inputs, got.values, got.declared, got.profile, got.source
    answering, first, changes, banded = got.answering, got.first, got.changes, got.banded
    arrays = _input_grid(asked, inputs, values)
    values["defaulted"] = frozenset(n for n in asked.input_names if inputs.get(n) is None)
    chosen: list[float] = []
    if percentiles:
        if asked.percentiles is None:
            raise InputError(f"question '{asked.command}' of family '{family_name}' has no percentiles")
        from iosizer.model.percentiles import parse_percentiles

        chosen = parse_percentiles(percentiles)
    objects = {o.name for o in asked.output_specs if o.kind == "object"}

    def evaluate(vals: Mapping[str, Any], at: Mapping[str, Any] = arrays, tails: bool = True) -> dict[str, Any]:
        out = dict(asked.solve(vals, at))  # type: ignore[misc]
        if chosen and tails:  # a question whose solve picks its rows: its percentiles at them
            return _with_tails(asked, out, asked.percentiles(vals, at or out, tuple(chosen)))  # type: ignore[misc]
        return out

    solved = evaluate(values)
    missing = [o.name for o in asked.output_specs if o.name not in solved and not o.optional]
    if missing:
        from iosizer.errors import ConsistencyError

        raise ConsistencyError(f"question '{asked.command}' of family '{family_name}' did not compute "
                               f"{', '.join(missing)}")
    shape = next(iter(arrays.values())).shape if arrays else ()
    if asked.rows:  # the solve picked the rows: every output has their number
        shape = (len(next(v for k, v in solved.items() if k not in _vectors(asked))),)
    words, vectors = set(asked.text_outputs), _vectors(asked)
    left_out = objects | _placeholders(asked, first, cpu_speed, changes)
    outputs = {k: _column(v, shape) if k in vectors else np.broadcast_to(
        np.asarray(v, dtype=object if k in words else np.float64), shape).reshape(-1) for k, v in solved.items()
        if k not in left_out}
    used = ", ".join(f"{spec.name} = {declared[spec.name]:.6g}{_unit_after(spec.unit)}" for spec in
                     declaration(answering).specs(declared)
                     if spec.kind == "parameter" and isinstance(declared.get(spec.name), (int, float)))
    notes = [n for n in (note if isinstance(note, str) else note(values, outputs) for note in asked.notes) if n]
    notes.append(f"values: {used + ' from ' if used else ''}{source}")
    notes += _unrecorded(answering, first, changes)
    bands = _banded(got, asked, evaluate, solved, outputs, outputs if asked.rows else arrays, shape, band,
                    bool(chosen))
    if bands:
        notes.append(_band_note(bands, band))
    integers = {i.name for i in asked.input_specs if i.integer} | {o.name for o in asked.output_specs if o.integer}
    return Answer(family_name, asked.command, {k: v.reshape(-1) for k, v in arrays.items()}, outputs,
                  bands, tuple(notes), frozenset(integers), values,
                  objects={k: solved[k] for k in objects if k in solved}, order=tuple(solved))


def _banded(got: Resolved, asked: "Question", evaluate: Any, solved: Mapping[str, Any], outputs: dict[str, Any],
            at: Mapping[str, Any], shape: tuple[int, ...], band: str, percentiles: bool) -> dict[str, tuple[Any, Any]]:
    """The 95 % bands of the banded outputs (percentiles too, unless the question says not), where the answer
    is banded; every output with a declared physical range, and its band's ends, clipped to it."""
    import math

    import numpy as np

    values = got.values
    keys = [o.name for o in asked.output_specs if o.band and not o.text and not o.vector and o.kind == "number"
            and o.name in outputs]
    tails = asked.percentile_bands and percentiles
    keys += [k for k in outputs if k not in asked.output_names] if tails else []  # percentiles

    def moved(fitted: Mapping[str, Any]) -> dict[str, Any]:
        # The band's centre is the answer itself (the profile's own values): solved once, not twice.
        unchanged = all(k in values and values[k] is v for k, v in fitted.items())
        out = solved if unchanged else evaluate({**values, **fitted}, at, tails)
        return {k: out[k] for k in keys}

    bands: dict[str, tuple[Any, Any]] = {}
    if got.banded and keys:
        from iosizer.calibration.uncertainty import stacked

        # The band's moved parameter sets in one solve where the question's solve broadcasts over them.
        stack = stacked(lambda vals: evaluate(vals, at, tails), values, {k: solved[k] for k in keys}, len(shape),
                        (got.answering, asked.command, tails))
        bands = _bands(got.answering, asked, got.profile, moved, outputs, shape, band, stack)
    for out in asked.output_specs:  # a declared physical range holds the value and the band's ends
        if out.bounds != (-math.inf, math.inf) and out.name in outputs:
            outputs[out.name] = np.clip(outputs[out.name], *out.bounds)
            if out.name in bands:
                bands[out.name] = tuple(np.clip(end, *out.bounds) for end in bands[out.name])  # type: ignore[assignment]
    return bands


def _band_note(bands: Mapping[str, tuple[Any, Any]], band: str) -> str:
    """What the bands are; where an end is unbounded (an exact or singular fit) it says so instead."""
    import numpy as np

    from iosizer.calibration.whatif import band_note

    ends = [{"_ci_low": float(v)} for pair in bands.values() for end in pair for v in np.ravel(end)]
    return band_note(ends, "*_ci_low/_ci_high: " + (
        "95 % prediction bands: the parameters' uncertainty plus the fit's residual scatter (where a new "
        "measurement lies)" if band == "prediction" else "95 % bands of the parameters' uncertainty only"))


def _with_tails(asked: "Question", out: dict[str, Any], tails: Mapping[str, Any]) -> dict[str, Any]:
    """The solve's outputs with the percentile outputs placed before the first optional or ``only_with``
    one (the columns that come and go stay last)."""
    late = {o.name for o in asked.output_specs if o.optional or o.only_with}
    first = [k for k in out if k not in late]
    return {**{k: out[k] for k in first}, **tails, **{k: out[k] for k in out if k in late}}


def _catalogue(family_name: str, asked: "Question", settings: Mapping[str, Any], base: Any) -> tuple[Any, dict[str, Any]]:
    """(the profile to answer from, the values a catalogue entry brings) where the question's ``catalogue``
    setting names an entry (``Question.catalogue``); else (``base``, nothing)."""
    if not asked.catalogue:
        return base, {}
    name, flag = settings.get(asked.catalogue), "--" + asked.catalogue.replace("_", "-")
    if name is not None and base is not None or name is None and base is None and not asked.shipped:
        raise InputError(f"give either {flag} NAME or --profile FILE")
    if name is None:
        return base, {}
    from iosizer.calibration.family_modules import catalogue_entry

    fitted, brought = catalogue_entry(family_name, asked.catalogue, name)
    given = [k for k in brought if settings.get(k) is not None]
    if given:
        raise InputError(f"--{given[0].replace('_', '-')} goes with --profile; {asked.catalogue} '{name}' states "
                         "its own")
    return fitted, brought


def _answering(family_name: str, asked: "Question", base: Any) -> str:
    """The family whose values answer: the declaring one, or (``Question.also``) the profile's."""
    first = base[0] if isinstance(base, (list, tuple)) and base else base
    model = getattr(first, "model", None)
    if not asked.also or model is None or model == family_name:
        return family_name
    if model not in asked.also:
        raise ProfileError(f"a '{model}' profile does not answer '{asked.command}'; give a profile of "
                           f"{', '.join((family_name, *asked.also))}")
    return model


def _own_cpu(asked: "Question", own: Mapping[str, Any], base: Any, cpu_speed: float | None) -> bool:
    """Whether ``--cpu-speed`` is the question's own CPU assumption (a setting of ``Question.own_cpu`` given)."""
    named = [n for n in asked.own_cpu if own.get(n) is not None]
    if not named:
        return False
    several = isinstance(base, (list, tuple)) and len(base) > 1
    if cpu_speed is None or several:
        raise InputError(f"{'/'.join('--' + n.replace('_', '-') for n in asked.own_cpu)} need --cpu-speed "
                         "and one profile")
    return True


def _unrecorded(family_name: str, base: Any, changes: Mapping[str, Any]) -> list[str]:
    """A line per parameter the planner's profile does not record (made before it was declared): the
    declared value answers in its place."""
    if base is None:
        return []
    return [f"{spec.name}: the profile records none (made before the parameter was declared): the declared "
            f"{spec.value:g}{_unit_after(spec.unit)} answers; give --{spec.name.replace('_', '-')} to set it"
            for spec in declaration(family_name).parameters if spec.kind == "parameter" and spec.value is not None
            and spec.name not in base.parameters and changes.get(spec.name) is None]


def _vectors(asked: "Question") -> set[str]:
    return {o.name for o in asked.output_specs if o.vector}


def _column(values: Any, shape: tuple[int, ...]) -> Any:
    """A vector output (a list of numbers at each point) as an object array of lists."""
    import numpy as np

    column = np.empty(shape, dtype=object)
    for i, items in enumerate(values):
        column[i] = [float(v) for v in items]
    return column.reshape(-1)


def _placeholders(asked: "Question", base: Any, cpu_speed: float | None, changes: Mapping[str, Any]) -> set[str]:
    """Outputs left out: those ``only_with`` a parameter that is still the shipped placeholder (no profile of
    the planner's, no CPU carried to, the parameter not given)."""
    own = base is not None or cpu_speed is not None
    return {o.name for o in asked.output_specs if o.only_with and not own and changes.get(o.only_with) is None}


def _exclusive(family_name: str, changes: Mapping[str, Any]) -> None:
    """A setting that replaces others (``ParameterSpec.excludes``) given with one of them: a one-line error."""
    for spec in declaration(family_name).settings:
        for other in spec.excludes if changes.get(spec.name) not in (None, "") else ():
            if changes.get(other) is not None:
                raise InputError(f"give {other} or {spec.name}, not both")


def _swept(family_name: str, asked: "Question", params: Any, cpu_speed: float | None,
           percentiles: Sequence[float] | None, band: str, given: dict[str, Any]) -> Answer:
    """A question that sweeps settings of named choices (``Question.sweeps``): each choice answered on
    its own values, the records in the order the choices are given, each led by its choices."""
    import itertools

    import numpy as np

    axes = sweep_axes(family_name, asked, given)
    parts = []
    for chosen in itertools.product(*axes):
        fixed = {n: c for n, c in zip(asked.sweeps, chosen) if c is not None}
        part = _one(family_name, asked, params, cpu_speed, percentiles, band, {**given, **fixed})
        points = int(np.prod([len(a) for a in axes])) * _count(part)  # as many per choice as the first (each bounded too)
        if points > MAX_POINTS:
            raise InputError(f"question '{asked.command}': {points} points (every choice of "
                             f"{', '.join(asked.sweeps)} at every combination of its inputs), more than {MAX_POINTS}")
        parts.append(({n: part.values[n] for n in asked.sweeps}, part))
    first = parts[0][1]

    def joined(arrays: list[Any]) -> Any:
        return np.concatenate([np.asarray(a).reshape(-1) for a in arrays])

    inputs = {n: np.asarray([c[n] for c, part in parts for _ in range(_count(part))], dtype=object)
              for n in asked.sweeps}
    inputs.update({k: joined([part.inputs[k] for _, part in parts]) for k in first.inputs})
    outputs = {k: joined([part.outputs[k] for _, part in parts]) for k in first.outputs}
    # A band one choice lacks (nothing fitted moves it) is NaN in the arrays and absent from its records.
    keys = list(dict.fromkeys(k for _, part in parts for k in part.bands))
    bands = {k: tuple(joined([part.bands[k][end] if k in part.bands else np.full(_count(part), np.nan)
                              for _, part in parts]) for end in (0, 1)) for k in keys}
    notes = tuple(dict.fromkeys(n for _, part in parts for n in part.notes))
    return Answer(family_name, asked.command, inputs, outputs, bands, notes, first.integers, first.values,
                  parts=tuple(parts))


def sweep_axes(family_name: str, asked: "Question", given: dict[str, Any]) -> list[list[Any]]:
    """The choices of each setting ``asked`` sweeps, popped from ``given`` (``[None]``: not given, the
    profile's; a ``sweep_all`` setting not given: every choice)."""
    from iosizer.model.family import parse_choices

    family = declaration(family_name)
    axes = []
    for name in asked.sweeps:
        raw = given.pop(name, None)
        if raw is None and name in asked.sweep_all:
            raw = "all"
        axes.append([None] if raw is None else parse_choices(raw, family.spec(name)))
    return axes


def _count(part: Answer) -> int:
    columns = part.inputs or part.outputs  # no inputs: the rows the solve picked (Question.rows)
    return len(next(iter(columns.values()))) if columns else 1


def _bands(family_name: str, asked: "Question", profile: "Profile", evaluate: Any, outputs: Mapping[str, Any],
           shape: tuple[int, ...], band: str, stack: Any = None) -> dict[str, tuple[Any, Any]]:
    """95 % bands of the outputs from the profile's varying parameters (none when nothing varies); a
    prediction band adds the fit's residual scatter of the measured column an output is."""
    import numpy as np

    from iosizer.calibration.uncertainty import propagate

    if not any(e.vary for e in profile.parameters.values()):
        return {}
    measured = {c.name for c in declaration(family_name).columns.observed}
    predicts = {o.name: o.measured or o.name for o in asked.output_specs}
    raw = propagate(profile, evaluate, band, {k: predicts.get(k, k) for k in outputs if predicts.get(k, k) in measured},
                    stack)
    words = set(asked.text_outputs)  # never banded
    banded = [k for k in outputs if k in raw and k not in words]
    moved = set(banded) if asked.flat_bands else set()
    if not asked.flat_bands:
        # A parameter band of finite, non-zero width was moved by some parameter: only the others need
        # the nudge (a prediction band's width is partly the fit's scatter, which says nothing of that).
        widened = {k for k in banded if band != "prediction" and _has_width(raw[k])}
        moved = widened | _moved(profile, evaluate, [k for k in banded if k not in widened])
    return {k: tuple(np.broadcast_to(np.asarray(end, dtype=np.float64), shape).reshape(-1) for end in raw[k])
            for k in outputs if k in moved}


def _has_width(ends: tuple[Any, Any]) -> bool:
    import numpy as np

    width = np.asarray(ends[1], dtype=np.float64) - np.asarray(ends[0], dtype=np.float64)
    return bool(np.all(np.isfinite(width)) and np.any(width != 0))


def _moved(profile: "Profile", evaluate: Any, keys: list[str]) -> set[str]:
    """The outputs among ``keys`` that some varying parameter of ``profile`` moves: an output none moves
    has no band (a swept choice that does not use the fitted values, such as replication's ``local``)."""
    import numpy as np

    moved: set[str] = set()
    if not keys:
        return moved
    centre = profile.values()
    base = evaluate(centre)
    for name, estimate in profile.parameters.items():
        if not estimate.vary or moved >= set(keys):
            continue
        step = 1e-6 * abs(estimate.value) or 1e-9
        nudged = evaluate({**centre, name: estimate.value + step})
        moved.update(k for k in keys if not np.array_equal(np.asarray(nudged[k]), np.asarray(base[k])))
    return moved


def _unaliased(asked: "Question", given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with each older name of an input or parameter (``Question.aliases``) under its declared name."""
    out = dict(given)
    for name, olds in asked.aliases.items():
        for old in olds:
            if out.get(old) is None:
                out.pop(old, None)
                continue
            if out.get(name) is not None:
                raise InputError(f"{old} is the older name of {name}: give one of them")
            out[name] = out.pop(old)
    return out


def _needs(question: "Question", spec: Any) -> InputError:
    """A required input left out; where its default is computed from other options, they are named too."""
    other = "".join(f" or give --{name.replace('_', '-')}" for name in getattr(spec, "reads", ()))
    return InputError(f"question '{question.command}' needs --{spec.name.replace('_', '-')} ({spec.unit}"
                      f"{': ' + spec.description if spec.description else ''}){other}")


def _own_settings(family_name: str, asked: "Question", changes: dict[str, Any], base: "Profile | None") -> dict[str, Any]:
    """The question's own settings (``Question.settings``, popped from ``changes`` and checked; a required one
    missing is an error) and the values it fixes (``Question.fixed``: a family setting goes into ``changes``,
    refused against a profile calibrated at another value). A family option the question does not take is
    refused: it would be silently ignored."""
    names = {spec.name for spec in declaration(family_name).parameters}
    for name, value in changes.items():
        if (name in names or name in asked.fixed) and value is not None:
            asked.option(declaration(family_name).parameters, name)  # an InputError naming it if not taken
    own = {}
    for spec in asked.settings:
        value = changes.pop(spec.name, None)
        if value is None:
            value = spec.value
        if value is None and spec.name in asked.optional:
            continue
        if value is None:
            raise InputError(f"Missing option '--{spec.name.replace('_', '-')}' ({spec.description or spec.unit})")
        own[spec.name] = spec.check(value, spec.name)
    for name, value in asked.fixed.items():
        if name not in names:
            own[name] = value
            continue
        held = None if base is None else base.options.get(name)
        if held is not None and held != value:
            raise InputError(f"the profile was calibrated with {name} = {held}; {asked.command} fixes "
                             f"{name} = {value}")
        changes[name] = value
    return own


def _itemised(asked: "Question", given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with each list of ``Question.repeated`` laid out: a value per item's parameter and the count
    setting, or the items joined by commas as the setting of that name."""
    out = dict(given)
    for repeated in asked.repeated:
        items = out.pop(repeated.name, None)
        if items is None:
            continue
        items = list(items) if isinstance(items, (list, tuple)) else [items]
        if not items:
            raise InputError(f"{repeated.name}: give at least one value")
        if repeated.item is None:
            out[repeated.name] = ",".join(str(item).strip() for item in items)
            continue
        if out.get(repeated.count) is not None and out[repeated.count] != len(items):
            raise InputError(f"{repeated.name} lists {len(items)} values for {repeated.count} {out[repeated.count]}")
        out[repeated.count] = len(items)
        out.update({repeated.item(k): item for k, item in enumerate(items, 1)})
    return out


def _parameters(family_name: str, given: Mapping[str, Any]) -> list[Any]:
    """The family's parameters, those a setting multiplies (a demand per station) included once the
    settings they need are given."""
    family = declaration(family_name)
    try:
        specs = family.specs({s.name: given[s.name] for s in family.settings if given.get(s.name) is not None})
    except InputError:  # a setting they need is missing: the declared ones only
        specs = family.parameters
    return [spec for spec in specs if spec.kind == "parameter"]


def _require_parameters(family_name: str, asked: "Question", changes: Mapping[str, Any],
                        cpu_speed: float | None) -> None:
    """A question of the planner's own system (``shipped=False``): every parameter given, or a profile."""
    if cpu_speed is not None:
        raise InputError("--cpu-speed carries a calibrated profile to another CPU: give --profile FILE")
    counted = {r.count: r.name for r in asked.repeated if r.count}  # a setting a list's length gives
    for spec in (*declaration(family_name).settings, *_parameters(family_name, changes)):
        if (asked.takes is not None and spec.name not in asked.takes) or spec.name in asked.fixed:
            continue  # not an option of this question
        if changes.get(spec.name) is None and (spec.kind == "parameter" or spec.value is None):
            name = counted.get(spec.name, spec.name)
            name = next(iter(asked.aliases.get(name, ())), name)
            raise InputError(f"Missing option '--{name.replace('_', '-')}' (or give --profile FILE)")


def _every_parameter_given(family_name: str, changes: Mapping[str, Any]) -> bool:
    given = {k: v for k, v in changes.items() if v is not None}
    return all(spec.name in given for spec in _parameters(family_name, given))


def _given_values(family_name: str, changes: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`resolve`'s values where every parameter is given and no profile or CPU is: the same checks
    and messages, without the profile (a pydantic model: a quarter of a one-point answer, and its import
    a third of a what-if's start-up) that would band nothing, every parameter being fixed."""
    from iosizer.calibration.family_modules import complete_values

    family = declaration(family_name)
    given = {k: v for k, v in changes.items() if v is not None}
    setting_names = {s.name for s in family.settings}
    values = family.values({k: v for k, v in given.items() if k in setting_names})
    values.update({k: family.spec(k, values).check(v, k) for k, v in given.items() if k not in setting_names})
    return complete_values(family_name, values)


def resolve(family_name: str, base: "Profile | Sequence[Profile] | None", cpu_speed: float | None,
            changes: Mapping[str, Any]) -> tuple[dict[str, Any], "Profile | None", str]:
    """(values a solve needs, the profile whose intervals band the answer, one line naming the source).

    Settings in ``changes`` replace the profile's; parameters are fixed at the value given
    (checked by their declarations); an unknown name is an :class:`InputError`. Several profiles
    (of different CPUs) are combined by extrapolation to ``cpu_speed``, which they then need.
    """
    from iosizer.calibration.family_modules import complete_values
    from iosizer.calibration.frozen import shipped
    from iosizer.calibration.profile import Profile, profile_values, with_changes

    family = declaration(family_name)
    if isinstance(base, (list, tuple)):
        if len(base) > 1 or (base and cpu_speed is not None):  # a list: extrapolated, as several would be
            if cpu_speed is None:
                raise InputError("several profiles need --cpu-speed: they are combined by extrapolation")
            from iosizer.calibration.extrapolate import extrapolate

            for one in base:
                if not isinstance(one, Profile) or one.model != family_name:
                    raise ProfileError(f"profile is for family '{getattr(one, 'model', type(one).__name__)}', "
                                       f"not '{family_name}'")
            base, source = extrapolate(list(base), cpu_speed).profile, f"{len(base)} profiles"
            values, profile, note = with_changes(base, profile_values(base), {k: v for k, v in changes.items()
                                                                             if v is not None})
            return (complete_values(family_name, values), profile,
                    f"the planner's {source}, extrapolated to CPU speed {float(cpu_speed):g}{note}")
        base = base[0] if base else None
    if base is not None and not isinstance(base, Profile):
        raise InputError(f"params must be a profile or a mapping of values, got {type(base).__name__}")
    given = {k: v for k, v in changes.items() if v is not None}
    if base is None and all(spec.name in given for spec in _parameters(family_name, given)):
        # Every parameter given: nothing comes from a profile, so the shipped one is not built (no fit runs).
        from iosizer.calibration.profile import declared_profile

        settings = {s.name: given[s.name] for s in family.settings if s.name in given}
        profile = declared_profile(family_name, settings, {s.name: given[s.name] for s in
                                                            _parameters(family_name, given)})
        source = "the values given"
    elif base is not None:
        profile, source = _planner_variant(family, base, given), "the planner's profile"
    else:
        # A variant setting given (an FC speed) picks that shipped profile; the note names it as given.
        profile, source = shipped(family_name, _variant(family, given)), f"shipped '{family_name}' profile"
    if profile.model != family_name:
        raise ProfileError(f"profile is for family '{profile.model}', not '{family_name}'")
    if cpu_speed is not None:
        from iosizer.calibration.whatif import on_cpu

        profile = on_cpu(profile, cpu_speed, source)
        source += f", carried to CPU speed {float(cpu_speed):g}"
    # A question's own choice (ParameterSpec.from_profile False) is the declared one unless given.
    asked = {s.name: s.value for s in family.settings if not s.from_profile}
    values, profile, note = with_changes(profile, {**profile_values(profile), **asked}, given)
    if source != "the values given":
        source += note
    return complete_values(family_name, values), profile, source


def _variant(family: Any, given: Mapping[str, Any]) -> str | None:
    """The shipped profile's variant a planner picks (its setting checked by its declaration), or None."""
    spec = family.variant
    if spec is None or given.get(spec.name) is None:
        return None
    return spec.check(given[spec.name], "--" + spec.name.replace("_", "-"))


def _planner_variant(family: Any, profile: "Profile", given: Mapping[str, Any]) -> "Profile":
    """A planner's profile holds its own values: a setting that picks a shipped profile is refused, unless
    the family's calibration module carries a profile to a variant (``variant_profile``: replication's
    link facts from the catalogue, on the profile's protocol stack); then every answer goes through it,
    at the variant given or the profile's own."""
    from iosizer.calibration.family_modules import calibration_module

    spec = family.variant
    carry = None if spec is None else getattr(calibration_module(family.name), "variant_profile", None)
    if carry is not None:
        choice = given.get(spec.name, profile.options.get(spec.name, spec.value))
        return carry(family.name, profile, spec.check(choice, "--" + spec.name.replace("_", "-")))
    if spec is not None and given.get(spec.name) is not None:
        flag = "--" + spec.name.replace("_", "-")
        raise InputError(f"{flag} picks one of the shipped '{family.name}' profiles; a profile of your own holds "
                         "its own values (change them one by one)")
    return profile


def _input_grid(question: "Question", given: Mapping[str, Any],
                values: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Each input's values (checked by its declaration) over every combination: arrays of one shape.
    A computed default (:class:`~iosizer.model.family.Input`) sees ``values``, every input given and
    the defaults computed before it."""
    import numpy as np

    known = {spec.name: _axis(spec, given[spec.name], False) for spec in question.input_specs
             if given.get(spec.name) is not None}
    for spec in question.input_specs:
        if spec.name not in known:
            raw = spec.sweep(values, dict(known))
            if not raw:
                raise _needs(question, spec)
            known[spec.name] = _axis(spec, raw, callable(spec.default))
    axes = [known[spec.name] for spec in question.input_specs]
    if not axes:
        return {}
    count = int(np.prod([len(a) for a in axes]))
    if count > MAX_POINTS:
        raise InputError(f"question '{question.command}': {' x '.join(str(len(a)) for a in axes)} = {count} "
                         f"combinations of its inputs, more than {MAX_POINTS}")
    grids = np.meshgrid(*axes, indexing="ij")
    return {spec.name: grid for spec, grid in zip(question.input_specs, grids)}


def _axis(spec: Any, raw: Any, computed: bool) -> Any:
    """One input's values, checked by its declaration: a number, a list, an array or a sweep as typed."""
    import numpy as np

    if isinstance(raw, str):  # a sweep as typed: 3.2, 1,8,16 or 0:2100:300
        from iosizer.model.family import parse_grid

        raw = parse_grid(raw, spec.name.replace("_", "-"), spec)
    items = list(np.ravel(np.asarray(raw, dtype=object))) if isinstance(raw, (list, tuple)) or \
        hasattr(raw, "__array__") else [raw]
    if not items:
        raise InputError(f"{spec.name}: give at least one value")
    # A computed default's NaN leaves the point to the solve (at the values it is evaluated at).
    return np.asarray([v if computed and _nan(v) else spec.check(v, spec.name) for v in items], dtype=np.float64)


def _nan(value: Any) -> bool:
    return isinstance(value, float) and value != value


def _unit_after(unit: str) -> str:
    """A unit as printed after a value: none for a dimensionless '1' (a ratio, an scv)."""
    return "" if unit in ("", "1") else " " + unit
