"""``--simulate``: a what-if's percentiles answered by simulation, with their 95 % intervals.

A question's analytic ``wait_pP``/``response_pP`` become the simulated
means; ``<key>_sim_low``/``_sim_high`` hold the interval over replications
and ``<key>_model`` the analytic value (its profile band and grid error go,
they describe the number replaced). The simulations are
:mod:`iosizer.simulate.tails` (numpy recursions, fixed seed). A declared
question gets ``--simulate`` from a percentile-simulation hook
(``Question.simulate_percentiles``, or :data:`iosizer.simulate.hooks.SIMULATED_PERCENTILES`
for a built-in family); :func:`simulate_percentiles` applies it to an answer.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from iosizer.errors import InputError

if TYPE_CHECKING:
    from iosizer.calibration.questions import Answer

__all__ = ["MAX_SIMULATED_POINTS", "MEANS_REPLICATIONS", "check_simulate", "closed_simulated",
           "closed_simulated_note", "means_simulation", "open_simulated_note", "open_simulation", "simulate_means",
           "simulate_percentiles", "simulated"]

#: Points (arrival rates, thread counts) one --simulate answer may simulate: about a second each.
MAX_SIMULATED_POINTS = 10
#: What a simulated key replaces: the analytic value's band and grid error.
_REPLACED = ("_ci_low", "_ci_high", "_error_pct")


def check_simulate(simulate: bool, percentiles: Sequence[float] | None, points: int) -> bool:
    """Whether to simulate; an error if --simulate has no --percentile or too many points."""
    if not simulate:
        return False
    if not percentiles:
        raise InputError("--simulate simulates the --percentile values: give --percentile P")
    if points > MAX_SIMULATED_POINTS:
        raise InputError(f"--simulate takes at most {MAX_SIMULATED_POINTS} points (about a second each), got {points}")
    return True


def simulated(answer: Mapping[str, Any], estimates: Mapping[str, Any]) -> dict[str, Any]:
    """``answer`` with each key of ``estimates`` (``response_p99``: an Estimate) answered by the simulation:
    the key holds the simulated mean, ``<key>_sim_low``/``_sim_high`` its 95 % interval and ``<key>_model``
    the analytic value; the analytic value's profile band and grid error (``_ci_*``, ``_error_pct``) go."""
    out = dict(answer)
    for key, estimate in estimates.items():
        for suffix in _REPLACED:
            out.pop(key + suffix, None)
        if key in out:
            out[f"{key}_model"] = out[key]
        out[key] = estimate.mean
        out[f"{key}_sim_low"], out[f"{key}_sim_high"] = estimate.low, estimate.high
    return out


def simulate_percentiles(answer: "Answer", hook: Callable[..., Any], percentiles: Sequence[float]) -> "Answer":
    """A declared question's ``answer`` with its percentiles simulated at each point (see :func:`simulated`).

    ``hook(values, inputs, percentiles)`` -> (one ``{key: Estimate}`` per point, the note saying how it was
    simulated); ``inputs`` hold each input flat, one entry per point, as the answer's records list them.
    """
    points = len(next(iter(answer.inputs.values()))) if answer.inputs else 1
    check_simulate(True, percentiles, points)
    return _simulated_answer(answer, hook, tuple(percentiles))


def simulate_means(answer: "Answer", hook: Callable[..., Any]) -> "Answer":
    """A declared question's ``answer`` with the outputs its :class:`~iosizer.model.family.Simulation`
    estimates simulated at each point (``hook``: :func:`means_simulation`), as :func:`simulate_percentiles`
    lays them out: the output holds the simulated mean, ``_sim_low``/``_sim_high`` its 95 % interval and
    ``_model`` the analytic value; every surface's shape keeps those columns."""
    points = len(next(iter(answer.inputs.values()))) if answer.inputs else 1
    if points > MAX_SIMULATED_POINTS:
        raise InputError(f"--simulate takes at most {MAX_SIMULATED_POINTS} points (about a second each), got {points}")
    return _simulated_answer(answer, hook, (), carried=True)


def _simulated_answer(answer: "Answer", hook: Callable[..., Any], percentiles: tuple[float, ...],
                      carried: bool = False) -> "Answer":
    import numpy as np

    if answer.parts:  # a swept setting: each choice simulated on its own values
        parts = tuple((chosen, _simulated_answer(part, hook, percentiles, carried)) for chosen, part in answer.parts)
        notes = tuple(dict.fromkeys(n for _, part in parts for n in part.notes))
        kept = tuple(dict.fromkeys(k for _, part in parts for k in part.carried))
        return replace(answer, parts=parts, notes=notes, carried=kept)
    found, note = hook(answer.values, answer.inputs, percentiles)
    keys = list(found[0]) if found else []
    outputs = {k: v for k, v in answer.outputs.items() if not any(k == f"{s}{x}" for s in keys for x in _REPLACED)}
    extra: dict[str, Any] = {}
    for key in keys:
        extra[f"{key}_model"] = np.asarray(outputs[key], dtype=np.float64) if key in outputs else None
        outputs[key] = np.array([point[key].mean for point in found], dtype=np.float64)
    simulated_columns: dict[str, Any] = {}
    for key in keys:
        if extra[f"{key}_model"] is not None:
            simulated_columns[f"{key}_model"] = extra[f"{key}_model"]
        simulated_columns[f"{key}_sim_low"] = np.array([point[key].low for point in found], dtype=np.float64)
        simulated_columns[f"{key}_sim_high"] = np.array([point[key].high for point in found], dtype=np.float64)
    bands = {k: v for k, v in answer.bands.items() if k not in keys}
    return replace(answer, outputs=outputs, bands=bands, trailing=simulated_columns, notes=(*answer.notes, note),
                   carried=tuple(simulated_columns) if carried else answer.carried)


#: Replications per point of a question's ``--simulate`` answered by its declared Simulation (each of the
#: system's default run length, seed 0): a check beside the answer, not a report's precision.
MEANS_REPLICATIONS = 10


def means_simulation(family: str, question: Any) -> Callable[..., Any] | None:
    """The adapter from a question's declared :class:`~iosizer.model.family.Simulation` (its ``system`` at an
    answer's values and one point, and the output each metric estimates) to ``--simulate``'s hook:
    ``hook(values, inputs, ()) -> (one {output: Estimate} per point, note)``; None where it has none."""
    from iosizer.model.family import Simulation
    from iosizer.simulate.systems import system_at

    simulation = question.simulate
    if not isinstance(simulation, Simulation) or simulation.refused or not simulation.metrics:
        return None
    system = simulation.system or system_at(family, question.command)
    if system is None:
        return None
    outputs = simulation.outputs

    def hook(values: Any, inputs: Any, percentiles: tuple[float, ...]) -> tuple[list[dict[str, Any]], str]:
        from iosizer.simulate.engine import estimates_of, run_replications

        count = len(next(iter(inputs.values()))) if inputs else 1
        found, engines = [], set()
        for k in range(count):
            point = {name: column[k].item() if hasattr(column[k], "item") else column[k]
                     for name, column in inputs.items()}
            model = system(values, point)
            vectorised = bool(getattr(model, "vectorised", False))
            engines.add("numpy" if vectorised else "the library engine")
            run = run_replications(model, [], seed=0, replications=MEANS_REPLICATIONS, workers=1,
                                   vectorised=vectorised)
            named = [m for m in outputs if m in run.samples[0].metrics]
            found.append({outputs[m]: e for m, e in estimates_of(run.samples, named).items()})
        keys = ", ".join(dict.fromkeys(k for point in found for k in point))
        return found, (f"{keys}: simulated means ({MEANS_REPLICATIONS} replications per point of the system's "
                       f"default run length, seed 0, {', '.join(sorted(engines))}); _sim_low/_sim_high: the 95 % "
                       "interval over replications; _model: the analytic answer")

    return hook


def open_simulation(service_rate: float, servers: int, arrival_scv: float, service_scv: float,
                    percentiles: Sequence[float]) -> Callable[[float], dict[str, Any]]:
    """``rate -> {wait_pP, response_pP: Estimate}`` of the G/G/c queue simulated at that arrival rate."""
    from iosizer.model.percentiles import parse_percentiles, percentile_key
    from iosizer.simulate.tails import open_percentiles

    chosen = parse_percentiles(list(percentiles))

    def run(arrival_rate: float) -> dict[str, Any]:
        found = open_percentiles(float(arrival_rate), float(service_rate), int(servers), float(arrival_scv),
                                 float(service_scv), chosen)
        return {f"{kind}_{percentile_key(p)}": found[kind][p] for kind in ("wait", "response") for p in chosen}

    return run


def open_simulated_note(servers: int, arrival_scv: float, service_scv: float) -> str:
    from iosizer.simulate.tails import DEFAULT_REPLICATIONS, OPEN_CUSTOMERS

    customers = OPEN_CUSTOMERS[1 if servers == 1 else "c"]
    return (f"wait_pP/response_pP: simulated (FCFS, gamma inter-arrival cv^2 {arrival_scv:g} and service cv^2 "
            f"{service_scv:g}, {'Lindley' if servers == 1 else 'Kiefer-Wolfowitz'} recursion in numpy; "
            f"{DEFAULT_REPLICATIONS} replications of {customers:,} customers, 5 % warm-up dropped, seed 0); "
            "_sim_low/_sim_high: the 95 % interval over replications; _model: the analytic answer")


def closed_simulated(means: list[float], servers: list[float], jobs: int, percentiles: Sequence[float],
                     unit: str = "", think_time: float = 0.0, constant_delay: float = 0.0) -> dict[str, Any]:
    """``response_pP<unit>``: Estimate of a closed cycle's end-to-end response percentiles, simulated."""
    from iosizer.model.percentiles import parse_percentiles, percentile_key
    from iosizer.simulate.tails import closed_percentiles

    chosen = parse_percentiles(list(percentiles))
    found = closed_percentiles(means, servers, int(jobs), chosen, think_time=think_time,
                               constant_delay=constant_delay)
    return {f"response_{percentile_key(p)}{unit}": found[p] for p in chosen}


def closed_simulated_note() -> str:
    from iosizer.simulate.tails import CLOSED_CYCLES, DEFAULT_REPLICATIONS

    return ("response_pP: simulated end to end (jobs visit the stations in order once per cycle, FCFS, exponential "
            f"service and think time, constant delays constant; {DEFAULT_REPLICATIONS} replications of "
            f"{CLOSED_CYCLES:,} cycles, 5 % warm-up dropped, seed 0); _sim_low/_sim_high: the 95 % interval over "
            "replications; _model: the analytic answer")
