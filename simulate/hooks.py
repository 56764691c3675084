"""Questions' ``simulate`` hooks (see ``Question.simulate``), registered here by (family, question).

The model layer may not import the simulation layer, so a built-in
declaration cannot name its hook; :func:`iosizer.simulate.declared.simulated_question`
reads this table (and a plugin's ``Question.simulate``).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from iosizer.errors import InputError
from iosizer.simulate.closed import DEFAULT_COMPLETIONS
from iosizer.simulate.device import MAX_DEPTHS, DeviceSweep, network

__all__ = ["SIMULATED", "SIMULATED_ANSWERS", "SIMULATED_PERCENTILES", "answer_simulation", "means_simulation", "percentile_simulation",
           "simulate_curve", "simulates", "simulation_help"]


def simulate_curve(values: Mapping[str, Any], inputs: Mapping[str, Any], *, run_length: int | None = None,
                   percentiles: tuple[float, ...] = ()) -> DeviceSweep:
    """The ``curve`` question's ``simulate`` hook: one closed loop per point of ``inputs["outstanding"]``
    (flat), metrics ``<output>_at_<k>``; ``run_length`` I/Os measured per depth and replication."""
    depths = [int(v) for v in np.asarray(inputs["outstanding"]).reshape(-1)]
    if len(depths) > MAX_DEPTHS:
        raise InputError(f"--outstanding: {len(depths)} depths, more than the {MAX_DEPTHS} one simulation runs")
    if len(set(depths)) != len(depths):
        raise InputError(f"--outstanding: each depth once, got {', '.join(map(str, depths))}")
    completions = DEFAULT_COMPLETIONS if run_length is None else int(run_length)
    return DeviceSweep(tuple(network(values, d, completions, tuple(percentiles)) for d in depths),
                       tuple(percentiles))


#: (family, question) -> its ``simulate`` hook (the model layer cannot name this layer).
SIMULATED = {("device", "curve"): simulate_curve}


def _open_queue_percentiles(values: Mapping[str, Any], inputs: Mapping[str, Any],
                            percentiles: tuple[float, ...]) -> tuple[list[dict[str, Any]], str]:
    """``queue mmc`` (mm1, mg1, md1, ggc) ``--simulate``: the G/G/c queue of the answer's values (a question's
    ``arrival_scv``/``service_scv``, else 1: Poisson, exponential) simulated at each arrival rate (Lindley or
    Kiefer-Wolfowitz in numpy)."""
    from iosizer.simulate.answered import open_simulated_note, open_simulation

    servers = int(values["servers"])
    arrival_scv, service_scv = float(values.get("arrival_scv", 1.0)), float(values.get("service_scv", 1.0))
    run = open_simulation(float(values["service_rate_per_s"]), servers, arrival_scv, service_scv, percentiles)
    return ([run(rate) for rate in np.asarray(inputs["arrival_rate"]).reshape(-1)],
            open_simulated_note(servers, arrival_scv, service_scv))


def _mva_percentiles(values: Mapping[str, Any], inputs: Mapping[str, Any],
                     percentiles: tuple[float, ...]) -> tuple[list[dict[str, Any]], str]:
    """``queue mva --simulate``: the closed network's end-to-end percentiles simulated at each population
    (an event simulation of the cycle); the stations' percentiles stay analytic."""
    from iosizer.model.mva import demand_name, station_servers
    from iosizer.simulate.answered import closed_simulated, closed_simulated_note

    demands = [float(values[demand_name(k + 1)]) for k in range(int(values["stations"]))]
    servers = station_servers(values)
    found = [closed_simulated(demands, servers, int(n), percentiles, think_time=float(values["think_time_s"]))
             for n in np.asarray(inputs["population"]).reshape(-1)]
    return found, closed_simulated_note() + "; the stations' percentiles stay analytic"


def _hba_percentiles(values: Mapping[str, Any], inputs: Mapping[str, Any],
                     percentiles: tuple[float, ...]) -> tuple[list[dict[str, Any]], str]:
    """``hba response --simulate``: the port's closed network simulated at each thread count (the cores and
    the link queues, the storage delay constant), in each point's mode (a swept mode is an input column)."""
    import math

    from iosizer.model.hba import port_from_values, response_network
    from iosizer.simulate.answered import closed_simulated, closed_simulated_note

    threads = np.asarray(inputs["threads"]).reshape(-1)
    modes = np.asarray(inputs["mode"]).reshape(-1) if "mode" in inputs else [values["mode"]] * len(threads)
    found = []
    for n, mode in zip(threads, modes):
        demands, servers, _, storage = response_network(port_from_values(values), str(mode), values["block_bytes"],
                                                         values["storage_us"])
        queues = [(float(d), float(c)) for d, c in zip(demands, servers) if not math.isinf(c)]
        found.append(closed_simulated([d for d, _ in queues], [c for _, c in queues], int(n), percentiles, "_us",
                                      constant_delay=storage))
    return found, closed_simulated_note()


#: (family, question) -> its percentile simulation (see ``Question.simulate_percentiles``).
SIMULATED_PERCENTILES = {("closed-network", "queue mva"): _mva_percentiles, ("hba", "hba response"): _hba_percentiles,
                         **{("mmc", f"queue {name}"): _open_queue_percentiles
                            for name in ("mmc", "mm1", "mg1", "md1", "ggc")}}


def _loadshare_curve(answer: Any) -> Any:
    """``loadshare curve --simulate``: each row's mean response simulated (iosizer.simulate.loadshare)."""
    from iosizer.simulate.loadshare import simulated_curve

    return simulated_curve(answer)


#: (family, question) -> (a simulation that answers the question's means itself: ``hook(answer) -> answer``,
#: the text of its ``--simulate`` option).
SIMULATED_ANSWERS = {("loadshare", "curve"): (_loadshare_curve, (
    "Answer each point's mean response by simulation (a few short replications per point, the model's "
    "placement; the notes say how many), with its 95 % interval; the model's value stays beside it."))}


def answer_simulation(family: str, question: Any) -> Any:
    """The question's own simulation of its answer (``--simulate``: ``hook(answer) -> answer``), or None."""
    found = SIMULATED_ANSWERS.get((family, question.command))
    return None if found is None else found[0]


def simulation_help(family: str, question: Any) -> str | None:
    """The ``--simulate`` option's text of a question that simulates its own answer, else None."""
    found = SIMULATED_ANSWERS.get((family, question.command))
    if found is not None:
        return found[1]
    if _percentiles_simulated(family, question) or means_simulation(family, question) is None:
        return None
    from iosizer.simulate.answered import MAX_SIMULATED_POINTS, MEANS_REPLICATIONS

    keys = ", ".join(dict.fromkeys(question.simulate.outputs.values()))
    return (f"Answer {keys} by simulation at each point (its declared simulation, {MEANS_REPLICATIONS} replications, "
            f"seed 0; at most {MAX_SIMULATED_POINTS} points), with their 95 % intervals; the model's value stays "
            "beside each (<key>_model, _sim_low, _sim_high).")


def means_simulation(family: str, question: Any) -> Any:
    """The question's declared Simulation as ``--simulate``'s hook (:func:`iosizer.simulate.answered.means_simulation`)."""
    from iosizer.simulate.answered import means_simulation as adapted

    return adapted(family, question)


def _percentiles_simulated(family: str, question: Any) -> bool:
    return question.percentiles is not None and percentile_simulation(family, question) is not None


def percentile_simulation(family: str, question: Any) -> Any:
    """The question's percentile-simulation hook (``--simulate``), or None: a plugin's declared one, else a
    built-in family's from :data:`SIMULATED_PERCENTILES`."""
    return question.simulate_percentiles or SIMULATED_PERCENTILES.get((family, question.command))


def simulates(family: str, question: Any) -> bool:
    """Whether ``--simulate`` applies: the question has percentiles and a simulation of them, a simulation of
    its whole answer, or a declared Simulation whose system answers its outputs' means."""
    return (answer_simulation(family, question) is not None or _percentiles_simulated(family, question)
            or means_simulation(family, question) is not None)
