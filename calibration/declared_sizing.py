"""Sizing from a question's declaration: every :class:`~iosizer.model.family.Sizing` answered by one search.

A declared sizing names an input to search (``search``), an output and a
direction; the feasible inputs form one interval (the declaration says which
end). The answer is its edge:

- a whole-number input: galloping from the interval's known end (1, 2, 4, ...
  steps) until the target flips, then bisection on the integers: about
  2 log2(answer) solves, every combination of the other inputs at once (each
  solve is the question's own vectorised ``solve``);
- a real input: the same galloping to a bracket, then
  :func:`iosizer.model._roots.bisect_increasing` to 1e-12 relative (at once on
  ``[lowest, stop]`` where the declaration knows the interval: ``bracket``).

The search may be a whole-number setting of the family (the servers of an
M/M/c queue) rather than an input; it starts at the declaration's ``lowest``
(the smallest stable count) and a target the declaration's ``unreachable``
refuses is a one-line :class:`~iosizer.model.sizing.UnreachableTargetError`.
A family has one or more sizing commands (``Sizing.command``); one command may
be declared by several families (``iosizer size load``: an M/M/c queue's
arrival rate, a closed network's population; :mod:`iosizer.cli.declared`).

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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from iosizer.errors import InputError, IosizerError, ProfileError
from iosizer.frames import Table, TableView
from iosizer.model.registry import declaration

if TYPE_CHECKING:
    import numpy as np

    from iosizer.calibration.profile import Profile
    from iosizer.model.family import Family, Question, Sizing

__all__ = ["SizingAnswer", "sizing_commands", "sizing_question", "size", "target_flag"]

#: Galloping doublings a real-valued search tries past its start before calling the target unreachable.
_REAL_DOUBLINGS = 2000


def target_flag(sizing: "Sizing") -> str:
    return "--" + sizing.target_name.replace("_", "-")


def sizing_question(family: "Family") -> "Question | None":
    """The family's question that declares sizing (the first), or None."""
    return next((q for q in family.questions if q.answerable and q.sizing), None)


@dataclass(frozen=True, repr=False)
class SizingAnswer(TableView):
    """The answer of ``iosizer size <family>``: one record per combination of the other inputs.

    :meth:`to_data` is what ``--format json`` prints (one record, or a list of them).
    """

    family: str
    records_: tuple[dict[str, Any], ...]
    notes: tuple[str, ...] = ()
    units: Mapping[str, str] = field(default_factory=dict)
    title: str = ""

    def records(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.records_]

    def to_data(self) -> Any:
        rows = self.records()
        return rows[0] if len(rows) == 1 else rows

    def to_dict(self) -> Any:
        return self.to_data()

    def to_json(self) -> str:
        import json

        return json.dumps(self.to_data(), indent=2, allow_nan=False)

    def table(self) -> Table:
        return Table.of(self.records(), units=dict(self.units), title=self.title or f"{self.family} sizing",
                        notes=self.notes)


def sizing_commands(family: "Family") -> dict[str, tuple["Sizing", ...]]:
    """The family's sizing commands (``iosizer size <command>``) and each one's targets, in declared order."""
    question = sizing_question(family)
    found: dict[str, tuple[Sizing, ...]] = {}
    for sizing in question.sizing if question is not None else ():
        name = sizing.command or family.name
        found[name] = (*found.get(name, ()), sizing)
    return found


def _command_of(family: "Family", command: str | None) -> tuple[str, tuple["Sizing", ...]]:
    commands = sizing_commands(family)
    if not commands:
        raise InputError(f"family '{family.name}' declares no sizing")
    if command is None:  # the family's own, else its first
        command = family.name if family.name in commands else next(iter(commands))
    if command not in commands:
        raise InputError(f"family '{family.name}' has no sizing '{command}'; its sizings: {', '.join(commands)}")
    return command, commands[command]


def size(family_name: str, params: "Profile | Mapping[str, Any] | None" = None, *,
         targets: Mapping[str, Any], percentile: float | None = None, cpu_speed: float | None = None,
         command: str | None = None, profile_name: str | None = None, **given: Any) -> SizingAnswer:
    """Answer every target of ``targets`` (a declared :class:`Sizing`'s ``target_name`` -> value).

    ``params``: a profile (its intervals give each answer's interval), a mapping of values laid over
    the shipped profile, or None for the shipped one. ``given``: the question's other inputs (a value
    or a list: one answer per combination) and any setting or parameter by name. ``percentile``: the
    P-th percentile in place of the mean for the sizings that declare ``percentile``. ``command``: which
    of the family's sizing commands (default: the family's own, else its first); ``profile_name``: the
    profile as the planner named it (for the notes).
    """
    import numpy as np

    from iosizer.calibration.questions import _itemised, _unaliased, resolve

    family = declaration(family_name)
    question = sizing_question(family)
    command, sizings = _command_of(family, command)
    given = _itemised(question, _unaliased(question, given))  # older names, and lists laid out (a demand each)
    by_target = {s.target_name: s for s in sizings}
    chosen = {k: v for k, v in targets.items() if v is not None}
    unknown = sorted(set(chosen) - set(by_target))
    if unknown:
        raise InputError(f"{', '.join(unknown)} is no target of family '{family_name}'; its targets: "
                         f"{', '.join(by_target)}")
    alone = [s for s in sizings if s.alone]
    if alone and (len(chosen) > 1 or not chosen):  # the targets are alternatives
        raise InputError("give one target: " + " or ".join(target_flag(s) for s in sizings))
    if not chosen:
        raise InputError("give " + " and/or ".join(target_flag(s) for s in sizings))
    if percentile is not None:
        takes = [s for s in sizings if s.percentile]
        if not any(by_target[k].percentile for k in chosen):
            others = ", not " + " or ".join(target_flag(by_target[k]) for k in chosen) if takes else ""
            raise InputError("--percentile goes with " + (" or ".join(target_flag(s) for s in takes)
                                                          if takes else "no target of this family") + others)
        from iosizer.model.percentiles import PERCENTILE

        percentile = PERCENTILE.check(percentile, "--percentile")
    checked_targets = {}
    for name, value in chosen.items():
        checked_targets[name] = _target(by_target[name], value)
    searched = {by_target[k].search for k in chosen}
    if len(chosen) > 1 and len(searched) > 1:  # one target's search would be another's given input
        raise InputError(f"{' and '.join('--' + k.replace('_', '-') for k in chosen)} search different inputs "
                         f"({', '.join(sorted(searched))}); give one of them at a time")
    inputs = {k: given.pop(k) for k in list(given) if k in question.input_names}
    stray = sorted(k for k in searched if inputs.get(k) is not None or given.get(k) is not None)
    if stray:
        raise InputError(f"{', '.join(stray)} is what the sizing finds; leave it out")
    changes = dict(params) if isinstance(params, Mapping) else {}
    changes.update(given)
    for name in searched - set(question.input_names):  # a searched setting: any value resolves, the search sets it
        changes[name] = family.spec(name).bounds[0]
    base = params if not isinstance(params, Mapping) else None
    if base is None:  # no profile: what the question assumes of a parameter left out
        changes.update({k: v for k, v in question.defaults.items() if changes.get(k) is None})
    if base is None and not question.shipped:  # the planner's own system: every parameter given, or a profile
        from iosizer.calibration.questions import _require_parameters

        _require_parameters(family_name, question, changes, cpu_speed)
    values, profile, source = resolve(family_name, base, cpu_speed, changes)
    others = _other_inputs(question, searched, inputs)
    rows = len(next(iter(others.values()))) if others else 1
    # The other inputs lead each record, unless the declared keys place them.
    placed = all(by_target[k].keys for k in checked_targets)
    records: list[dict[str, Any]] = [{} if placed else {k: _plain(v[i], question.input(k).integer)
                                                        for k, v in others.items()} for i in range(rows)]
    conditional = _at_fitted_counts(family, profile) if profile is not None else None
    intervals_used = False
    measures: list[str] = []
    for name, target in checked_targets.items():
        sizing = by_target[name]
        p = percentile if sizing.percentile else None
        if sizing.unreachable is not None:
            reason = sizing.unreachable(values, target, p)
            if reason:
                raise _unreachable(reason)
        solved = _solve(family, question, sizing, values, others, target, p)
        measures.append(str(solved.get("_measure_key", sizing.output)))
        shown_keys = [_printed(sizing, key, p, measures[-1]) for key in (sizing.intervals or
                                                                          (sizing.report or sizing.search,))]
        for i in range(rows):
            generic = {key: _row(value, i) for key, value in solved.items()}
            point = {k: v[i:i + 1] for k, v in others.items()}
            record = _named(question, sizing, generic, p, values, point)
            if conditional is not None and any(e.vary for e in conditional.parameters.values()):
                from iosizer.calibration.sizing import answer_interval, with_interval

                moving = set(conditional.parameters)
                for key, shown in zip(sizing.intervals or (sizing.report or sizing.search,), shown_keys):
                    def again(moved: Mapping[str, Any], point: Mapping[str, Any] = point, key: str = key) -> float:
                        changed = {k: v for k, v in moved.items() if k in moving}
                        result = _solve(family, question, sizing, {**values, **changed}, point, target, p)
                        return float(np.asarray(result[key]).reshape(-1)[0])

                    interval = answer_interval(conditional, again, on_failure=math.inf if sizing.smallest and
                                               not sizing.report else 0.0)
                    record = with_interval(record, shown, interval)
                intervals_used = True
            records[i].update(record)
    first = by_target[next(iter(checked_targets))]
    said = {"measure": measures[0], "profile": profile_name, "intervals": intervals_used}
    if first.notes is not None:
        notes = list(first.notes(values, said))
    else:
        notes = [f"{target_flag(by_target[k])}: the {'smallest' if by_target[k].smallest else 'largest'} "
                 f"{by_target[k].search} with "
                 f"{_measure_name(question, by_target[k], percentile if by_target[k].percentile else None)} "
                 f"{'at most' if by_target[k].at_most else 'at least'} the target" for k in checked_targets]
        notes.append(f"values: {source}{_whole_note(family, profile)}")
        if intervals_used:
            held = [n for n in (family.fit.whole if family.fit else ()) if n in profile.parameters]
            at = f" with {', '.join(held)} held at its fitted count" if held else ""
            notes.append(f"_ci_low/_ci_high: the answer at the corners of the fitted parameters' 95 % intervals{at} "
                         "(empty, null in JSON: out of reach there)")
    units = {i.name: i.unit for i in question.input_specs}
    units.update({o.name: o.unit for o in question.output_specs})
    title = first.title(values) if first.title is not None else f"{family_name} sizing"
    return SizingAnswer(family_name, tuple(records), tuple(notes), units, title)


def _target(sizing: "Sizing", value: Any) -> float:
    """The target checked: a finite number > the declared lower bound, at most the upper."""
    name = sizing.target_name
    if isinstance(value, bool):
        raise InputError(f"{name} must be a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {value!r}") from None
    low, high = sizing.target_bounds
    if not math.isfinite(number):
        raise InputError(f"{name} must be finite, got {number:g}")
    if not number > low:
        raise InputError(f"{name} must be > {low:g}, got {number:g}")
    if number > high:
        raise InputError(f"{name} must lie in ({low:g}, {high:g}], got {number:g}")
    return number


# --- the search ---------------------------------------------------------------------------------------


def _solve(family: "Family", question: "Question", sizing: "Sizing", values: Mapping[str, Any],
           others: Mapping[str, "np.ndarray"], target: float, percentile: float | None) -> dict[str, "np.ndarray"]:
    """The answer at every row of ``others``: generic keys -> arrays (one value per row)."""
    import numpy as np

    rows = len(next(iter(others.values()))) if others else 1
    as_input = sizing.search in question.input_names
    spec = question.input(sizing.search) if as_input else family.spec(sizing.search)
    low, high = float(spec.bounds[0]), float(spec.bounds[1])
    if sizing.stop is not None:
        high = min(high, float(sizing.stop(values)))
    measure_key = sizing.output

    def evaluate(x: np.ndarray, rows_at: np.ndarray) -> dict[str, np.ndarray]:
        arrays = {k: np.asarray(v)[rows_at] for k, v in others.items()}
        at = dict(values)
        if as_input:
            arrays[sizing.search] = np.asarray(x, dtype=np.float64)
        else:  # a searched setting: the solve broadcasts it with the inputs
            at[sizing.search] = np.asarray(x, dtype=np.float64)
        words = set(question.text_outputs)
        out = {k: np.asarray(v, dtype=object if k in words else np.float64)
               for k, v in question.solve(at, arrays).items()}
        if percentile is not None:
            extra = dict(question.percentiles(at, arrays, (percentile,)))  # type: ignore[misc]
            if isinstance(sizing.percentile, str):
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
        else:
            out["measure"] = out[measure_key]
        return out

    def meets(x: np.ndarray, rows_at: np.ndarray) -> np.ndarray:
        measure = evaluate(x, rows_at)["measure"]
        return measure <= target if sizing.at_most else measure >= target

    limit = None
    if sizing.limit is not None:
        limit = float(sizing.limit(values))
        if (target <= limit) if sizing.at_most else (target >= limit):
            edge = "floor" if sizing.at_most else "ceiling"
            raise _unreachable(f"{_flag(sizing)} {target:g} is at or past the {edge} {limit:.6g} of "
                               f"{sizing.output} (no {sizing.search} reaches it)")
    everyone = np.arange(rows)
    start = np.full(rows, low)
    if sizing.lowest is not None:
        # fmax: a value the question refuses (nan here) is left to its solve, which says why
        start = np.fmax(start, np.asarray(sizing.lowest(values, others), dtype=np.float64).reshape(-1))
        if np.any(start > high):
            raise InputError(f"more than {high:,.0f} {sizing.search} would be needed (at least "
                             f"{float(start.max()):g})")
    whole = spec.integer
    if sizing.bracket and not whole:  # the interval is known: bisect it at once
        from iosizer.model._roots import bisect_increasing

        def step_function(x: np.ndarray) -> np.ndarray:  # -1 on the feasible side, +1 past it
            ok = meets(x, everyone)
            return np.where(ok if sizing.smallest else ~ok, 1.0, -1.0)

        found = bisect_increasing(step_function, start, np.full(rows, high))
        return _at_answer(found, evaluate, everyone, sizing, target, limit, percentile, whole, start, high,
                          not as_input)
    first = meets(start, everyone)
    if not sizing.smallest and not first.all():
        at = evaluate(start, everyone)["measure"][~first][0]
        raise _unreachable(f"{_flag(sizing)} {target:g}: even {sizing.search} {float(start[~first][0]):g} gives "
                           f"{_measure_name(question, sizing, percentile)} {at:.6g}")
    # Gallop from the start until the target flips (smallest: becomes met; largest: stops being met).
    flips = first if sizing.smallest else ~first
    lo = start.copy()                    # the last value on the near side of the flip
    hi = np.where(flips, start, high)    # the first value past it (``high`` while not found)
    pending = ~flips
    step = np.ones(rows)
    for _ in range(_REAL_DOUBLINGS):
        if not pending.any():
            break
        idx = np.flatnonzero(pending)
        probe = np.minimum(lo[idx] + step[idx], high)
        ok = meets(probe, idx)
        flipped = ok if sizing.smallest else ~ok
        hi[idx] = np.where(flipped, probe, hi[idx])
        lo[idx] = np.where(flipped, lo[idx], probe)
        ended = flipped | (probe >= high)
        pending[idx[ended]] = False
        step[idx] = step[idx] * 2
    never = ((lo >= high) | pending) & ~flips
    if not sizing.smallest and never.any() and sizing.stop is None:  # met at the declared bound: no edge found
        raise InputError(f"{_flag(sizing)} {target:g} is met even at {sizing.search} {high:,.0f}, the most "
                         f"searched: the answer lies past it")
    if sizing.smallest and never.any():
        raise _unreachable(f"{_flag(sizing)} {target:g} is out of reach: even {sizing.search} {high:g} does "
                           f"not reach it")
    if whole:
        between = ~flips & ~never
        while True:
            open_ = between & (hi - lo > 1)
            if not open_.any():
                break
            idx = np.flatnonzero(open_)
            mid = np.floor((lo[idx] + hi[idx]) / 2)
            ok = meets(mid, idx)
            flipped = ok if sizing.smallest else ~ok
            hi[idx] = np.where(flipped, mid, hi[idx])
            lo[idx] = np.where(flipped, lo[idx], mid)
    else:
        from iosizer.model._roots import bisect_increasing

        idx = np.flatnonzero(~flips & ~never)
        if idx.size:
            def step_function(x: np.ndarray) -> np.ndarray:  # -1 on the near side of the flip, +1 past it
                ok = meets(x, idx)
                return np.where(ok if sizing.smallest else ~ok, 1.0, -1.0)

            found = bisect_increasing(step_function, lo[idx], hi[idx])
            lo[idx], hi[idx] = found, found  # the edge, to 1e-12 relative, from either side
    if sizing.smallest:
        answer = np.where(flips, start, hi)
    else:
        answer = np.where(never, high, lo)
    return _at_answer(answer, evaluate, everyone, sizing, target, limit, percentile, whole, start, high,
                      not as_input)


def _at_answer(answer: "np.ndarray", evaluate: Callable[..., dict[str, "np.ndarray"]], everyone: "np.ndarray",
               sizing: "Sizing", target: float, limit: float | None, percentile: float | None, whole: bool,
               start: "np.ndarray", high: float, by_value: bool = False) -> dict[str, Any]:
    """The generic keys at the answer: its outputs, the measure, and (a whole number) the measure one step past.

    ``by_value``: a searched setting, which the question otherwise always holds at one value: the answer is
    evaluated at one value of it at a time (as the question answers it, to the last digit)."""
    import numpy as np

    rows = answer.size
    solved = _evaluated(evaluate, answer, everyone, by_value)
    out: dict[str, Any] = {"target": np.full(rows, target), sizing.search: answer}
    out.update({k: v for k, v in solved.items() if k not in ("_measure_key",)})
    out["lowest"] = start
    if whole:  # the measure one step past the answer: one fewer (smallest) or one more (largest)
        past = answer - 1 if sizing.smallest else answer + 1
        there = (past >= start) & (past <= high)
        beside = np.full(rows, np.inf)
        if there.any():
            beside[there] = _evaluated(evaluate, past[there], np.flatnonzero(there), by_value)["measure"]
        out["beside"] = beside
    if limit is not None:
        out["limit"] = np.full(rows, limit)
    if percentile is not None:
        out["_measure_key"] = solved["_measure_key"]
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
        return dict(sizing.keys).get(generic, generic).replace("{measure}", measure)
    return generic


def _named(question: "Question", sizing: "Sizing", generic: Mapping[str, Any], percentile: float | None,
           values: Mapping[str, Any] | None = None, point: Mapping[str, Any] | None = None) -> dict[str, Any]:
    measure_key = generic.get("_measure_key")
    keys = list(sizing.keys) or _default_keys(question, sizing, measure_key)
    measure = str(measure_key or sizing.output)
    spec = question.input(sizing.search) if sizing.search in question.input_names else None
    whole = spec.integer if spec is not None else True
    record: dict[str, Any] = {}
    for source, shown in keys:
        shown = shown.replace("{measure}", measure)
        if source == "metric":
            record[shown] = _metric(sizing, percentile)
        elif source == "percentile":  # the P given; no key without one
            if percentile is not None:
                record[shown] = float(percentile)
        elif source in (sizing.search, "lowest"):
            value = generic[source]
            record[shown] = int(value) if whole and value is not None else value
        elif source in generic:
            record[shown] = generic[source]
        elif point is not None and source in point:  # another input of the question at this point
            record[shown] = _plain(point[source][0], question.input(source).integer)
        elif values is not None and source in values:  # a parameter or setting
            record[shown] = values[source]
        else:
            from iosizer.errors import ConsistencyError

            raise ConsistencyError(f"sizing of '{question.command}': key {source!r} is no generic key, input, "
                                   "parameter or setting")
    return record


def _row(value: Any, i: int) -> Any:
    import numpy as np

    if isinstance(value, str):
        return value
    array = np.asarray(value).reshape(-1)
    if array.dtype == object:  # a text output
        return array[i] if array.size > 1 else array[0]
    number = float(array[i] if array.size > 1 else array[0])
    return number if math.isfinite(number) else None


def _plain(value: Any, integer: bool) -> Any:
    number = float(value)
    return int(number) if integer else number


def _other_inputs(question: "Question", searched: set[str], given: Mapping[str, Any]) -> dict[str, "np.ndarray"]:
    """The inputs not searched, each checked, over every combination (flattened: one row each)."""
    from dataclasses import replace

    from iosizer.calibration.questions import _input_grid

    rest = replace(question, inputs=tuple(i for i in question.input_specs if i.name not in searched),
                   outputs=question.output_specs, sizing=(), plot=None)
    grid = _input_grid(rest, given)
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
