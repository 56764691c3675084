"""Sizing from a question's declaration: every :class:`~iosizer.model.family.Sizing` answered by one search.

A declared sizing names an input to search (``search``), an output and a
direction; the feasible inputs form one interval (the declaration says which
end). The answer is its edge:

- a whole-number input: galloping from the interval's known end (1, 2, 4, ...
  steps) until the target flips, then bisection on the integers: about
  2 log2(answer) solves, every combination of the other inputs at once (each
  solve is the question's own vectorised ``solve``);
- a real input: the same galloping to a bracket, then
  :func:`iosizer.model._roots.bisect_increasing` to 1e-12 relative.

The interval of an answer comes from the profile
(:func:`iosizer.calibration.sizing.answer_interval`: the search solved again
at the corners of the varying parameters' 95 % intervals). A whole-number
parameter fitted by profile likelihood (``FitPlan.whole``) is held at its
fitted count there, with the others' intervals taken at that count (estimate
+/- the normal quantile x their standard error): a count at one end of its
plausible set with a parameter fitted at another is no system the data
allow. Nothing here names a family.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from iosizer.errors import InputError, IosizerError
from iosizer.frames import Table, TableView
from iosizer.model.registry import declaration

if TYPE_CHECKING:
    import numpy as np

    from iosizer.calibration.profile import Profile
    from iosizer.model.family import Family, Question, Sizing, SizingCommand

__all__ = ["SizingAnswer", "command_sizings", "searched_by_every", "sizing_command_names", "sizing_question", "size",
           "target_flag"]

#: Galloping doublings a real-valued search tries past its start before calling the target unreachable.
_REAL_DOUBLINGS = 2000


def target_flag(sizing: "Sizing") -> str:
    return "--" + sizing.target_name.replace("_", "-")


def sizing_question(family: "Family") -> "Question | None":
    """The family's question that declares sizing (the first), or None."""
    return next((q for q in family.questions if q.answerable and q.sizing), None)


def sizing_command_names(family: "Family") -> tuple[str, ...]:
    """The ``iosizer size`` commands of the family's declared sizing: each sizing's ``command``, else the
    family's name."""
    question = sizing_question(family)
    if question is None:
        return ()
    return tuple(dict.fromkeys(s.command or family.name for s in question.sizing))


def searched_by_every(sizings: "Sequence[Sizing]") -> set[str]:
    """The input every sizing of a command searches: no option of it and no column of its rows (an input
    that only some search is given for the others)."""
    return set.intersection(*({s.search} for s in sizings)) if sizings else set()


def command_sizings(family: "Family", name: str) -> "tuple[Question, tuple[Sizing, ...], SizingCommand | None]":
    """The question, its sizings answered by ``iosizer size <name>`` and the command's declaration."""
    question = sizing_question(family)
    sizings = tuple(s for s in question.sizing if (s.command or family.name) == name) if question else ()
    if question is None or not sizings:
        raise InputError(f"family '{family.name}' declares no sizing command '{name}'")
    declared = next((c for c in question.sizing_commands if c.name == name), None)
    return question, sizings, declared


@dataclass(frozen=True, repr=False)
class SizingAnswer(TableView):
    """The answer of ``iosizer size <family>``: one record per combination of the other inputs (and of the
    question's swept settings, each record led by its choice).

    :meth:`to_data` is what ``--format json`` prints (one record, or a list of them; always a list where
    the question declares ``always_list``).
    """

    family: str
    records_: tuple[dict[str, Any], ...]
    notes: tuple[str, ...] = ()
    units: Mapping[str, str] = field(default_factory=dict)
    title: str = ""
    columns: tuple[str, ...] = ()
    always_list: bool = False
    words: tuple[tuple[str, Any], ...] = ()
    #: The key of the one record's list of rows (``SizingCommand.gather``): the table and CSV show them.
    gathered: str = ""

    def records(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.records_]

    def to_data(self) -> Any:
        rows = self.records()
        return rows[0] if len(rows) == 1 and not self.always_list else rows

    def to_dict(self) -> Any:
        return self.to_data()

    def to_json(self) -> str:
        import json

        return json.dumps(self.to_data(), indent=2, allow_nan=False)

    def shown(self) -> list[dict[str, Any]]:
        """The records as a table or CSV shows them: a key declared in ``words`` as its text; a gathered
        answer's rows (one per point)."""
        words = dict(self.words)
        rows = self.records_[0][self.gathered] if self.gathered else self.records_
        return [{k: words[k](v) if k in words else v for k, v in r.items()} for r in rows]

    def table(self) -> Table:
        return Table.of(self.shown(), units=dict(self.units), title=self.title or f"{self.family} sizing",
                        notes=self.notes)


def _declared(sizings: Sequence["Sizing"], name: str) -> Any:
    """The first of ``sizings`` that declares presentation ``name`` (title, notes, columns), or None."""
    return next((getattr(s, name) for s in sizings if getattr(s, name)), None)


def size(family_name: str, params: "Profile | Mapping[str, Any] | None" = None, *,
         targets: Mapping[str, Any], percentile: float | None = None, cpu_speed: float | None = None,
         command: str | None = None, profile_name: str | None = None, **given: Any) -> SizingAnswer:
    """Answer every target of ``targets`` (a declared :class:`Sizing`'s ``target_name`` -> value).

    ``params``: a profile (its intervals give each answer's interval), a mapping of values laid over
    the shipped profile, or None for the shipped one. ``given``: the question's other inputs (a value
    or a list: one answer per combination), its swept settings (a choice, a list or ``all``) and any
    setting or parameter by name. ``percentile``: the P-th percentile in place of the mean for the
    sizings that declare ``percentile``. ``command``: the ``iosizer size`` command whose sizings answer
    (default: the family's own, else its first); ``profile_name``: the profile as the planner named it (for
    the notes).
    """
    import itertools

    from iosizer.calibration.questions import _itemised, _unaliased

    family = declaration(family_name)
    question = sizing_question(family)
    if question is None:
        raise InputError(f"family '{family_name}' declares no sizing")
    names = sizing_command_names(family)
    question, sizings, declared_command = command_sizings(
        family, command or (family.name if family.name in names else names[0]))
    if any(s.invert is not None for s in sizings):
        return _inverted(family, question, sizings, declared_command, params, targets, cpu_speed, given)
    given = _itemised(question, _unaliased(question, given))  # older names, and lists laid out (a demand each)
    by_target: dict[str, list["Sizing"]] = {}
    for sizing in sizings:
        by_target.setdefault(sizing.target_name, []).append(sizing)
    checked_targets, percentile = _checked_targets(family_name, sizings, by_target, targets, percentile)
    searched = _searched(by_target, checked_targets, given)
    from iosizer.calibration.questions import sweep_axes

    axes = sweep_axes(family_name, question, given)
    parts = []
    for choices in itertools.product(*axes):
        fixed = {n: c for n, c in zip(question.sweeps, choices) if c is not None}
        part = _size_at(family, question, params, cpu_speed, percentile, checked_targets, by_target, searched,
                        {**given, **fixed}, profile_name)
        parts.append((fixed, part))
    records = [{**fixed, **record} for fixed, part in parts for record in part[0]]
    sizings = [s for k in checked_targets for s in by_target[k]]
    notes = tuple(dict.fromkeys(n for _, part in parts for n in part[1]))
    values, common = parts[0][1][2], parts[0][1][3]
    title = _declared(sizings, "title")
    units = {i.name: i.unit for i in question.input_specs}
    units.update({o.name: o.unit for o in question.output_specs})
    return SizingAnswer(family_name, tuple(records), notes, units,
                        title=title(values, checked_targets, common) if title else "",
                        columns=_declared(sizings, "columns") or (), always_list=question.always_list,
                        words=_declared(sizings, "words") or ())


def _checked_targets(family_name: str, sizings: "Sequence[Sizing]", by_target: Mapping[str, Sequence["Sizing"]],
                     targets: Mapping[str, Any], percentile: float | None) -> tuple[dict[str, float], float | None]:
    """The targets given, each a number within its declared bounds, and the percentile, checked: one of the
    command's targets at least (one alone where they are alternatives), a percentile only for a target
    that takes one."""
    chosen = {k: v for k, v in targets.items() if v is not None}
    unknown = sorted(set(chosen) - set(by_target))
    if unknown:
        raise InputError(f"{', '.join(unknown)} is no target of family '{family_name}'; its targets: "
                         f"{', '.join(by_target)}")
    if any(s.alone for s in sizings) and len(chosen) != 1:  # the targets are alternatives
        raise InputError("give one target: " + " or ".join(dict.fromkeys(target_flag(s) for s in sizings)))
    if not chosen:
        raise InputError("give " + " and/or ".join(dict.fromkeys(target_flag(s) for s in sizings)))
    if percentile is not None:
        takes = [s for s in sizings if s.percentile]
        if not any(s.percentile for k in chosen for s in by_target[k]):
            others = ", not " + " or ".join(f"--{k.replace('_', '-')}" for k in chosen) if takes else ""
            raise InputError("--percentile goes with " + (" or ".join(target_flag(s) for s in takes)
                                                          if takes else "no target of this family") + others)
        from iosizer.model.percentiles import PERCENTILE

        percentile = PERCENTILE.check(percentile, "--percentile")
    checked = {name: _number(value, "--" + name.replace("_", "-")) for name, value in chosen.items()}
    for name, number in checked.items():
        low, high = by_target[name][0].target_bounds
        if not number > low or number > high:
            raise InputError(f"--{name.replace('_', '-')} must lie in ({low:g}, {high:g}], got {number:g}")
    return checked, percentile


def _searched(by_target: Mapping[str, Sequence["Sizing"]], chosen: Mapping[str, float],
              given: Mapping[str, Any]) -> frozenset[str]:
    """What the chosen targets search (one set of inputs for all of them), none of it given."""
    searched_by = {k: frozenset(s.search for s in by_target[k]) for k in chosen}
    if len(set(searched_by.values())) > 1:  # one target's search would be another's given input
        searched = sorted(set().union(*searched_by.values()))
        raise InputError(f"{' and '.join('--' + k.replace('_', '-') for k in chosen)} search different inputs "
                         f"({', '.join(searched)}); give one of them at a time")
    # What every sizing finds is no given value; what only some find is given for the others.
    every = frozenset.intersection(*(frozenset({s.search}) for k in chosen for s in by_target[k]))
    stray = sorted(k for k in given if k in every and given[k] is not None)
    if stray:
        raise InputError(f"{', '.join(stray)} is what the sizing finds; leave it out")
    return next(iter(searched_by.values()))


def _size_at(family: "Family", question: "Question", params: Any, cpu_speed: float | None,
             percentile: float | None, checked_targets: Mapping[str, float],
             by_target: Mapping[str, Sequence["Sizing"]], searched: frozenset[str],
             given: dict[str, Any], profile_name: str | None = None
             ) -> tuple[list[dict[str, Any]], list[str], dict[str, Any], dict[str, Any]]:
    """The records, notes, values and the inputs no sizing searches at one choice of every swept setting."""
    sizings = [s for k in checked_targets for s in by_target[k]]
    values, inputs, profile, banded = _search_values(family, question, params, cpu_speed, sizings, given)
    # Inputs no sizing searches lead each record (a sweep's point) unless the keys are declared.
    common = _other_inputs(question, set(searched), inputs)
    rows = len(next(iter(common.values()))) if common else 1
    keyed = all(s.keys for s in sizings)
    records: list[dict[str, Any]] = [{} if keyed else {k: _plain(v[i], question.input(k).integer)
                                                       for k, v in common.items()} for i in range(rows)]
    conditional = _at_fitted_counts(family, profile) if banded else None
    if conditional is not None and not any(e.vary for e in conditional.parameters.values()):
        conditional = None
    measures: list[str] = []
    for name, target in checked_targets.items():
        answered = _target_records(family, question, by_target[name], values, inputs, target, percentile,
                                   searched, rows, conditional, measures)
        for record, answer in zip(records, answered):
            record.update(answer)
    declared_notes = _declared(sizings, "notes")
    if declared_notes is not None:
        said = {**values, "measure": measures[0], "profile_name": profile_name}
        return records, list(declared_notes(said, records, common)), values, common
    notes = [f"{target_flag(s)}: the {'smallest' if s.smallest else 'largest'} {s.search} with "
             f"{_measure_name(question, s, percentile if s.percentile else None)} "
             f"{'at most' if s.at_most else 'at least'} the target" for s in sizings]
    notes.append(f"values: {values['values_source']}{_whole_note(family, profile)}")
    if conditional is not None and any(s.interval for s in sizings):
        held = [n for n in (family.fit.whole if family.fit else ()) if n in profile.parameters]  # type: ignore[union-attr]
        at = f" with {', '.join(held)} held at its fitted count" if held else ""
        notes.append(f"_ci_low/_ci_high: the answer at the corners of the fitted parameters' 95 % intervals{at} "
                     "(empty, null in JSON: out of reach there)")
    return records, notes, values, common


def _search_values(family: "Family", question: "Question", params: Any, cpu_speed: float | None,
                   sizings: Sequence["Sizing"], given: dict[str, Any]
                   ) -> "tuple[dict[str, Any], dict[str, Any], Profile | None, bool]":
    """(the values a search solves on, the question's inputs as given, the profile, whether it bands the
    answers): the planner's settings and parameters over their profile (or the shipped one)."""
    from iosizer.calibration.questions import _own_settings, _require_parameters, resolve

    inputs = {k: given.pop(k) for k in list(given) if k in question.input_names}
    changes = dict(params) if isinstance(params, Mapping) else {}
    changes.update(given)
    base = params if not isinstance(params, Mapping) else None
    every = frozenset.intersection(*(frozenset({s.search}) for s in sizings))
    for name in every - set(question.input_names):  # a searched setting with no value of its own: any
        spec = family.spec(name)                     # value resolves it (the search sets it)
        if base is None and changes.get(name) is None and spec.kind == "setting" and spec.value is None:
            changes[name] = spec.bounds[0]
    if base is None:  # no profile: what the question assumes of a parameter left out
        changes.update({k: v for k, v in question.defaults.items() if changes.get(k) is None})
    if base is None and not question.shipped and not question.catalogue:  # the planner's own system
        _require_parameters(family.name, question, changes, cpu_speed)
    own = _own_settings(family.name, question, changes, base)
    declared, profile, source = resolve(family.name, base, cpu_speed, changes)
    values = {**declared, **own}
    first = base[0] if isinstance(base, (list, tuple)) and base else base
    if first is not None:
        from iosizer.calibration.profile import origin

        values["profile_origin"] = origin(first)
    values.update(values_source=source, cpu_speed=cpu_speed)
    banded = profile is not None and (question.shipped_bands or base is not None or cpu_speed is not None)
    return values, inputs, profile, banded


def _target_records(family: "Family", question: "Question", sizings: Sequence["Sizing"], values: Mapping[str, Any],
                    inputs: Mapping[str, Any], target: float, percentile: float | None, searched: frozenset[str],
                    rows: int, conditional: "Profile | None", measures: list[str]) -> list[dict[str, Any]]:
    """Each row's record of one target: every sizing it answers searched, their keys merged, each answer
    banded at the corners of ``conditional``'s intervals (None: no band); ``measures`` gets each sizing's
    measure key."""
    from iosizer.calibration.sizing import with_interval

    merged: list[dict[str, Any]] = [{} for _ in range(rows)]
    ends: list[list[tuple[str, Any]]] = [[] for _ in range(rows)]
    for sizing in sizings:
        p = percentile if sizing.percentile else None
        reason = sizing.out_of_reach(values, target, p) if sizing.out_of_reach is not None else None
        if reason:
            raise _unreachable(reason)
        others = _other_inputs(question, {sizing.search}, inputs)
        count = len(next(iter(others.values()))) if others else 1
        if count != rows:
            raise InputError(f"{target_flag(sizing)} sizes {', '.join(sorted(searched))} at one value of "
                             f"each other input; give one value of {', '.join(sorted(others))}")
        solved = _solve(family, question, sizing, values, others, target, p)
        measures.append(str(solved.get("_measure_key", sizing.output)))
        for i in range(rows):
            point = {k: v[i:i + 1] for k, v in others.items()}
            generic = {key: _row(value, i) for key, value in solved.items()}
            merged[i].update(_named(family, question, sizing, generic, p, point, values))
            if conditional is not None and sizing.interval:
                ends[i] += _search_intervals(family, question, sizing, values, point, target, p, conditional,
                                             measures[-1])
    out = []
    for record, intervals in zip(merged, ends):
        for shown, interval in intervals:
            record = with_interval(record, shown, interval)
        out.append(record)
    return out


def _search_intervals(family: "Family", question: "Question", sizing: "Sizing", values: Mapping[str, Any],
                      point: Mapping[str, Any], target: float, p: float | None, conditional: "Profile",
                      measure: str) -> list[tuple[str, Any]]:
    """(published key, interval) of each key of ``sizing`` that carries one, at one row: the search solved
    again at the corners of the profile's intervals (the parameters move; the given settings stay)."""
    import numpy as np

    from iosizer.calibration.sizing import answer_interval

    moving = set(conditional.parameters)
    out = []
    for chosen_key in sizing.intervals or (sizing.report or sizing.search,):
        def again(moved: Mapping[str, Any], chosen_key: str = chosen_key) -> float:
            changed = {k: v for k, v in moved.items() if k in moving}
            result = _solve(family, question, sizing, {**values, **changed}, point, target, p)
            return float(np.asarray(result[chosen_key], dtype=np.float64).reshape(-1)[0])

        interval = answer_interval(conditional, again, on_failure=math.inf if sizing.smallest and
                                   not sizing.report else 0.0)
        out.append((_printed(sizing, chosen_key, p, measure), interval))
    return out


# --- a command of the model's own inverses ----------------------------------------------------------


def _inverted(family: "Family", question: "Question", sizings: "tuple[Sizing, ...]",
              declared: "SizingCommand | None", params: Any, targets: Mapping[str, Any], cpu_speed: float | None,
              given: dict[str, Any]) -> SizingAnswer:
    """A command whose sizings answer by their own ``invert``: every target given (and each ``always``
    sizing) at every combination of the question's inputs, merged into one record per combination in
    declaration order (a ``once`` sizing's record answered once, before them), each answer banded by the
    profile's intervals (``Sizing.band``)."""
    chosen = _chosen_targets(family, sizings, declared, targets)
    values, inputs, conditional = _inverted_values(family, question, declared, params, cpu_speed, given)
    others = _other_inputs(question, searched_by_every(sizings), inputs, values)
    rows = len(next(iter(others.values()))) if others else 1
    answered = [s for s in sizings if s.always or s.target_name in chosen]

    def record_at(point: Mapping[str, Any], once: bool) -> dict[str, Any]:
        record: dict[str, Any] = {}
        for sizing in (s for s in answered if s.once == once):
            target = None if sizing.always else chosen[sizing.target_name]
            record.update(_inverse_answer(sizing, values, point, target, conditional))
        return record

    lead = record_at({}, True)
    records, merged = [], []
    for i in range(rows):
        point = {k: _plain(v[i], question.input(k).integer) for k, v in others.items()}
        record = record_at(point, False)
        merged.append({**lead, **record})
        records.append(declared.shape(values, point, record) if declared and declared.shape else
                       {**point, **record})
    gather = declared.gather if declared else ""
    if gather:  # one published record: the answers at no point, then every point's under one key
        records = [{**lead, gather: records}]
    notes = [text for note in (declared.notes if declared else ())  # the first answer as merged, before its shape
             for text in (note(values, merged[0]) if callable(note) else note,) if text]
    title = declared.title(values, records[0]) if declared and declared.title else ""
    units = {i.name: i.unit for i in question.input_specs}
    units.update({o.name: o.unit for o in question.output_specs})
    return SizingAnswer(family.name, tuple(records), tuple(notes), units, title, gathered=gather)


def _chosen_targets(family: "Family", sizings: "tuple[Sizing, ...]", declared: "SizingCommand | None",
                    targets: Mapping[str, Any]) -> dict[str, Any]:
    """The targets given, each a target of the command; one at least where the command has any."""
    asked = [s for s in sizings if not s.always]
    by_target = {s.target_name: s for s in asked}
    chosen = {k: v for k, v in targets.items() if v is not None}
    unknown = sorted(set(chosen) - set(by_target))
    if unknown:
        raise InputError(f"{', '.join(unknown)} is no target of family '{family.name}'; its targets: "
                         f"{', '.join(by_target)}")
    if not chosen and asked:
        raise InputError((declared.needs if declared else "") or
                         "give " + " and/or ".join(target_flag(s) for s in asked))
    return chosen


def _inverted_values(family: "Family", question: "Question", declared: "SizingCommand | None", params: Any,
                     cpu_speed: float | None, given: dict[str, Any]
                     ) -> "tuple[dict[str, Any], dict[str, Any], Profile | None]":
    """(the values every ``invert`` gets, the question's inputs as given, the profile that bands the answers
    or None), resolved as the question road resolves them (its settings, a catalogue entry, the profile)
    with the command's own options. A catalogue entry's fit states the entry's published figures: its
    answers carry no interval."""
    from iosizer.calibration.questions import resolved

    base = params if not isinstance(params, Mapping) else None
    for name, message in (declared.refused.items() if declared else ()):
        if base is not None and given.get(name) is not None:
            raise InputError(message)
    own = {}
    for spec in (declared.settings if declared else ()):  # the command's own options: not the family's
        value = given.pop(spec.name, None)
        own[spec.name] = spec.value if value is None else spec.check(value, "--" + spec.name.replace("_", "-"))
    got = resolved(family.name, question, params, cpu_speed, given)
    values = {**got.values, **own}
    values["defaulted"] = frozenset(n for n in question.input_names if got.inputs.get(n) is None)
    banded = got.banded and not got.brought
    conditional = _at_fitted_counts(family, got.profile) if banded and got.profile is not None else None
    if conditional is not None and not any(e.vary for e in conditional.parameters.values()):
        conditional = None
    return values, got.inputs, conditional


def _inverse_answer(sizing: "Sizing", values: Mapping[str, Any], point: Mapping[str, Any], target: Any,
                    conditional: "Profile | None") -> dict[str, Any]:
    """One sizing's ``invert`` at ``point``, its answer banded by the profile's intervals where it has one;
    a number that is not finite (an unbounded answer) is published as null."""
    invert = sizing.invert
    assert invert is not None  # a command's sizings all invert, or none does
    answer = dict(invert(values, point, target))
    key = sizing.report or sizing.search
    if sizing.interval and conditional is not None:
        from iosizer.calibration.sizing import answer_interval, with_interval

        failure = math.inf if sizing.smallest and not sizing.report else 0.0

        def again(moved: Mapping[str, Any]) -> float:
            value = invert({**values, **moved}, point, target)[key]  # None: no answer there
            return failure if value is None else float(value)

        interval = answer_interval(conditional, again, on_failure=failure)
        if sizing.unbounded or interval != (None, None):
            answer = with_interval(answer, key, interval)
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in answer.items()}


# --- the search ---------------------------------------------------------------------------------------


def _search_spec(family: "Family", question: "Question", name: str) -> Any:
    """What a sizing searches: an input of the question, else a parameter or setting of the family."""
    if name in question.input_names:
        return question.input(name)
    return family.spec(name)


def _solve(family: "Family", question: "Question", sizing: "Sizing", values: Mapping[str, Any],
           others: Mapping[str, "np.ndarray"], target: float, percentile: float | None) -> dict[str, Any]:
    """The answer at every row of ``others``: generic keys -> arrays (one value per row)."""
    import numpy as np

    rows = len(next(iter(others.values()))) if others else 1
    spec = _search_spec(family, question, sizing.search)
    low, high = float(spec.bounds[0]), float(spec.bounds[1])
    if sizing.stop is not None:
        high = min(high, float(sizing.stop(values)))
    evaluate = _evaluator(question, sizing, values, others, percentile)

    def meets(x: np.ndarray, rows_at: np.ndarray) -> np.ndarray:
        measure = evaluate(x, rows_at)["measure"]
        return measure <= target if sizing.at_most else measure >= target

    limit = _checked_limit(sizing, values, target)
    everyone = np.arange(rows)
    start = np.full(rows, low)
    if sizing.lowest is not None:
        # fmax: a value the question refuses (nan here) is left to its solve, which says why
        start = np.fmax(start, np.asarray(sizing.lowest(values, others), dtype=np.float64).reshape(-1))
        if np.any(start > high):
            raise InputError(f"more than {high:,.0f} {sizing.search} would be needed (at least "
                             f"{float(start.max()):g})")
    whole = spec.integer
    # A searched setting is one value to the question: the answer is evaluated at one value of it at a time
    # (as the question answers it, to the last digit).
    by_value = sizing.search not in question.input_names
    if sizing.bracket and not whole:  # the interval is known: bisect it at once
        lo, hi = start.copy(), np.full(rows, high)
        _narrow(meets, sizing.smallest, lo, hi, everyone, whole)
        return _at_answer(lo, np.ones(rows, dtype=bool), evaluate, sizing, question, values, others, target,
                          limit, percentile, whole, start, high, by_value)
    first = meets(start, everyone)
    if not sizing.smallest and not first.all():
        at = evaluate(start, everyone)["measure"][~first][0]
        raise _unreachable(f"{_flag(sizing)} {target:g}: even {sizing.search} {float(start[~first][0]):g} gives "
                           f"{_measure_name(question, sizing, percentile)} {at:.6g}")
    flips = first if sizing.smallest else ~first
    lo, hi, pending = _gallop(meets, sizing.smallest, start, high, flips)
    never = ((lo >= high) | pending) & ~flips
    if not sizing.smallest and never.any() and sizing.stop is None:  # met at the declared bound: no edge found
        raise InputError(f"{_flag(sizing)} {target:g} is met even at {sizing.search} {high:,.0f}, the most "
                         f"searched: the answer lies past it")
    if sizing.smallest and never.any() and sizing.reason is None:
        raise _unreachable(f"{_flag(sizing)} {target:g} is out of reach: even {sizing.search} {high:g} does "
                           f"not reach it")
    _narrow(meets, sizing.smallest, lo, hi, np.flatnonzero(~flips & ~never), whole)
    answer = np.where(flips, start, hi) if sizing.smallest else np.where(never, high, lo)
    # Rows out of reach (a sizing that gives a reason instead of an error): an empty answer there.
    found = ~never if sizing.smallest and sizing.reason is not None else np.ones(rows, dtype=bool)
    return _at_answer(answer, found, evaluate, sizing, question, values, others, target, limit, percentile, whole,
                      start, high, by_value)


def _evaluator(question: "Question", sizing: "Sizing", values: Mapping[str, Any], others: Mapping[str, "np.ndarray"],
               percentile: float | None) -> Callable[..., dict[str, Any]]:
    """``evaluate(x, rows_at)``: the question solved with ``search`` at ``x`` on the rows ``rows_at`` of
    ``others``, its outputs and ``measure`` (the sizing's output, or its percentile, named by
    ``_measure_key``)."""
    import numpy as np

    words = set(question.text_outputs)

    def evaluate(x: np.ndarray, rows_at: np.ndarray) -> dict[str, np.ndarray]:
        arrays = {k: np.asarray(v)[rows_at] for k, v in others.items()}
        arrays[sizing.search] = np.asarray(x, dtype=np.float64)
        out = {k: np.asarray(v, dtype=object if k in words else np.float64)
               for k, v in question.solve(values, arrays).items()}
        if percentile is None:
            out["measure"] = out[sizing.output]
            return out
        extra = dict(question.percentiles(values, arrays, (percentile,)))  # type: ignore[misc]
        if isinstance(sizing.percentile, str):  # the declared quantity's among others
            from iosizer.model.percentiles import percentile_key

            wanted = f"{sizing.percentile}_{percentile_key(percentile)}"
            extra = {wanted: extra[wanted]}
        if len(extra) != 1:
            from iosizer.errors import ConsistencyError

            raise ConsistencyError(f"question '{question.command}': a percentile sizing needs one "
                                   f"percentile key per percentile, got {sorted(extra)}")
        (key, value), = extra.items()
        out["measure"] = np.asarray(value, dtype=np.float64)
        out["_measure_key"] = key  # type: ignore[assignment]
        return out

    return evaluate


def _checked_limit(sizing: "Sizing", values: Mapping[str, Any], target: float) -> float | None:
    """The declared supremum (infimum) of the output over every search value, the target refused past it."""
    if sizing.limit is None:
        return None
    limit = float(sizing.limit(values))
    if (target <= limit) if sizing.at_most else (target >= limit):
        edge = "floor" if sizing.at_most else "ceiling"
        raise _unreachable(sizing.unreachable.format(target=target, limit=limit) if sizing.unreachable else
                           f"{_flag(sizing)} {target:g} is at or past the {edge} {limit:.6g} of "
                           f"{sizing.output} (no {sizing.search} reaches it)")
    return limit


def _gallop(meets: Callable[..., "np.ndarray"], smallest: bool, start: "np.ndarray", high: float,
            flips: "np.ndarray") -> "tuple[np.ndarray, np.ndarray, np.ndarray]":
    """From ``start`` by steps of 1, 2, 4, ... until the target flips (smallest: becomes met; largest: stops
    being met) or ``high``: (the last value on the near side of the flip, the first past it (``high`` while
    not found), the rows still not flipped after the most doublings)."""
    import numpy as np

    lo = start.copy()
    hi = np.where(flips, start, high)
    pending = ~flips
    step = np.ones(start.size)
    for _ in range(_REAL_DOUBLINGS):
        if not pending.any():
            break
        idx = np.flatnonzero(pending)
        probe = np.minimum(lo[idx] + step[idx], high)
        ok = meets(probe, idx)
        flipped = ok if smallest else ~ok
        hi[idx] = np.where(flipped, probe, hi[idx])
        lo[idx] = np.where(flipped, lo[idx], probe)
        ended = flipped | (probe >= high)
        pending[idx[ended]] = False
        step[idx] = step[idx] * 2
    return lo, hi, pending


def _narrow(meets: Callable[..., "np.ndarray"], smallest: bool, lo: "np.ndarray", hi: "np.ndarray",
            idx: "np.ndarray", whole: bool) -> None:
    """Each bracket ``[lo, hi]`` of the rows ``idx`` narrowed in place to the flip: on the integers (``hi`` the
    first value past it), or to 1e-12 relative (both ends the edge)."""
    import numpy as np

    if whole:
        between = np.zeros(lo.size, dtype=bool)
        between[idx] = True
        while True:
            open_ = between & (hi - lo > 1)
            if not open_.any():
                return
            at = np.flatnonzero(open_)
            mid = np.floor((lo[at] + hi[at]) / 2)
            ok = meets(mid, at)
            flipped = ok if smallest else ~ok
            hi[at] = np.where(flipped, mid, hi[at])
            lo[at] = np.where(flipped, lo[at], mid)
    if not idx.size:
        return
    from iosizer.model._roots import bisect_increasing

    def step_function(x: np.ndarray) -> np.ndarray:  # -1 on the near side of the flip, +1 past it
        ok = meets(x, idx)
        return np.where(ok if smallest else ~ok, 1.0, -1.0)

    found = bisect_increasing(step_function, lo[idx], hi[idx])
    lo[idx], hi[idx] = found, found  # the edge, to 1e-12 relative, from either side


def _at_answer(answer: "np.ndarray", found: "np.ndarray", evaluate: Callable[..., dict[str, Any]],
               sizing: "Sizing", question: "Question", values: Mapping[str, Any], others: Mapping[str, Any],
               target: float, limit: float | None, percentile: float | None, whole: bool, start: "np.ndarray",
               high: float, by_value: bool) -> dict[str, Any]:
    """The generic keys at the answer: its outputs, the measure, the first value tried (``lowest``) and, for
    a whole number, the measure one step short (``one_fewer``) or past (``one_more``)."""
    import numpy as np

    rows = answer.size
    at = np.flatnonzero(found)
    answer = np.where(found, answer, np.nan)
    solved = _evaluated(evaluate, answer[at], at, by_value) if at.size else {
        k: () for k in (*question.output_names, "measure")}
    out: dict[str, Any] = {"target": np.full(rows, target), sizing.search: answer, "lowest": start}
    for key, value in solved.items():
        if key != "_measure_key":
            column = np.full(rows, np.nan, dtype=np.asarray(value).dtype if np.asarray(value).dtype == object
                             else np.float64)
            column[at] = value
            out[key] = column
    if limit is not None:
        out["limit"] = np.full(rows, limit)
    if percentile is not None:
        out["_measure_key"] = solved["_measure_key"]
    generic = dict(sizing.keys)
    for key, step, there in (("one_fewer", -1, lambda past: past >= start),
                             ("one_more", 1, lambda past: past <= high)):
        if whole and key in generic:  # the measure one whole step away (empty out of range or unstable)
            past = answer + step
            near = found & there(past)
            beside = np.full(rows, np.nan)
            if near.any():
                beside[near] = _evaluated(evaluate, past[near], np.flatnonzero(near), by_value)["measure"]
            out[key] = beside
    if sizing.at_answer is not None:
        implied = [sizing.at_answer(values, {k: np.asarray(v)[i:i + 1] for k, v in others.items()},
                                    None if not found[i] else answer[i].item(), target) for i in range(rows)]
        for key in implied[0] if implied else ():
            out[key] = [row[key] for row in implied]
    if sizing.reason is not None:
        out["reason"] = ["" if found[i] else sizing.reason(values, {k: np.asarray(v)[i:i + 1]
                                                                     for k, v in others.items()})
                         for i in range(rows)]
    return out


def _evaluated(evaluate: Callable[..., dict[str, Any]], x: "np.ndarray", rows_at: "np.ndarray",
               by_value: bool) -> dict[str, Any]:
    """``evaluate(x, rows_at)``; ``by_value``: one distinct value of ``x`` at a time, reassembled."""
    import numpy as np

    if not by_value:
        return evaluate(x, rows_at)
    out: dict[str, Any] = {}
    for value in np.unique(x):
        here = np.flatnonzero(x == value)
        part = evaluate(x[here], rows_at[here])
        for key, got in part.items():
            if isinstance(got, str):
                out[key] = got
                continue
            if key not in out:
                out[key] = np.empty(x.size, dtype=np.asarray(got).dtype)
            out[key][here] = np.broadcast_to(got, here.shape)
    return out


def _unreachable(message: str) -> IosizerError:
    from iosizer.model.sizing import UnreachableTargetError

    return UnreachableTargetError(message)


def _flag(sizing: "Sizing") -> str:
    return target_flag(sizing)


# --- naming the answer ------------------------------------------------------------------------------


def _measure_name(question: "Question", sizing: "Sizing", percentile: float | None) -> str:
    if percentile is None:
        return sizing.output
    from iosizer.model.percentiles import percentile_key

    return f"{sizing.output} taken at its {percentile_key(percentile)} (the percentile)"


def _metric(sizing: "Sizing", percentile: float | None) -> str:
    return f"p{percentile:g}" if percentile is not None else (sizing.metric or sizing.output)


def _default_keys(question: "Question", sizing: "Sizing", measure_key: str | None) -> list[tuple[str, str]]:
    keys = [("target", sizing.target_name)]
    if sizing.percentile:
        keys.append(("metric", "metric"))
    keys.append((sizing.search, sizing.search))
    keys += [(o, o) for o in question.output_names]
    if sizing.limit is not None:
        keys.append(("limit", f"{'floor' if sizing.at_most else 'ceiling'}_{sizing.output}"))
    if measure_key is not None:
        keys.append(("measure", measure_key))
    return keys


def _printed(sizing: "Sizing", generic: str, percentile: float | None, measure: str = "") -> str:
    if sizing.keys:
        return dict(sizing.keys).get(generic, generic).replace("{measure}", measure or sizing.output)
    return generic


def _named(family: "Family", question: "Question", sizing: "Sizing", generic: Mapping[str, Any],
           percentile: float | None, point: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The record of one row: the declared keys (or the generic ones), an input's or a value's by name."""
    measure_key = generic.get("_measure_key")
    keys = list(sizing.keys) or _default_keys(question, sizing, measure_key)
    record: dict[str, Any] = {}
    for source, shown in keys:
        shown = shown.replace("{measure}", str(measure_key or sizing.output))
        if source == "metric":
            record[shown] = _metric(sizing, percentile)
        elif source == "percentile":  # the P given; no key without one
            if percentile is not None:
                record[shown] = float(percentile)
        elif source in generic:
            value = generic[source]
            whole = source in (sizing.search, "lowest") and _search_spec(family, question, sizing.search).integer
            record[shown] = int(value) if whole and value is not None else value
        elif source in point:
            record[shown] = _plain(point[source].reshape(-1)[0], question.input(source).integer)
        else:
            value = values[source]
            whole = source in {p.name for p in family.parameters} and family.spec(source).integer
            record[shown] = int(value) if whole else float(value) if isinstance(value, (int, float)) else value
    return record


def _row(value: Any, i: int) -> Any:
    import numpy as np

    if isinstance(value, str):
        return value
    if isinstance(value, list):  # words, one per row (a reason)
        return value[i]
    array = np.asarray(value).reshape(-1)
    if array.dtype == object:  # a text output
        return array[i] if array.size > 1 else array[0]
    number = float(array[i] if array.size > 1 else array[0])
    return number if math.isfinite(number) else None


def _plain(value: Any, integer: bool) -> Any:
    number = float(value)
    return int(number) if integer else number


def _number(value: Any, label: str) -> float:
    if isinstance(value, bool):
        raise InputError(f"{label} must be a finite number > 0, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{label} must be a finite number > 0, got {value!r}") from None
    if not (math.isfinite(number) and number > 0):
        raise InputError(f"{label} must be a finite number > 0, got {number:g}")
    return number


def _other_inputs(question: "Question", searched: set[str], given: Mapping[str, Any],
                  values: Mapping[str, Any] | None = None) -> dict[str, "np.ndarray"]:
    """The inputs not searched, each checked, over every combination (flattened: one row each)."""
    from iosizer.calibration.questions import _input_grid

    rest = replace(question, inputs=tuple(i for i in question.input_specs if i.name not in searched),
                   outputs=question.output_specs, sizing=(), sizing_commands=(), plot=None)
    grid = _input_grid(rest, given, values)
    return {k: v.reshape(-1) for k, v in grid.items()}


# --- the profile at its fitted counts ---------------------------------------------------------------


def _at_fitted_counts(family: "Family", profile: "Profile") -> "Profile":
    """The profile with its whole-number fitted parameters held and the others' intervals taken at that
    count (estimate +/- the normal quantile x their standard error)."""
    whole = set(family.fit.whole) if family.fit is not None else set()
    if not whole & {n for n, e in profile.parameters.items() if e.vary}:
        return profile
    from iosizer.calibration.fit import NORMAL_QUANTILE

    parameters = {}
    for name, estimate in profile.parameters.items():
        if name in whole:
            estimate = estimate.model_copy(update={"vary": False})
        elif estimate.vary and estimate.stderr is not None and math.isfinite(estimate.stderr):
            half = NORMAL_QUANTILE * estimate.stderr
            estimate = estimate.model_copy(update={"ci_low": max(estimate.value - half, 0.0),
                                                   "ci_high": estimate.value + half})
        parameters[name] = estimate
    return profile.model_copy(update={"parameters": parameters})


def _whole_note(family: "Family", profile: "Profile | None") -> str:
    """'; parallel_units 1 (95 % plausible 1-6)' for each whole-number fitted parameter of the profile."""
    if profile is None or family.fit is None:
        return ""
    parts = []
    for name in family.fit.whole:
        estimate = profile.parameters.get(name)
        if estimate is not None and estimate.vary and estimate.ci_low is not None:
            parts.append(f"{name} {estimate.value:g} (95 % plausible {estimate.ci_low:g}-{estimate.ci_high:g})")
    return "; " + ", ".join(parts) if parts else ""
