"""``iosizer simulate <family>`` from a question's declared ``simulate`` hook (see ``Question.simulate``).

The question is answered first (:func:`iosizer.calibration.questions.answer`: values from
the profile and what the planner gives, every input checked by its
declaration, percentiles where asked); the hook then builds the simulated
system at the same values and points, and the run (:func:`iosizer.simulate.run_experiment`:
replications, a CI target, a time budget, the numpy or library engine)
estimates each output, ``<output>_at_<k>`` at point k, with its 95 %
replication interval. A percentile is each replication's empirical
percentile of its records, so its interval is the replications' spread too.
Nothing here names a family.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from iosizer.errors import InputError

if TYPE_CHECKING:
    from iosizer.calibration.profile import Profile
    from iosizer.model.family import Family, Question
    from iosizer.simulate import SimulationResult
    from iosizer.simulate.systems import Experiment

__all__ = ["declared_experiment", "simulate_declared", "simulated_question"]


def _hook(family: "Family", question: "Question") -> Callable[..., Any] | None:
    from iosizer.model.family import Simulation
    from iosizer.simulate.hooks import SIMULATED

    if isinstance(question.simulate, Simulation):  # a simulation with its own options (iosizer.simulate.systems)
        return None
    return question.simulate or SIMULATED.get((family.name, question.command))


def simulated_question(family: "Family") -> "Question | None":
    """The family's first answerable question with a ``simulate`` hook, or None."""
    return next((q for q in family.questions if q.answerable and _hook(family, q) is not None), None)


def declared_experiment(family_name: str, question: str | None = None, params: "Profile | None" = None, *,
                        percentiles: Sequence[float] | None = None, run_length: int | None = None,
                        **given: Any) -> "Experiment":
    """The experiment of ``question`` (default: the family's simulated one): the hook's system at the
    answer's values and points, each output's analytic value beside it."""
    from iosizer.calibration.questions import answer as answered
    from iosizer.model.percentiles import parse_percentiles
    from iosizer.model.registry import declaration
    from iosizer.simulate.closed import DEFAULT_COMPLETIONS
    from iosizer.simulate.systems import Experiment, Metric, _length

    family = declaration(family_name)
    asked = simulated_question(family) if question is None else family.question(question)
    hook = None if asked is None else _hook(family, asked)
    if asked is None or hook is None:
        raise InputError(f"family '{family_name}' has no simulation (no question declares a simulate hook)")
    chosen = tuple(parse_percentiles(percentiles)) if percentiles else ()
    answer = answered(family_name, asked.command, params, percentiles=list(chosen) or None, **given)
    model = hook(answer.values, answer.inputs, run_length=_length(run_length, DEFAULT_COMPLETIONS),
                 percentiles=chosen)
    integers = {i.name for i in asked.input_specs if i.integer}
    count = len(next(iter(answer.inputs.values()))) if answer.inputs else 1
    metrics = []
    for k in range(count):
        point = tuple((name, int(v[k]) if name in integers else float(v[k])) for name, v in answer.inputs.items())
        for name, values in answer.outputs.items():
            if name in asked.text_outputs:  # words are no metric
                continue
            metrics.append(Metric(f"{name}_at_{k}", float(values[k]), target=name in asked.output_names,
                                  label=name, point=point))
    shown = ", ".join(f"{name} {','.join(f'{v:g}' for v in values)}" for name, values in answer.inputs.items())
    notes = [n for n in answer.notes if n.startswith("values:")] + list(getattr(model, "notes", ()))
    if chosen:
        notes.append("percentiles: each replication's empirical percentile of its measured records; the "
                     "interval is the replications' spread (not a target of --target-ci-pct)")
    return Experiment(family_name, f"{family_name} {asked.command}", f"{family_name} {asked.command}, {shown}",
                      model, tuple(metrics), getattr(model, "analytic_method", "the question's solve"),
                      getattr(model, "simulator", "SimPy"), tuple(notes))


def simulate_declared(family_name: str, question: str | None = None, params: "Profile | None" = None, *,
                      percentiles: Sequence[float] | None = None, run_length: int | None = None,
                      replications: int | None = None, target_ci_pct: float | None = None,
                      max_seconds: float | None = None, seed: int = 0, workers: int | None = None,
                      scheduler: str | None = None, engine: str | None = None,
                      progress: Callable[[int, int], None] | None = None, **given: Any) -> "SimulationResult":
    """Simulate the declared question and compare with its analytic answer (rows as ``iosizer simulate``)."""
    from iosizer.simulate import run_experiment

    built = declared_experiment(family_name, question, params, percentiles=percentiles, run_length=run_length,
                                **given)
    return run_experiment(built, replications=replications, target_ci_pct=target_ci_pct, max_seconds=max_seconds,
                          seed=seed, workers=workers, scheduler=scheduler, progress=progress, engine=engine)
