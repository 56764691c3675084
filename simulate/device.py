"""The device family's ``curve`` simulated: a constant floor, then FCFS over C units, one closed loop per depth.

Each outstanding count N is its own closed network of N I/Os (fio keeps N in
flight): a delay station of the constant ``latency_floor_us`` and a
``parallel_units``-server FCFS station of mean ``unit_service_us``, service
exponential at ``service_scv`` 1, gamma of shape 1 / scv otherwise, constant
at 0 (:func:`iosizer.simulate.streams.by_inversion`, the project's one
mapping). The numpy engine (:mod:`iosizer.simulate.vectorised`) or SimPy
(:mod:`iosizer.simulate.closed`) runs it; depth k of a replication reads its
part k of the replication's streams, so depths are independent.

The engines measure mean cycle times only (no per-I/O record is kept), so
no latency percentile is simulated here; the percentile model's error
against a per-I/O event simulation is :data:`iosizer.model.device.SCV_ERROR`.

The model layer may not import this layer, so the ``curve`` question's
``simulate`` hook is registered in :mod:`iosizer.simulate.hooks`, not in
:mod:`iosizer.model.device`; the experiment (analytic beside simulated) is
:func:`iosizer.simulate.systems.device`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from iosizer.errors import InputError
from iosizer.simulate.closed import ClosedNetwork, JobClass, Station
from iosizer.simulate.stats import Sample
from iosizer.simulate.streams import Streams

__all__ = ["MAX_DEPTHS", "DeviceSweep", "depths", "key", "network"]

#: Depths one run simulates at most (each is a closed network of its own: work grows with the list).
MAX_DEPTHS = 16


def key(metric: str, depth: int) -> str:
    return f"{metric}_at_{depth}"


@dataclass(frozen=True)
class DeviceSweep:
    """One closed network per outstanding count; metrics ``iops_at_N`` and ``mean_latency_us_at_N``."""

    networks: tuple[ClosedNetwork, ...]

    vectorised = True

    def run(self, streams: Streams) -> Sample:
        return self._joined([[n.run(streams.part(k, len(self.networks)))] for k, n in enumerate(self.networks)])[0]

    def run_batch(self, batch: list[Streams]) -> list[Sample]:
        return self._joined([n.run_batch([s.part(k, len(self.networks)) for s in batch])
                             for k, n in enumerate(self.networks)])

    def _joined(self, per_depth: Sequence[Sequence[Sample]]) -> list[Sample]:
        """Per replication, every depth's metrics in one sample (times in us: IOPS = 1e6 x cycles per us)."""
        joined = []
        for r in range(len(per_depth[0])):
            metrics: dict[str, float] = {}
            seconds, measured = 0.0, 0
            for network, samples in zip(self.networks, per_depth):
                depth, sample = network.population, samples[r]
                metrics[key("iops", depth)] = sample.metrics["throughput_io"] * 1e6
                metrics[key("mean_latency_us", depth)] = sample.metrics["response_io"]
                seconds += sample.seconds
                measured += sample.measured
            joined.append(Sample(metrics, seconds, measured))
        return joined


def network(values: Mapping[str, Any], depth: int, completions: int) -> ClosedNetwork:
    """N = ``depth`` I/Os: the constant floor (a delay), then one of C FCFS units (us)."""
    units = int(round(float(values["parallel_units"])))
    stations = (Station("floor", float("inf"), 0.0), Station("units", float(units), float(values["service_scv"])))
    visits = ((0, float(values["latency_floor_us"])), (1, float(values["unit_service_us"])))
    return ClosedNetwork(stations, (JobClass("io", int(depth), visits),), completions)


def depths(outstanding: Sequence[float] | None) -> list[int]:
    from iosizer.model.registry import declaration

    question = next(q for q in declaration("device").questions if q.command == "curve")
    spec = question.input("outstanding")
    raw = list(spec.sweep()) if outstanding is None else list(outstanding)
    if not raw:
        raise InputError("--outstanding: give at least one value")
    if len(raw) > MAX_DEPTHS:
        raise InputError(f"--outstanding: {len(raw)} depths, more than the {MAX_DEPTHS} one simulation runs")
    depths = [int(spec.check(v, "--outstanding")) for v in raw]
    if len(set(depths)) != len(depths):
        raise InputError(f"--outstanding: each depth once, got {', '.join(map(str, depths))}")
    return depths
