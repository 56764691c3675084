"""Open queues simulated with Ciw: FCFS c-server queues, and cores serving port queues by eligibility.

Systems
-------
:class:`OpenQueue`: one station of ``servers`` identical servers behind one
FCFS queue, renewal arrivals at ``arrival_rate`` (inter-arrival scv
``arrival_scv``: 1 Poisson) and i.i.d. service times of mean
1 / ``service_rate`` (scv ``service_scv``: 1 exponential, 0 constant,
otherwise gamma). This is the system of M/M/1, M/M/c, M/D/1, M/G/1 and
G/G/c in :mod:`iosizer.model.queueing`. Ciw's own FCFS node runs it.

:class:`SharedCores`: the controller of seed 003 (:mod:`iosizer.model.loadshare`).
``cores`` cores; port p's I/Os arrive as a Poisson stream of rate
``rates[p]`` and may be served only by the cores ``eligible[p]`` (the
policy's k_p cores, placed as the model places them); an I/O of port p
takes an exponential time of mean ``service_means[p]`` (one core time plus
the hand-off overhead). An arriving I/O takes an idle eligible core if there
is one (chosen at random among them); a core that frees up takes the
longest-waiting I/O among the ports it serves (FCFS over its ports). Ciw
runs it with a node class that adds that eligibility to Ciw's FCFS node.

Warm-up rule
------------
Each replication measures the customers *arriving* in a window of length
T = ``customers`` / (total arrival rate), after a warm-up of

    max(T / 20, 20 t_relax),   t_relax = 1 / (c mu (1 - sqrt(rho))^2),

the relaxation time of an M/M/1 queue of the pooled service rate c mu at
utilisation rho (Morse 1955; Odoni & Roth 1983); for the controller, c mu
is its cores over the longest mean service time and rho the busiest core's
utilisation; customers arriving during the warm-up are discarded. The run
continues for a drain of the same length as the warm-up, so that the
window's customers finish (one still in the system at the end would be
dropped; at these lengths that has probability well below 1e-9 below 99 %
utilisation).

Per run: mean response and wait, the share of customers that wait, and
the utilisation (service time of the window's customers / (c T)). A
replication is a run and its antithetic twin on the same uniforms
(:class:`AntitheticPair`, :mod:`iosizer.simulate.streams`), averaged.

Time budget
-----------
Ciw runs to its end time in steps of
:data:`~iosizer.simulate.budget.CHECK_CUSTOMERS` mean inter-arrival times
(:func:`run_until`), and checks the replication's wall-clock allowance
(``streams.allowance``) between steps with its progress, simulated time /
end time; it raises when the allowance is spent. A run that finishes gives
the same numbers as one call would.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from iosizer.simulate.budget import CHECK_CUSTOMERS, Allowance
from iosizer.simulate.stats import Sample
from iosizer.simulate.streams import Draws, Streams

__all__ = ["AntitheticPair", "OpenQueue", "SharedCores", "run_until", "warmup_time"]

#: Customers measured per run unless a caller asks otherwise (a replication is a run and its twin).
DEFAULT_CUSTOMERS = 20_000


def warmup_time(window: float, pooled_rate: float, utilization: float) -> float:
    """The warm-up of the module docstring: max(window / 20, 20 relaxation times)."""
    relax = 1.0 / (pooled_rate * (1.0 - math.sqrt(min(utilization, 1.0 - 1e-12))) ** 2)
    return max(window / 20.0, 20.0 * relax)


def run_until(simulation: Any, end: float, step: float, allowance: Allowance) -> None:
    """Ciw's ``simulate_until_max_time(end)`` in steps of ``step`` (simulated time), checking ``allowance``.

    Each step processes the events dated before its end, in the order one
    call would: Ciw looks up the next event afresh at the start of a call,
    as it does after every event. Only Ciw's per-server busy-time totals
    (``wrap_up_servers``) are redone per step; nothing here reads them.
    """
    if not allowance.bounded:
        simulation.simulate_until_max_time(end)
        return
    reached = 0.0
    while reached < end:
        reached = min(reached + step, end)
        simulation.simulate_until_max_time(reached)
        allowance.check(reached / end)


@lru_cache(maxsize=1)
def _ciw_draws_class() -> type:
    import ciw

    class StreamDistribution(ciw.dists.Distribution):
        """A Ciw distribution reading one replication stream (never Python's global ``random``)."""

        def __init__(self, stream: Draws) -> None:
            self.stream = stream

        def __repr__(self) -> str:
            return f"StreamDistribution(mean={self.stream.mean:g}, scv={self.stream.scv:g})"

        def sample(self, t: Any = None, ind: Any = None) -> float:
            return self.stream()

    return StreamDistribution


def _ciw_distribution(draws: Draws) -> Any:
    return _ciw_draws_class()(draws)


@dataclass(frozen=True)
class OpenQueue:
    """A FCFS c-server queue with renewal arrivals (see the module docstring)."""

    arrival_rate: float
    service_rate: float
    servers: int
    arrival_scv: float = 1.0
    service_scv: float = 1.0
    customers: int = DEFAULT_CUSTOMERS

    @property
    def utilization(self) -> float:
        return self.arrival_rate / (self.servers * self.service_rate)

    def run(self, streams: Streams) -> Sample:
        import ciw

        started = time.perf_counter()
        window = self.customers / self.arrival_rate
        warm = warmup_time(window, self.servers * self.service_rate, self.utilization)
        network = ciw.create_network(
            arrival_distributions=[_ciw_distribution(streams.draws(0, 1.0 / self.arrival_rate, self.arrival_scv))],
            service_distributions=[_ciw_distribution(streams.draws(1, 1.0 / self.service_rate, self.service_scv))],
            number_of_servers=[int(self.servers)],
        )
        simulation = ciw.Simulation(network)
        run_until(simulation, warm + window + warm, CHECK_CUSTOMERS / self.arrival_rate, streams.allowance)
        end = warm + window
        waits: list[float] = []
        services: list[float] = []
        for record in simulation.get_all_records():
            if warm <= record.arrival_date < end:
                waits.append(record.waiting_time)
                services.append(record.service_time)
        count = len(waits)
        mean_wait = math.fsum(waits) / count
        mean_service = math.fsum(services) / count
        metrics = {
            "utilization": math.fsum(services) / (self.servers * window),
            "p_wait": sum(1 for w in waits if w > 0.0) / count,
            "mean_wait": mean_wait,
            "mean_response": mean_wait + mean_service,
        }
        return Sample(metrics, time.perf_counter() - started, count)

    #: The numpy engine runs it (:func:`iosizer.simulate.vectorised.open_queue`).
    vectorised = True

    def run_batch(self, batch: list[Streams]) -> list[Sample]:
        """Replications of this queue by the numpy engine, one per Streams (the same customers as :meth:`run`)."""
        from iosizer.simulate.vectorised import open_queue

        window = self.customers / self.arrival_rate
        return open_queue(self, batch, warmup_time(window, self.servers * self.service_rate, self.utilization))


def _eligible_node(eligible: dict[str, frozenset[int]], choice: Callable[[], float]) -> type:
    """Ciw's node with servers restricted per customer class (port) and random idle-server choice."""
    import ciw

    class EligibleCores(ciw.Node):
        def find_free_server(self, ind: Any) -> Any:
            allowed = eligible[ind.customer_class]
            free = [s for s in self.servers if not s.busy and s.id_number in allowed]
            if len(free) <= 1:
                return free[0] if free else None
            return free[min(int(choice() * len(free)), len(free) - 1)]

        def _start(self, ind: Any, server: Any) -> None:
            self.attach_server(server, ind)
            ind.service_start_date = self.now
            ind.service_time = self.get_service_time(ind)
            ind.service_end_date = self.now + ind.service_time
            self.number_in_service += 1
            server.next_end_service_date = ind.service_end_date

        def begin_service_if_possible_accept(self, next_individual: Any) -> None:
            next_individual.arrival_date = self.now
            server = self.find_free_server(next_individual)
            if server is not None:
                self._start(next_individual, server)

        def begin_service_if_possible_release(self, next_individual: Any, newly_free_server: Any) -> None:
            if newly_free_server is None or newly_free_server not in self.servers:
                return
            core = newly_free_server.id_number
            for ind in self.individuals[0]:  # in arrival order: the longest-waiting first
                if not ind.server and core in eligible[ind.customer_class]:
                    self._start(ind, newly_free_server)
                    return

    return EligibleCores


@dataclass(frozen=True)
class SharedCores:
    """Cores serving port queues, each port by its eligible cores (see the module docstring).

    ``rates[p]``: port p's arrivals per unit of service time; ``service_means[p]``
    its mean service time; ``eligible[p]``: the cores (0-based) that serve it.
    """

    rates: tuple[float, ...]
    service_means: tuple[float, ...]
    eligible: tuple[tuple[int, ...], ...]
    cores: int
    service_scv: float = 1.0
    customers: int = DEFAULT_CUSTOMERS
    #: Time every I/O spends outside the cores (seed 003's non-core part of a write hit), service times.
    fixed_delay: float = 0.0

    def core_utilizations(self) -> list[float]:
        """Each core's utilisation under the most balanced split of each port's work over its cores: where a
        free core's FCFS pick sends it (:func:`iosizer.model.loadshare.balanced_utilisation`)."""
        import numpy as np

        from iosizer.model.loadshare import balanced_utilisation

        work = np.array([[rate * mean for rate, mean in zip(self.rates, self.service_means)]])
        membership = np.zeros((1, len(self.rates), self.cores), dtype=bool)
        for port, group in enumerate(self.eligible):
            membership[0, port, list(group)] = True
        return [float(u) for u in balanced_utilisation(work, membership)[0]]

    def run(self, streams: Streams) -> Sample:
        import ciw

        started = time.perf_counter()
        ports = [p for p, rate in enumerate(self.rates) if rate > 0]
        names = {p: f"port {p}" for p in ports}
        total = sum(self.rates[p] for p in ports)
        window = self.customers / total
        busiest = max(self.core_utilizations())
        warm = warmup_time(window, self.cores / max(self.service_means), busiest)
        service_draws = {p: streams.draws(2 + 2 * p, self.service_means[p], self.service_scv) for p in ports}
        network = ciw.create_network(
            arrival_distributions={names[p]: [_ciw_distribution(streams.draws(1 + 2 * p, 1.0 / self.rates[p], 1.0))]
                                   for p in ports},
            service_distributions={names[p]: [_ciw_distribution(service_draws[p])] for p in ports},
            number_of_servers=[int(self.cores)],
        )
        eligible = {names[p]: frozenset(core + 1 for core in self.eligible[p]) for p in ports}
        node = _eligible_node(eligible, _Uniform(streams.generator(0)))
        simulation = ciw.Simulation(network, node_class=node)
        run_until(simulation, warm + window + warm, CHECK_CUSTOMERS / total, streams.allowance)
        end = warm + window
        responses = 0.0
        count = 0
        for record in simulation.get_all_records():
            if warm <= record.arrival_date < end:
                responses += record.waiting_time + record.service_time
                count += 1
        metrics = {"response_service_times": responses / count + self.fixed_delay}
        return Sample(metrics, time.perf_counter() - started, count)

    #: The numpy engine runs it (:func:`iosizer.simulate.vectorised.shared_cores`).
    vectorised = True

    def run_batch(self, batch: list[Streams]) -> list[Sample]:
        """Replications by the numpy engine (the same system as :meth:`run`, from other draws: statistically)."""
        from iosizer.simulate.vectorised import shared_cores

        total = sum(rate for rate in self.rates if rate > 0)
        window = self.customers / total
        warm = warmup_time(window, self.cores / max(self.service_means), max(self.core_utilizations()))
        return shared_cores(self, batch, warm)


class _Uniform:
    """Uniform [0, 1) numbers from one generator, block-buffered like :class:`Draws`."""

    __slots__ = ("_rng", "_buffer", "_next")

    def __init__(self, rng: Any) -> None:
        self._rng = rng
        self._buffer: list[float] = []
        self._next = 0

    def __call__(self) -> float:
        if self._next >= len(self._buffer):
            self._buffer = self._rng.random(4096).tolist()
            self._next = 0
        value = self._buffer[self._next]
        self._next += 1
        return value


@dataclass(frozen=True)
class AntitheticPair:
    """A replication made of a run and its antithetic twin (:meth:`Streams.mirrored`), averaged."""

    model: Any

    def run(self, streams: Streams) -> Sample:
        first = self.model.run(streams.part(0, 2))
        twin = self.model.run(streams.mirrored().part(1, 2))
        return self._average(first, twin)

    @property
    def vectorised(self) -> bool:
        return bool(getattr(self.model, "vectorised", False))

    def run_batch(self, batch: list[Streams]) -> list[Sample]:
        """Every run and its twin side by side in one batch (their progress is the batch's: no parts)."""
        done = self.model.run_batch(list(batch) + [s.mirrored() for s in batch])
        return [self._average(first, twin) for first, twin in zip(done[:len(batch)], done[len(batch):])]

    @staticmethod
    def _average(first: Sample, twin: Sample) -> Sample:
        metrics = {k: 0.5 * (v + twin.metrics[k]) for k, v in first.metrics.items()}
        return Sample(metrics, first.seconds + twin.seconds, first.measured + twin.measured)
