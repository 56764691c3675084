"""Synchronous write replication of a write-back flash cache over an interconnect (seed 004).

System: random writes with N outstanding against a flash cache whose every
write is replicated to a peer over 1GbE, 10GbE or IPoIB (56 Gb/s) and
acknowledged when the peer has it. Model: a closed network of population N
(times in us): the local flash write (delay), the sender's protocol stack
D_p(b) = protocol_fixed_us + protocol_per_kib_us x b_KiB (queue), the link
D_l(b) = wire_bytes(b) / rate (queue), the receiver's stack D_p(b) (queue)
and delays (switch, remote flash, residual). Exact MVA (Reiser & Lavenberg
1980), vectorised over configurations; latency R(N) = N / X(N).
``bound`` names the binding cap of X(N) <= min(1 / D_p, 1 / D_l, N / D_total):
protocol, bandwidth or concurrency.

What the seed publishes (latencies and relative findings only), how the
protocol costs are calibrated to them and the references:
docs/validation/replication.md; the calibration: :mod:`iosizer.calibration.replication`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from iosizer.errors import InputError
from iosizer.model._validate import as_server_count, as_positive
from iosizer.units import KIB, MIB
from iosizer.model.family import (DECLARED_OR_SHIPPED, SIMULATED_SCV, Column, CpuScaling, Family, FitPlan, Input,
                                  Output, ParameterSpec, Plot, Question, Role, Schema, SimulateOption, Simulation,
                                  Sizing, SizingCommand, TableRow)

__all__ = [
    "BOUNDS",
    "FAMILIES",
    "LINKS",
    "LINK_NAMES",
    "LOCAL",
    "MAX_OUTSTANDING",
    "ReplicaPath",
    "ReplicationResult",
    "ReplicationSystem",
    "protocol_demand_us",
    "replication",
    "replication_system",
    "serialisation_us",
    "link_name",
    "largest_protocol_bound_block_kib",
    "largest_replication_iops",
    "outstanding_for_iops",
    "wire_bytes",
]

#: Names of the three caps, in the order ``bound`` breaks ties.
BOUNDS = ("protocol", "bandwidth", "concurrency")
#: The MVA recursion takes one numpy step per outstanding I/O. A host keeps at
#: most 65,536 writes in flight per path: an NVMe I/O queue holds at most 65,536
#: entries (16-bit queue size) and FC exchange IDs are 16 bits.
MAX_OUTSTANDING = 65_536


class ReplicaPath(BaseModel):
    """The replica's interconnect and the per-I/O costs of sending a block over it.

    ``link_rate_mbps``: data rate of the link in 10^6 bytes per second
    (1GbE: 125). ``mss_bytes``: block bytes carried per packet.
    ``packet_overhead_bytes``: bytes each packet adds on the wire (TCP/IP
    headers, link framing). ``switch_round_trip_us``: wire and switch latency
    there and back. ``protocol_fixed_us`` and ``protocol_per_kib_us``: CPU
    time per I/O on each host, fixed part and per KiB of block.
    ``residual_delay_us``: latency per replica round trip that occupies no
    station (interrupt moderation, scheduling, the acknowledgement).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    link_rate_mbps: float = Field(gt=0)
    mss_bytes: int = Field(gt=0)
    packet_overhead_bytes: float = Field(ge=0)
    switch_round_trip_us: float = Field(ge=0)
    protocol_fixed_us: float = Field(ge=0)
    protocol_per_kib_us: float = Field(ge=0)
    residual_delay_us: float = Field(ge=0)


class ReplicationSystem(BaseModel):
    """A write-back flash cache, with a replica path or without one (``replica=None``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    local_flash_write_us: float = Field(gt=0)
    remote_flash_write_us: float = Field(gt=0)
    replica: ReplicaPath | None = None


@dataclass(frozen=True, eq=False)
class ReplicationResult:
    """Steady state of the closed network, broadcast over the inputs.

    ``iops`` (writes/s), ``throughput_mbps`` (10^6 B/s of block data),
    ``latency_us`` (mean write latency, R = N / X), ``bound`` (the binding
    cap: ``protocol``, ``bandwidth`` or ``concurrency``), the three caps in
    IOPS (``inf`` where a station does not exist), the unloaded latency
    ``unloaded_latency_us``, and the utilisations of the sender's protocol
    station and of the link (0 without a replica).
    """

    block_kib: np.ndarray
    outstanding: np.ndarray
    iops: np.ndarray
    throughput_mbps: np.ndarray
    latency_us: np.ndarray
    bound: np.ndarray
    protocol_cap_iops: np.ndarray
    bandwidth_cap_iops: np.ndarray
    concurrency_cap_iops: np.ndarray
    unloaded_latency_us: np.ndarray
    protocol_utilization: np.ndarray
    link_utilization: np.ndarray

    def point(self, index: int | tuple[int, ...] = ()) -> dict[str, object]:
        """One point as plain Python values (the CLI's JSON record)."""
        def pick(array: np.ndarray) -> object:
            value = np.asarray(array)[index]
            return value.item() if hasattr(value, "item") else value

        return {
            "block_kib": float(pick(self.block_kib)),
            "outstanding": int(pick(self.outstanding)),
            "iops": float(pick(self.iops)),
            "throughput_mbps": float(pick(self.throughput_mbps)),
            "latency_us": float(pick(self.latency_us)),
            "bound": str(pick(self.bound)),
            "unloaded_latency_us": float(pick(self.unloaded_latency_us)),
            "protocol_utilization": float(pick(self.protocol_utilization)),
            "link_utilization": float(pick(self.link_utilization)),
        }


def wire_bytes(path: ReplicaPath, block_bytes: object) -> np.ndarray:
    """Bytes on the wire for one block: b + ceil(b / mss) x per-packet overhead."""
    b = as_positive("block size", block_bytes)
    packets = np.ceil(b / path.mss_bytes)
    return b + packets * path.packet_overhead_bytes


def serialisation_us(path: ReplicaPath, block_kib: object) -> np.ndarray:
    """Time the block occupies the link, us: wire bytes / (link_rate_mbps bytes per us)."""
    return wire_bytes(path, np.asarray(block_kib, dtype=np.float64) * KIB) / path.link_rate_mbps


def protocol_demand_us(path: ReplicaPath, block_kib: object) -> np.ndarray:
    """CPU time per I/O on one host, us: fixed + per-KiB x block."""
    return path.protocol_fixed_us + path.protocol_per_kib_us * np.asarray(block_kib, dtype=np.float64)


def _solve(queues: np.ndarray, delay: np.ndarray, population: np.ndarray) -> np.ndarray:
    """Exact single-class MVA, vectorised over configurations.

    ``queues`` (..., K) single-server demands, ``delay`` (...) the summed
    delay demand, ``population`` (...) whole numbers >= 1. Returns the
    response time R(N) of each configuration at its own N.
    """
    from iosizer.model.mva import check_batch_steps

    queue_length = np.zeros_like(queues)
    response = np.zeros_like(delay)
    n_max = int(population.max())
    check_batch_steps(n_max, delay.size, "block sizes")
    for n in range(1, n_max + 1):
        residence = queues * (1.0 + queue_length)
        total = delay + residence.sum(axis=-1)
        throughput = n / total
        queue_length = throughput[..., None] * residence
        # Keep the answer of every configuration whose population is n.
        response = np.where(population == n, total, response)
    return response


def replication(system: ReplicationSystem, block_kib: object, outstanding: object) -> ReplicationResult:
    """Write IOPS, throughput, latency and binding cap at block sizes and queue depths.

    ``block_kib`` (KiB, > 0) and ``outstanding`` (whole number >= 1, at most
    :data:`MAX_OUTSTANDING`) broadcast against each other. Exact MVA of the
    network in the module docstring.
    """
    block = as_positive("block_kib", block_kib)
    population = as_server_count("outstanding", outstanding)
    if float(population.max()) > MAX_OUTSTANDING:
        raise InputError(
            f"outstanding must be at most {MAX_OUTSTANDING:,}, got {float(population.max()):g}"
        )
    block, population = np.broadcast_arrays(block, population)
    block = block.astype(np.float64)
    population = population.astype(np.float64)
    path = system.replica
    inf = np.full(block.shape, np.inf)
    if path is None:
        delay = np.full(block.shape, system.local_flash_write_us)
        response = delay.copy()
        protocol = np.zeros(block.shape)
        link = np.zeros(block.shape)
    else:
        protocol = protocol_demand_us(path, block)
        link = serialisation_us(path, block)
        delay = np.full(
            block.shape,
            system.local_flash_write_us + path.switch_round_trip_us + system.remote_flash_write_us
            + path.residual_delay_us,
        )
        queues = np.stack([protocol, link, protocol], axis=-1)
        response = _solve(queues, delay, population)
    unloaded = delay + 2 * protocol + link
    throughput_per_us = population / response
    with np.errstate(divide="ignore"):
        protocol_cap = np.where(protocol > 0, 1e6 / np.where(protocol > 0, protocol, 1.0), inf)
        bandwidth_cap = np.where(link > 0, 1e6 / np.where(link > 0, link, 1.0), inf)
    concurrency_cap = 1e6 * population / unloaded
    caps = np.stack([protocol_cap, bandwidth_cap, concurrency_cap], axis=-1)
    bound = np.asarray(BOUNDS)[np.argmin(caps, axis=-1)]
    iops = 1e6 * throughput_per_us
    return ReplicationResult(
        block_kib=block,
        outstanding=population.astype(np.int64),
        iops=iops,
        throughput_mbps=iops * block * KIB / 1e6,
        latency_us=response,
        bound=bound,
        protocol_cap_iops=protocol_cap,
        bandwidth_cap_iops=bandwidth_cap,
        concurrency_cap_iops=concurrency_cap,
        unloaded_latency_us=unloaded,
        protocol_utilization=throughput_per_us * protocol,
        link_utilization=throughput_per_us * link,
    )


# --- family declaration: replication ------------------------------------------------

_SEED = "004_94ed1ca27683450a.txt"
_CATALOGUE = "data/profiles/interconnects.json"
#: The configuration without a replica (write-back, no peer).
LOCAL = "local"
#: Names of the links the seed compares (``cli_name`` in the catalogue), then ``local``.
LINKS = ("1g", "10g", "ipoib56", LOCAL)
#: TCP cost rule of thumb: about 1 Hz of CPU per bit/s of traffic, i.e. 8 cycles
#: per byte (Foong et al., "TCP performance re-visited", ISPASS 2003).
PROTOCOL_CYCLES_PER_BYTE = 8
#: Clock of the hosts' cores, GHz: the seed does not name the CPU; a typical
#: 2014 two-socket Xeon core is assumed.
CPU_CLOCK_GHZ = 2.6

LOCAL_FLASH_WRITE = ParameterSpec(
    "local_flash_write_us", "us", 77.0, (1e-3, 1e6), "published",
    f"{_SEED} intro: 'ローカルホストへのアクセス(77ms程度)', about 77 (the seed prints ms; the value is "
    "microseconds); also data/measurements/seed004_latency.csv",
    "write latency of the local flash (the write-back cache)")
REMOTE_FLASH_WRITE = ParameterSpec(
    "remote_flash_write_us", "us", LOCAL_FLASH_WRITE.value, LOCAL_FLASH_WRITE.bounds, "assumed",
    f"assumed equal to local_flash_write_us: both hosts carry the same Virident flash ({_SEED} 検証の構成, "
    "setup); the seed gives no figure for the peer's write alone",
    "write latency of the peer's flash (the replica)")
PROTOCOL_PER_KIB = ParameterSpec(
    "protocol_per_kib_us", "us/KiB", PROTOCOL_CYCLES_PER_BYTE * KIB / (CPU_CLOCK_GHZ * 1000.0), (0.0, 1e6),
    "assumed",
    f"assumed, not the seed: {PROTOCOL_CYCLES_PER_BYTE} CPU cycles per byte (about 1 Hz of CPU per bit/s of "
    f"TCP traffic; Foong et al., ISPASS 2003) x {KIB} bytes / {CPU_CLOCK_GHZ} GHz (the seed names no CPU; a "
    "typical 2014 Xeon core); the same for every stack (data copies)",
    "CPU time per KiB of block on each host",
    cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0))
PROTOCOL_FIXED = ParameterSpec(
    "protocol_fixed_us", "us", None, (0.0, 1e6), "fitted",
    f"{_SEED} 考察 (discussion): fitted per protocol stack (ethernet for 1GbE and 10GbE, ipoib) to the "
    "gains of IPoIB over 10GbE (4 KiB: IOPS ~20 %, throughput ~15 %; 16 KiB: ~10 %) by "
    "iosizer.calibration.replication.protocol_calibration; from measured IOPS by the family's fit",
    "fixed CPU time per I/O on each host (TCP/IP encapsulation, Ethernet or IPoIB driver work)",
    cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0))
# Declared ``fitted`` although the shipped calibration derives it: it depends
# on the fitted Ethernet cost, and a declaration may lack a value only when
# fitted. With measured IOPS and latencies the family's fit varies it.
RESIDUAL_DELAY = ParameterSpec(
    "residual_delay_us", "us", None, (0.0, 1e6), "fitted",
    f"derived in the shipped calibration from {_SEED} intro's ~325 us remote flash access over 10GbE "
    "(data/measurements/seed004_latency.csv), taken as one unloaded 4 KiB round trip: 325 - "
    "remote_flash_write_us - 2 x protocol(ethernet, 4 KiB) - serialisation(10GbE, 4 KiB) - "
    "switch_round_trip_us; the same for every link (the seed gives no unloaded IPoIB latency)",
    "latency per replica round trip that occupies no station (interrupt moderation, scheduling, the "
    "acknowledgement)")

#: The other names a planner may give a link: each catalogue entry's ``name`` and ``label`` (lower case;
#: tests/model/test_replication_family.py holds them to data/profiles/interconnects.json).
LINK_NAMES = {"1gbe": "1g", "10gbe": "10g", "ipoib_56g_fdr": "ipoib56", "56g ipoib (fdr)": "ipoib56"}


def link_name(value: object, label: str | None = None) -> str:
    """A link's short name (``LINKS``) from any of its names, case-insensitive; a one-line error otherwise
    (naming ``label``, the option or field, where one is given)."""
    key = str(value).strip().lower()
    key = LINK_NAMES.get(key, key)
    if key not in LINKS:
        raise InputError(f"{label + ': ' if label else ''}unknown link '{value}'; known links: {', '.join(LINKS)}")
    return key


LINK = ParameterSpec(
    "link", "", "10g", (0.0, 0.0), "published",
    f"{_SEED} 検証結果 and 考察: 'cache 10G', the baseline of every relative statement of the seed; "
    f"the links' facts are catalogued in {_CATALOGUE}",
    "interconnect of the replica (local: no replica)", kind="setting", choices=LINKS, parse=link_name,
    variant=True)
BLOCK_SIZE = ParameterSpec(
    "block_kib", "KiB", 4.0, (1.0 / KIB, float(KIB * KIB)), "published",
    f"{_SEED} 検証結果 (results): '仮想環境で一般的と言われる4Kブロックサイズ', the block size typical of "
    "virtual environments, of Fig83_3 and Fig85_2",
    "block size of the writes a question asks about when none is given", kind="setting")
OUTSTANDING = ParameterSpec(
    "outstanding", "I/Os", 32, (1, MAX_OUTSTANDING), "assumed",
    f"assumed: {_SEED} never states the benchmark's queue depth; the shipped calibration evaluates the "
    "seed's relative gains at this depth",
    "writes kept in flight (queue depth)", kind="setting", integer=True)
# The physical facts of the default link, 10GbE, from its catalogue entry; the
# other links' facts stay in the catalogue (they are hardware data, not defaults).
LINK_RATE = ParameterSpec(
    "link_rate_mbps", "MB/s", 10.0 * 1000.0 / 8.0, (1e-3, 1e7), "derived",
    f"{_CATALOGUE} 10gbe: IEEE 802.3 10GBASE MAC data rate, 10 Gbit/s / 8 bits per byte",
    "data rate of the link, 10^6 bytes per second", kind="setting")
MSS = ParameterSpec(
    "mss_bytes", "bytes", 1500 - 20 - 20 - 12, (1, 65535), "assumed",
    f"{_CATALOGUE} 10gbe: assumed standard 1500-byte MTU - 20 (IPv4) - 20 (TCP) - 12 (TCP timestamps, "
    "RFC 7323)",
    "block bytes carried per packet (TCP maximum segment size)", kind="setting", integer=True)
PACKET_OVERHEAD = ParameterSpec(
    "packet_overhead_bytes", "bytes", 52 + 38, (0.0, 1e4), "derived",
    f"{_CATALOGUE} 10gbe: 52 (IPv4 + TCP + timestamps) + 38 Ethernet (preamble/SFD 8, header 14, FCS 4, "
    "inter-frame gap 12; IEEE 802.3)",
    "bytes each packet adds on the wire", kind="setting")
SWITCH_ROUND_TRIP = ParameterSpec(
    "switch_round_trip_us", "us", 2 * 0.2, (0.0, 1e6), "assumed",
    f"{_CATALOGUE} 10gbe: 2 x switch_hop_us 0.2, the InfiniBand switch hop of 000_249d1f3952f8e1df.txt "
    "table 3-3 (seed 004 ran 10GbE on a Mellanox IB switch in 10G mode)",
    "wire and switch latency there and back", kind="setting")


def replication_system(values: Mapping[str, Any], name: str | None = None) -> ReplicationSystem:
    """The system the declared ``values`` describe (parameters and settings by name).

    ``values["link"] == "local"``: no replica; the protocol, link and residual
    values are then not used.
    """
    link = values["link"]
    label = name or (f"cache {link}" if link != LOCAL else "local (no replica)")
    replica = None
    if link != LOCAL:
        replica = ReplicaPath(
            name=str(link),
            link_rate_mbps=values["link_rate_mbps"],
            mss_bytes=values["mss_bytes"],
            packet_overhead_bytes=values["packet_overhead_bytes"],
            switch_round_trip_us=values["switch_round_trip_us"],
            protocol_fixed_us=values["protocol_fixed_us"],
            protocol_per_kib_us=values["protocol_per_kib_us"],
            residual_delay_us=values["residual_delay_us"],
        )
    return ReplicationSystem(name=label, local_flash_write_us=values["local_flash_write_us"],
                             remote_flash_write_us=values["remote_flash_write_us"], replica=replica)


def _replication_solve(values: Mapping[str, Any], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """IOPS and latency (us) at the inputs; a missing input is the declared workload setting."""
    block = inputs.get("block_kib", values["block_kib"])
    depth = inputs.get("outstanding", values["outstanding"])
    result = replication(replication_system(values), block, depth)
    return {"iops": result.iops, "latency_us": result.latency_us}


def _replication_start(data: Mapping[str, np.ndarray], settings: Mapping[str, Any]) -> dict[str, Any]:
    """Starts for the two numbers measured IOPS identify: the fixed protocol cost and the residual delay.

    Every row bounds both from above. X <= 1 / D_p gives
    protocol_fixed_us <= 10^6 / iops - per-KiB cost x block; R(N) = N / X is
    at least the unloaded latency, which bounds the residual delay by
    N 10^6 / iops - (flash writes + switch + 2 D_p + serialisation). Each
    starts at half its tightest bound. Without a replica neither exists.
    """
    if settings["link"] == LOCAL:
        return {}
    block = np.asarray(data["block_kib"], dtype=np.float64)
    iops = np.asarray(data["iops"], dtype=np.float64)
    depth = np.asarray(data["outstanding"], dtype=np.float64)
    floor = 1e-3  # strictly inside the lower bound, where the trust region can move
    fixed = max(0.5 * float(np.min(1e6 / iops - PROTOCOL_PER_KIB.value * block)), floor)
    path = ReplicaPath(name=str(settings["link"]), link_rate_mbps=settings["link_rate_mbps"],
                       mss_bytes=settings["mss_bytes"], packet_overhead_bytes=settings["packet_overhead_bytes"],
                       switch_round_trip_us=settings["switch_round_trip_us"], protocol_fixed_us=fixed,
                       protocol_per_kib_us=PROTOCOL_PER_KIB.value, residual_delay_us=0.0)
    explained = (LOCAL_FLASH_WRITE.value + REMOTE_FLASH_WRITE.value + path.switch_round_trip_us
                 + 2 * protocol_demand_us(path, block) + serialisation_us(path, block))
    residual = max(0.5 * float(np.min(depth * 1e6 / iops - explained)), floor)
    return {"protocol_fixed_us": fixed, "residual_delay_us": residual}



def _question_solve(values: Mapping[str, Any], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``iosizer replication``: every measure of :func:`replication` over ``values["link"]`` at the
    block sizes (KiB) and outstanding writes of ``inputs``; ``bound`` is text."""
    result = replication(replication_system(values), inputs["block_kib"], inputs["outstanding"])
    return {name: getattr(result, name) for name in ("iops", "throughput_mbps", "latency_us", "bound",
                                                      "unloaded_latency_us", "protocol_utilization",
                                                      "link_utilization")}


def _question_percentiles(values: Mapping[str, Any], inputs: Mapping[str, np.ndarray],
                          percentiles: tuple[float, ...]) -> dict[str, np.ndarray]:
    """``latency_pP_us`` at each point: the sender's protocol, the link and the receiver's protocol as
    queues, the flash writes, switch and residual delay as one constant latency (arrival theorem per
    station, gamma fit end to end past 20,000 states: within 2.5 % of simulation at 8 and 32 outstanding,
    :mod:`iosizer.model.percentiles`). Without a replica the latency is the local flash write."""
    from iosizer.model.percentiles import closed_network_percentiles, percentile_key

    block = np.asarray(inputs["block_kib"], dtype=np.float64)
    depth = np.broadcast_to(np.asarray(inputs["outstanding"], dtype=np.float64), block.shape)
    system = replication_system(values)
    keys = [f"latency_{percentile_key(p)}_us" for p in percentiles]
    path = system.replica
    if path is None:
        return {key: np.full(block.shape, system.local_flash_write_us) for key in keys}
    out = {key: np.empty(block.shape) for key in keys}
    delay = (system.local_flash_write_us + path.switch_round_trip_us + system.remote_flash_write_us
             + path.residual_delay_us)
    for index in np.ndindex(block.shape):
        protocol = float(protocol_demand_us(path, block[index]))
        link = float(serialisation_us(path, block[index]))
        tails = closed_network_percentiles([protocol, link, protocol], 0.0, int(depth[index]), percentiles,
                                           [1, 1, 1], delay).response
        for key, p in zip(keys, percentiles):
            out[key][index] = tails[f"response_{percentile_key(p)}"]
    return out


def _local_note(values: Mapping[str, Any], outputs: Mapping[str, Any]) -> str | None:
    if values.get("link") != LOCAL:
        return None
    return (f"local: no replica; its flash is modelled as a pure {values['local_flash_write_us']:g} us latency "
            "(the seed gives no flash bandwidth), so it is concurrency-bound at every block size")


def _percentile_note(values: Mapping[str, Any], outputs: Mapping[str, Any]) -> str | None:
    if not any(key.startswith("latency_p") for key in outputs):
        return None
    return ("latency_pP_us: the arrival theorem's mixture over the state a write finds, inverted numerically "
            "(exact for this cycle of single servers); past 20,000 arrival states a gamma fit within 2.5 % of "
            "simulation: see iosizer.model.percentiles")


# --- sizing: outstanding I/Os for an IOPS target, the largest protocol-bound block --------------------
# X(N) grows with the I/Os in flight up to min(protocol cap, bandwidth cap), so the I/Os needed for a target
# below that cap is a monotone search (iosizer.model.sizing.smallest_integer); at or above it the target is
# unreachable. R(N) grows with N too: the largest IOPS within a latency is the most N whose R(N) fits. The
# largest block still protocol-bound is the root of protocol cap = min(bandwidth, concurrency caps) in the
# block size: a bisection on the model's own ``bound``.


def outstanding_for_iops(system: ReplicationSystem, block_kib: float, target_iops: float,
                         max_outstanding: int | None = None) -> dict[str, Any]:
    """Fewest outstanding I/Os with IOPS >= target, the state there and at one fewer, and the cap."""
    from iosizer.model.sizing import UnreachableTargetError, smallest_integer

    if target_iops <= 0 or not np.isfinite(target_iops):
        raise InputError(f"--target-iops must be a finite number > 0, got {target_iops:g}")
    BLOCK_SIZE.check(block_kib, "block_kib")
    top = MAX_OUTSTANDING if max_outstanding is None else int(max_outstanding)
    at = lambda n: replication(system, block_kib, n)  # noqa: E731
    one = at(1)
    cap = float(min(one.protocol_cap_iops, one.bandwidth_cap_iops))
    if target_iops >= cap:
        binding = "protocol" if one.protocol_cap_iops <= one.bandwidth_cap_iops else "bandwidth"
        raise UnreachableTargetError(
            f"target {target_iops:,.6g} IOPS is unreachable at {block_kib:g} KiB: the {binding} cap is "
            f"{cap:,.6g} IOPS, which no number of outstanding I/Os exceeds")
    needed = smallest_integer(lambda n: float(at(n).iops) >= target_iops, 1, top)
    if needed is None:
        raise UnreachableTargetError(f"no queue depth up to {top:,} reaches {target_iops:,.6g} IOPS")
    result = at(needed)
    return {"outstanding": needed, "iops": float(result.iops), "latency_us": float(result.latency_us),
            "bound": str(result.bound), "one_fewer_iops": float(at(needed - 1).iops) if needed > 1 else None,
            "cap_iops": cap, "target_iops": target_iops}


def largest_replication_iops(system: ReplicationSystem, block_kib: float, target_latency_us: float,
                             max_outstanding: int | None = None) -> dict[str, Any]:
    """Largest IOPS with mean write latency within the target: the most outstanding I/Os whose latency
    R(N) (growing with N) stays within it, and the IOPS they carry."""
    from iosizer.model.sizing import UnreachableTargetError, smallest_integer

    if target_latency_us <= 0 or not np.isfinite(target_latency_us):  # nan was taken as "no limit"
        raise InputError(f"--target-latency-us must be a finite number > 0, got {target_latency_us:g}")
    BLOCK_SIZE.check(block_kib, "block_kib")
    top = MAX_OUTSTANDING if max_outstanding is None else int(max_outstanding)
    at = lambda n: replication(system, block_kib, n)  # noqa: E731
    if float(at(1).latency_us) > target_latency_us:
        raise UnreachableTargetError(
            f"target latency {target_latency_us:g} us is unreachable: one write alone takes "
            f"{float(at(1).latency_us):.6g} us")
    over = smallest_integer(lambda n: float(at(n).latency_us) > target_latency_us, 1, top)
    most = top if over is None else over - 1
    result = at(most)
    return {"outstanding": most, "iops": float(result.iops), "latency_us": float(result.latency_us),
            "bound": str(result.bound), "target_latency_us": target_latency_us}


def largest_protocol_bound_block_kib(system: ReplicationSystem, outstanding: int, low_kib: float = 0.5,
                                     high_kib: float = float(MIB)) -> float | None:
    """Largest block size (KiB) at which the binding cap is still the protocol's.

    Bisection on the log of the block size between a protocol-bound and a non-protocol-bound size, to
    1e-12; None if ``low_kib`` is not protocol-bound, inf if ``high_kib`` still is (the link never takes
    over within the range).
    """
    import math

    def protocol_bound(block: float) -> bool:
        return str(replication(system, block, outstanding).bound) == "protocol"

    if system.replica is None or not protocol_bound(low_kib):
        return None
    if protocol_bound(high_kib):
        return math.inf
    lo, hi = math.log(low_kib), math.log(high_kib)
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if protocol_bound(math.exp(mid)) else (lo, mid)
    return math.exp(lo)


def _size_outstanding(values: Mapping[str, Any], point: Mapping[str, Any], target: float) -> dict[str, Any]:
    """``--target-iops``: the fewest outstanding I/Os at the block size."""
    return outstanding_for_iops(replication_system(values), point["block_kib"], target)


def _size_protocol_bound(values: Mapping[str, Any], point: Mapping[str, Any], target: None) -> dict[str, Any]:
    """Every answer: the largest block still protocol-bound at ``--outstanding`` (None past the range's end:
    ``protocol_bound_whole_range`` says so; the published record drops it)."""
    largest = largest_protocol_bound_block_kib(replication_system(values), point["outstanding"])
    whole = largest is not None and not np.isfinite(largest)
    return {"largest_protocol_bound_block_kib": None if largest is None or whole else largest,
            "protocol_bound_at_outstanding": point["outstanding"], "protocol_bound_whole_range": whole}


def _size_within_latency(values: Mapping[str, Any], point: Mapping[str, Any], target: float) -> dict[str, Any]:
    """``--target-latency-us``: the largest IOPS whose mean write latency stays within it."""
    within = largest_replication_iops(replication_system(values), point["block_kib"], target)
    return {"target_latency_us": target, "max_iops_within_latency": within["iops"],
            "outstanding_at_max_iops": within["outstanding"], "latency_at_max_iops_us": within["latency_us"],
            "bound_at_max_iops": within["bound"]}


def _sized_shape(values: Mapping[str, Any], point: Mapping[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """The published record: the link and block size first."""
    return {"link": values["link"], "block_kib": point["block_kib"],
            **{k: v for k, v in record.items() if k != "protocol_bound_whole_range"}}


def _sized_note(values: Mapping[str, Any], record: Mapping[str, Any]) -> str:
    return (f"link {values['link']}: protocol {values['protocol_fixed_us']:.4g} us + "
            f"{values['protocol_per_kib_us']:.3g} us/KiB per host; largest_protocol_bound_block_kib at "
            f"{record['protocol_bound_at_outstanding']} outstanding"
            + (" (empty: protocol-bound over the whole declared range)" if record["protocol_bound_whole_range"]
               else ""))


def _sized_interval_note(values: Mapping[str, Any], record: Mapping[str, Any]) -> str | None:
    if values.get("profile_origin") is None or "outstanding_ci_low" not in record:
        return None
    return (f"outstanding_ci_low/_ci_high: at the ends of the 95 % intervals of {values['profile_origin']} "
            "(empty, null in JSON: the target is out of reach at that end)")


#: ``iosizer size outstanding``: the replication question's sizings, answered by the model's own searches.
SIZE_OUTSTANDING = SizingCommand(
    "outstanding",
    "Seed 004: outstanding I/Os needed to reach an IOPS target over a link, and the largest block size that "
    "stays protocol-bound.",
    needs="give --target-iops (and/or --target-latency-us)",
    shape=_sized_shape, notes=(_sized_note, _sized_interval_note),
    title=lambda values, record: f"Replication over {values['link']}: outstanding I/Os and protocol-bound blocks",
    refused={"link": "--profile names its link; drop --link"})


def _table(records: list[dict[str, Any]], context: Mapping[str, Any]) -> list[TableRow]:
    """The ``[replication]`` table's rows: each link's IOPS, throughput, latency and binding cap, then its
    IOPS gain over the first link at the same block size and depth (banded jointly with a profile)."""
    rows: list[TableRow] = []
    for i, record in enumerate(records):
        link = record["link"]
        where = f"{link}, {record['block_kib']:g} KiB, {record['outstanding']} outstanding"
        if context.get("source") and link != LOCAL:
            where += f"; {context['source']}"
        rows += [TableRow.of(record, "iops", f"write IOPS over {link}", "IOPS", where),
                 TableRow.of(record, "throughput_mbps", f"write throughput over {link}", "MB/s", where),
                 TableRow.of(record, "latency_us", f"write latency over {link}", "us", where),
                 TableRow(f"binding cap over {link}", record["bound"], "", "protocol, bandwidth or concurrency")]
        first = next(j for j, r in enumerate(records)
                     if (r["block_kib"], r["outstanding"]) == (record["block_kib"], record["outstanding"]))
        if record["link"] != records[first]["link"]:
            def gain(at: list[Mapping[str, Any]], i: int = i, first: int = first) -> float:
                return 100.0 * (at[i]["iops"] / at[first]["iops"] - 1.0)

            rows.append(TableRow(f"IOPS gain of {link} over {records[first]['link']}", gain(records), "%",
                                 "seed 004 model", derive=gain))
    return rows


#: ``iosizer replication`` (the family's own path): one row per link and block size.
REPLICATION_QUESTION = Question(
    "replication", "random-write IOPS, throughput and latency of a write-back flash cache replicating to a peer",
    inputs=(Input("block_kib", "KiB", BLOCK_SIZE.bounds, BLOCK_SIZE.value, "block size of the writes",
                  doubling=True),
            Input("outstanding", "I/Os", OUTSTANDING.bounds, OUTSTANDING.value,
                  "writes kept in flight (queue depth)", integer=True)),
    outputs=(Output("iops", "IOPS", "random-write completions per second"),
             Output("throughput_mbps", "MB/s", "10^6 bytes/s of block data", measured="iops"),
             Output("latency_us", "us", "mean write latency, outstanding / IOPS (Little's law)"),
             Output("bound", "", "the binding cap: protocol (per-I/O CPU cost), bandwidth (link rate / block) "
                                 "or concurrency (outstanding / latency)", text=True),
             Output("unloaded_latency_us", "us", "latency of one write alone", band=False),
             Output("protocol_utilization", "1", "busy share of the sender's protocol CPU", band=False),
             Output("link_utilization", "1", "busy share of the link", band=False)),
    solve=_question_solve, percentiles=_question_percentiles,
    notes=(_local_note, "mbps = 10^6 bytes/s of block data; latency_us = outstanding / IOPS (Little's law)",
           _percentile_note),
    plot=Plot("block_kib", ("iops", "throughput_mbps"), series="link"),
    sweeps=("link",), shipped_bands=False, always_list=True, percentile_bands=False,
    sizing=(Sizing("outstanding", "iops", at_most=False, smallest=True, target="target_iops", command="outstanding",
                   invert=_size_outstanding),
            Sizing("block_kib", "bound", smallest=False, command="outstanding", invert=_size_protocol_bound,
                   always=True, interval=False),
            Sizing("outstanding", "latency_us", at_most=True, smallest=False, target="target_latency_us",
                   report="iops", command="outstanding", invert=_size_within_latency, interval=False)),
    sizing_commands=(SIZE_OUTSTANDING,),
    # A scenario compares links: by default the declared one and IPoIB (a profile: its own link).
    table=_table, table_keys={"link": ("links",)}, table_defaults={"link": (LINK.value, "ipoib56")},
    simulate=Simulation(
        "replication", "Writes replicated to a peer's flash over an interconnect (seed 004; numpy; --engine simpy).",
        (SimulateOption("link", "--link", f"1g, 10g, ipoib56 or local {DECLARED_OR_SHIPPED}.", kind=str),
         SimulateOption("block_kib", "--block-kib", f"Block size, KiB {DECLARED_OR_SHIPPED}."),
         SimulateOption("outstanding", "--outstanding", f"Writes in flight {DECLARED_OR_SHIPPED}.", kind=int),
         SIMULATED_SCV), metrics=("iops", "latency_us")))

FAMILIES = (
    Family(
        name="replication",
        formula=("closed network of N outstanding writes: sender and receiver protocol stations D_p(b) "
                 "= protocol_fixed_us + protocol_per_kib_us x b_KiB, the link D_l(b) = (b + ceil(b / "
                 "mss) x overhead) / rate, delays (flash writes, switch, residual); exact MVA: X(N), "
                 "R(N) = N / X(N); bound = min(protocol, bandwidth, concurrency caps)"),
        summary="write-back flash cache with a synchronous replica over 1GbE, 10GbE or IPoIB (seed 004)",
        source=f"{_SEED} intro, 検証結果 (results), 考察 (discussion)",
        parameters=(
            LOCAL_FLASH_WRITE,
            REMOTE_FLASH_WRITE,
            PROTOCOL_FIXED,
            PROTOCOL_PER_KIB,
            RESIDUAL_DELAY,
            LINK,
            BLOCK_SIZE,
            OUTSTANDING,
            LINK_RATE,
            MSS,
            PACKET_OVERHEAD,
            SWITCH_ROUND_TRIP,
        ),
        columns=Schema("replication", (
            Column("block_kib", Role.input, "KiB", "block size of the writes",
                   minimum=0, minimum_inclusive=False),
            Column("outstanding", Role.input, "I/Os", "writes kept in flight (queue depth)",
                   minimum=1, maximum=MAX_OUTSTANDING, integer=True),
            Column("iops", Role.observed, "IOPS", "random-write completions per second",
                   minimum=0, minimum_inclusive=False),
            Column("latency_us", Role.observed, "us", "mean write latency", required=False,
                   minimum=0, minimum_inclusive=False),
        )),
        solve=_replication_solve,
        service_time=("exponential (product-form) protocol and link stations, flash writes and the switch as "
                      "pure delays; exact single-class MVA"),
        questions=(REPLICATION_QUESTION,),
        fit=FitPlan(_replication_start, relative=True, holdable=("residual_delay_us",)),
        example="replication.csv",
        measurements=("seed004_latency", "seed004_relative_gains", "seed004_block_size_findings",
                      "seed004_setup"),
    ),
)
