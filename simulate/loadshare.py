"""Seed 003's controller by direct event simulation, for curves and error grids (:mod:`iosizer.model.loadshare`).

The system of :class:`~iosizer.simulate.open_queues.SharedCores`: Poisson
arrivals per port, exponential service of the port's mean 1 + h (k_p - 1) / k_p
core times, each port served by its k_p cores (placed as the model places
them); an arriving I/O takes a random idle core of its own, a core that frees
up takes the longest-waiting I/O among its ports; the non-core part c is a
constant added to every response. One replication is ``customers`` I/Os of
which the first 5 % are dropped (warm-up). A plain heap-driven loop, one
process: about 3 us per I/O, far faster than the batch engines for one system
at a time, which is what a curve's points and a grid's cells are.
:func:`simulate_points` gives each total load's mean response with a 95 %
Student-t interval over replications.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

__all__ = ["SimulatedPoints", "core_groups", "responses", "simulate_points", "simulated_curve"]

#: I/Os per replication and replications per point unless the caller asks otherwise: at 0.9 of a
#: switching policy's maximum 4 x 50,000 gave 95 % half-widths of 1-4 % of the mean.
CUSTOMERS, REPLICATIONS = 50_000, 4


def responses(rates: np.ndarray, means: np.ndarray, groups: Sequence[Sequence[int]], cores: int, customers: int,
              rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Responses (service times, non-core part excluded) of ``customers`` I/Os after the first 5 %, and each
    one's port."""
    ports = [p for p in range(len(rates)) if rates[p] > 0]
    total = float(np.sum(np.asarray(rates)[ports]))
    times = np.cumsum(rng.exponential(1.0 / total, customers))
    which = rng.choice(ports, size=customers, p=np.asarray(rates)[ports] / total)
    work = rng.exponential(1.0, customers) * np.asarray(means)[which]
    serves = [[p for p in ports if c in groups[p]] for c in range(cores)]
    waiting: dict[int, list[int]] = {p: [] for p in ports}  # FIFO of I/O indices per port
    heads = {p: 0 for p in ports}
    idle = set(range(cores))
    finish: list[tuple[float, int]] = []
    response = np.empty(customers)
    times_list, which_list, work_list = times.tolist(), which.tolist(), work.tolist()
    picks = rng.random(customers).tolist()
    i = 0
    while i < customers or finish:
        if i < customers and (not finish or times_list[i] <= finish[0][0]):
            now, p = times_list[i], which_list[i]
            free = [c for c in groups[p] if c in idle]
            if free:
                core = free[int(picks[i] * len(free))]
                idle.discard(core)
                response[i] = work_list[i]
                heapq.heappush(finish, (now + work_list[i], core))
            else:
                waiting[p].append(i)
            i += 1
            continue
        now, core = heapq.heappop(finish)
        best, chosen = None, -1
        for p in serves[core]:
            if heads[p] < len(waiting[p]):
                j = waiting[p][heads[p]]
                if best is None or times_list[j] < best:
                    best, chosen = times_list[j], p
        if chosen < 0:
            idle.add(core)
            continue
        j = waiting[chosen][heads[chosen]]
        heads[chosen] += 1
        response[j] = now - times_list[j] + work_list[j]
        heapq.heappush(finish, (now + work_list[j], core))
    start = customers // 20
    return response[start:], which[start:]


def core_groups(port_work: Any, cores_per_port: Any, cores: int) -> tuple[tuple[int, ...], ...]:
    """The cores serving each port at one load point, as the model places them: heaviest port (``port_work``)
    first, on its ``cores_per_port`` least-loaded cores, ties to the lower core index
    (:func:`iosizer.model.loadshare._placement`)."""
    from iosizer.model.loadshare import _placement

    work = np.asarray(port_work, dtype=np.float64)[None, :]
    _, membership = _placement(work, np.asarray(cores_per_port)[None, :], int(cores))
    return tuple(tuple(int(c) for c in np.flatnonzero(row)) for row in membership[0])


@dataclass(frozen=True, eq=False)
class SimulatedPoints:
    """Mean response (service times, non-core part included) per total load with its 95 % interval."""

    total_load: np.ndarray
    response: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    replications: int
    customers: int
    #: Each replication's mean response (B, replications).
    runs: np.ndarray


def simulate_points(policy: str, total_load: Any, port_shares: Sequence[float], params: Any,
                    replications: int = REPLICATIONS, customers: int = CUSTOMERS, seed: int = 0,
                    cores_per_port: np.ndarray | None = None) -> SimulatedPoints:
    """Each total load (cores) simulated with the cores the policy's rule chooses there (or ``cores_per_port``,
    (B, P)), placed as the model places them; ``replications`` independent runs per point, seeded from ``seed``."""
    from scipy.stats import t as student

    from iosizer.model.loadshare import evaluate

    totals = np.atleast_1d(np.asarray(total_load, dtype=np.float64))
    shares = np.asarray(port_shares, dtype=np.float64) / float(np.sum(port_shares))
    k_all = evaluate(policy, totals, shares, params).cores_per_port if cores_per_port is None else cores_per_port
    means, lows, highs, every = [], [], [], []
    streams = np.random.SeedSequence(seed).spawn(totals.size)
    for total, k, stream in zip(totals, np.atleast_2d(k_all), streams):
        service = 1.0 + params.overhead * (k - 1) / k
        groups = core_groups(total * shares * service, k, params.cores)
        rng = np.random.default_rng(stream)
        runs = np.array([responses(total * shares, service, groups, params.cores, customers, rng)[0].mean()
                         for _ in range(replications)]) + params.non_core
        half = student.ppf(0.975, replications - 1) * runs.std(ddof=1) / np.sqrt(replications)
        every.append(runs)
        means.append(runs.mean())
        lows.append(runs.mean() - half)
        highs.append(runs.mean() + half)
    return SimulatedPoints(totals, np.array(means), np.array(lows), np.array(highs), replications, customers,
                           np.array(every))


#: I/Os per replication and point of ``iosizer loadshare curve --simulate`` (a curve has many points).
CURVE_CUSTOMERS = 20_000


def simulated_curve(answer: Any) -> Any:
    """``iosizer loadshare curve --simulate``: the answer's mean responses (service times and over the reference
    minimum) replaced by the simulated means at each row's load, the model's kept as ``response_model_*`` and
    the 95 % intervals as ``response_ci_low/high_*`` (:func:`simulate_points`, the model's cores and placement)."""
    from dataclasses import replace

    from iosizer.calibration.loadshare import policy_params
    from iosizer.model.loadshare import port_shares_of

    if answer.parts:  # one answer per policy
        parts = tuple((chosen, simulated_curve(part)) for chosen, part in answer.parts)
        return replace(answer, parts=parts, notes=tuple(dict.fromkeys(n for _, part in parts for n in part.notes)))
    values, outputs = answer.values, dict(answer.outputs)
    params = policy_params(int(values["cores"]), values["comm_overhead_pct"], values["threshold"],
                           values["non_core_pct"], values["switch_rule"])
    done = simulate_points(values["policy"], outputs["throughput_cores"], port_shares_of(values), params,
                           customers=CURVE_CUSTOMERS)
    unit = outputs["response_service_times"] / outputs["response_norm"]  # the reference policy's minimum
    model = {"response_model_service_times": outputs["response_service_times"],
             "response_model_norm": outputs["response_norm"]}
    outputs.update(response_service_times=done.response, response_norm=done.response / unit)
    trailing = {**model, "response_ci_low_service_times": done.ci_low, "response_ci_high_service_times": done.ci_high,
                "response_ci_low_norm": done.ci_low / unit, "response_ci_high_norm": done.ci_high / unit}
    note = (f"--simulate: response_norm is the simulated mean ({done.replications} replications of "
            f"{done.customers:,} I/Os per point, iosizer.simulate.loadshare, the model's cores and placement), "
            "response_ci_low/high_norm its 95 % interval, response_model_norm the model's")
    return replace(answer, outputs=outputs, trailing={**answer.trailing, **trailing}, notes=(*answer.notes, note))
