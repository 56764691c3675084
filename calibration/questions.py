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

__all__ = ["MAX_POINTS", "Answer", "answer", "resolve"]

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
    profile's fitted parameters; ``notes``: the sources of the values used.
    :meth:`to_data` is what ``iosizer <family> <question> --format json``
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

    def records(self) -> list[dict[str, Any]]:
        """One dict per point: inputs, outputs, then ``<output>_ci_low`` / ``_ci_high``; None where the
        number is not finite (an unbounded band end)."""
        import math

        def plain(array: Any, i: int, integer: bool = False) -> Any:
            value = float(array[i])
            if not math.isfinite(value):
                return None
            return int(value) if integer else value

        count = len(next(iter(self.inputs.values()))) if self.inputs else 1
        rows = []
        for i in range(count):
            row = {k: plain(v, i, k in self.integers) for k, v in self.inputs.items()}
            row.update({k: plain(v, i) for k, v in self.outputs.items()})
            for key, (low, high) in self.bands.items():
                row[f"{key}_ci_low"], row[f"{key}_ci_high"] = plain(low, i), plain(high, i)
            rows.append(row)
        return rows

    def to_data(self) -> Any:
        """One point: its record; a sweep: the list of records."""
        rows = self.records()
        return rows[0] if len(rows) == 1 else rows

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


def answer(family_name: str, question: str, params: "Profile | Mapping[str, Any] | None" = None, *,
           cpu_speed: float | None = None, percentiles: Sequence[float] | None = None,
           band: str = "parameter", **given: Any) -> Answer:
    """The answer of ``question`` of family ``family_name`` (see :meth:`iosizer.ModelFamily.ask`)."""
    import numpy as np

    from iosizer.calibration.uncertainty import BANDS

    if band not in BANDS:
        raise InputError(f"band must be one of {', '.join(BANDS)}, got {band!r}")
    asked = declaration(family_name).question(question)
    if asked.solve is None:
        raise InputError(f"question '{asked.command}' of family '{family_name}' declares no solve: "
                         f"ask it as a command (iosizer.ask('{asked.command}', ...))")
    inputs = {k: given.pop(k) for k in list(given) if k in asked.input_names}
    changes = dict(params) if isinstance(params, Mapping) else {}
    changes.update(given)
    base = params if not isinstance(params, Mapping) else None
    values, profile, source = resolve(family_name, base, cpu_speed, changes)
    arrays = _input_grid(asked, inputs)
    chosen: list[float] = []
    if percentiles:
        if asked.percentiles is None:
            raise InputError(f"question '{asked.command}' of family '{family_name}' has no percentiles")
        from iosizer.model.percentiles import parse_percentiles

        chosen = parse_percentiles(percentiles)

    def evaluate(vals: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(asked.solve(vals, arrays))  # type: ignore[misc]
        if chosen:
            out.update(asked.percentiles(vals, arrays, tuple(chosen)))  # type: ignore[misc]
        return out

    solved = evaluate(values)
    missing = [n for n in asked.output_names if n not in solved]
    if missing:
        from iosizer.errors import ConsistencyError

        raise ConsistencyError(f"question '{asked.command}' of family '{family_name}' did not compute "
                               f"{', '.join(missing)}")
    shape = next(iter(arrays.values())).shape if arrays else ()
    outputs = {k: np.broadcast_to(np.asarray(v, dtype=np.float64), shape).reshape(-1)
               for k, v in solved.items()}
    used = ", ".join(f"{spec.name} = {values[spec.name]:.6g}{_unit_after(spec.unit)}" for spec in declaration(family_name)
                     .specs(values) if spec.kind == "parameter" and isinstance(values.get(spec.name), (int, float)))
    notes = list(asked.notes) + [f"values: {used + ' from ' if used else ''}{source}"]
    def moved(fitted: Mapping[str, Any]) -> dict[str, Any]:
        # The band's centre is the answer itself (the profile's own values): solved once, not twice.
        unchanged = all(k in values and values[k] is v for k, v in fitted.items())
        return solved if unchanged else evaluate({**values, **fitted})

    from iosizer.calibration.uncertainty import stacked

    # The band's moved parameter sets in one solve where the question's solve broadcasts over them.
    stack = stacked(evaluate, values, solved, len(shape), (family_name, asked.command, bool(chosen)))
    bands = _bands(family_name, profile, moved, outputs, shape, band, stack)
    if bands:
        notes.append("*_ci_low/_ci_high: " + ("95 % prediction bands: the parameters' uncertainty plus the "
                                              "fit's residual scatter (where a new measurement lies)"
                                              if band == "prediction" else
                                              "95 % bands of the parameters' uncertainty only"))
    return Answer(family_name, asked.command, {k: v.reshape(-1) for k, v in arrays.items()}, outputs,
                  bands, tuple(notes), frozenset(i.name for i in asked.input_specs if i.integer), values)


def _bands(family_name: str, profile: "Profile", evaluate: Any, outputs: Mapping[str, Any], shape: tuple[int, ...],
           band: str, stack: Any = None) -> dict[str, tuple[Any, Any]]:
    """95 % bands of the outputs from the profile's varying parameters (none when nothing varies); a
    prediction band adds the fit's residual scatter of the measured column an output is."""
    import numpy as np

    from iosizer.calibration.uncertainty import propagate

    if not any(e.vary for e in profile.parameters.values()):
        return {}
    measured = {c.name for c in declaration(family_name).columns.observed}
    raw = propagate(profile, evaluate, band, {k: k for k in outputs if k in measured}, stack)
    return {k: tuple(np.broadcast_to(np.asarray(end, dtype=np.float64), shape).reshape(-1) for end in raw[k])
            for k in outputs if k in raw}


def resolve(family_name: str, base: "Profile | None", cpu_speed: float | None,
            changes: Mapping[str, Any]) -> tuple[dict[str, Any], "Profile | None", str]:
    """(values a solve needs, the profile whose intervals band the answer, one line naming the source).

    Settings in ``changes`` replace the profile's; parameters are fixed at the value given
    (checked by their declarations); an unknown name is an :class:`InputError`.
    """
    from iosizer.calibration.family_modules import complete_values
    from iosizer.calibration.frozen import shipped
    from iosizer.calibration.profile import Profile, profile_values, with_changes

    family = declaration(family_name)
    if base is not None and not isinstance(base, Profile):
        raise InputError(f"params must be a profile or a mapping of values, got {type(base).__name__}")
    given = {k: v for k, v in changes.items() if v is not None}
    if base is None and all(spec.name in given for spec in family.parameters if spec.kind == "parameter"):
        # Every parameter given: nothing comes from a profile, so the shipped one is not built (no fit runs).
        from iosizer.calibration.profile import declared_profile

        settings = {s.name: given[s.name] for s in family.settings if s.name in given}
        profile = declared_profile(family_name, settings, {s.name: given[s.name] for s in
                                                            family.parameters if s.kind == "parameter"})
        source = "the values given"
    elif base is not None:
        profile, source = base, "the planner's profile"
    else:
        profile, source = shipped(family_name), f"shipped '{family_name}' profile"
    if profile.model != family_name:
        raise ProfileError(f"profile is for family '{profile.model}', not '{family_name}'")
    if cpu_speed is not None:
        from iosizer.calibration.whatif import on_cpu

        profile = on_cpu(profile, cpu_speed, source)
        source += f", carried to CPU speed {float(cpu_speed):g}"
    values, profile, note = with_changes(profile, profile_values(profile), given)
    if source != "the values given":
        source += note
    return complete_values(family_name, values), profile, source


def _input_grid(question: "Question", given: Mapping[str, Any]) -> dict[str, Any]:
    """Each input's values (checked by its declaration) over every combination: arrays of one shape."""
    import numpy as np

    axes = []
    for spec in question.input_specs:
        raw = given.get(spec.name)
        if raw is None:
            raw = spec.sweep()
            if not raw:
                raise InputError(f"question '{question.command}' needs {spec.name} ({spec.unit}"
                                 f"{': ' + spec.description if spec.description else ''})")
        items = list(np.ravel(np.asarray(raw, dtype=object))) if isinstance(raw, (list, tuple)) or \
            hasattr(raw, "__array__") else [raw]
        if not items:
            raise InputError(f"{spec.name}: give at least one value")
        axes.append(np.asarray([spec.check(v, spec.name) for v in items], dtype=np.float64))
    if not axes:
        return {}
    count = int(np.prod([len(a) for a in axes]))
    if count > MAX_POINTS:
        raise InputError(f"question '{question.command}': {' x '.join(str(len(a)) for a in axes)} = {count} "
                         f"combinations of its inputs, more than {MAX_POINTS}")
    grids = np.meshgrid(*axes, indexing="ij")
    return {spec.name: grid for spec, grid in zip(question.input_specs, grids)}


def _unit_after(unit: str) -> str:
    """A unit as printed after a value: none for a dimensionless '1' (a ratio, an scv)."""
    return "" if unit in ("", "1") else " " + unit
