"""Measure the closed-network percentile approximation on seed 002's HBA port; write
data/error_grids/hba_percentiles.csv.

Not a test (minutes of CPU). The approximation is
iosizer.model.percentiles.closed_network_percentiles (arrival theorem per
station, gamma fit end to end) on the network ``iosizer hba response
--percentile`` answers from: the shipped port (iosizer.calibration.hba.fc_port),
its core station (c servers shared, 1 in occupancy mode), the link, a
constant storage delay of 50 us. The reference is an event simulation of that
network written here: exponential FCFS stations in a cycle, the constant
delay closing it; R replications of n cycles, 5 % warm-up dropped; error =
model / mean(simulated) - 1 with a 95 % half-width over the replications.

    python benchmarks/grid_closed_tails.py [--quick]
"""

from __future__ import annotations

import heapq
import sys
from collections import deque

import numpy as np
from error_grid import cell, write

from iosizer.calibration.hba import fc_port
from iosizer.model.hba import response_network
from iosizer.model.percentiles import closed_network_percentiles

MODES = ("shared", "occupancy")
BLOCK_BYTES = (512, 4096)
THREADS = (4, 8, 12, 16, 24, 32, 48, 64)
PERCENTILES = (90.0, 99.0, 99.9)
STORAGE_US = 50.0


def cycle_responses(means: list[float], servers: list[int], delay: float, jobs: int, cycles: int,
                    rng: np.random.Generator) -> np.ndarray:
    """Cycle times (stations + the constant delay) of ``jobs`` jobs through FCFS exponential stations."""
    stations = len(means)
    queue = [deque() for _ in range(stations)]
    free = list(servers)
    clock: list[tuple[float, int, int]] = []  # (time, job, station finishing; -1 = delay over)
    began = np.full(jobs, np.nan)  # when each job's current cycle began (none yet)
    out: list[float] = []

    def enter(job: int, k: int, now: float) -> None:
        if free[k]:
            free[k] -= 1
            heapq.heappush(clock, (now + rng.exponential(means[k]), job, k))
        else:
            queue[k].append(job)

    for job in range(jobs):  # spread the first passes over one delay
        heapq.heappush(clock, (rng.uniform(0.0, delay), job, -1))
    while len(out) < cycles:
        now, job, k = heapq.heappop(clock)
        if k < 0:
            if not np.isnan(began[job]):
                out.append(now - began[job])
            began[job] = now
            enter(job, 0, now)
            continue
        if queue[k]:
            heapq.heappush(clock, (now + rng.exponential(means[k]), queue[k].popleft(), k))
        else:
            free[k] += 1
        if k + 1 < stations:
            enter(job, k + 1, now)
        else:
            heapq.heappush(clock, (now + delay, job, -1))
    return np.array(out[cycles // 20:])


def main(quick: bool = False) -> None:
    replications, cycles = (3, 20_000) if quick else (5, 60_000)
    port = fc_port()
    rows = []
    for mode in MODES:
        for block in BLOCK_BYTES:
            demands, servers, _, storage = response_network(port, mode, block, STORAGE_US)
            queues = [(float(d), int(c)) for d, c in zip(demands, servers) if np.isfinite(c)]
            means, counts = [d for d, _ in queues], [c for _, c in queues]
            for threads in THREADS:
                rng = np.random.default_rng(hash((mode, block, threads)) % 2**32)
                sims = np.array([np.percentile(cycle_responses(means, counts, storage, threads, cycles, rng),
                                               PERCENTILES) for _ in range(replications)])
                model = closed_network_percentiles(means, 0.0, threads, PERCENTILES, counts, storage).response
                for k, p in enumerate(PERCENTILES):
                    value = float(model["response_p" + format(p, "g").replace(".", "_")])
                    rows.append({"mode": MODES.index(mode), "block_bytes": block, "threads": threads,
                                 "percentile": p, **cell(value, sims[:, k])})
                print(mode, block, threads, [r["error_pct"] for r in rows[-3:]], flush=True)
    write(rows, "hba_percentiles")


if __name__ == "__main__":
    main("--quick" in sys.argv)
