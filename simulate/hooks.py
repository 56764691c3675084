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

__all__ = ["SIMULATED", "SIMULATED_PERCENTILES", "percentile_simulation", "simulate_curve", "simulates"]


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


def _mmc_percentiles(values: Mapping[str, Any], inputs: Mapping[str, Any],
                     percentiles: tuple[float, ...]) -> tuple[list[dict[str, Any]], str]:
    """``queue mmc --simulate``: the M/M/c queue simulated at each arrival rate (Kiefer-Wolfowitz in numpy)."""
    from iosizer.simulate.answered import open_simulated_note, open_simulation

    servers = int(values["servers"])
    run = open_simulation(float(values["service_rate_per_s"]), servers, 1.0, 1.0, percentiles)
    return [run(rate) for rate in np.asarray(inputs["arrival_rate"]).reshape(-1)], open_simulated_note(servers, 1.0, 1.0)


#: (family, question) -> its percentile simulation (see ``Question.simulate_percentiles``).
SIMULATED_PERCENTILES = {("mmc", "queue mmc"): _mmc_percentiles}


def percentile_simulation(family: str, question: Any) -> Any:
    """The question's percentile-simulation hook (``--simulate``), or None: a plugin's declared one, else a
    built-in family's from :data:`SIMULATED_PERCENTILES`."""
    return question.simulate_percentiles or SIMULATED_PERCENTILES.get((family, question.command))


def simulates(family: str, question: Any) -> bool:
    """Whether ``--simulate`` applies: the question has percentiles and a simulation of them."""
    return question.percentiles is not None and percentile_simulation(family, question) is not None
