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

__all__ = ["SIMULATED", "simulate_curve"]


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
