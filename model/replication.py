"""Synchronous write replication of a write-back flash cache over an interconnect (seed 004).

Physical system
---------------
Seed 004 (Networld blog: PernixData FVP with Mellanox InfiniBand, ESXi 5.5)
runs random writes against a write-back flash cache on one host. Without a
replica ("local") a write is done when the local flash has it. With a
replica, every write is also sent to a peer host over 1GbE, 10GbE or IPoIB
on 56 Gb/s InfiniBand, and acknowledged only when the peer has written it to
its own flash. The benchmark keeps N writes in flight (outstanding I/Os).

Model: a closed network with population N
------------------------------------------
Every write visits, in order (all times in microseconds, one visit each):

* ``local flash write``: a delay station, D = ``local_flash_write_us``;
* ``protocol (sender)``: a single-server queueing station, the per-I/O CPU
  cost of the replication stack on the writing host (TCP/IP encapsulation,
  Ethernet or IPoIB driver work),
  D_p(b) = ``protocol_fixed_us`` + ``protocol_per_kib_us`` x b_KiB;
* ``link``: a single-server queueing station, the serialisation of the block
  on the wire, D_l(b) = wire_bytes(b) / link rate, where
  wire_bytes(b) = b + ceil(b / mss) x per-packet overhead (TCP/IP headers
  and link-layer framing of every packet);
* ``protocol (receiver)``: the peer's stack, the same demand D_p(b) on its
  own CPU (a second queueing station: the two hosts work in parallel);
* delays: the switch round trip, the remote flash write
  (``remote_flash_write_us``) and a residual delay (interrupt moderation,
  scheduling, the acknowledgement's return: time that no station explains
  and that no CPU is busy for).

Single-class, product-form, so exact Mean Value Analysis (Reiser &
Lavenberg 1980) solves it; :func:`replication` runs the recursion
vectorised over any number of configurations at once (one numpy step per
population). For each n = 1..N::

    R_k(n) = D_k (1 + Q_k(n-1))   (queueing stations),   R_delay = sum of delays
    X(n) = n / (R_delay + sum_k R_k(n)),   Q_k(n) = X(n) R_k(n)

The write latency is R(N) = N / X(N) (Little's law, no think time: the
benchmark issues the next write as soon as one completes). Without a
replica the network is the local flash delay alone: X = N / D_local.
The flash devices are pure latencies: the seed gives no flash bandwidth or
IOPS limit, so ``local`` is concurrency-bound at every block size and its
absolute throughput at large blocks is an upper bound, not a prediction.

Caps and the binding one
------------------------
The asymptotic bounds of the closed network (Lazowska et al. 1984, ch. 5)::

    X(N) <= min(1 / D_p, 1 / D_l, N / D_total)

name the three caps of the seed: ``protocol`` (per-I/O CPU cost),
``bandwidth`` (link rate / wire bytes per block) and ``concurrency``
(outstanding I/Os / unloaded latency). ``bound`` is the smallest of them at
the point asked. Throughput is X x block bytes, so it never exceeds the
link's data rate: X D_l <= 1 and wire bytes >= block bytes.

What is published and what is not
----------------------------------
The seed publishes no absolute IOPS: only latencies (local flash ~77 us,
remote flash over 10GbE ~325 us, all-flash array ~800 us; the seed prints
"ms", the values are microseconds) and relative findings (4 KiB protocol-
bound, 1G ~ 10G; 16 KiB 1GbE bandwidth-bound; IPoIB 10-20 % ahead of
10GbE). The per-I/O protocol costs are therefore calibrated to those
relative findings and the residual delay is derived from the 325 us; see
:mod:`iosizer.calibration.replication`, which also says which parameters
are published, derived, assumed or fitted.

References
----------
- Seed 004: 004_94ed1ca27683450a.txt (Networld, PernixData FVP + Mellanox IB).
- M. Reiser, S. S. Lavenberg, "Mean-value analysis of closed multichain
  queueing networks", J. ACM 27(2), 1980.
- E. D. Lazowska et al., "Quantitative System Performance", 1984, ch. 5-6.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from iosizer.errors import InputError
from iosizer.model._validate import as_server_count, as_positive

__all__ = [
    "BOUNDS",
    "MAX_OUTSTANDING",
    "ReplicaPath",
    "ReplicationResult",
    "ReplicationSystem",
    "protocol_demand_us",
    "replication",
    "serialisation_us",
    "wire_bytes",
]

KIB = 1024
#: Names of the three caps, in the order ``bound`` breaks ties.
BOUNDS = ("protocol", "bandwidth", "concurrency")
#: The MVA recursion takes one numpy step per outstanding I/O.
MAX_OUTSTANDING = 1_000_000


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
    queue_length = np.zeros_like(queues)
    response = np.zeros_like(delay)
    n_max = int(population.max())
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
