"""Throughput lost to I/O latency added by switches (seed 000).

Seed 000 (Uehara, Baba, Tsushima, "I/O latency and server performance")
adds round-trip latency x [ns] between a server and its adapters with a
chain of Advanced Switching stages (150 ns one way, 300 ns round trip per
stage) and measures the performance degradation

    PD[x] = (P_local - P_x) / P_local x 100 [%].

Two mechanisms are modelled here.

DMA concurrency (section 4.2, table 4-1). A non-posted transaction (a DMA
read: NIC send) holds its buffer until the completion returns, so a device
that issues bursts of ``burst_bytes`` is latency-bound by Little's law: each
burst waits ``exposed_round_trips`` round trips of the added latency (the
serialised non-posted round trips per burst divided by the reads it keeps in
flight), so the issue interval is

    I(x) = I_local + k x,        P(x) = min(burst_bytes / I(x), link),

and PD[x] = k x / (I_local + k x) x 100 below the link cap. Posted
transactions (DMA writes: NIC receive, HBA write) release their buffer when
sent and lose nothing to x (k = 0). Table 4-1: e1000 bursts 3 x 512 B, I from
12,000 to 13,800 ns at x = 2,100 ns (k = 0.857); bcm5700 bursts 512 B, 3,640
to 6,768 ns (k = 1.49).

OLTP degradation as a bottleneck shift (sections 4.3, 6.1). A TPC-C-like
batch workload (16 terminals, no think time, table 3-2) is a closed network
of N jobs: a CPU station (demand D_c per transaction) and a serialised I/O
step (a single server: the log writer, interrupt and descriptor handling)
whose demand grows with every exposed round trip,

    D_s(x) = D_s0 + r x,    solved by exact MVA for each x.

Exact MVA assumes exponential service at both stations (``service_scv`` =
1). The family declares ``service_scv`` = 0 (constant CPU and I/O work per
transaction, which the seed's sharp knee needs); below 1 the
residual-service correction of
:data:`~iosizer.model.mva.SCV_APPROXIMATION` is applied; less variability
means less queueing before the knee, so the loss stays lower until the
serial step saturates and the knee is sharper.

While D_s(x) < D_c the CPU is the bottleneck and x costs little; past the
latency where D_s(x) = D_c the serial step takes over and throughput falls
as 1 / D_s(x): the knee is this bottleneck shift, not a fitted bend. The
parameters are dimensionless ratios: ``serial_share`` = D_s0 / D_c and the
``knee_latency_ns`` at which D_s = D_c, so r / D_c = (1 - share) / knee. PD
does not depend on the absolute D_c (scaling every demand scales X, not PD).

CPU generations (section 2). A faster core (relative speed s) does two
opposing things: it loses more cycles per wait (stall amplification: the
latency weighs s^a more against its shorter CPU work) and it keeps more DMA
reads in flight (issue rate: each exposes s^-b of a round trip). PD depends
on x only through r x / D_c, so both act as a rescaled knee,

    knee(s) = knee(1) s^(b - a),

a in [0, 1] growing the loss, b in [0, 1] shrinking it. Curves from one CPU
cannot tell a from b; curves from several CPUs identify the net exponent
b - a.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from iosizer.errors import InputError
from iosizer.model.family import (SIMULATED_SCV, Ask, Column, CpuScaling, Family, FitPlan, Input, Output, ParameterSpec,
                                  Plot, Question, Reference, Role, ScenarioTable, Schema, SimulateOption, Simulation,
                                  Sizing, SizingCommand, TableKey, TableRow)
from iosizer.model._validate import as_nonnegative, as_positive, scalar_or_array
from iosizer.model.mva import SERVICE_SCV as _mva_scv

__all__ = [
    "DmaDevice",
    "DmaResult",
    "OltpNetwork",
    "degradation_pct",
    "dma",
    "dma_issue_interval_ns",
    "dma_throughput_mbps",
    "effective_latency_ns",
    "check_budget_pct",
    "max_dma_latency_ns",
    "max_oltp_latency_ns",
    "oltp_degradation_pct",
    "oltp_slope_pct_per_ns",
    "round_trip_latency_ns",
    "tier_losses",
]

#: Service-time variability of the CPU and the serial step: the mva module's declaration, held at 0
#: for oltp (one default: ``iosizer params``, the shipped profile and ``iosizer calibrate`` all read it).
SERVICE_SCV = replace(
    _mva_scv,
    value=0.0,
    status="assumed",
    source="constant CPU and I/O work per transaction (cv^2 = 0): seed 000 puts PD at most 5 % at 1,500 ns "
           "and a little under 10 % at 1,600 ns, a knee sharper than exponential MVA gives (its best fit "
           "reads 5.7 % and 8.8 % there), and constant service meets both (5.0 % and 9.5 %). A choice made "
           "to match the seed's knee, not a measurement of the server's service times; 1 is exact "
           "(product-form) MVA. Other values than 1 apply SCV_APPROXIMATION (iosizer.model.mva), within "
           "0.01 points of simulation on this network at cv^2 = 0 and 0.4 points at 0.5")

#: 1 byte per ns is 10^9 B/s = 1000 MB/s (MB = 10^6 bytes, as in the seeds).
_MBPS_PER_BYTE_PER_NS = 1000.0


class DmaDevice(BaseModel):
    """An adapter's DMA issue pattern (seed 000 section 4.2)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    burst_bytes: float | None = Field(None, gt=0, description="bytes moved per read burst")
    local_issue_interval_ns: float | None = Field(None, gt=0, description="issue interval with no added latency")
    exposed_round_trips: float = Field(0.0, ge=0, description="round trips of added latency each burst waits")
    posted: bool = Field(False, description="DMA writes: released when sent, latency-insensitive")
    link_mbps: float = Field(math.inf, gt=0, description="link ceiling, MB/s (10^6 B/s)")

    @model_validator(mode="after")
    def _non_posted_needs_a_pattern(self) -> "DmaDevice":
        if not self.posted and self.local_issue_interval_ns is None:
            raise ValueError(f"device '{self.name}': a non-posted device needs local_issue_interval_ns")
        return self


@dataclass(frozen=True)
class DmaResult:
    """DMA throughput at the given added latencies (arrays broadcast like x).

    Issue interval and throughput are None where the device's pattern is not
    known (posted paths: the seed states only that they lose nothing).
    """

    added_latency_ns: float | np.ndarray
    issue_interval_ns: float | np.ndarray | None
    throughput_mbps: float | np.ndarray | None
    local_throughput_mbps: float | None
    degradation_pct: float | np.ndarray

    def to_dict(self) -> dict[str, object]:
        return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.__dict__.items()}


def round_trip_latency_ns(tiers: object, hop_ns: object) -> float | np.ndarray:
    """Round-trip latency added by t switch tiers of one-way hop latency h: 2 t h."""
    t = as_nonnegative("tiers", tiers)
    h = as_nonnegative("hop_ns", hop_ns)
    return scalar_or_array(2.0 * t * h)


def dma_issue_interval_ns(
    added_latency_ns: object, local_issue_interval_ns: object, exposed_round_trips: object
) -> float | np.ndarray:
    """I(x) = I_local + k x [ns]."""
    x = as_nonnegative("added_latency_ns", added_latency_ns)
    i0 = as_positive("local_issue_interval_ns", local_issue_interval_ns)
    k = as_nonnegative("exposed_round_trips", exposed_round_trips)
    return scalar_or_array(i0 + k * x)


def dma_throughput_mbps(
    burst_bytes: object, issue_interval_ns: object, link_mbps: object = math.inf
) -> float | np.ndarray:
    """min(burst / interval, link) in MB/s (10^6 bytes per second)."""
    burst = as_positive("burst_bytes", burst_bytes)
    interval = as_positive("issue_interval_ns", issue_interval_ns)
    return scalar_or_array(np.minimum(burst / interval * _MBPS_PER_BYTE_PER_NS, link_mbps))


def degradation_pct(local: object, degraded: object) -> float | np.ndarray:
    """PD = (P_local - P_x) / P_local x 100 (seed 000 section 2)."""
    p0 = as_positive("local performance", local)
    px = as_nonnegative("degraded performance", degraded)
    return scalar_or_array((p0 - px) / p0 * 100.0)


def dma(device: DmaDevice, added_latency_ns: object) -> DmaResult:
    """Issue interval, throughput and PD of ``device`` at added round-trip latency x."""
    x = as_nonnegative("added_latency_ns", added_latency_ns)
    if device.local_issue_interval_ns is None:  # posted path with no published pattern
        return DmaResult(scalar_or_array(x), None, None, None, scalar_or_array(np.zeros_like(x)))
    k = 0.0 if device.posted else device.exposed_round_trips
    interval = np.asarray(dma_issue_interval_ns(x, device.local_issue_interval_ns, k))
    if device.burst_bytes is None:  # PD needs only the intervals: P is proportional to 1 / I
        local_interval = device.local_issue_interval_ns
        loss = (interval - local_interval) / interval * 100.0
        return DmaResult(scalar_or_array(x), scalar_or_array(interval), None, None, scalar_or_array(loss))
    throughput = np.asarray(dma_throughput_mbps(device.burst_bytes, interval, device.link_mbps))
    local = float(dma_throughput_mbps(device.burst_bytes, device.local_issue_interval_ns, device.link_mbps))
    return DmaResult(
        added_latency_ns=scalar_or_array(x),
        issue_interval_ns=scalar_or_array(interval),
        throughput_mbps=scalar_or_array(throughput),
        local_throughput_mbps=local,
        degradation_pct=scalar_or_array((local - throughput) / local * 100.0),
    )


_SEED = "000_249d1f3952f8e1df.txt"
_SEED_NAME = "seed 000"
#: The TPC-C run of seed 000 (table 3-2): 16 terminals in batch mode.
TERMINALS = ParameterSpec("terminals", "jobs", 16, (1, 10_000), "published",
                          f"{_SEED} table 3-2: 16 terminals; the bound, 10,000, is a TPC-C-like run of 1,000 "
                          "warehouses (10 terminals each) and keeps a calibration (an exact MVA over every "
                          "terminal count at each fit step) within seconds",
                          "jobs in the network", kind="setting", integer=True)
#: The added round trip a question may ask about: seed 000 sweeps 0..2100 ns
#: (7 ASI stages) and table 3-3's slowest hop, FCoE, adds 6400 ns per tier.
ADDED_LATENCY = ParameterSpec(
    "added_latency_ns", "ns", 0.0, (0.0, 1e7), "assumed",
    f"{_SEED} secs 4.2-4.4 ask about 0..2,100 ns and FCoE tiers of 6,400 ns round trip; the bound, 10 ms, "
    "is a round trip across a continent: no I/O fabric adds more, and the models were calibrated far below it",
    "added round-trip latency of the I/O path", kind="setting")
#: Bytes one DMA read burst fetches (a device from the planner's own profile).
BURST_BYTES = ParameterSpec(
    "burst_bytes", "bytes", None, (1, 1_048_576), "assumed",
    f"{_SEED} table 4-1: the NICs read 512 B per burst; PCIe caps one read request at 4,096 B (MRRS), and "
    "1 MiB covers any burst of requests a device issues before it waits",
    "bytes moved per DMA read burst", kind="setting")
#: One switch hop, one way (table 3-3 catalogue or the planner's own).
HOP_NS = ParameterSpec(
    "hop_ns", "ns", None, (0.0, 1e6), "assumed",
    f"{_SEED} table 3-3: 150 ns (ASI, PCIe) to 3,200 ns (FCoE) per hop; the bound, 1 ms, exceeds any switch "
    "(store-and-forward of a 9 KB jumbo frame at 100 Mbit/s takes 0.74 ms)",
    "one-way latency of one switch tier", kind="setting")
THINK_SHARE = ParameterSpec("think_share", "1", 0.0, (0.0, 1e3), "published",
                            f"{_SEED} table 3-2: TPC-C run in batch mode (no think time)",
                            "think time / CPU demand")


class OltpNetwork(BaseModel):
    """A batch OLTP workload as a closed network with a latency-sensitive serial step."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    terminals: int = Field(TERMINALS.value, ge=1, description="jobs in the network (table 3-2: 16)")
    knee_latency_ns: float = Field(gt=0, description="added latency where the serial step overtakes the CPU")
    serial_share: float = Field(gt=0, lt=1, description="serial-step demand / CPU demand with no added latency")
    think_share: float = Field(THINK_SHARE.value, ge=0, description="think time / CPU demand (batch mode: 0)")
    service_scv: float = Field(SERVICE_SCV.value, ge=SERVICE_SCV.bounds[0], le=SERVICE_SCV.bounds[1],
                               description="service-time scv of the CPU and serial step (1 exponential)")

    @property
    def round_trips_per_cpu_ns(self) -> float:
        """r / D_c: serial-step ns per ns of added latency, per ns of CPU demand."""
        return (1.0 - self.serial_share) / self.knee_latency_ns


def effective_latency_ns(
    added_latency_ns: object, cpu_speed: float = 1.0, stall_exponent: float = 0.0,
    issue_rate_exponent: float = 0.0,
) -> float | np.ndarray:
    """x s^(a - b): the latency as a core of relative speed s feels it (see module docstring)."""
    x = as_nonnegative("added_latency_ns", added_latency_ns)
    s = float(as_positive("cpu_speed", cpu_speed))
    for name, value in (("stall_exponent", stall_exponent), ("issue_rate_exponent", issue_rate_exponent)):
        if not 0.0 <= value <= 1.0:
            raise InputError(f"{name} must lie in [0, 1], got {value:g}")
    return scalar_or_array(x * s ** (stall_exponent - issue_rate_exponent))


def oltp_degradation_pct(network: OltpNetwork, added_latency_ns: object) -> float | np.ndarray:
    """PD[x] of the OLTP closed network, by exact MVA at each x (vectorised over x).

    Demands in units of D_c: CPU 1, serial step share + (1 - share) x / knee,
    think time ``think_share``; PD = (X(0) - X(x)) / X(0) x 100. Exact for
    exponential service (``service_scv`` 1); otherwise the residual-service
    approximation :data:`~iosizer.model.mva.SCV_APPROXIMATION`.
    """
    from iosizer.model.mva import mva_batch

    x = as_nonnegative("added_latency_ns", added_latency_ns)
    flat = np.concatenate([[0.0], x.ravel()])  # row 0: the local (x = 0) network
    serial = network.serial_share + network.round_trips_per_cpu_ns * flat
    demands = np.column_stack([np.ones_like(flat), serial])
    throughput = mva_batch(demands, network.think_share, network.terminals, network.service_scv).throughput
    loss = (throughput[0] - throughput[1:]) / throughput[0] * 100.0
    return scalar_or_array(loss.reshape(x.shape))


#: Tiers shown per switch; max_tiers is searched further, up to this many.
SHOWN_TIERS = (1, 2, 3, 4)
MAX_TIERS_SEARCHED = 64


def check_budget_pct(budget_pct: float) -> float:
    """A degradation budget: a share of the local throughput strictly between 0 and 100 %."""
    if not 0 < budget_pct < 100:
        raise InputError(f"--budget-pct must lie in (0, 100), got {budget_pct:g}")
    return budget_pct


def max_oltp_latency_ns(network: OltpNetwork, budget_pct: float) -> float:
    """Largest x with PD(x) <= budget, by a bracketing root finder on the MVA curve.

    PD is continuous and non-decreasing in x, so Brent's method on
    PD(x) - budget over a bracket [0, hi] with PD(hi) > budget is exact to
    its tolerance (1e-6 ns).
    """
    from scipy.optimize import brentq

    check_budget_pct(budget_pct)
    high = network.knee_latency_ns
    while oltp_degradation_pct(network, high) <= budget_pct:
        high *= 2.0
        if high > 1e12:
            return math.inf
    return float(brentq(lambda x: oltp_degradation_pct(network, x) - budget_pct, 0.0, high, xtol=1e-6))


def max_dma_latency_ns(device_: DmaDevice, budget_pct: float) -> float:
    """Largest x with PD(x) <= budget for a device: the sympy solution B I_0 / (k (100 - B))."""
    from iosizer.model.symbolic import dma_functions

    check_budget_pct(budget_pct)
    if device_.posted or device_.exposed_round_trips == 0:
        return math.inf
    return float(dma_functions()["max_latency_ns"](budget_pct, device_.local_issue_interval_ns,
                                                   device_.exposed_round_trips))


def oltp_slope_pct_per_ns(network: OltpNetwork, added_latency_ns: float) -> float:
    """dPD/dx of the OLTP curve at x by a central difference (1 ps step; PD is smooth)."""
    step = 1e-3
    low = max(added_latency_ns - step, 0.0)
    high = added_latency_ns + step
    return float((oltp_degradation_pct(network, high) - oltp_degradation_pct(network, low)) / (high - low))


def tier_losses(loss, hop_ns: np.ndarray, budget_pct: float) -> tuple[np.ndarray, np.ndarray]:
    """PD at 1..MAX_TIERS_SEARCHED tiers of each one-way hop (round trip 2 t h, seed 000 sec 3.2), and
    the most tiers within ``budget_pct``: PD grows with tiers, so the first tier over budget ends the count.

    ``loss(x)``: PD at added round-trip latencies x (an array of any shape). Returns (losses of shape
    (hops, MAX_TIERS_SEARCHED), max_tiers per hop).
    """
    every = np.arange(1, MAX_TIERS_SEARCHED + 1)
    hops = np.atleast_1d(np.asarray(hop_ns, dtype=np.float64))
    losses = np.asarray(loss(2.0 * every[None, :] * hops[:, None]), dtype=np.float64)
    over = losses > budget_pct
    return losses, np.where(over.any(axis=1), over.argmax(axis=1), MAX_TIERS_SEARCHED)


# --- family declarations: dma and oltp -------------------------------------------


def _dma_solve(values, inputs):
    interval = dma_issue_interval_ns(
        inputs["added_latency_ns"], values["local_issue_interval_ns"], values["exposed_round_trips"]
    )
    return {"issue_interval_ns": np.asarray(interval, dtype=np.float64)}


def _dma_start(data, settings):
    x, interval = data["added_latency_ns"], data["issue_interval_ns"]
    local = float(interval[np.argmin(x)])
    slope = float(np.polyfit(x, interval, 1)[0]) if float(np.ptp(x)) > 0 else 0.0
    return {"local_issue_interval_ns": (local, 1e-9 * local, math.inf),
            "exposed_round_trips": max(slope, 0.0)}


def _dma_jacobian(settings):
    """I(x) = I_local + k x: dI/dI_local = 1, dI/dk = x (the same as sympy's ``issue_interval_gradient``,
    checked in tests/model/test_latency.py)."""

    def jacobian(values, inputs):
        x = np.asarray(inputs["added_latency_ns"], dtype=np.float64)
        return {"issue_interval_ns": np.column_stack([np.ones_like(x), x])}

    return jacobian


def _oltp_solve(values, inputs):
    # One network per call: float() refuses a stack of parameter sets, so a band solves them one at a time.
    network = OltpNetwork(terminals=int(values["terminals"]), knee_latency_ns=float(values["knee_latency_ns"]),
                          serial_share=float(values["serial_share"]), think_share=float(values["think_share"]),
                          service_scv=float(values.get("service_scv", SERVICE_SCV.value)))
    return {"degradation_pct": np.asarray(oltp_degradation_pct(network, inputs["added_latency_ns"]))}


#: A CPU-generation assumption of section 2 stated outright (with --cpu-speed) instead of the declared
#: exponent range: the latency is felt as x s^(a - b).
STALL_EXPONENT = ParameterSpec(
    "stall_exponent", "1", None, (0.0, 1.0), "assumed",
    f"{_SEED} sec 2: a faster core loses more cycles per wait; 0 (none) to 1 (fully in proportion to speed)",
    "a in [0, 1]: how much more a faster core loses per wait", kind="setting")
ISSUE_RATE_EXPONENT = ParameterSpec(
    "issue_rate_exponent", "1", None, (0.0, 1.0), "assumed",
    f"{_SEED} sec 2: a faster core keeps more DMA reads in flight; 0 (none) to 1 (in proportion to speed)",
    "b in [0, 1]: how much latency a faster core hides by issuing more DMA", kind="setting")
#: Where a question asks about an added round trip (the same bounds as the declaration's).
ADDED_LATENCY_INPUT = Input("added_latency_ns", "ns", ADDED_LATENCY.bounds,
                            description="added round-trip latency: 2100, a list 300,600 or 0:2100:300")


def _latency_oltp(values, inputs):
    """``latency oltp``: PD at each added latency; with the question's own CPU assumption (stall and
    issue-rate exponents) the latency is felt as x s^(a - b) (:func:`effective_latency_ns`)."""
    x = inputs["added_latency_ns"]
    if "cpu_speed_factor" in values:
        x = effective_latency_ns(x, values["cpu_speed_factor"], values.get("stall_exponent") or 0.0,
                                 values.get("issue_rate_exponent") or 0.0)
    return _oltp_solve(values, {"added_latency_ns": x})


def _oltp_notes(values, outputs):
    return (f"knee (bottleneck shift) at {values['knee_latency_ns']:.0f} ns added latency; serial share "
            f"{values['serial_share']:.3g}; {int(values['terminals'])} terminals, batch mode")


def _oltp_service_note(values, outputs):
    scv = values["service_scv"]
    return ("service times exponential (cv^2 = 1): exact MVA" if scv == 1 else
            f"service-time cv^2 = {scv:g}: MVA with the residual-service correction (approximate)")


def _oltp_cpu_note(values, outputs):
    if "cpu_speed_factor" not in values:
        return None
    return (f"CPU speed x{values['cpu_speed_factor']:g} of the profile's: latency felt as x s^(a-b) with "
            f"a={values.get('stall_exponent') or 0:g}, b={values.get('issue_rate_exponent') or 0:g}")


def _oltp_shape(records, values):
    """The published keys: the band's ends as ``degradation_pct_low``/``_high`` (the value itself where
    nothing in the profile varies)."""
    return [{"added_latency_ns": r["added_latency_ns"], "degradation_pct": r["degradation_pct"],
             "degradation_pct_low": r.get("degradation_pct_ci_low", r["degradation_pct"]),
             "degradation_pct_high": r.get("degradation_pct_ci_high", r["degradation_pct"])} for r in records]


def _device_name(value: object, label: str) -> str:
    """A catalogue device's name as given (the calibration module knows the catalogue: table 4-1)."""
    text = str(value).strip()
    if not text:
        raise InputError(f"{label} is empty; name a device (e1000, bcm5700, nic-recv, hba-write)")
    return text


#: A device of table 4-1 (its fitted issue pattern, burst size and published figures), or a posted path.
DEVICE = ParameterSpec("device", "", None, (0.0, 0.0), "published", f"{_SEED} table 4-1 and figure 4-1",
                       "e1000, bcm5700 (NIC send, table 4-1), nic-recv or hba-write (posted)", kind="setting",
                       parse=_device_name)
SHOW_FORMULA = ParameterSpec("show_formula", "", None, (0, 1), "assumed", "a switch of the answer",
                             "Print the closed form used (text and LaTeX) and dPD/dx.", kind="setting",
                             integer=True)


def _latency_dma(values, inputs):
    """``latency dma``: issue interval, throughput and PD of a device at each added latency, table 4-1's
    published figures at their own latency, and (``show_formula``) the closed form and dPD/dx."""
    x = inputs["added_latency_ns"]
    posted = bool(values.get("posted"))
    device = DmaDevice(name=values.get("device") or "profile", posted=posted, burst_bytes=values.get("burst_bytes"),
                       local_issue_interval_ns=None if posted else values["local_issue_interval_ns"],
                       exposed_round_trips=0.0 if posted else values["exposed_round_trips"])
    result = dma(device, x)
    missing = np.full(x.shape, np.nan)
    published = values.get("published_added_latency_ns")
    out = {name: missing if value is None else value for name, value in (
        ("issue_interval_ns", result.issue_interval_ns), ("throughput_mbps", result.throughput_mbps),
        ("local_throughput_mbps", result.local_throughput_mbps), ("degradation_pct", result.degradation_pct))}
    for key in ("published_estimate_pct", "measured_degradation_pct"):
        out[key] = np.where(x == published, values[key], np.nan) if published is not None else missing
    shown = bool(values.get("show_formula")) and not posted
    out["formula"] = _dma_formula() if shown else None
    out["d_degradation_d_latency_pct_per_ns"] = missing if not shown else np.asarray(_dma_slope(
        x, device.local_issue_interval_ns, device.exposed_round_trips), dtype=np.float64)
    return out


def _dma_formula():
    from iosizer.model.symbolic import DMA_SYMBOLS, dma_degradation_expression, formula

    return {**formula(dma_degradation_expression()), "symbols": DMA_SYMBOLS}


def _dma_slope(x, local_issue_interval_ns, exposed_round_trips):
    from iosizer.model.symbolic import dma_functions

    return dma_functions()["d_degradation_d_latency"](x, local_issue_interval_ns, exposed_round_trips)


_DMA_KEYS = ("issue_interval_ns", "throughput_mbps", "local_throughput_mbps", "degradation_pct",
             "published_estimate_pct", "measured_degradation_pct", "formula", "d_degradation_d_latency_pct_per_ns")


def _dma_shape(records, values):
    """The published keys: the device and whether it is posted first, no bands (the command never had any)."""
    return [{"device": values.get("device") or values.get("profile_cpu_name") or "profile",
             "posted": bool(values.get("posted")),
             "added_latency_ns": r["added_latency_ns"], **{k: r[k] for k in _DMA_KEYS if k in r}} for r in records]


def _dma_notes(values, outputs):
    published = values.get("published_added_latency_ns")
    if published is None:
        return None
    return (f"{_SEED_NAME} table 4-1 at +{published:g} ns: {values['published_throughput_mbps']:g} MB/s, "
            f"estimated -{values['published_estimate_pct']:g} %, measured -{values['measured_degradation_pct']:g} %")


def _dma_posted_note(values, outputs):
    if values.get("posted"):
        return "posted DMA writes do not wait for completions: added latency costs nothing"
    if values.get("device"):
        return "profile calibrated from table 4-1's two issue intervals: an exact fit, so no interval"
    return None


def _dma_formula_note(values, outputs):
    if not values.get("show_formula") or values.get("posted"):
        return None
    shown = _dma_formula()
    return (f"PD(x) = {shown['text']}   [LaTeX: {shown['latex']}]; where "
            + "; ".join(f"{k}: {v}" for k, v in shown["symbols"].items()))


BUDGET = ParameterSpec("budget_pct", "%", None, (0.0, 100.0), "assumed", "the planner's choice",
                       "largest acceptable loss, percent (strictly between 0 and 100)", kind="setting")
#: Section 4.4 plans tiers within a 5 % loss.
TIER_BUDGET = replace(BUDGET, value=5.0, source=f"{_SEED} sec 4.4: tiers within 5 % loss")
#: Table 3-3's hops: ``values["switch_names"]``/``["switch_hop_ns"]`` (the calibration module reads them).
SWITCHES_NOTE = "hop_ns defaults to table 3-3's switches (asi, infiniband, fc, fcoe), named after them"


def _switch_hops(values, inputs):
    """The default hops: table 3-3's switches (values the calibration module reads from the shipped table)."""
    return tuple(values["switch_hop_ns"])


def _loss(values):
    """PD(x) of what the question is asked of: a DMA device (a catalogue device or a ``dma`` profile) or
    the OLTP network (the shipped one or an ``oltp`` profile)."""
    if values.get("posted") is not None or values.get("family") == "dma":
        device = _device(values)
        return "dma", device, lambda x: np.asarray(dma(device, x).degradation_pct)
    network = OltpNetwork(terminals=values["terminals"], knee_latency_ns=values["knee_latency_ns"],
                          serial_share=values["serial_share"], think_share=values["think_share"],
                          service_scv=values.get("service_scv", SERVICE_SCV.value))
    return "oltp", network, lambda x: np.asarray(oltp_degradation_pct(network, x))


def _device(values):
    posted = bool(values.get("posted"))
    return DmaDevice(name=values.get("device") or "profile", posted=posted, burst_bytes=values.get("burst_bytes"),
                     local_issue_interval_ns=None if posted else values["local_issue_interval_ns"],
                     exposed_round_trips=0.0 if posted else values["exposed_round_trips"])


def _latency_budget(values, inputs):
    """``latency budget``: the largest added latency within the budget (Brent's method on the MVA curve,
    or the DMA closed form), with dPD/dx there and, for a device with ``show_formula``, the closed form."""
    budget = values["budget_pct"]
    kind, source, _ = _loss(values)
    nan = np.nan
    if kind == "oltp":
        answer = max_oltp_latency_ns(source, budget)
        return {"max_added_latency_ns": answer, "method": np.array("Brent's method on the exact MVA curve "
                                                                   "(no closed form)", dtype=object),
                "formula": None, "d_degradation_d_latency_pct_per_ns": oltp_slope_pct_per_ns(source, answer)}
    answer = max_dma_latency_ns(source, budget)
    shown = bool(values.get("show_formula")) and not source.posted
    return {"max_added_latency_ns": answer,
            "method": np.array("closed form, sympy: x = B I_0 / (k (100 - B))" if not source.posted
                               else "posted device: no added latency degrades it", dtype=object),
            "formula": _dma_budget_formula() if shown else None,
            "d_degradation_d_latency_pct_per_ns": float(_dma_slope(answer, source.local_issue_interval_ns,
                                                                   source.exposed_round_trips)) if shown else nan}


def _dma_budget_formula():
    from iosizer.model.symbolic import DMA_SYMBOLS, dma_budget_expression, formula

    return {**formula(dma_budget_expression()), "symbols": DMA_SYMBOLS}


def _budget_label(values):
    if values.get("profile_origin"):
        return f"profile:{values['profile_origin']}"
    return f"dma:{values.get('device')}" if values.get("device") else "oltp"


def _budget_shape(records, values):
    """The published record: which model answered and the budget first, no bands."""
    return [{"model": _budget_label(values), "budget_pct": values["budget_pct"],
             **{k: r[k] for k in ("max_added_latency_ns", "method", "formula", "d_degradation_d_latency_pct_per_ns")
                if k in r}} for r in records]


def _budget_notes(values, outputs):
    if not values.get("show_formula"):
        return None
    if "formula" in outputs or values.get("family") == "dma" or values.get("posted") is not None:
        shown = _dma_budget_formula()
        if values.get("posted"):
            return None
        slope = outputs["d_degradation_d_latency_pct_per_ns"][0]
        return (f"x_max = {shown['text']}   [LaTeX: {shown['latex']}]; dPD/dx at the answer: {slope:.6g} % per ns")
    return "the OLTP curve has no closed form (MVA recursion); solved numerically"


def _latency_tiers(values, inputs):
    """``latency tiers``: per one-way hop, PD at 1..4 tiers (round trip 2 t h) and the most tiers within
    the budget, from the OLTP curve or a device's DMA model (:func:`tier_losses`)."""
    budget = values["budget_pct"]
    check_budget_pct(budget)
    hop = inputs["hop_ns"]
    _, _, loss = _loss(values)
    losses, max_tiers = tier_losses(loss, hop.ravel(), budget)
    named = dict(zip(values["switch_hop_ns"], values["switch_names"])) if "hop_ns" in values["defaulted"] else {}
    out = {"switch": np.array([named.get(h, f"hop {h:g} ns") for h in hop.ravel()], dtype=object),
           "max_tiers": max_tiers.astype(np.float64)}
    for t in SHOWN_TIERS:
        out[f"round_trip_{t}_tiers_ns"] = 2 * t * hop
        out[f"loss_{t}_tiers_pct"] = losses[:, t - 1]
    return out


def _tiers_shape(records, values):
    """The published plan per switch: the shown tiers, their round trips and losses as lists."""
    return [{"switch": r["switch"], "hop_ns": r["hop_ns"], "tiers": list(SHOWN_TIERS),
             "round_trip_ns": [r[f"round_trip_{t}_tiers_ns"] for t in SHOWN_TIERS],
             "loss_pct": [r[f"loss_{t}_tiers_pct"] for t in SHOWN_TIERS], "max_tiers": int(r["max_tiers"])}
            for r in records]


def _tiers_note(values, outputs):
    source = ("profile " + values["profile_origin"] if values.get("profile_origin") else
              f"device {values.get('device')}" if values.get("device") else "the OLTP curve")
    return (f"loss from {source}; round trip 2 x tiers x hop; max_tiers: most tiers within "
            f"{values['budget_pct']:g} %")


# --- iosizer size latency: the largest latency within the budget, then the most tiers of each hop ---------


def max_switch_tiers(max_added_latency_ns: float, hop_ns: float) -> float:
    """Most tiers of one-way hop ``hop_ns`` whose round trip 2 t h stays within ``max_added_latency_ns``:
    PD does not decrease with the added round trip x, so t tiers fit exactly when 2 t h <= x_max,
    t_max = floor(x_max / (2 h)).

    inf when the hop costs nothing or the budget allows any latency.
    """
    if hop_ns < 0 or not math.isfinite(hop_ns):
        raise InputError(f"hop latency must be a finite number >= 0 ns, got {hop_ns:g}")
    if hop_ns == 0 or math.isinf(max_added_latency_ns):
        return math.inf
    # A tier count exactly on the budget is within it: guard the division's rounding.
    return float(math.floor(max_added_latency_ns / (2.0 * hop_ns) * (1 + 1e-12)))


def _max_latency_ns(values):
    """x_max, the root of PD(x) = budget: Brent's method on the OLTP network's MVA curve, the closed form
    for a DMA device (inf where no latency degrades it)."""
    kind, source, _ = _loss(values)
    budget = check_budget_pct(values["budget_pct"])
    return max_oltp_latency_ns(source, budget) if kind == "oltp" else max_dma_latency_ns(source, budget)


def _loss_label(values):
    if values.get("profile_origin"):
        return f"profile {values['profile_origin']}"
    if values.get("device"):
        return f"device {values['device']}"
    return "the OLTP curve (seed 000)" if values.get("family") != "dma" else "a dma profile"


def _size_max_latency(values, point, target):
    """``size latency``, once: the largest added round trip within the budget."""
    return {"model": _loss_label(values), "budget_pct": values["budget_pct"],
            "max_added_latency_ns": _max_latency_ns(values)}


def _size_tiers(values, point, target):
    """``size latency``, per hop: the most tiers within the budget (named as ``latency tiers`` names it)."""
    hop = float(point["hop_ns"])
    named = dict(zip(values["switch_hop_ns"], values["switch_names"])) if "hop_ns" in values["defaulted"] else {}
    tiers = max_switch_tiers(_max_latency_ns(values), hop)
    return {"switch": named.get(hop, f"hop {hop:g} ns"), "hop_ns": hop,
            "max_tiers": int(tiers) if math.isfinite(tiers) else tiers}


def _shown(value):
    return "unbounded" if value is None or not math.isfinite(value) else f"{value:.6g}"


def _size_latency_note(values, record):
    low, high = record.get("max_added_latency_ns_ci_low"), record.get("max_added_latency_ns_ci_high")
    banded = low is not None or high is not None
    return (f"largest added round trip within {values['budget_pct']:g} %: {_shown(record['max_added_latency_ns'])} "
            "ns" + (f" [{_shown(low)}, {_shown(high)}]" if banded else ""))


def _size_interval_note(values, record):
    if record.get("max_added_latency_ns_ci_low") is not None or record.get("max_added_latency_ns_ci_high") is not None:
        return "_ci_low/_ci_high: at the ends of the profile's 95 % intervals"
    return "no interval: the profile's fit is exact (as many points as parameters)"


#: ``iosizer size latency``: the tiers question's sizings, one record of the budget's latency and each hop's tiers.
SIZE_LATENCY = SizingCommand(
    "latency", "Seed 000: the largest added latency within a degradation budget, and the most switch tiers per hop.",
    shape=lambda values, point, record: record, gather="switches",
    notes=(_size_latency_note, lambda values, record: f"max_tiers = floor(x_max / (2 hop)); loss from "
                                                      f"{record['model']}", _size_interval_note),
    title=lambda values, record: f"Switch tiers within {values['budget_pct']:g} % loss")
_SIZE_LATENCY = (
    Sizing("added_latency_ns", "max_tiers", command="latency", invert=_size_max_latency, always=True, once=True,
           report="max_added_latency_ns"),
    Sizing("hop_ns", "max_tiers", command="latency", invert=_size_tiers, always=True, report="max_tiers",
           unbounded=False))


#: ``latency tiers --plot``: the most tiers against the hop, beside the tier counts sec 4.4 states within
#: (true) or past (false) 5 %; the loss of 2 tiers against the hop, with the budget and sec 4.4's stated losses.
_STATED = "seed000_sec4_4_tiers"
_TIERS_PLOT = Plot("hop_ns", ("max_tiers", "loss_2_tiers_pct"), beside=(("loss_2_tiers_pct", "budget_pct"),),
                   references=(Reference("max_tiers", "hop_latency_ns", "tiers", "sec 4.4: tiers within 5 %",
                                         _STATED, "within_5pct"),
                               Reference("loss_2_tiers_pct", "hop_latency_ns", "degradation_pct",
                                         "sec 4.4: stated loss at tiers", _STATED, "tiers")))


def _oltp_start(data, settings):
    """Start with the knee where the data first pass 5 % and a mid serial share."""
    x, pd = data["added_latency_ns"], data["degradation_pct"]
    above = x[pd > 5.0]
    return {"knee_latency_ns": float(above.min()) if above.size else float(max(x.max(), 1.0)),
            "serial_share": 0.5}



#: ``iosizer simulate oltp|dma``: one added latency (the planner's CPU and profile are the shipped ones).
_SIM_ADDED = SimulateOption("added_latency_ns", "--added-latency-ns", "Added round-trip latency, ns.", required=True)
_OLTP_SIMULATION = Simulation(
    "oltp", "The TPC-C-like batch network of seed 000 with and without added latency (numpy; --engine simpy).",
    (_SIM_ADDED, SIMULATED_SCV), metrics=("degradation_pct",))
_DMA_SIMULATION = Simulation(
    "dma", "A DMA engine's read bursts under added latency (numpy; --engine simpy).", (
        SimulateOption("device", "--device", "A device of seed 000 table 4-1: e1000 or bcm5700.", kind=str,
                       required=True),
        _SIM_ADDED,
        SimulateOption("service_scv", "--service-scv",
                       "Variability of the local issue work [0: constant, as the model declares].")),
    metrics=("issue_interval_ns", "throughput_mbps", "degradation_pct"))


FAMILIES = (
    Family(
        name="dma",
        sizing_command="size latency",
        formula=("I(x) = I_local + k x, P(x) = min(burst_bytes / I(x), link), PD(x) = (P_local - P(x)) "
                 "/ P_local x 100 (Little's law on a device's bursts; k = exposed_round_trips, 0 for "
                 "posted writes)"),
        summary="DMA read issue interval I(x) = I_0 + k x under added latency x (seed 000 table 4-1)",
        source=f"{_SEED} sec 4.2, table 4-1",
        parameters=(
            ParameterSpec("local_issue_interval_ns", "ns", None, (0.0, 1e9), "fitted",
                          f"{_SEED} table 4-1: the device's issue interval with no added latency",
                          "issue interval with no added latency",
                          cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0)),
            ParameterSpec("exposed_round_trips", "1", None, (0.0, 1e3), "fitted",
                          f"{_SEED} table 4-1: slope of the issue interval between local and +2,100 ns",
                          "round trips of added latency each burst waits",
                          cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0)),
        ),
        columns=Schema("dma", (
            Column("added_latency_ns", Role.input, "ns", "added round-trip latency",
                   maximum=ADDED_LATENCY.bounds[1]),
            Column("issue_interval_ns", Role.observed, "ns", "DMA read (MRd) issue interval",
                   minimum=0, minimum_inclusive=False),
        )),
        solve=_dma_solve,
        service_time="deterministic: Little's law on a fixed issue pattern (no queueing)",
        questions=(
            Question("latency dma", "DMA read throughput under added latency (Little's law); posted writes "
                     "lose nothing",
                     inputs=(ADDED_LATENCY_INPUT,),
                     outputs=(Output("issue_interval_ns", "ns", "DMA read issue interval",
                                     measured="issue_interval_ns"),
                              Output("throughput_mbps", "MB/s", "read throughput (needs the burst size)"),
                              Output("local_throughput_mbps", "MB/s", "read throughput with no added latency"),
                              Output("degradation_pct", "%", "throughput lost to the added latency"),
                              Output("published_estimate_pct", "%", "table 4-1's estimate at its latency",
                                     optional=True),
                              Output("measured_degradation_pct", "%", "table 4-1's measurement at its latency",
                                     optional=True),
                              Output("formula", "", "PD(x) as text and LaTeX, with its symbols", optional=True,
                                     kind="object"),
                              Output("d_degradation_d_latency_pct_per_ns", "%/ns", "dPD/dx at each latency",
                                     optional=True)),
                     solve=_latency_dma, settings=(DEVICE, BURST_BYTES, SHOW_FORMULA), catalogue="device",
                     shipped=False,
                     optional=("device", "burst_bytes", "show_formula"), flat_bands=True,
                     shape=_dma_shape, shape_table=True, notes=(_dma_notes, _dma_posted_note, _dma_formula_note),
                     plot=Plot("added_latency_ns", ("degradation_pct",), references=(
                         Reference("degradation_pct", "published_added_latency_ns", "measured_degradation_pct",
                                   "table 4-1 measured"),
                         Reference("degradation_pct", "published_added_latency_ns", "published_estimate_pct",
                                   "table 4-1 estimate"))), simulate=_DMA_SIMULATION),

        ),
        fit=FitPlan(_dma_start, _dma_jacobian),
        example="dma.csv",
        measurements=("seed000_table4_1_dma", "seed000_fig4_1_adapter_sensitivity", "seed000_table3_1_platform",
                      "seed000_sec3_2_latency_facts"),
    ),
    Family(
        name="oltp",
        formula=("closed network of N jobs: a CPU station D_c and a serial I/O step D_s(x) = D_s0 + r "
                 "x, exact MVA; serial_share = D_s0 / D_c, knee_latency_ns = (D_c - D_s0) / r; PD(x) = "
                 "(X(0) - X(x)) / X(0) x 100; on a CPU of relative speed s the knee moves to knee x "
                 "s^(b - a)"),
        summary="OLTP degradation PD(x) of a batch closed network with a serial I/O step (seed 000)",
        source=f"{_SEED} secs 4.3, 4.4, 6.1",
        parameters=(
            ParameterSpec("knee_latency_ns", "ns", None, (1.0, 1e7), "fitted",
                          f"{_SEED} secs 4.3, 6.1: fitted to the TPC-C degradation description",
                          "added latency where the serial I/O step overtakes the CPU",
                          cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 1.0)),
            ParameterSpec("serial_share", "1", None, (1e-3, 0.999), "fitted",
                          f"{_SEED} secs 4.3, 6.1: fitted to the flat part of the TPC-C curve",
                          "serial-step demand / CPU demand with no added latency"),
            THINK_SHARE,
            TERMINALS,
            SERVICE_SCV,
        ),
        columns=Schema("oltp", (
            Column("added_latency_ns", Role.input, "ns", "added round-trip latency",
                   maximum=ADDED_LATENCY.bounds[1]),
            Column("degradation_pct", Role.observed, "%", "throughput loss against local",
                   maximum=100.0),
        )),
        solve=_oltp_solve,
        service_time=("constant CPU and serial-step work (declared service_scv = 0); service_scv = 1 "
                      "(exponential, product-form) is exact MVA; other service_scv values use the residual-service "
                      "correction of iosizer.model.mva "
                      "(SCV_APPROXIMATION). Against simulation at the shipped profile (fitted at scv 0): with "
                      "constant service the network is deterministic and the correction equals it (+1,500 / "
                      "1,800 / 2,100 ns: 5.00 / 17.33 / 26.83 % both); exponential MVA on the same parameters "
                      "overstates the loss near the knee (8.6 / 18.0 / 27.0 %, +2.1 % at +1,200 ns where the "
                      "simulation loses nothing) and agrees from +2,500 ns; at scv 0.5 the correction is within "
                      "0.4 points of the simulation"),
        questions=(
            Question("latency oltp", "OLTP (TPC-C-like) degradation curve: the seed's batch closed network "
                     "solved by MVA, optionally on another CPU",
                     inputs=(ADDED_LATENCY_INPUT,),
                     outputs=(Output("degradation_pct", "%", "throughput loss against local (95 % band: "
                                     "_low/_high)", measured="degradation_pct", bounds=(0.0, 100.0)),),
                     solve=_latency_oltp, settings=(STALL_EXPONENT, ISSUE_RATE_EXPONENT),
                     own_cpu=("stall_exponent", "issue_rate_exponent"), shape=_oltp_shape, shape_table=True,
                     optional=("stall_exponent", "issue_rate_exponent"), several_profiles=True, flat_bands=True,
                     notes=(_oltp_notes, _oltp_service_note, _oltp_cpu_note),
                     plot=Plot("added_latency_ns", ("degradation_pct",), references=(
                         Reference("degradation_pct", "added_latency_ns", "degradation_pct", "published",
                                   "seed000_tpcc_degradation", "relation"),)), simulate=_OLTP_SIMULATION),
            Question("latency budget", "Largest added latency whose predicted loss stays within the budget "
                     "(OLTP, or a device)",
                     outputs=(Output("max_added_latency_ns", "ns", "largest added round trip within the budget"),
                              Output("method", "", "how it was solved", text=True),
                              Output("formula", "", "x_max as text and LaTeX, with its symbols", optional=True,
                                     kind="object"),
                              Output("d_degradation_d_latency_pct_per_ns", "%/ns", "dPD/dx at the answer",
                                     optional=True)),
                     solve=_latency_budget, settings=(BUDGET, DEVICE, SHOW_FORMULA), catalogue="device",
                     optional=("device", "show_formula"),
                     also=("dma",), shape=_budget_shape, shape_table=True, notes=(_budget_notes,)),
            Question("latency tiers", "Switch tiers within a loss budget: t tiers of hop h add 2 t h ns round trip "
                     "(table 3-3)",
                     inputs=(Input("hop_ns", "ns", HOP_NS.bounds, default=_switch_hops, repeatable=True,
                                   description="one-way latency of one switch tier (default: table 3-3's)"),),
                     outputs=(Output("switch", "", "table 3-3's switch, or the hop given", text=True),
                              *(Output(f"round_trip_{t}_tiers_ns", "ns", f"round trip of {t} tiers", band=False)
                                for t in SHOWN_TIERS),
                              *(Output(f"loss_{t}_tiers_pct", "%", f"loss with {t} tiers") for t in SHOWN_TIERS),
                              Output("max_tiers", "tiers", "most tiers within the budget (a count: no band)",
                                     band=False)),
                     solve=_latency_tiers, settings=(TIER_BUDGET, DEVICE), catalogue="device", also=("dma",),
                     optional=("device",),
                     always_list=True, shape=_tiers_shape, notes=(_tiers_note,),
                     plot=_TIERS_PLOT, sizing=_SIZE_LATENCY, sizing_commands=(SIZE_LATENCY,)),
        ),
        fit=FitPlan(_oltp_start, holdable=("service_scv",)),
        example="oltp.csv",
        measurements=("seed000_tpcc_degradation", "seed000_sec4_4_tiers", "seed000_table3_2_tpcc_params",
                      "seed000_table3_3_switches", "seed000_sec2_cpu_generation"),
    ),
)


# --- the [latency] scenario table: switch tiers feeding the OLTP and DMA questions ------------------


def _table_check(keys):
    if (keys["switch"] is None) == (keys["hop_ns"] is None):
        raise InputError("give either 'switch' (a table 3-3 name) or 'hop_ns', not both or neither")


def _table_hop(state) -> float:
    """The table's one-way hop: ``hop_ns``, or its table 3-3 switch's."""
    keys = state.keys
    return float(keys["hop_ns"]) if keys["hop_ns"] is not None else float(state.entries["switch"]["hop_ns"])


def _table_added(state) -> float:
    """The round trip the table's switch tiers add (2 t h), plus its ``added_latency_ns``: what the OLTP and
    DMA questions are asked at."""
    return float(round_trip_latency_ns(state.keys["tiers"], _table_hop(state))) + state.keys["added_latency_ns"]


def _table_dma(state):
    """``latency dma`` of the table's device (table 4-1's model, carried to its CPU) or its dma profile."""
    if "dma" in state.profiles:
        if state.keys["device"] is not None:
            raise InputError("give either device (a table 4-1 device) or a dma profile, not both")
        return {"added_latency_ns": _table_added(state), "burst_bytes": state.keys["burst_bytes"]}
    if state.keys["burst_bytes"] is not None:
        raise InputError("burst_bytes goes with a dma profile; a table 4-1 device knows its burst size")
    return {"added_latency_ns": _table_added(state), "device": state.keys["device"]}


def _within(points, edge: str, budget_pct: float) -> int:
    """The most tiers within ``budget_pct`` at one edge of the loss band (the first tier over budget ends it)."""
    over = [i for i, point in enumerate(points) if point.get(edge, point["degradation_pct"]) > budget_pct]
    return over[0] if over else MAX_TIERS_SEARCHED


def _table_rows(state):
    keys, hop, added = state.keys, _table_hop(state), _table_added(state)
    label = f"{keys['switch']} switch, {hop:g} ns hop" if keys["switch"] is not None else f"{hop:g} ns hop"
    (loss,), (plan,) = state.answered["oltp"].records, state.answered["tiers"].records
    tiers = f"most switch tiers within {keys['budget_pct']:g} % OLTP loss"
    rows = [TableRow("added round-trip latency", added, "ns", f"{keys['tiers']} tiers x 2 x {hop:g} ns + "
                     f"{keys['added_latency_ns']:g} ns (seed 000 sec 3.2)")]
    if not state.calibrated("oltp"):  # the shipped calibration: an exact fit to the seed's statements, no band
        rows += [TableRow("OLTP throughput loss", loss["degradation_pct"], "%",
                          "TPC-C-like 16-terminal closed network (MVA), calibrated to seed 000"),
                 TableRow(tiers, int(plan["max_tiers"]), "tiers", label)]
    else:
        every = state.answered["every tier"].records
        rows += [TableRow("OLTP throughput loss", loss["degradation_pct"], "%",
                          f"TPC-C-like closed network (MVA), {state.sources['oltp']}",
                          loss.get("degradation_pct_ci_low", loss["degradation_pct"]),
                          loss.get("degradation_pct_ci_high", loss["degradation_pct"])),
                 TableRow(tiers, int(plan["max_tiers"]), "tiers",
                          f"{label}; band: the tiers within budget at the loss band's edges",
                          _within(every, "degradation_pct_ci_high", keys["budget_pct"]),
                          _within(every, "degradation_pct_ci_low", keys["budget_pct"]))]
    return rows + (_table_dma_rows(state) if "dma" in state.answered else [])


def _table_dma_rows(state):
    """A DMA device's loss and throughput; banded with a dma profile or a CPU, unless posted."""
    asked = state.answered["dma"]
    (row,), posted = asked.records, bool(asked.values.get("posted"))
    band = not posted and state.calibrated("dma")
    if "dma" in state.profiles:
        name, note = state.profiles["dma"], state.sources["dma"]
    else:
        name = state.keys["device"]
        note = "table 4-1 device model" + ("" if state.cpu_speed is None else
                                           f", carried to CPU speed {state.cpu_speed:g}")

    def ends(key: str):
        return (row.get(f"{key}_ci_low"), row.get(f"{key}_ci_high")) if band else (None, None)

    rows = [TableRow(f"{name} DMA loss", row["degradation_pct"], "%", "posted writes lose nothing" if posted else note,
                     *ends("degradation_pct"))]
    if row["throughput_mbps"] is not None:
        rows.append(TableRow(f"{name} DMA throughput", row["throughput_mbps"], "MB/s", "non-posted reads, Little's law",
                             *ends("throughput_mbps")))
    return rows


#: ``[latency]``: switch tiers between a server and its adapters (seed 000). ``switch`` (a table 3-3 name) or
#: ``hop_ns``; ``tiers`` of them add 2 x tiers x hop round trip, plus ``added_latency_ns``; the OLTP loss at it,
#: the most tiers within ``budget_pct`` and, for a ``device`` (or a ``dma`` profile, ``burst_bytes`` then
#: giving its throughput), the DMA loss. ``profile``: an ``oltp`` profile, a ``dma`` one, or both.
TABLES = (ScenarioTable(
    "latency", "switch tiers and added I/O latency (seed 000)", ("oltp", "dma"),
    keys=(TableKey("switch", str, catalogue=("oltp", "switch"), description="a table 3-3 switch"),
          TableKey("hop_ns", ge=0, le=HOP_NS.bounds[1], description=HOP_NS.description),
          TableKey("tiers", int, 1, ge=0, le=MAX_TIERS_SEARCHED, description="switch tiers"),
          TableKey("added_latency_ns", float, 0.0, ge=0, le=ADDED_LATENCY.bounds[1],
                   description="round trip added beside the tiers"),
          TableKey("budget_pct", float, TIER_BUDGET.value, gt=0, lt=100, description=BUDGET.description),
          TableKey("device", str, catalogue=("dma", "device"), description=DEVICE.description),
          TableKey("burst_bytes", gt=0, le=BURST_BYTES.bounds[1], description=BURST_BYTES.description)),
    asks=(Ask("oltp", "oltp", "latency oltp", lambda state: {"added_latency_ns": _table_added(state)}),
          Ask("tiers", "oltp", "latency tiers",
              lambda state: {"hop_ns": _table_hop(state), "budget_pct": state.keys["budget_pct"]}),
          Ask("every tier", "oltp", "latency oltp", lambda state: {"added_latency_ns": np.atleast_1d(
              round_trip_latency_ns(np.arange(1, MAX_TIERS_SEARCHED + 1), _table_hop(state))).tolist()},
              when=lambda state: state.calibrated("oltp")),
          Ask("dma", "dma", "latency dma", _table_dma,
              when=lambda state: state.keys["device"] is not None or "dma" in state.profiles)),
    rows=_table_rows, check=_table_check),)
