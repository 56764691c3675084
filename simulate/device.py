"""The device family's ``curve`` simulated: a constant floor, then FCFS over C units, one closed loop per depth.

Each outstanding count N is its own closed network of N I/Os (fio keeps N in
flight): a delay station of the constant ``latency_floor_us`` and a
``parallel_units``-server FCFS station of mean ``unit_service_us``, service
exponential at ``service_scv`` 1, gamma of shape 1 / scv otherwise, constant
at 0 (:func:`iosizer.simulate.streams.by_inversion`, the project's one
mapping). The numpy engine (:mod:`iosizer.simulate.vectorised`) or SimPy
(:mod:`iosizer.simulate.closed`) runs it; depth k of a replication reads its
part k of the replication's streams, so depths are independent. Latency
percentiles are each replication's empirical percentile of its measured
I/Os (:func:`iosizer.simulate.vectorised.response_percentiles`).

The model layer may not import this layer, so the ``curve`` question's
``simulate`` hook is registered in :mod:`iosizer.simulate.hooks`, not in
:mod:`iosizer.model.device`; ``iosizer simulate device`` is generated from it
(:mod:`iosizer.simulate.declared`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from iosizer.simulate.closed import ClosedNetwork, JobClass, Station
from iosizer.simulate.stats import Sample
from iosizer.simulate.streams import Streams

__all__ = ["MAX_DEPTHS", "DeviceSweep", "network"]

#: Depths one run simulates at most (each is a closed network of its own: work grows with the list).
MAX_DEPTHS = 16


@dataclass(frozen=True)
class DeviceSweep:
    """One closed network per point; metrics ``<output>_at_<k>`` for point k (the declared outputs, and
    ``latency_pP_us`` for each of ``percentiles``)."""

    networks: tuple[ClosedNetwork, ...]
    percentiles: tuple[float, ...] = ()

    vectorised = True
    simulator = "SimPy"

    @property
    def _scv(self) -> float:
        return self.networks[0].stations[1].scv if self.networks else 1.0

    @property
    def analytic_method(self) -> str:
        return "exact (product form)" if self._scv == 1.0 else "product form at scv 1 (approximation)"

    @property
    def notes(self) -> tuple[str, ...]:
        """What the run draws, and the analytic side's measured error where it is an approximation."""
        from iosizer.model.device import SCV_ERROR

        scv = self._scv
        kind = "exponential" if scv == 1.0 else "constant" if scv == 0.0 else "gamma"
        drawn = f"simulated: a constant floor, then FCFS over the units, unit service {kind} (scv {scv:g})"
        return (drawn,) if scv == 1.0 else (drawn, "the analytic values are the product form's, exact at scv 1 "
                                                    "only; " + SCV_ERROR)

    def run(self, streams: Streams) -> Sample:
        return self._joined([[n.run(streams.part(k, len(self.networks)))] for k, n in enumerate(self.networks)])[0]

    def run_batch(self, batch: list[Streams]) -> list[Sample]:
        return self._joined([n.run_batch([s.part(k, len(self.networks)) for s in batch])
                             for k, n in enumerate(self.networks)])

    def _joined(self, per_depth: Sequence[Sequence[Sample]]) -> list[Sample]:
        """Per replication, every depth's metrics in one sample (times in us: IOPS = 1e6 x cycles per us)."""
        from iosizer.model.percentiles import percentile_key

        joined = []
        for r in range(len(per_depth[0])):
            metrics: dict[str, float] = {}
            seconds, measured = 0.0, 0
            for k, samples in enumerate(per_depth):
                sample = samples[r]
                metrics[f"iops_at_{k}"] = sample.metrics["throughput_io"] * 1e6
                metrics[f"mean_latency_us_at_{k}"] = sample.metrics["response_io"]
                for p in self.percentiles:
                    metrics[f"latency_{percentile_key(p)}_us_at_{k}"] = \
                        sample.metrics[f"response_{percentile_key(p)}_io"]
                seconds += sample.seconds
                measured += sample.measured
            joined.append(Sample(metrics, seconds, measured))
        return joined


def network(values: Mapping[str, Any], depth: int, completions: int,
            percentiles: tuple[float, ...] = ()) -> ClosedNetwork:
    """N = ``depth`` I/Os: the constant floor (a delay), then one of C FCFS units (us)."""
    units = int(round(float(values["parallel_units"])))
    stations = (Station("floor", float("inf"), 0.0), Station("units", float(units), float(values["service_scv"])))
    visits = ((0, float(values["latency_floor_us"])), (1, float(values["unit_service_us"])))
    return ClosedNetwork(stations, (JobClass("io", int(depth), visits),), completions, tuple(percentiles))
