"""Measure the G/G/c percentile approximation against simulation on a grid; write data/error_grids/ggc_percentiles.csv.

Not a test (minutes of CPU). Each cell: the approximation of
iosizer.model.percentiles (exponential-tail wait with Erlang C and the
Allen-Cunneen mean, gamma service) against the FCFS simulation of the same
queue: gamma inter-arrival and service times (shape 1 / cv^2, iosizer's
service law), one server by Lindley's recursion unrolled (numpy), c servers
by Kiefer-Wolfowitz (a heap of the servers' free times). R replications of
n customers, 5 % warm-up dropped; error = model / mean(simulated) - 1 with a
95 % half-width from the replications' spread (t quantile). Cells with
Poisson arrivals are exact now (M/G/1, M/D/c, M/M/c) and not gridded.

    python benchmarks/grid_ggc_tails.py [--quick]
"""

from __future__ import annotations

import heapq
import sys

import numpy as np
from error_grid import cell, write

from iosizer.model.percentiles import _approximate
from iosizer.model.queueing import ggc

SERVERS = (1, 2, 4)
ARRIVAL_SCV = (0.5, 2.0)
SERVICE_SCV = (0.0, 0.5, 1.0, 2.0)
UTILIZATION = (0.3, 0.5, 0.7, 0.9)
PERCENTILES = (90.0, 99.0, 99.9)


def _draw(rng: np.random.Generator, mean: float, scv: float, n: int) -> np.ndarray:
    return np.full(n, mean) if scv == 0 else rng.gamma(1.0 / scv, mean * scv, n)


def _responses(rng: np.random.Generator, c: int, rho: float, ca2: float, cs2: float, n: int) -> np.ndarray:
    gaps = _draw(rng, 1.0 / (c * rho), ca2, n)
    service = _draw(rng, 1.0, cs2, n)
    if c == 1:
        walk = np.concatenate([[0.0], np.cumsum(service[:-1] - gaps[1:])])
        wait = walk - np.minimum.accumulate(np.minimum(walk, 0.0))
    else:
        arrivals = np.cumsum(gaps).tolist()
        free = [0.0] * c
        wait = np.empty(n)
        s = service.tolist()
        for i in range(n):
            start = max(arrivals[i], heapq.heappop(free))
            heapq.heappush(free, start + s[i])
            wait[i] = start - arrivals[i]
    return (wait + service)[n // 20:]


def main(quick: bool = False) -> None:
    replications, n1, nc = (3, 200_000, 60_000) if quick else (6, 1_000_000, 200_000)
    rows = []
    for c in SERVERS:
        for ca2 in ARRIVAL_SCV:
            for cs2 in SERVICE_SCV:
                for rho in UTILIZATION:
                    rng = np.random.default_rng(hash((c, ca2, cs2, rho)) % 2**32)
                    sims = [np.percentile(_responses(rng, c, rho, ca2, cs2, n1 if c == 1 else nc), PERCENTILES)
                            for _ in range(replications)]
                    sims = np.array(sims)
                    model = _approximate(ggc(c * rho, 1.0, c, ca2, cs2), 1.0, cs2, PERCENTILES)
                    for k, p in enumerate(PERCENTILES):
                        key = "response_p" + format(p, "g").replace(".", "_")
                        rows.append({"servers": c, "arrival_scv": ca2, "service_scv": cs2, "utilization": rho,
                                     "percentile": p, **cell(float(model[key]), sims[:, k])})
                    print(c, ca2, cs2, rho, [r["error_pct"] for r in rows[-3:]], flush=True)
    write(rows, "ggc_percentiles")


if __name__ == "__main__":
    main("--quick" in sys.argv)
