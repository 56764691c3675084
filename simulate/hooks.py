"""Questions' ``simulate`` hooks (``Question.simulate``: ``solve``'s signature plus a seed, the same outputs).

The model layer may not import the simulation layer, so a declaration
cannot name its hook; they are registered here, by (family, question).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from iosizer.simulate.closed import DEFAULT_COMPLETIONS
from iosizer.simulate.device import DeviceSweep, key, network

__all__ = ["SIMULATED", "simulate_curve"]


def simulate_curve(values: Mapping[str, Any], inputs: Mapping[str, Any], *, seed: int = 0,
                   replications: int = 20, run_length: int | None = None) -> dict[str, np.ndarray]:
    """The ``curve`` question's ``simulate`` hook: ``solve``'s signature plus a seed, the same outputs.

    ``values`` every parameter by name, ``inputs["outstanding"]`` the depths;
    returns ``iops`` and ``mean_latency_us`` (simulated means over
    ``replications``, numpy engine) of the inputs' shape.
    """
    from iosizer.simulate.engine import estimates_of, run_replications

    n = np.asarray(inputs["outstanding"], dtype=np.float64)
    flat = [int(v) for v in n.reshape(-1)]
    unique = sorted(set(flat))
    completions = DEFAULT_COMPLETIONS if run_length is None else int(run_length)
    model = DeviceSweep(tuple(network(values, d, completions) for d in unique))
    names = [key(name, d) for d in unique for name in ("iops", "mean_latency_us")]
    run = run_replications(model, names, seed=seed, replications=replications, workers=1, vectorised=True)
    means = {name: est.mean for name, est in estimates_of(run.samples, names).items()}
    return {name: np.asarray([means[key(name, v)] for v in flat]).reshape(n.shape)
            for name in ("iops", "mean_latency_us")}


#: (family, question) -> its ``simulate`` hook (the model layer cannot name this layer).
SIMULATED = {("device", "curve"): simulate_curve}
