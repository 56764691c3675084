"""Every family's question as a simulation experiment: the simulated system and the analytic answer.

Each builder takes the options of one question, fills what is left out from
the family's declaration and shipped profile (``iosizer.family(name)``),
takes the analytic answer from the question's own answer (:func:`answered`:
the one road, no copy of the formula), and describes the
same system for a simulator, built from that answer's values by the
question's system function (:data:`SYSTEMS_AT`, which the question's
``--simulate`` runs too). The question declares its simulation (a
:class:`~iosizer.model.family.Simulation`: the command, its options, the
outputs its metrics estimate); the builder is registered here, in
:data:`SYSTEMS`, by (family, question), and :func:`build` finds it from the
declaration:

=================  ==========================================================  ===========
family, question   simulated system                                            simulator
=================  ==========================================================  ===========
mmc (mm1, mmc,     one FCFS station of c servers, renewal arrivals, service    Ciw
md1, mg1, ggc)     times of the given mean and scv
closed-network     single-class closed network, FCFS c-server / delay          SimPy
                   stations, exponential think time
oltp               16-terminal batch network, CPU and serial I/O step, with    SimPy
                   and without the added latency (common random numbers)
dma                a device issuing bursts: local issue work, then k round     SimPy
                   trips of the added latency (deterministic, as declared)
rmw                one credit loop per x8 port (a class of ``credits`` TLPs):  SimPy
                   its link, the shared RMW unit, the memory line path
hba response       threads cycling through the HBA cores (c servers shared,    SimPy
                   1 in occupancy mode), the link and the storage delay
loadshare          cores serving port queues by the policy's eligibility       Ciw
replication        writes in flight through local flash, both hosts' protocol  SimPy
                   stacks, the link and the remote flash
=================  ==========================================================  ===========

``service_scv`` (default 1: exponential, the assumption of every MVA and
Erlang answer here) sets the variability of the service times at the
queueing stations, so a planner can measure what the exponential assumption
costs when the hardware's service times are nearly constant (scv 0). The
analytic value is always the family's model as shipped. Delays (think time
excepted) are constants, the physical reading of a wire or flash latency,
and the same system for MVA (product-form results do not depend on a delay
station's distribution).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import partial
from typing import Any, Sequence

from iosizer.errors import InputError
from iosizer.simulate.budget import CHECK_CYCLES
from iosizer.simulate.closed import DEFAULT_COMPLETIONS, ClosedNetwork, JobClass, Station
from iosizer.simulate.open_queues import DEFAULT_CUSTOMERS, AntitheticPair, OpenQueue, SharedCores
from iosizer.simulate.stats import Sample
from iosizer.simulate.streams import Streams

__all__ = ["SYSTEMS", "SYSTEMS_AT", "Experiment", "Metric", "answered", "at_point", "build", "simulation_of",
           "system_at"]


@dataclass(frozen=True)
class Metric:
    """One output: its name (unit in the name), the analytic value, whether a CI target applies.

    ``label`` is the row's ``metric`` where one output is estimated at several
    points (default: ``name``, which stays unique), ``point`` the input
    values of that point, printed as leading columns (``(("outstanding", 4),)``).
    """

    name: str
    analytic: float
    target: bool = True
    label: str | None = None
    point: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Experiment:
    """A question of a family: the simulated system (``model``) and the analytic answer."""

    family: str
    question: str
    title: str
    model: Any
    metrics: tuple[Metric, ...]
    analytic_method: str
    simulator: str
    notes: tuple[str, ...] = ()

    @property
    def targeted(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.metrics if m.target)


# --- small picklable adaptors between a simulator's raw metrics and a family's ---------


@dataclass(frozen=True)
class Renamed:
    """A model's metrics renamed and scaled: ``mapping`` is (new name, old name, factor)."""

    model: Any
    mapping: tuple[tuple[str, str, float], ...]

    def run(self, streams: Streams) -> Sample:
        return self._renamed(self.model.run(streams))

    @property
    def vectorised(self) -> bool:
        return bool(getattr(self.model, "vectorised", False))

    def run_batch(self, batch: list[Streams]) -> list[Sample]:
        return [self._renamed(sample) for sample in self.model.run_batch(batch)]

    def _renamed(self, sample: Sample) -> Sample:
        metrics = {new: sample.metrics[old] * factor for new, old, factor in self.mapping}
        return Sample(metrics, sample.seconds, sample.measured)


@dataclass(frozen=True)
class Degradation:
    """The OLTP network with and without added latency on the same streams; PD from the pair."""

    local: ClosedNetwork
    added: ClosedNetwork

    def run(self, streams: Streams) -> Sample:
        return self._pair(self.local.run(streams.part(0, 2)), self.added.run(streams.part(1, 2)))

    vectorised = True

    def run_batch(self, batch: list[Streams]) -> list[Sample]:
        """Both networks on the same replications' streams (common random numbers), each a batch."""
        base = self.local.run_batch([s.part(0, 2) for s in batch])
        loaded = self.added.run_batch([s.part(1, 2) for s in batch])
        return [self._pair(b, a) for b, a in zip(base, loaded)]

    @staticmethod
    def _pair(base: Sample, loaded: Sample) -> Sample:
        x0, x = base.metrics["throughput_job"], loaded.metrics["throughput_job"]
        return Sample({"degradation_pct": (x0 - x) / x0 * 100.0, "throughput_per_cpu_demand": x},
                      base.seconds + loaded.seconds, base.measured + loaded.measured)


@dataclass(frozen=True)
class CreditLoops:
    """RMW contention: the ports' credit loops with and without RMW work, at the credits either
    side of a fractional count (linearly interpolated, as the model does)."""

    with_rmw: tuple[ClosedNetwork, ...]
    aligned: tuple[ClosedNetwork, ...]
    weights: tuple[float, ...]
    payload_bytes: float

    def _throughput(self, networks: Sequence[ClosedNetwork], batch: list[Streams],
                    vectorised: bool) -> list[tuple[float, float, int]]:
        """Per replication: the weighted throughput of ``networks``, GB/s, its seconds and cycles."""
        totals = [[0.0, 0.0, 0] for _ in batch]
        for k, (network, weight) in enumerate(zip(networks, self.weights)):
            parts = [s.part(k, len(networks)) for s in batch]
            samples = network.run_batch(parts) if vectorised else [network.run(parts[0])]
            for total, sample in zip(totals, samples):
                total[0] += weight * sum(v for name, v in sample.metrics.items() if name.startswith("throughput_"))
                total[1] += sample.seconds
                total[2] += sample.measured
        return [(t[0] * self.payload_bytes, t[1], int(t[2])) for t in totals]

    def run(self, streams: Streams) -> Sample:
        return self._loss(self._throughput(self.with_rmw, [streams.part(0, 2)], False)[0],
                          self._throughput(self.aligned, [streams.part(1, 2)], False)[0])

    vectorised = True

    def run_batch(self, batch: list[Streams]) -> list[Sample]:
        loaded = self._throughput(self.with_rmw, [s.part(0, 2) for s in batch], True)
        aligned = self._throughput(self.aligned, [s.part(1, 2) for s in batch], True)
        return [self._loss(a, b) for a, b in zip(loaded, aligned)]

    @staticmethod
    def _loss(loaded: tuple[float, float, int], aligned: tuple[float, float, int]) -> Sample:
        metrics = {"throughput_gbyte_s": loaded[0], "aligned_throughput_gbyte_s": aligned[0],
                   "loss_pct": (aligned[0] - loaded[0]) / aligned[0] * 100.0}
        return Sample(metrics, loaded[1] + aligned[1], loaded[2] + aligned[2])


@dataclass(frozen=True)
class DmaIssue:
    """A DMA engine issuing read bursts (seed 000 sec 4.2), as a SimPy process.

    Each burst takes the device's local issue work (mean ``local_ns``, scv
    ``scv``; the model declares it deterministic) and then waits its exposed
    round trips of the added latency, ``exposed_ns`` = k x. Throughput is
    the burst bytes over the mean issue interval, capped by the link; the
    degradation compares with the same bursts at no added latency.
    The first ``bursts / 10`` bursts are the warm-up (a deterministic
    engine has none, the rule is kept for uniformity).
    """

    local_ns: float
    exposed_ns: float
    burst_bytes: float | None
    link_mbps: float
    scv: float = 0.0
    bursts: int = 10_000

    def run(self, streams: Streams) -> Sample:
        import simpy

        started = time.perf_counter()
        warm = self.bursts // 10
        local = streams.draws(0, self.local_ns, self.scv)
        env = simpy.Environment()
        marks: dict[str, float] = {}
        work = [0.0]
        check = streams.allowance.check  # the replication's time budget (iosizer.simulate.budget)
        total = warm + self.bursts

        def engine():
            for issued in range(total):
                if issued % CHECK_CYCLES == 0:
                    check(issued / total)
                if issued == warm:
                    marks["start"] = env.now
                    work[0] = 0.0
                own = local()
                work[0] += own
                yield env.timeout(own)
                yield env.timeout(self.exposed_ns)
            marks["end"] = env.now

        env.process(engine())
        env.run()
        return Sample(self._metrics(marks["end"] - marks["start"], work[0]), time.perf_counter() - started, self.bursts)

    vectorised = True

    def run_batch(self, batch: list[Streams]) -> list[Sample]:
        """The same bursts by the numpy engine: the measured bursts' issue times from the same stream."""
        from iosizer.simulate.vectorised import dma_issue

        started = time.perf_counter()
        samples = []
        for local in dma_issue(self, batch):
            work = float(local.sum())
            samples.append(Sample(self._metrics(work + self.bursts * self.exposed_ns, work), 0.0, self.bursts))
        seconds = (time.perf_counter() - started) / max(len(batch), 1)
        return [Sample(s.metrics, seconds, s.measured) for s in samples]

    def _metrics(self, elapsed_ns: float, work_ns: float) -> dict[str, float]:
        """Metrics from the measured bursts' elapsed time and local issue work, ns."""
        interval = elapsed_ns / self.bursts
        local_interval = work_ns / self.bursts  # the same bursts with no added latency
        metrics = {"issue_interval_ns": interval,
                   "degradation_pct": (interval - local_interval) / interval * 100.0}
        if self.burst_bytes is not None:
            cap = self.link_mbps
            throughput = min(self.burst_bytes / interval * 1000.0, cap)
            local_throughput = min(self.burst_bytes / local_interval * 1000.0, cap)
            metrics["throughput_mbps"] = throughput
            metrics["degradation_pct"] = (local_throughput - throughput) / local_throughput * 100.0
        return metrics


# --- helpers ---------------------------------------------------------------------


def _shipped(family: str) -> dict[str, Any]:
    """The family's shipped values: declaration, settings and calibrated parameters."""
    from iosizer.calibration.frozen import shipped
    from iosizer.calibration.profile import profile_values

    return profile_values(shipped(family))


def _scv(value: float | None, label: str = "--service-scv") -> float:
    """A simulated variability: 1 (exponential) unless given, within the open queues' declared bounds."""
    from iosizer.model.queueing import SCV

    return SCV.value if value is None else float(SCV.check(value, label))


#: The longest replication: a million customers or cycles, one to two minutes of Ciw or SimPy
#: (the time budget is checked within a replication, so this bounds memory, not the overshoot).
MAX_RUN_LENGTH = 1_000_000


def _length(value: int | None, default: int, label: str = "--run-length") -> int:
    length = default if value is None else int(value)
    if not 100 <= length <= MAX_RUN_LENGTH:
        raise InputError(f"{label} must lie in [100, {MAX_RUN_LENGTH:,}], got {length}")
    return length


def _positive(name: str, value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"{name} must be > 0, got {value:g}")
    return float(value)


def _corrected(scv: float, declared: Any) -> bool:
    """Whether a family's service-variability correction (hba, oltp) takes this scv (its declared bounds)."""
    low, high = declared.bounds
    return low <= scv <= high


def _variability_note(scv: float) -> tuple[str, ...]:
    if scv == 1.0:
        return ()
    return (f"service times simulated with scv {scv:g} (the analytic value assumes exponential, scv 1): "
            "the gap measures that assumption",)


def answered(family: str, question: str, params: Any = None, **given: Any) -> Any:
    """The question's answer by the one road (:func:`iosizer.calibration.questions.answer`): a builder's
    analytic values come from the question's own ``solve``, never from a copy of its formula."""
    from iosizer.calibration.questions import answer

    return answer(family, question, params, **given)


def at_point(answer: Any, k: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the values, every output's value) of an answer's point ``k`` (a swept setting's one choice)."""
    part = answer.parts[0][1] if answer.parts else answer
    return dict(part.values), {name: value[k] for name, value in part.outputs.items()}


def _metrics(outputs: Any, *named: str | tuple[str, str, bool]) -> tuple[Metric, ...]:
    """Metrics of the answer's ``outputs``: a name (targeted), or (metric, output, targeted)."""
    out = []
    for item in named:
        metric, output, target = (item, item, True) if isinstance(item, str) else item
        out.append(Metric(metric, float(outputs[output]), target=target))
    return tuple(out)


# --- mmc and the open queues (Ciw) --------------------------------------------------------

_OPEN = {"mm1": "M/M/1", "mmc": "M/M/c", "md1": "M/D/1", "mg1": "M/G/1", "ggc": "G/G/c"}


def open_queue(question: str = "mmc", *, arrival_rate: float, service_rate: float | None = None,
               servers: int | None = None, arrival_scv: float | None = None, service_scv: float | None = None,
               run_length: int | None = None) -> Experiment:
    """An open FCFS queue: ``question`` mm1, mmc, md1, mg1 or ggc (times in the unit of 1/rate).

    Service rate and servers left out are the ``mmc`` family's shipped
    profile (calibrated from its example file).
    """
    from iosizer.model._validate import as_positive

    if question not in _OPEN:
        raise InputError(f"unknown open queue '{question}'; choose one of {', '.join(_OPEN)}")
    # The shipped profile is fitted on first use (seconds of imports and calibration): only when needed.
    needs_count = servers is None and question in ("mmc", "ggc")
    shipped = _shipped("mmc") if service_rate is None or needs_count else {}
    rate = float(shipped["service_rate_per_s"]) if service_rate is None else float(service_rate)
    count = int(shipped["servers"]) if needs_count else servers
    if question in ("mm1", "md1", "mg1"):
        if servers not in (None, 1):
            raise InputError(f"{_OPEN[question]} has one server; drop --servers")
        count = 1
    ca2 = 1.0 if question != "ggc" else _scv(arrival_scv, "--arrival-scv")
    cs2 = {"mm1": 1.0, "mmc": 1.0, "md1": 0.0}.get(question)
    if cs2 is None:
        if service_scv is None and question == "mg1":
            raise InputError("M/G/1 needs --service-scv (0 constant, 1 exponential)")
        cs2 = _scv(service_scv)
    elif service_scv is not None or arrival_scv is not None:
        raise InputError(f"{_OPEN[question]} fixes its variability; use ggc or mg1 for --service-scv/--arrival-scv")
    as_positive("arrival_rate", arrival_rate)  # the queue's own one-line errors, before the question's
    as_positive("servers", count)
    given = {"service_rate_per_s": rate, **({"servers": count} if question not in ("mm1", "md1", "mg1") else {}),
             **({"arrival_scv": ca2} if question == "ggc" else {}),
             **({"service_scv": cs2} if question in ("mg1", "ggc") else {})}
    values, outputs = at_point(answered("mmc", f"queue {question}", arrival_rate=[float(arrival_rate)], **given))
    name = _OPEN[question].replace("c", str(count)) if question in ("mmc", "ggc") else _OPEN[question]
    model = open_queue_system(values, {"arrival_rate": arrival_rate}, run_length=run_length)
    metrics = _metrics(outputs, "mean_response", *((key, key, False) for key in ("mean_wait", "p_wait", "utilization")))
    notes = [f"times in the unit of 1/rate; service rate {rate:.6g}, {count} server(s)"
             + (" (the mmc family's shipped profile)" if service_rate is None else "")]
    if question == "ggc":
        notes.append("p_wait: the analytic value is Erlang C's, an approximation for G/G/c")
    return Experiment("mmc", question, f"{name} queue, arrival rate {arrival_rate:g}", model, metrics,
                      _OPEN_METHODS[question], "Ciw", tuple(notes))


#: The analytic side of each open queue, as its answer says it.
_OPEN_METHODS = {"mm1": "exact (M/M/1)", "mmc": "exact (Erlang C)", "md1": "exact (Pollaczek-Khinchine)",
                 "mg1": "exact (Pollaczek-Khinchine)", "ggc": "Allen-Cunneen approximation (exact for M/M/c)"}


def open_queue_system(values: Any, point: Any, *, run_length: int | None = None,
                      service_scv: float | None = None) -> Any:
    """The FCFS queue of an answer's ``values`` (its service rate, servers and variabilities: a question's
    ``arrival_scv``/``service_scv``, else 1) at ``point["arrival_rate"]``, paired with its antithetic twin."""
    return AntitheticPair(OpenQueue(float(point["arrival_rate"]), float(values["service_rate_per_s"]),
                                    int(values["servers"]), float(values.get("arrival_scv", 1.0)),
                                    float(values.get("service_scv", 1.0)), _length(run_length, DEFAULT_CUSTOMERS)))


# --- closed-network ------------------------------------------------------------------------


def closed_network_system(values: Any, point: Any, *, run_length: int | None = None,
                          service_scv: float | None = None) -> Any:
    """The closed network of an answer's ``values`` (demands, servers, think time, seconds) at
    ``point["population"]``: FCFS c-server and delay stations, exponential think time."""
    from iosizer.model.mva import demand_name, station_servers

    demands = [float(values[demand_name(k + 1)]) for k in range(int(values["stations"]))]
    counts = [float(c) for c in station_servers(values)]
    scv = _scv(values.get("service_scv") if service_scv is None else service_scv)
    stations = tuple(Station(f"station {k + 1}", c, 0.0 if math.isinf(c) else scv) for k, c in enumerate(counts))
    network = ClosedNetwork(stations, (JobClass("job", int(point["population"]), tuple(enumerate(demands)),
                                                float(values["think_time_s"]), 1.0),),
                            _length(run_length, DEFAULT_COMPLETIONS))
    return Renamed(network, (("throughput_per_s", "throughput_job", 1.0), ("response_time_s", "response_job", 1.0)))


def closed_network(*, population: int, demands: Sequence[float] | None = None, think_time: float | None = None,
                   servers: Sequence[float] | None = None, method: str = "exact",
                   service_scv: float | None = None, run_length: int | None = None) -> Experiment:
    """A single-class closed network; demands and think time left out are the shipped profile's (seconds)."""
    from iosizer.model.mva import POPULATION, demand_name, mva_multiclass

    if method not in ("exact", "schweitzer"):
        raise InputError(f"--method must be exact or schweitzer, got {method!r}")
    notes = []
    if demands is None:
        shipped = _shipped("closed-network")
        demands = [shipped[demand_name(k + 1)] for k in range(int(shipped["stations"]))]
        if think_time is None:
            think_time = shipped["think_time_s"]
        notes.append("demands and think time: the closed-network family's shipped profile (its example load test)")
    think = 0.0 if think_time is None else float(think_time)
    counts = [1.0] * len(demands) if servers is None else [float(c) for c in servers]
    population = POPULATION.check(population, "--population")  # 10^7 ran for minutes in gigabytes
    values, outputs = at_point(answered("closed-network", "queue mva", population=[population],
                                        demand_s=[float(d) for d in demands], think_time_s=think, servers=counts))
    x, r, used = float(outputs["throughput"]), float(outputs["response_time"]), str(outputs["method"])
    if method == "schweitzer":  # another solver of the same network, the approximation beside the simulation
        solved = mva_multiclass([list(demands)], [think], [population], counts, method="schweitzer")
        x, r = float(solved.throughput[0]), float(solved.response_time[0])
        used = solved.method.replace("schweitzer", "Bard-Schweitzer")
    scv = _scv(service_scv)
    model = closed_network_system(values, {"population": population}, run_length=run_length, service_scv=scv)
    metrics = (Metric("throughput_per_s", x), Metric("response_time_s", r))
    notes.append("think time exponential; delay stations constant; response excludes the think time")
    return Experiment("closed-network", "mva", f"Closed network, {len(demands)} stations, N={population}", model,
                      metrics, f"MVA ({used})", "SimPy", tuple(notes) + _variability_note(scv))


# --- oltp and dma (seed 000) ---------------------------------------------------------------------


def _oltp_network(values: Any) -> Any:
    from iosizer.model.latency import OltpNetwork

    return OltpNetwork(terminals=int(values["terminals"]), knee_latency_ns=float(values["knee_latency_ns"]),
                       serial_share=float(values["serial_share"]), think_share=float(values["think_share"]))


def oltp_system(values: Any, point: Any, *, run_length: int | None = None, service_scv: float | None = None) -> Any:
    """The OLTP network of an answer's ``values`` with and without ``point["added_latency_ns"]`` (common random
    numbers), demands in units of the CPU demand D_c."""
    network = _oltp_network(values)
    serial = network.serial_share + network.round_trips_per_cpu_ns * float(point["added_latency_ns"])
    scv = _scv(values.get("service_scv") if service_scv is None else service_scv)
    length = _length(run_length, DEFAULT_COMPLETIONS)

    def build(serial_demand: float) -> ClosedNetwork:
        return ClosedNetwork((Station("cpu", 1.0, scv), Station("serial I/O step", 1.0, scv)),
                             (JobClass("job", network.terminals, ((0, 1.0), (1, serial_demand)),
                                       network.think_share, 1.0),), length)

    return Degradation(build(network.serial_share), build(serial))


def oltp(*, added_latency_ns: float, service_scv: float | None = None, run_length: int | None = None) -> Experiment:
    """The shipped OLTP network at added latency x (demands in units of the CPU demand D_c)."""
    from iosizer.model.latency import ADDED_LATENCY, SERVICE_SCV as OLTP_SCV
    from iosizer.model.mva import mva_batch

    x = float(ADDED_LATENCY.check(added_latency_ns, "--added-latency-ns"))
    values, outputs = at_point(answered("oltp", "latency oltp", added_latency_ns=[x]))
    network = _oltp_network(values)
    scv = _scv(service_scv)
    model = oltp_system(values, {"added_latency_ns": x}, run_length=run_length, service_scv=scv)
    # The network's throughput X(x), in 1 / D_c: no output of the question (it answers the loss), so its own MVA.
    serial = network.serial_share + network.round_trips_per_cpu_ns * x
    throughput = float(mva_batch([[1.0, serial]], network.think_share, network.terminals).throughput[0])
    metrics = _metrics(outputs, "degradation_pct") + (Metric("throughput_per_cpu_demand", throughput, target=False),)
    notes = (f"shipped oltp profile: knee {network.knee_latency_ns:.6g} ns, serial share {network.serial_share:.4g}, "
             f"{network.terminals} terminals; both networks read the same random streams (common random numbers)",)
    if scv != 1.0 and _corrected(scv, OLTP_SCV):
        _, varied = at_point(answered("oltp", "latency oltp", added_latency_ns=[x], service_scv=scv))
        notes += (f"the oltp model at service_scv {scv:g} ('iosizer latency oltp --service-scv', residual-service "
                  f"correction): degradation {float(varied['degradation_pct']):.4g} %",)
    return Experiment("oltp", "latency oltp", f"OLTP network at +{x:g} ns", model, metrics, "exact MVA", "SimPy",
                      notes + _variability_note(scv))


def dma_system(values: Any, point: Any, *, run_length: int | None = None, service_scv: float | None = None) -> Any:
    """A device's read bursts (an answer's ``values``: its issue pattern and burst size) at
    ``point["added_latency_ns"]``; the local work constant (scv 0, as the model declares) unless told."""
    if values.get("posted") or values.get("local_issue_interval_ns") is None:
        raise InputError(f"device '{values.get('device') or 'profile'}' is posted: its writes do not wait for "
                         "completions, so added latency costs nothing and there is nothing to simulate")
    x = float(point["added_latency_ns"])
    scv = 0.0 if service_scv is None else _scv(service_scv)
    return DmaIssue(float(values["local_issue_interval_ns"]), float(values["exposed_round_trips"]) * x,
                    values.get("burst_bytes"), float(values.get("link_mbps", math.inf)), scv,
                    _length(run_length, 10_000))


def dma(*, device: str, added_latency_ns: float, service_scv: float | None = None,
        run_length: int | None = None) -> Experiment:
    """A catalogue device's read bursts at added latency x (its table 4-1 calibration)."""
    from iosizer.calibration import latency as catalogue
    from iosizer.model.latency import ADDED_LATENCY

    x = float(ADDED_LATENCY.check(added_latency_ns, "--added-latency-ns"))
    name = device
    chosen = catalogue.device(name)
    if chosen.posted or chosen.local_issue_interval_ns is None:
        raise InputError(f"device '{name}' is posted: its writes do not wait for completions, so added latency "
                         "costs nothing and there is nothing to simulate")
    values, outputs = at_point(answered("dma", "latency dma", device=name, added_latency_ns=[x]))
    model = dma_system(values, {"added_latency_ns": x}, run_length=run_length, service_scv=service_scv)
    metrics = [Metric("issue_interval_ns", float(outputs["issue_interval_ns"])),
               Metric("degradation_pct", float(outputs["degradation_pct"]), target=False)]
    if values.get("burst_bytes") is not None:
        metrics.insert(1, Metric("throughput_mbps", float(outputs["throughput_mbps"])))
    notes = ("the dma model is Little's law on a fixed issue pattern, no queueing: its simulation checks the "
             "arithmetic, and means stay linear at any variability of the local work",)
    return Experiment("dma", "latency dma", f"DMA bursts of {name} at +{x:g} ns", model, tuple(metrics),
                      "closed form (Little's law)", "SimPy", notes)


# --- rmw (seed 001) -----------------------------------------------------------------------------


def rmw_system(values: Any, point: Any, *, run_length: int | None = None, service_scv: float | None = None) -> Any:
    """The ports' credit loops of an answer's ``values`` (its root complex and link) at ``point["lanes"]``
    writing ``point["transfer_bytes"]`` transfers, with and without the RMW work."""
    from iosizer.model.pcie import DLLP_BYTES, _rmw_platform, access_pattern

    platform = _rmw_platform(values)
    link = platform.link
    pattern = access_pattern(int(point["transfer_bytes"]), link.mps_bytes)
    ports = int(point["lanes"]) // link.lanes
    link_ns = (pattern.payload_per_tlp + link.tlp_overhead_bytes + link.dllps_per_tlp * DLLP_BYTES) / link.tlp_gbyte_s
    rmw_ns = pattern.unaligned_per_tlp * platform.rmw_service_ns
    line_ns = pattern.full_lines_per_tlp * platform.line_service_ns
    credits = platform.posted_credits
    low, high = math.floor(credits), math.ceil(credits)
    weights = (1.0,) if low == high else (1.0 - (credits - low), credits - low)
    populations = (low,) if low == high else (low, high)
    scv = _scv(values.get("service_scv") if service_scv is None else service_scv)
    length = _length(run_length, DEFAULT_COMPLETIONS)
    stations = tuple(Station(f"link {p + 1}", 1.0, scv) for p in range(ports)) + (
        Station("RMW unit", 1.0, scv), Station("memory line path", math.inf, 0.0))

    def loops(rmw_demand: float) -> tuple[ClosedNetwork, ...]:
        out = []
        for population in populations:
            classes = []
            for p in range(ports):
                visits = [(p, link_ns)] + ([(ports, rmw_demand)] if rmw_demand > 0 else [])
                if line_ns > 0:
                    visits.append((ports + 1, line_ns))
                classes.append(JobClass(f"port{p + 1}", int(population), tuple(visits)))
            out.append(ClosedNetwork(stations, tuple(classes), length))
        return tuple(out)

    return CreditLoops(loops(rmw_ns), loops(0.0), weights, pattern.payload_per_tlp)


def rmw(*, transfer_bytes: int = 520, lanes: int = 8, mps_bytes: int | None = None,
        service_scv: float | None = None, run_length: int | None = None) -> Experiment:
    """The shipped RMW platform: ``lanes / 8`` ports' credit loops writing ``transfer_bytes`` transfers."""
    from iosizer.calibration import pcie as shipped
    from iosizer.model.pcie import TOTAL_LANES, TRANSFER_BYTES

    platform = shipped.platform(mps_bytes=mps_bytes)  # --mps's one-line error
    per_port = platform.link.lanes
    lanes = TOTAL_LANES.check(lanes, "--lanes")  # 2^20 lanes asked numpy for 128 GiB
    if lanes < per_port or lanes % per_port:
        raise InputError(f"--lanes must be a whole multiple of {per_port} (one x{per_port} port each), got {lanes}")
    transfer_bytes = TRANSFER_BYTES.check(transfer_bytes, "--transfer-bytes")
    ask = {"lanes": [lanes], "transfer_bytes": [transfer_bytes],
           **({} if mps_bytes is None else {"mps_bytes": platform.link.mps_bytes})}
    values, outputs = at_point(answered("rmw", "pcie rmw", **ask))
    point = {"lanes": lanes, "transfer_bytes": transfer_bytes}
    scv = _scv(service_scv)
    model = rmw_system(values, point, run_length=run_length, service_scv=scv)
    metrics = _metrics(outputs, "throughput_gbyte_s", ("aligned_throughput_gbyte_s", "aligned_throughput_gbyte_s",
                                                        False), ("loss_pct", "loss_pct", False))
    credits = platform.posted_credits
    low, high = math.floor(credits), math.ceil(credits)
    notes = (f"shipped rmw profile: RMW {platform.rmw_service_ns:.4g} ns per unaligned access, {credits:.4g} "
             f"credits per port (a fractional count: the simulation, like the model, interpolates between "
             f"{low} and {high})" if low != high else
             f"shipped rmw profile: RMW {platform.rmw_service_ns:.4g} ns per unaligned access, {credits:g} credits",
             f"exact multi-class MVA of the same network: {float(outputs['throughput_gbyte_s']):.6g} GB/s (the "
             "model's own method since issue 15; Bard-Schweitzer was 2.6-4.9 % low)")
    if scv < 1.0:
        # The family models variability (service_scv <= 1, SCV_APPROXIMATION): its answer at this scv.
        _, varied = at_point(answered("rmw", "pcie rmw", service_scv=scv, **ask))
        notes += (f"the rmw model at service_scv {scv:g} ('iosizer pcie rmw --service-scv', residual-service "
                  f"correction): {float(varied['throughput_gbyte_s']):.6g} GB/s, loss "
                  f"{float(varied['loss_pct']):.4g} %",)
    return Experiment("rmw", "pcie rmw", f"PCIe writes of {transfer_bytes} B on {lanes} lanes ({lanes // per_port} "
                      "ports)", model, metrics, "exact multi-class MVA", "SimPy", notes + _variability_note(scv))


# --- hba (seed 002) --------------------------------------------------------------------------


def hba_system(values: Any, point: Any, *, run_length: int | None = None, service_scv: float | None = None) -> Any:
    """One virtual port's closed network of an answer's ``values`` at ``point["threads"]`` (its ``mode``:
    the point's, else the values')."""
    from iosizer.model.hba import port_from_values

    port, mode = port_from_values(values), str(point.get("mode", values["mode"]))
    scv = _scv(values.get("service_scv") if service_scv is None else service_scv)
    link_us = float(port.link_us_per_io(values["block_bytes"]))
    stations = [Station("HBA cores", float(port.cores if mode == "shared" else 1), scv), Station("link", 1.0, scv)]
    visits = [(0, port.core_us_per_io), (1, link_us)]
    if values["storage_us"] > 0:
        stations.append(Station("storage", math.inf, 0.0))
        visits.append((2, float(values["storage_us"])))
    network = ClosedNetwork(tuple(stations), (JobClass("io", int(point["threads"]), tuple(visits)),),
                            _length(run_length, DEFAULT_COMPLETIONS))
    return Renamed(network, (("response_us", "response_io", 1.0), ("iops", "throughput_io", 1e6)))


def hba(*, threads: int = 16, mode: str | None = None,
        block_bytes: float | None = None, storage_us: float | None = None, speed: str | None = None,
        cores: int | None = None, core_iops: float | None = None, link_mbps: float | None = None,
        service_scv: float | None = None, run_length: int | None = None) -> Experiment:
    """One virtual port's response at ``threads`` outstanding I/Os (seed 002 sec 3.2)."""
    from iosizer.calibration.hba import fc_port
    from iosizer.model.hba import (BLOCK_BYTES, CORE_IOPS, CORES, LINK_MBPS, MODE, SERVICE_SCV, STORAGE_US, THREADS,
                                   port_from_values)

    chosen = MODE.value if mode is None else MODE.check(mode, "mode")
    # As 'iosizer hba response' checks them: the hba declarations, the bound in the message.
    threads = THREADS.check(threads, "--threads")
    given = {}
    for spec, flag, value in ((BLOCK_BYTES, "--block-bytes", block_bytes), (STORAGE_US, "--storage-us", storage_us),
                              (CORES, "--cores", cores), (CORE_IOPS, "--core-iops", core_iops),
                              (LINK_MBPS, "--link-mbps", link_mbps)):
        if value is not None:
            given[spec.name] = spec.check(value, flag)
    fc_port(speed, cores, core_iops, link_mbps)  # the speed's one-line error (its profiles' names)
    if speed is not None:
        given["port"] = speed.lower()
    scv = _scv(service_scv)
    # The analytic column is the exponential model (service_scv 1); the notes give the family's correction.
    ask = dict(given, threads=[threads], mode=chosen)
    values, outputs = at_point(answered("hba", "hba response", service_scv=1.0, **ask))
    model = hba_system(values, {"threads": threads}, run_length=run_length, service_scv=scv)
    port = port_from_values(values)
    notes = (f"{chosen} mode: {port.cores if chosen == 'shared' else 1} core server(s) of {port.core_us_per_io:.4g} us "
             f"per I/O, link {float(port.link_us_per_io(values['block_bytes'])):.4g} us, storage delay "
             f"{values['storage_us']:g} us (assumed)",)
    if scv != 1.0 and _corrected(scv, SERVICE_SCV):
        _, varied = at_point(answered("hba", "hba response", service_scv=scv, **ask))
        notes += (f"the hba model at service_scv {scv:g} ('iosizer hba response --service-scv', residual-service "
                  f"correction): {float(varied['response_us']):.6g} us, {float(varied['iops']):.6g} IOPS",)
    return Experiment("hba", "hba response", f"HBA response, {threads} threads, {chosen} mode", model,
                      _metrics(outputs, "response_us", "iops"), "exact MVA", "SimPy", notes + _variability_note(scv))


# --- loadshare (seed 003) --------------------------------------------------------------------


def loadshare_system(values: Any, point: Any, *, run_length: int | None = None,
                     service_scv: float | None = None) -> Any:
    """The controller of an answer's ``values`` (its policy, port mix, cores and costs) at
    ``point["load_cores"]``: each port's Poisson I/Os served by the cores the policy's rule gives it there,
    placed as the model places them, the non-core part a constant; paired with its antithetic twin."""
    import numpy as np

    from iosizer.model.loadshare import _params_of, evaluate, port_shares_of
    from iosizer.simulate.loadshare import core_groups

    params, total, mix = _params_of(values), float(point["load_cores"]), port_shares_of(values)
    shares = np.asarray(mix, dtype=float) / float(np.sum(mix))
    # The rule's cores at this load (system-response weighs every port's load); an unstable load: its error.
    k = evaluate(values["policy"], total, shares, params).cores_per_port[0]
    port_load, service = total * shares, 1.0 + params.overhead * (k - 1) / k
    scv = _scv(values.get("service_scv") if service_scv is None else service_scv)
    return AntitheticPair(SharedCores(tuple(float(v) for v in port_load), tuple(float(v) for v in service),
                                      core_groups(port_load * service, k, params.cores), params.cores, scv,
                                      _length(run_length, DEFAULT_CUSTOMERS), fixed_delay=params.non_core))


def _loadshare_mix(family: Any, scenario: str | None,
                   port_shares: Sequence[float] | None) -> tuple[str, int, tuple[float, ...]]:
    """(the scenario's name, its cores, the port shares): a scenario of tables 2-4, or the planner's shares
    on the named scenario's cores (else the declared count)."""
    from iosizer.calibration.loadshare import scenario as find

    if port_shares is not None and scenario is None:
        if len(port_shares) == 0:
            raise InputError("--port-share: give one share per port (at least one)")
        return "", int(family.default("cores")), tuple(float(v) for v in port_shares)
    chosen = find(family.default("scenario") if scenario is None else scenario)
    return chosen.name, chosen.cores, chosen.port_shares if port_shares is None else tuple(map(float, port_shares))


def _loadshare_total(load_cores: float | None, load_fraction: float | None, top: float) -> float:
    """The total load (cores): ``load_cores``, or ``load_fraction`` of the policy's maximum ``top``."""
    if (load_cores is None) == (load_fraction is None):
        raise InputError("give one of --load-cores or --load-fraction")
    if load_fraction is None:
        return _positive("--load-cores", float(load_cores))
    if not 0 < load_fraction < 1:
        raise InputError(f"--load-fraction must lie in (0, 1) of the policy's maximum, got {load_fraction:g}")
    return load_fraction * top


def _loadshare_words(values: Any, total: float, top: float, model: Any, own_mix: bool) -> tuple[str, tuple[str, ...]]:
    """The experiment's title and notes: the mix, the controller's values, the load and each port's cores."""
    import numpy as np

    mix = values["port_shares"]
    weights = np.asarray(mix, dtype=float) / float(np.sum(mix))
    shown = f"port shares {', '.join(f'{v:.4g}' for v in weights)}" if own_mix else f"{values['mix']} scenario"
    notes = (f"{shown}, {values['cores']} cores, overhead {values['comm_overhead_pct']:g} %, threshold "
             f"{values['threshold']:g}, switch rule {values['switch_rule']}, non-core part "
             f"{values['non_core_pct']:g} % of a service time (a constant added to both); load {total:.4g} cores = "
             f"{total / top:.3f} of the policy's maximum {top:.4g}; cores per port "
             f"{', '.join(str(len(cores)) for cores in model.model.eligible)}",
             "the approximation: each group of cores linked by shared ports pooled as one M/M/K (Erlang C), a port on "
             "fewer of them also waiting for one of its own and behind its own I/Os ahead; exact for shared and "
             "exclusive")
    what = f"{len(mix)} ports on {values['cores']} cores" if own_mix else f"{values['mix']} scenario"
    return f"{values['policy']} policy, {what}, load {total:.4g} cores", notes


def loadshare(*, scenario: str | None = None, policy: str | None = None, load_cores: float | None = None,
              load_fraction: float | None = None, cores: int | None = None, comm_overhead_pct: float | None = None,
              threshold: float | None = None, non_core_pct: float | None = None, switch_rule: str | None = None,
              service_scv: float | None = None, run_length: int | None = None,
              port_shares: Sequence[float] | None = None) -> Experiment:
    """A policy on a port mix at a total load: ``load_cores``, or ``load_fraction`` of the policy's maximum.

    The mix is a scenario of seed 003 (tables 2-4), or any ``port_shares``
    (one positive load per port, normalised; ``cores`` then defaults to the
    declared count, or the named scenario's), so a cross-check can probe
    mixes the seed never measured. The analytic value is the ``load``
    question's answer at that load.
    """
    from iosizer.calibration.loadshare import policy_params
    from iosizer.model.loadshare import POLICIES, max_throughput
    from iosizer.model.registry import declaration

    family = declaration("loadshare")
    name, count, shares = _loadshare_mix(family, scenario, port_shares)
    policy = family.default("policy") if policy is None else policy
    if policy not in POLICIES:
        raise InputError(f"--policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    for key, value in (("cores", cores), ("comm_overhead_pct", comm_overhead_pct), ("threshold", threshold),
                       ("non_core_pct", non_core_pct), ("switch_rule", switch_rule)):
        if value is not None:  # checked against the declaration, as `iosizer loadshare` checks them
            family.spec(key).check(value, "--" + key.replace("_", "-"))
    params = policy_params(count if cores is None else cores, comm_overhead_pct, threshold, non_core_pct, switch_rule)
    top = max_throughput(policy, shares, params)  # checks the shares (one-line errors)
    total = _loadshare_total(load_cores, load_fraction, top)
    mix = {"scenario": name} if port_shares is None else {"shares": ",".join(map(repr, shares))}
    controller = {k: getattr(params, k) for k in ("cores", "comm_overhead_pct", "threshold", "non_core_pct",
                                                  "switch_rule")}
    # The system first, at the values the question is asked with (an unstable load: the model's own error, which
    # says by how much), then the analytic value: the question's answer there.
    model = loadshare_system({"policy": policy, "port_shares": shares, **controller}, {"load_cores": total},
                             run_length=run_length, service_scv=service_scv)
    values, outputs = at_point(answered("loadshare", "load", load_cores=[total], policy=policy, **controller, **mix))
    title, notes = _loadshare_words(values, total, top, model, port_shares is not None)
    return Experiment("loadshare", "loadshare load", title, model, _metrics(outputs, "response_service_times"),
                      "pooled M/M/K per core group (approximation)", "Ciw", notes + _variability_note(_scv(service_scv)))


# --- replication (seed 004) -------------------------------------------------------------------


def replication_system(values: Any, point: Any, *, run_length: int | None = None,
                       service_scv: float | None = None) -> Any:
    """The replicated writes of an answer's ``values`` at one point (``block_kib``, ``outstanding``)."""
    from iosizer.model.replication import protocol_demand_us, replication_system as described, serialisation_us

    system = described(values)
    block, depth = float(point["block_kib"]), int(point["outstanding"])
    scv = _scv(values.get("service_scv") if service_scv is None else service_scv)
    stations = [Station("local flash", math.inf, 0.0)]
    visits = [(0, system.local_flash_write_us)]
    path = system.replica
    if path is not None:
        protocol = float(protocol_demand_us(path, block))
        wire = float(serialisation_us(path, block))
        rest = path.switch_round_trip_us + system.remote_flash_write_us + path.residual_delay_us
        stations += [Station("protocol (sender)", 1.0, scv), Station("link", 1.0, scv),
                     Station("protocol (receiver)", 1.0, scv), Station("switch, remote flash, residual", math.inf, 0.0)]
        visits += [(1, protocol), (2, wire), (3, protocol), (4, rest)]
    network = ClosedNetwork(tuple(stations), (JobClass("write", depth, tuple(visits)),),
                            _length(run_length, DEFAULT_COMPLETIONS))
    return Renamed(network, (("iops", "throughput_write", 1e6), ("latency_us", "response_write", 1.0)))


def replication(*, link: str | None = None, block_kib: float | None = None, outstanding: int | None = None,
                service_scv: float | None = None, run_length: int | None = None) -> Experiment:
    """The calibrated write-back cache replicating over ``link`` (declared defaults where left out)."""
    from iosizer.calibration import replication as shipped
    from iosizer.model.replication import BLOCK_SIZE, LOCAL, OUTSTANDING

    name = shipped.resolve_link(shipped.baseline_link() if link is None else link)
    block = float(shipped.default("block_kib")) if block_kib is None else BLOCK_SIZE.check(block_kib, "--block-kib")
    depth = int(shipped.default("outstanding")) if outstanding is None else OUTSTANDING.check(outstanding,
                                                                                               "--outstanding")
    values, outputs = at_point(answered("replication", "replication", link=name, block_kib=[block],
                                        outstanding=[depth]))
    scv = _scv(service_scv)
    model = replication_system(values, {"block_kib": block, "outstanding": depth}, run_length=run_length,
                               service_scv=scv)
    notes = (f"link {name}, {block:g} KiB, {depth} outstanding; the calibrated protocol costs and residual delay",)
    if name == LOCAL:
        notes += ("local: the flash is a pure latency, so the simulation is deterministic",)
    return Experiment("replication", "replication", f"Replicated writes over {name}, {block:g} KiB, {depth} outstanding",
                      model, _metrics(outputs, "iops", "latency_us"), "exact MVA", "SimPy",
                      notes + _variability_note(scv))


#: (family, question) -> the builder of the question's declared :class:`~iosizer.model.family.Simulation`
#: (the model layer cannot name this layer): ``builder(**keywords) -> Experiment``.
SYSTEMS: dict[tuple[str, str], Any] = {
    **{("mmc", f"queue {name}"): partial(open_queue, name) for name in _OPEN},
    ("closed-network", "queue mva"): closed_network,
    ("oltp", "latency oltp"): oltp,
    ("dma", "latency dma"): dma,
    ("rmw", "pcie rmw"): rmw,
    ("hba", "hba response"): hba,
    ("loadshare", "load"): loadshare,
    ("replication", "replication"): replication,
}


#: (family, question) -> the simulated system of its declared Simulation at an answer's values and one point
#: (``system(values, point, *, run_length=None, service_scv=None) -> model``, see ``Simulation.system``): what
#: the question's ``--simulate`` runs (:func:`iosizer.simulate.answered.means_simulation`) and its builder uses.
#: ``service_scv`` None: the values' own (a family that declares its service variability), else 1.
SYSTEMS_AT: dict[tuple[str, str], Any] = {
    **{("mmc", f"queue {name}"): open_queue_system for name in _OPEN},
    ("closed-network", "queue mva"): closed_network_system,
    ("oltp", "latency oltp"): oltp_system,
    ("dma", "latency dma"): dma_system,
    ("rmw", "pcie rmw"): rmw_system,
    ("hba", "hba response"): hba_system,
    ("loadshare", "load"): loadshare_system,
    ("replication", "replication"): replication_system,
}


def system_at(family: str, question: str) -> Any:
    """The registered system of ``family``'s ``question`` (:data:`SYSTEMS_AT`), or None."""
    return SYSTEMS_AT.get((family, question))


def simulation_of(family: str, question: str | None = None) -> tuple[Any, Any]:
    """The declared question of ``family`` simulated as ``question`` (its command or the command's last word;
    None: the family's first simulated one) and its :class:`~iosizer.model.family.Simulation`; a one-line
    error where the family has none, or declares why the question is not simulated."""
    from iosizer.model.family import Simulation
    from iosizer.model.registry import declaration

    declared = declaration(family)  # an unknown family: the registry's own one-line error
    simulated = [(q, q.simulate) for q in declared.questions if isinstance(q.simulate, Simulation)]
    runnable = [(q, s) for q, s in simulated if not s.refused]
    if not simulated:
        raise InputError(f"family '{family}' has no simulation")
    if not runnable:
        raise InputError(simulated[0][1].refused)
    if question is None:
        return runnable[0]
    found = next(((q, s) for q, s in simulated if question in (q.command, q.command.split()[-1], *s.aliases)), None)
    if found is None:
        named = sorted(q.command.split()[-1] for q, _ in simulated)
        raise InputError(f"family '{family}' has no question '{question}' to simulate; choose {', '.join(named)}")
    if found[1].refused:
        raise InputError(found[1].refused)
    return found


def build(family: str, question: str | None = None, **options: Any) -> Experiment:
    """The experiment of ``family``'s ``question`` with ``options`` (the builder's keyword arguments)."""
    asked, simulation = simulation_of(family, question)
    builder = simulation.build or SYSTEMS.get((family, asked.command))
    if builder is None:
        return declared(family, asked, simulation, **options)
    return builder(**options)


def declared(family: str, asked: Any, simulation: Any, *, run_length: int | None = None, **given: Any) -> Experiment:
    """The experiment of a Simulation that declares its ``system`` and ``metrics`` and no builder: the
    question answered at the one point ``given`` (the one answer road: its inputs and values, each checked
    by its declaration), its system simulated there, each metric beside the output it estimates."""
    from iosizer.model.family import Simulation

    system = simulation.system or system_at(family, asked.command)
    if not isinstance(simulation, Simulation) or system is None or not simulation.metrics:
        raise InputError(f"question '{asked.command}' of family '{family}' declares no simulated system")
    given = {k: v for k, v in given.items() if v is not None}
    inputs = {k: [v] for k, v in given.items() if k in asked.input_names}
    values, outputs = at_point(answered(family, asked.command, **{**given, **inputs}))
    point = {k: v[0] for k, v in inputs.items()}
    model = system(values, point, run_length=run_length)
    metrics = tuple(Metric(metric, float(outputs[output])) for metric, output in simulation.outputs.items())
    shown = ", ".join(f"{k} {v:g}" if isinstance(v, (int, float)) else f"{k} {v}" for k, v in point.items())
    return Experiment(family, asked.command, f"{family} {asked.command}" + (f", {shown}" if shown else ""), model,
                      metrics, getattr(model, "analytic_method", "the question's solve"),
                      getattr(model, "simulator", "SimPy"), tuple(getattr(model, "notes", ())))
