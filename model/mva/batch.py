"""Many independent single-class networks at once (what-if sweeps), one numpy step per population.

The system and its formulas: :mod:`iosizer.model.mva`; derivations: docs/validation/mva.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iosizer.errors import InputError
from iosizer.model._validate import as_nonnegative, as_positive
from iosizer.model.mva._constants import _BOUND_RTOL, _CONSERVATION_RTOL
from iosizer.model.mva._inputs import MAX_BATCH_STEPS, _as_population, _check_scale
from iosizer.model.mva._selfcheck import _require
from iosizer.model.mva.single import _as_scv


@dataclass(frozen=True)
class BatchResult:
    """Throughput and response time (think excluded) of M networks at population N."""

    throughput: np.ndarray
    response_time: np.ndarray


def check_batch_steps(population: int, networks: int, what: str = "networks") -> None:
    """Refuse a batched MVA of ``networks`` x ``population`` steps beyond :data:`MAX_BATCH_STEPS`."""
    steps = float(population) * float(networks)
    if steps > MAX_BATCH_STEPS:
        raise InputError(
            f"MVA of {networks:,} {what} at population {int(population):,} takes {steps:.3g} steps, more than "
            f"the {MAX_BATCH_STEPS:,} it solves in about a second; sweep fewer points or a smaller population"
        )


def mva_batch(demands: object, think_time: object, population: int,
              service_scv: object = 1.0) -> BatchResult:
    """Exact MVA of M independent single-class networks of queueing stations.

    ``demands`` is (M, K), one network per row; ``think_time`` a scalar or
    (M,). The recursion of :func:`mva` runs over n = 1..N once, vectorised
    across the M networks, which is what a sweep of a what-if parameter
    (an added latency, a CPU speed) needs. Checked before returning against
    X <= min(N/(D+Z), 1/D_max), R >= D and N = X (R + Z). ``service_scv``
    (scalar or K entries, 1 exponential: exact, computed as without it)
    applies :data:`SCV_APPROXIMATION` otherwise.
    """
    d = np.atleast_2d(as_positive("demands", demands))
    z = np.broadcast_to(as_nonnegative("think_time", think_time), (d.shape[0],)).astype(np.float64)
    n_jobs = _as_population(population)
    _check_scale(d, z, n_jobs)
    check_batch_steps(n_jobs, d.shape[0])
    scv = _as_scv(service_scv, d.shape[1])
    queue = np.zeros_like(d)
    if scv is None:
        for n in range(1, n_jobs + 1):
            residence = d * (1.0 + queue)
            throughput = n / (z + residence.sum(axis=1))
            queue = throughput[:, None] * residence
    else:
        half = (1.0 + scv) / 2.0
        utilization = np.zeros_like(d)
        rows, worst = np.arange(d.shape[0]), d.argmax(axis=1)
        d_max = d.max(axis=1)
        for n in range(1, n_jobs + 1):
            residence = d * (1.0 + queue - utilization) + utilization * d * half
            # Held at the bottleneck bound, the excess jobs queueing there (see _load_dependent_mva).
            excess = np.maximum(n * d_max - (z + residence.sum(axis=1)), 0.0)
            residence[rows, worst] += excess
            throughput = n / (z + residence.sum(axis=1))
            queue = throughput[:, None] * residence
            utilization = throughput[:, None] * d
    response = residence.sum(axis=1)
    total = d.sum(axis=1)
    pops = np.full((d.shape[0], 1), float(n_jobs))
    bound = np.minimum(n_jobs / (total + z), 1.0 / d.max(axis=1))
    _require((throughput <= bound * (1 + _BOUND_RTOL))[:, None], "throughput <= min(N/(D+Z), 1/Dmax)",
             pops, throughput[:, None], bound[:, None])
    _require((response >= total * (1 - _BOUND_RTOL))[:, None], "response time >= total demand D",
             pops, response[:, None], total[:, None])
    jobs = throughput * (response + z)
    _require((np.abs(jobs - n_jobs) <= _CONSERVATION_RTOL * n_jobs)[:, None],
             "population conservation X (R + Z) = N", pops, jobs[:, None], pops)
    return BatchResult(throughput, response)
