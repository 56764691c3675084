"""Shared Fibre Channel ports: HBA-core saturation and tenant isolation (seed 002).

Seed 002 (Hitachi, "Performance isolation when sharing FC", 2015) shares one
physical 16GFC port between two LPARs through virtual FC ports. The port has
two resources every I/O uses:

* its HBA cores (2 per port on the Hitachi 16G board): each I/O costs one
  core ``1 / core_iops`` seconds of command and transfer control, whatever
  its size (an assumption: the seed gives only the 4 KB saturation point,
  about 300,000 IOPS with both cores, and says 256 KB at ~6,000 IOPS leaves
  the cores idle);
* the link (16GFC ~ 1600 MB/s): each I/O costs ``block_bytes / link`` s.

Two ways of giving cores to virtual ports:

* ``shared``: every core serves every virtual port, so the cores form one
  pool of ``cores`` core-seconds per second (a multi-server station);
* ``occupancy``: virtual port i is served by core ``i mod cores`` only
  (single-server stations), so a port's ceiling is one core's capacity.

In both modes the link is shared.

Throughput under overload (section 3.1, "按分": apportioned) is the
demand-proportional max-min allocation, computed by progressive filling:
every virtual port's rate grows in proportion to its offered IOPS until a
resource it uses is full; the ports using that resource are frozen at their
share (pro rata to their demand), the others keep growing. A single
saturated resource thus scales its users by capacity / demand, which is the
seed's apportioning; a port whose own resources have room keeps its demand.
A virtual port "at its limit" (the seed drives LPAR1 to saturation) offers
its stand-alone ceiling in the mode.

Response with I/O multiplicity (section 3.2) is a closed network solved by
exact MVA: ``threads`` outstanding I/Os cycle through the HBA-core station
(2 servers shared, 1 server in occupancy mode), the link and the storage,
a delay station of ``storage_us`` (the storage round trip is not published;
it is a parameter). With one thread both modes give the bare sum of demands;
the one-core station saturates at half the threads of the two-core one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from iosizer.errors import InputError
from iosizer.model._validate import as_nonnegative, as_positive

__all__ = [
    "MODES",
    "FcPort",
    "IsolationResult",
    "ResponseResult",
    "isolation",
    "port_ceiling_iops",
    "response",
    "share_pro_rata",
    "virtual_port_iops",
]

Mode = Literal["shared", "occupancy"]
MODES: tuple[str, ...] = ("shared", "occupancy")
#: Relative headroom under which a resource counts as full while filling.
_FULL_RTOL = 1e-12


class FcPort(BaseModel):
    """One physical FC port and the HBA cores behind it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    link_mbps: float = Field(1600.0, gt=0, allow_inf_nan=False,
                             description="usable link rate, MB/s (10^6 B/s) per direction")
    cores: int = Field(2, ge=1, description="HBA cores serving this port")
    core_iops: float = Field(150_000.0, gt=0, allow_inf_nan=False,
                             description="I/Os per second one core completes at full load")

    @property
    def core_us_per_io(self) -> float:
        """Core time per I/O, microseconds: 10^6 / core_iops."""
        return 1e6 / self.core_iops

    def link_us_per_io(self, block_bytes: object) -> np.ndarray:
        """Link time per I/O, microseconds: block_bytes / (link_mbps 10^6) x 10^6."""
        return as_positive("block_bytes", block_bytes) / self.link_mbps


def share_pro_rata(demand: object, usage: object, capacity: object) -> np.ndarray:
    """Demand-proportional max-min allocation of resources to flows.

    ``demand`` (..., F): offered rate of each flow (>= 0). ``usage`` (F, R):
    resource units one unit of flow consumes. ``capacity`` (R,): units each
    resource offers per unit time. Returns the carried rate of each flow,
    shape (..., F): every flow carries t_f x demand_f, where all flows rise
    with a common t until a resource fills; flows through a full resource
    keep their t, the others continue, up to t = 1 (demand met). At most
    R + 1 rounds, each vectorised over the leading dimensions.
    """
    lam = as_nonnegative("offered rate", demand)
    use = as_nonnegative("resource usage", usage)
    cap = as_positive("resource capacity", capacity)
    if use.ndim != 2 or lam.shape[-1:] != use.shape[:1] or cap.shape != use.shape[1:]:
        raise InputError("usage must be (flows, resources) matching demand and capacity")
    lam = np.atleast_1d(lam)
    level = np.zeros(lam.shape[:-1])
    carried = np.zeros_like(lam)
    active = lam > 0
    for _ in range(use.shape[1] + 1):
        if not active.any():
            break
        growth = (np.where(active, lam, 0.0)) @ use           # (..., R) per unit t
        headroom = np.maximum(cap - carried @ use, 0.0)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            step_r = np.where(growth > 0, headroom / growth, np.inf)
        step = np.minimum(step_r.min(axis=-1), 1.0 - level)
        step = np.where(active.any(axis=-1), step, 0.0)
        level = level + step
        carried = carried + np.where(active, lam * step[..., None], 0.0)
        full = (cap - carried @ use) <= _FULL_RTOL * cap       # (..., R)
        blocked = (full[..., None, :] & (use > 0)).any(axis=-1)
        active = active & ~blocked & (level < 1.0)[..., None]
    return carried


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise InputError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")


def _usage(port: FcPort, mode: Mode, block_bytes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Resource usage (V, R) in seconds per I/O and capacities (R,) in s/s.

    Resources: the core pool (shared) or one resource per core (occupancy),
    then the link.
    """
    _check_mode(mode)
    ports = block_bytes.size
    core_s = 1.0 / port.core_iops
    link_s = block_bytes / (port.link_mbps * 1e6)
    if mode == "shared":
        core_use = np.full((ports, 1), core_s)
        core_cap = np.array([float(port.cores)])
    else:
        core_use = np.zeros((ports, port.cores))
        core_use[np.arange(ports), np.arange(ports) % port.cores] = core_s
        core_cap = np.ones(port.cores)
    usage = np.concatenate([core_use, link_s[:, None]], axis=1)
    return usage, np.concatenate([core_cap, [1.0]])


def port_ceiling_iops(port: FcPort, mode: Mode, block_bytes: object) -> float | np.ndarray:
    """One virtual port alone at its limit, IOPS: min over its resources of capacity / usage.

    Shared: min(cores x core_iops, link / block). Occupancy: min(core_iops,
    link / block).
    """
    size = as_positive("block_bytes", block_bytes)
    _check_mode(mode)
    cores = port.cores if mode == "shared" else 1
    ceiling = np.minimum(cores * port.core_iops, port.link_mbps * 1e6 / size)
    return float(ceiling) if ceiling.ndim == 0 else ceiling


def virtual_port_iops(
    port: FcPort, mode: Mode, offered_iops: object, block_bytes: object
) -> np.ndarray:
    """Carried IOPS of each virtual port, shape (..., V), from offered IOPS (..., V).

    ``block_bytes`` (V,): each virtual port's I/O size. Pro-rata sharing of
    the saturated resource, see :func:`share_pro_rata`.
    """
    size = np.atleast_1d(as_positive("block_bytes", block_bytes))
    offered = as_nonnegative("offered_iops", offered_iops)
    usage, capacity = _usage(port, mode, size)
    return share_pro_rata(offered, usage, capacity)


@dataclass(frozen=True, eq=False)
class IsolationResult:
    """LPAR1's throughput as LPAR2's offered load grows (arrays over the sweep)."""

    mode: str
    lpar1_offered_iops: float
    lpar1_ceiling_iops: float
    lpar2_offered_iops: np.ndarray
    lpar1_iops: np.ndarray
    lpar2_iops: np.ndarray
    lpar1_mbps: np.ndarray
    lpar2_mbps: np.ndarray


def isolation(
    port: FcPort,
    mode: Mode,
    lpar2_offered_iops: object,
    lpar1_block_bytes: float,
    lpar2_block_bytes: float | None = None,
    lpar1_offered_iops: float | None = None,
) -> IsolationResult:
    """Section 3.1: LPAR1 steady, LPAR2 a growing disturbance on the same port.

    ``lpar1_offered_iops`` None means LPAR1 runs at its limit (its
    stand-alone ceiling in ``mode``, section 3.1.1 (1) and 3.1.2); a lower
    value is section 3.1.1 (2). ``lpar2_offered_iops``: the sweep, IOPS.
    """
    size2 = lpar1_block_bytes if lpar2_block_bytes is None else lpar2_block_bytes
    sizes = np.array([float(as_positive("lpar1_block_bytes", lpar1_block_bytes)),
                      float(as_positive("lpar2_block_bytes", size2))])
    ceiling = float(port_ceiling_iops(port, mode, sizes[0]))
    steady = ceiling if lpar1_offered_iops is None else float(
        as_nonnegative("lpar1_offered_iops", lpar1_offered_iops))
    disturbance = np.atleast_1d(as_nonnegative("lpar2_offered_iops", lpar2_offered_iops))
    offered = np.stack([np.full(disturbance.shape, steady), disturbance], axis=-1)
    carried = virtual_port_iops(port, mode, offered, sizes)
    return IsolationResult(
        mode=mode,
        lpar1_offered_iops=steady,
        lpar1_ceiling_iops=ceiling,
        lpar2_offered_iops=disturbance,
        lpar1_iops=carried[..., 0],
        lpar2_iops=carried[..., 1],
        lpar1_mbps=carried[..., 0] * sizes[0] / 1e6,
        lpar2_mbps=carried[..., 1] * sizes[1] / 1e6,
    )


@dataclass(frozen=True, eq=False)
class ResponseResult:
    """Section 3.2: one virtual port's response against outstanding I/Os."""

    mode: str
    threads: np.ndarray
    response_us: np.ndarray
    iops: np.ndarray
    core_utilization: np.ndarray


def response(port: FcPort, mode: Mode, threads: object, block_bytes: float,
             storage_us: float) -> ResponseResult:
    """Exact MVA of one virtual port with ``threads`` I/Os outstanding.

    Stations: HBA cores (demand 10^6 / core_iops us; ``cores`` servers in
    shared mode, 1 in occupancy mode), the link (block / link us) and the
    storage as a delay of ``storage_us``. ``response_us`` excludes nothing:
    it is the full round trip, R(N) = N / X(N) by Little's law.
    """
    from iosizer.model.mva import mva

    _check_mode(mode)
    counts = np.atleast_1d(as_positive("threads", threads))
    if np.any(counts != np.floor(counts)):
        raise InputError(f"threads must be whole numbers, got {counts.tolist()}")
    storage = float(as_nonnegative("storage_us", storage_us))
    link_us = float(port.link_us_per_io(block_bytes))
    servers = [port.cores if mode == "shared" else 1, 1]
    demands = [port.core_us_per_io, link_us]
    if storage > 0:
        demands.append(storage)
        servers.append(math.inf)
    solved = mva(demands, 0.0, int(counts.max()), servers=servers)
    index = counts.astype(int) - 1
    return ResponseResult(
        mode=mode,
        threads=counts.astype(int),
        response_us=np.asarray(solved.curve.response_time)[index],
        iops=np.asarray(solved.curve.throughput)[index] * 1e6,
        core_utilization=np.asarray(solved.curve.utilization)[index, 0],
    )
