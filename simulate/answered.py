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

__all__ = ["MAX_SIMULATED_POINTS", "check_simulate", "closed_simulated", "closed_simulated_note",
           "open_simulated_note", "open_simulation", "simulate_percentiles", "simulated"]

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
    import numpy as np

    points = len(next(iter(answer.inputs.values()))) if answer.inputs else 1
    check_simulate(True, percentiles, points)
    if answer.parts:  # a swept setting: each choice simulated on its own values
        parts = tuple((chosen, simulate_percentiles(part, hook, percentiles)) for chosen, part in answer.parts)
        notes = tuple(dict.fromkeys(n for _, part in parts for n in part.notes))
        return replace(answer, parts=parts, notes=notes)
    found, note = hook(answer.values, answer.inputs, tuple(percentiles))
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
    return replace(answer, outputs=outputs, bands=bands, trailing=simulated_columns, notes=(*answer.notes, note))


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
