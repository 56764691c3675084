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
``simulate`` hook is registered here (:data:`SIMULATED`), not in
:mod:`iosizer.model.device`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from iosizer.errors import InputError
from iosizer.simulate.closed import DEFAULT_COMPLETIONS, ClosedNetwork, JobClass, Station
from iosizer.simulate.stats import Sample
from iosizer.simulate.streams import Streams

__all__ = ["MAX_DEPTHS", "SIMULATED", "DeviceSweep", "device", "simulate_curve"]

#: Depths one run simulates at most (each is a closed network of its own: work grows with the list).
MAX_DEPTHS = 16


def _key(metric: str, depth: int) -> str:
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
                metrics[_key("iops", depth)] = sample.metrics["throughput_io"] * 1e6
                metrics[_key("mean_latency_us", depth)] = sample.metrics["response_io"]
                seconds += sample.seconds
                measured += sample.measured
            joined.append(Sample(metrics, seconds, measured))
        return joined


def _network(values: Mapping[str, Any], depth: int, completions: int) -> ClosedNetwork:
    """N = ``depth`` I/Os: the constant floor (a delay), then one of C FCFS units (us)."""
    units = int(round(float(values["parallel_units"])))
    stations = (Station("floor", float("inf"), 0.0), Station("units", float(units), float(values["service_scv"])))
    visits = ((0, float(values["latency_floor_us"])), (1, float(values["unit_service_us"])))
    return ClosedNetwork(stations, (JobClass("io", int(depth), visits),), completions)


def _depths(outstanding: Sequence[float] | None) -> list[int]:
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


def device(*, outstanding: Sequence[float] | None = None, profile: Any = None,
           latency_floor_us: float | None = None, parallel_units: float | None = None,
           unit_service_us: float | None = None, service_scv: float | None = None,
           run_length: int | None = None) -> Any:
    """The ``device curve`` experiment: values from ``profile`` (a Profile; None: the shipped one, or none
    when every parameter is given), each given parameter fixing its value, as ``iosizer device curve``."""
    from iosizer.calibration.questions import resolve
    from iosizer.model.device import SCV_ERROR, device_curve
    from iosizer.simulate.systems import Experiment, Metric, _length

    depths = _depths(outstanding)
    changes = {"latency_floor_us": latency_floor_us, "parallel_units": parallel_units,
               "unit_service_us": unit_service_us, "service_scv": service_scv}
    values, _, source = resolve("device", profile, None, changes)
    completions = _length(run_length, DEFAULT_COMPLETIONS)
    model = DeviceSweep(tuple(_network(values, n, completions) for n in depths))
    exact = device_curve(values, np.asarray(depths, dtype=np.float64))
    metrics = tuple(Metric(_key(name, n), float(exact[name][i]), label=name, point=(("outstanding", n),))
                    for i, n in enumerate(depths) for name in ("iops", "mean_latency_us"))
    scv = float(values["service_scv"])
    units = int(round(float(values["parallel_units"])))
    notes = [f"values: {source}; floor {float(values['latency_floor_us']):.6g} us (constant), {units} unit(s) of "
             f"{float(values['unit_service_us']):.6g} us, service scv {scv:g}"
             + (" (exponential)" if scv == 1.0 else " (constant)" if scv == 0.0 else " (gamma)"),
             "no latency percentile simulated: the engines keep mean cycle times, not each I/O's latency"]
    if scv != 1.0:
        notes.append("the analytic values are the product form's, exact at scv 1 only; " + SCV_ERROR)
    title = f"device curve, {units} units, outstanding {','.join(map(str, depths))}"
    method = "exact (product form)" if scv == 1.0 else "product form at scv 1 (approximation)"
    return Experiment("device", "device curve", title, model, metrics, method, "SimPy", tuple(notes))


def simulate_curve(values: Mapping[str, Any], inputs: Mapping[str, Any], *, seed: int = 0,
                   replications: int = 20, run_length: int | None = None) -> dict[str, np.ndarray]:
    """The ``curve`` question's ``simulate`` hook: ``solve``'s signature plus a seed, the same outputs.

    ``values`` every parameter by name, ``inputs["outstanding"]`` the depths;
    returns ``iops`` and ``mean_latency_us`` (simulated means over
    ``replications``, numpy engine) of the inputs' shape.
    """
    from iosizer.simulate import simulate

    n = np.asarray(inputs["outstanding"], dtype=np.float64)
    flat = [int(v) for v in n.reshape(-1)]
    unique = sorted(set(flat))
    result = simulate("device", "curve", outstanding=unique, replications=replications, seed=seed,
                      engine="numpy", run_length=run_length,
                      **{k: values[k] for k in ("latency_floor_us", "parallel_units", "unit_service_us",
                                                "service_scv")})
    means = {name: est.mean for name, est in result.estimates.items()}
    return {name: np.asarray([means[_key(name, v)] for v in flat]).reshape(n.shape)
            for name in ("iops", "mean_latency_us")}


#: (family, question) -> its ``simulate`` hook (the model layer cannot name this layer).
SIMULATED = {("device", "curve"): simulate_curve}
