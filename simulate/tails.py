"""Simulated percentiles of response times, with their 95 % intervals (``--simulate`` on the tail answers).

The engines elsewhere in :mod:`iosizer.simulate` keep means; a percentile
needs every customer's time. Two systems, each replication an independent
stream (``SeedSequence(seed, spawn_key=(i,))``), the first 5 % of
customers or cycles dropped as warm-up, the p-th percentile of each
replication's sample taken, and the interval Student's t over the
replications (:func:`iosizer.simulate.stats.estimate`):

* an open FCFS G/G/c queue, gamma inter-arrival and service times of the
  given cv^2 (constant at 0; iosizer's meaning of ``service_scv``): one
  server by Lindley's recursion unrolled in numpy (W_(n+1) = max(0, W_n +
  S_n - A_(n+1)) as a running maximum of a random walk), c servers by
  Kiefer-Wolfowitz's recursion (a heap of the servers' free times);
* a closed cycle of FCFS stations with exponential service (c servers, or
  an infinite-server delay), an exponential think time outside the
  response and a constant delay inside it (a storage round trip): an
  event simulation, jobs visiting the stations in order once per cycle.

The grid scripts of ``benchmarks/`` measure the approximations' errors
with these functions, so an answer's ``--simulate`` and its grid share one
simulator.
"""

from __future__ import annotations

import heapq
from collections import deque
from typing import Sequence

import numpy as np

from iosizer.errors import InputError
from iosizer.simulate.stats import Estimate, estimate

__all__ = ["closed_cycle_responses", "closed_percentiles", "open_percentiles", "open_responses", "open_waits"]

#: Replications and their length unless the caller says: about a second of work per answer.
DEFAULT_REPLICATIONS = 5
OPEN_CUSTOMERS = {1: 400_000, "c": 100_000}
CLOSED_CYCLES = 40_000
#: Customers or cycles a call may simulate in all (bounded work: about a minute).
MAX_EVENTS = 50_000_000


def _draw(rng: np.random.Generator, mean: float, scv: float, n: int) -> np.ndarray:
    return np.full(n, mean) if scv == 0 else rng.gamma(1.0 / scv, mean * scv, n)


def open_responses(rng: np.random.Generator, arrival_rate: float, service_rate: float, servers: int,
                   arrival_scv: float, service_scv: float, customers: int) -> np.ndarray:
    """Response times of one G/G/c FCFS run of ``customers``, the first 5 % dropped (time unit 1 / rate)."""
    wait, service = open_waits(rng, arrival_rate, service_rate, servers, arrival_scv, service_scv, customers)
    return wait + service


def open_waits(rng: np.random.Generator, arrival_rate: float, service_rate: float, servers: int,
               arrival_scv: float, service_scv: float, customers: int) -> tuple[np.ndarray, np.ndarray]:
    """Waits and service times of one G/G/c FCFS run of ``customers``, the first 5 % dropped."""
    gaps = _draw(rng, 1.0 / arrival_rate, arrival_scv, customers)
    service = _draw(rng, 1.0 / service_rate, service_scv, customers)
    if servers == 1:
        walk = np.concatenate([[0.0], np.cumsum(service[:-1] - gaps[1:])])
        wait = walk - np.minimum.accumulate(np.minimum(walk, 0.0))
    else:
        arrivals = np.cumsum(gaps).tolist()
        free = [0.0] * servers
        wait = np.empty(customers)
        s = service.tolist()
        for i in range(customers):
            start = max(arrivals[i], heapq.heappop(free))
            heapq.heappush(free, start + s[i])
            wait[i] = start - arrivals[i]
    return wait[customers // 20:], service[customers // 20:]


def closed_cycle_responses(rng: np.random.Generator, means: Sequence[float], servers: Sequence[float],
                           jobs: int, cycles: int, think_time: float = 0.0,
                           constant_delay: float = 0.0) -> np.ndarray:
    """Response times (think time excluded, the constant delay included) of ``jobs`` jobs cycling through
    FCFS exponential stations of mean ``means`` per visit (``servers`` each; inf = a delay), then the
    constant delay, then an exponential think time; ``cycles`` completed cycles, the first 5 % dropped."""
    stations = len(means)
    queue: list[deque[int]] = [deque() for _ in range(stations)]
    free = [float(c) for c in servers]
    clock: list[tuple[float, int, int]] = []  # (time, job, event: station index; -1 delay over; -2 think over)
    began = np.zeros(jobs)
    out: list[float] = []

    def enter(job: int, k: int, now: float) -> None:
        if k == stations:
            heapq.heappush(clock, (now + constant_delay, job, -1))
        elif free[k] > 0:
            free[k] -= 1
            heapq.heappush(clock, (now + rng.exponential(means[k]), job, k))
        else:
            queue[k].append(job)

    for job in range(jobs):  # every job starts its first think (or pass) at a random phase
        heapq.heappush(clock, (rng.exponential(think_time) if think_time > 0 else 0.0, job, -2))
    while len(out) < cycles:
        now, job, k = heapq.heappop(clock)
        if k == -2:
            began[job] = now
            enter(job, 0, now)
        elif k == -1:
            out.append(now - began[job])
            heapq.heappush(clock, (now + (rng.exponential(think_time) if think_time > 0 else 0.0), job, -2))
        else:
            if queue[k]:
                heapq.heappush(clock, (now + rng.exponential(means[k]), queue[k].popleft(), k))
            else:
                free[k] += 1
            enter(job, k + 1, now)
    return np.array(out[cycles // 20:])


def _percentiles(samples: list[np.ndarray], percentiles: Sequence[float]) -> dict[float, Estimate]:
    per_run = np.array([np.percentile(s, list(percentiles)) for s in samples])
    return {p: estimate(per_run[:, k]) for k, p in enumerate(percentiles)}


def _replications(replications: int | None) -> int:
    count = DEFAULT_REPLICATIONS if replications is None else int(replications)
    if count < 2:
        raise InputError(f"replications must be >= 2 for an interval, got {count}")
    return count


def _bounded(replications: int, length: int, per_event: int = 1) -> None:
    if replications * length * per_event > MAX_EVENTS:
        raise InputError(f"{replications} replications of {length:,} is more than {MAX_EVENTS:,} events; "
                         "ask for fewer or shorter")


def open_percentiles(arrival_rate: float, service_rate: float, servers: int, arrival_scv: float,
                     service_scv: float, percentiles: Sequence[float], *, seed: int = 0,
                     replications: int | None = None, customers: int | None = None
                     ) -> dict[str, dict[float, Estimate]]:
    """Simulated wait and response percentiles of a G/G/c queue (``{"wait": {p: estimate}, "response": ...}``),
    each with its 95 % interval (time unit 1 / rate)."""
    if not 0 < arrival_rate < service_rate * servers:
        raise InputError(f"the queue is unstable (utilisation {arrival_rate / (service_rate * servers):.4g} >= 1); "
                         "a stationary percentile does not exist")
    count = _replications(replications)
    length = int(customers or OPEN_CUSTOMERS[1 if servers == 1 else "c"])
    _bounded(count, length, 1 if servers == 1 else 8)
    runs = [open_waits(np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i,))), arrival_rate,
                       service_rate, int(servers), arrival_scv, service_scv, length) for i in range(count)]
    return {"wait": _percentiles([w for w, _ in runs], percentiles),
            "response": _percentiles([w + s for w, s in runs], percentiles)}


def closed_percentiles(means: Sequence[float], servers: Sequence[float], jobs: int, percentiles: Sequence[float],
                       *, think_time: float = 0.0, constant_delay: float = 0.0, seed: int = 0,
                       replications: int | None = None, cycles: int | None = None) -> dict[float, Estimate]:
    """Simulated end-to-end response percentiles of a closed cycle, each with its 95 % interval."""
    count = _replications(replications)
    length = int(cycles or CLOSED_CYCLES)
    _bounded(count, length, 4 * (len(means) + 2))
    runs = [closed_cycle_responses(np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i,))), means,
                                   servers, int(jobs), length, think_time, constant_delay) for i in range(count)]
    return _percentiles(runs, percentiles)
