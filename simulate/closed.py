"""Closed queueing networks simulated with SimPy: jobs as processes cycling for ever.

System
------
A fixed population of jobs per class circulates: a job of class c thinks
(a delay of mean ``think_time``, exponential unless ``think_scv`` says
otherwise), then makes its ``visits`` in order, one visit per (station,
mean time) pair, then thinks again. A station is

* a queueing station of ``servers`` identical servers behind one FCFS queue
  (a ``simpy.Resource``): service times of the visit's mean with the
  station's ``scv`` (1 exponential, the product-form assumption of MVA;
  0 constant; otherwise gamma);
* a delay station (``servers = inf``): every job stays the visit's time, a
  constant by default (``scv = 0``: a wire, a flash write, a storage round
  trip). Product-form results do not depend on the distribution at a delay
  station, so the constant is the same system for MVA.

This is the network exact MVA (:func:`iosizer.model.mva.mva`) and multi-class
MVA (:func:`iosizer.model.mva.mva_multiclass`) solve, with a station's demand
as the mean time of its one visit per cycle.

Warm-up rule
------------
All jobs start thinking (or at their first visit with no think time), an
empty network. The first max(``completions`` / 10, 10 x population)
completed cycles are discarded: at least ten cycles per job, which takes a
closed network far past its start-up transient. The next ``completions``
cycles are measured: per class, throughput = cycles completed / the time
from the end of the warm-up to the last counted completion, response = mean
time of those cycles from the end of thinking to completion.

Time budget
-----------
Every :data:`~iosizer.simulate.budget.CHECK_CYCLES` completed cycles the
run checks its replication's wall-clock allowance (``streams.allowance``,
:mod:`iosizer.simulate.budget`) with its progress, completed / (warm-up +
measured) cycles; the check raises out of ``env.run`` when the allowance
is spent. It reads no random numbers and schedules no event, so a run that
finishes gives the same numbers as without it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Iterator

from iosizer.simulate.budget import CHECK_CYCLES
from iosizer.simulate.stats import Sample
from iosizer.simulate.streams import Streams

__all__ = ["ClosedNetwork", "JobClass", "Station"]

#: Cycles measured per replication unless a caller asks otherwise.
DEFAULT_COMPLETIONS = 20_000


@dataclass(frozen=True)
class Station:
    """A queueing station of ``servers`` FCFS servers, or a delay (``servers = inf``)."""

    name: str
    servers: float = 1.0
    scv: float = 1.0

    @property
    def delay(self) -> bool:
        return math.isinf(self.servers)


@dataclass(frozen=True)
class JobClass:
    """``population`` jobs making ``visits`` (station index, mean time) in order, then thinking."""

    name: str
    population: int
    visits: tuple[tuple[int, float], ...]
    think_time: float = 0.0
    think_scv: float = 1.0


@dataclass(frozen=True)
class ClosedNetwork:
    """Stations and job classes (see the module docstring); ``completions`` cycles measured per replication."""

    stations: tuple[Station, ...]
    classes: tuple[JobClass, ...]
    completions: int = DEFAULT_COMPLETIONS
    #: Percentiles (P) of each class's measured cycle times to report too, as ``response_pP_<class>``
    #: (:func:`iosizer.simulate.vectorised.response_percentiles`: the replication's empirical percentile).
    percentiles: tuple[float, ...] = ()

    @property
    def population(self) -> int:
        return sum(c.population for c in self.classes)

    def warmup_completions(self) -> int:
        return max(self.completions // 10, 10 * self.population)

    def run(self, streams: Streams) -> Sample:
        """Metrics ``throughput_<class>`` and ``response_<class>`` (time units of the means)."""
        import simpy

        started = time.perf_counter()
        env = simpy.Environment()
        resources = [None if s.delay else simpy.Resource(env, capacity=int(s.servers)) for s in self.stations]
        warm = self.warmup_completions()
        target = warm + self.completions
        counts = [0] * len(self.classes)
        response_sums = [0.0] * len(self.classes)
        records: list[list[float]] = [[] for _ in self.classes]
        state = {"finished": 0, "start": 0.0, "end": 0.0}
        done = env.event()
        check = streams.allowance.check

        def job(c: int, think: Any, route: list[tuple[Any, Any]]):  # a SimPy process
            while True:
                if think is not None:
                    yield env.timeout(think())
                began = env.now
                for resource, draw in route:
                    if resource is None:
                        yield env.timeout(draw())
                    else:
                        request = resource.request()
                        yield request
                        yield env.timeout(draw())
                        resource.release(request)
                state["finished"] += 1
                finished = state["finished"]
                if finished % CHECK_CYCLES == 0:
                    check(finished / target)
                if finished == warm:
                    state["start"] = env.now
                elif finished > warm:
                    counts[c] += 1
                    response_sums[c] += env.now - began
                    if self.percentiles:
                        records[c].append(env.now - began)
                    if finished == target:
                        state["end"] = env.now
                        done.succeed()
                        return

        for c, think, route in self._jobs(streams, resources):
            env.process(job(c, think, route))
        env.run(until=done)
        window = state["end"] - state["start"]
        return Sample(self._metrics(counts, response_sums, window, records), time.perf_counter() - started,
                      self.completions)

    def _jobs(self, streams: Streams, resources: list[Any]) -> Iterator[tuple[int, Any, list[tuple[Any, Any]]]]:
        """Each job's class, think-time draws (None: no think) and route of (resource or None, draws)."""
        stream = 0
        for c, job_class in enumerate(self.classes):
            for _ in range(job_class.population):
                # Each job reads its own streams: the same job sees the same
                # numbers in two networks run on the same replication.
                think = None
                if job_class.think_time > 0:
                    think = streams.draws(stream, job_class.think_time, job_class.think_scv)
                stream += 1
                route = []
                for station, mean in job_class.visits:
                    route.append((resources[station], streams.draws(stream, mean, self.stations[station].scv)))
                    stream += 1
                yield c, think, route

    def _metrics(self, counts: list[int], response_sums: list[float], window: float,
                 records: list[list[float]]) -> dict[str, float]:
        """Per class: cycles per unit time over the measured window, their mean response, and the
        percentiles of its ``records`` (the measured cycle times) where the network asks for them."""
        metrics: dict[str, float] = {}
        for c, job_class in enumerate(self.classes):
            metrics[f"throughput_{job_class.name}"] = counts[c] / window
            metrics[f"response_{job_class.name}"] = response_sums[c] / counts[c] if counts[c] else math.nan
            if self.percentiles:
                from iosizer.simulate.vectorised import response_percentiles

                metrics.update(response_percentiles(records[c], self.percentiles, job_class.name))
        return metrics

    #: The numpy engine runs it (:func:`iosizer.simulate.vectorised.closed_network`).
    vectorised = True

    def run_batch(self, batch: list[Streams]) -> list[Sample]:
        """Replications of this network by the numpy engine, one per Streams (statistically, not
        number for number, the system of :meth:`run`: the engines read different streams)."""
        from iosizer.simulate.vectorised import closed_network

        return closed_network(self, batch)

