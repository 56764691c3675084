"""Measure the load-sharing percentile approximation against simulation; write
data/error_grids/loadshare_percentiles.csv.

Not a test (minutes of CPU). The approximation is
iosizer.model.loadshare.loadshare_percentiles (each port an M/M/c-form
response with the pooled model's P(wait) and mean wait; the throughput-weighted
mixture). The reference is iosizer.simulate.loadshare, an event simulation of what the model
describes: Poisson arrivals per port, exponential service of the policy's mean
(1 + overhead (k - 1) / k), each port served FCFS by its cores (placed as
iosizer.model.loadshare places them: heaviest port first on its k least-loaded
cores); a free core takes the earliest-arrived waiting I/O among the ports it
serves, an arrival takes a random idle eligible core; the non-core part is a
constant added to every response. R replications of n I/Os, 5 % warm-up dropped.
Rows: the seed's three scenarios x four policies x loads 0.3 / 0.6 / 0.9 of the
policy's maximum, and the held-out mixes of issue 28 (measurement only).

    python benchmarks/grid_loadshare_tails.py [--quick]
"""

from __future__ import annotations

import sys

import numpy as np
from error_grid import cell, write

from iosizer.calibration.loadshare import policy_params, scenario
from iosizer.model.loadshare import POLICIES, evaluate, max_throughput
from iosizer.model.loadshare import loadshare_percentiles
from iosizer.simulate.loadshare import responses

FRACTIONS = (0.3, 0.6, 0.9)
PERCENTILES = (90.0, 99.0, 99.9)
#: (label, port shares, cores, policies): issue 28's held-out mixes.
HELD_OUT = (("six-equal-7-cores", [1.0] * 6, 7, ("multi-stage",)),
            ("0.2-1-1-1-1-on-5", [0.2, 1, 1, 1, 1], 5, ("multi-stage", "one-stage")),
            ("1-2-3-4-on-4", [1, 2, 3, 4], 4, ("one-stage",)))


def _groups(work: np.ndarray, k: np.ndarray, cores: int) -> list[tuple[int, ...]]:
    """Heaviest port first on its k least-loaded cores (ties to the lower index), as the model places them."""
    load = np.zeros(cores)
    out: list[tuple[int, ...]] = [()] * work.size
    for port in np.argsort(-work, kind="stable"):
        chosen = np.argsort(load, kind="stable")[: int(k[port])]
        load[chosen] += work[port] / k[port]
        out[int(port)] = tuple(int(c) for c in chosen)
    return out


def simulate(rates: np.ndarray, means: np.ndarray, groups: list[tuple[int, ...]], cores: int, customers: int,
             rng: np.random.Generator) -> np.ndarray:
    """Responses (service-time units, non-core part excluded) of ``customers`` I/Os after the 5 % warm-up."""
    return responses(rates, means, groups, cores, customers, rng)[0]


def measure(label: str, shares: list[float], cores: int | None, policy: str, fraction: float,
            replications: int, customers: int) -> list[dict]:
    params = policy_params(cores)
    share = np.asarray(shares, dtype=float) / float(np.sum(shares))
    total = fraction * max_throughput(policy, share, params)
    state = evaluate(policy, total, share, params)
    k = np.asarray(state.cores_per_port[0])
    service = 1.0 + params.overhead * (k - 1) / k
    groups = _groups(total * share * service, k, params.cores)
    rng = np.random.default_rng(abs(hash((label, policy, fraction))) % 2**32)
    sims = np.array([np.percentile(simulate(total * share, service, groups, params.cores, customers, rng),
                                   PERCENTILES) + params.non_core for _ in range(replications)])
    model = loadshare_percentiles(policy, [total], share, params, PERCENTILES)
    rows = []
    for n, p in enumerate(PERCENTILES):
        value = float(model["response_p" + format(p, "g").replace(".", "_")][0])
        rows.append({"scenario": label, "policy": policy, "cores": params.cores, "load_fraction": fraction,
                     "percentile": p, **cell(value, sims[:, n])})
    print(label, policy, fraction, [r["error_pct"] for r in rows], flush=True)
    return rows


def main(quick: bool = False) -> None:
    replications, customers = (2, 40_000) if quick else (8, 200_000)
    rows: list[dict] = []
    for name in ("one-port", "system", "skew"):
        chosen = scenario(name)
        for policy in POLICIES:
            for fraction in FRACTIONS:
                rows += measure(name, list(chosen.port_shares), chosen.cores, policy, fraction, replications,
                                customers)
    for label, shares, cores, policies in HELD_OUT:
        for policy in policies:
            rows += measure(label, shares, cores, policy, 0.9, replications, customers)
    write(rows, "loadshare_percentiles")


if __name__ == "__main__":
    main("--quick" in sys.argv)
