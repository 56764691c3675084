"""Shared Fibre Channel ports: HBA-core saturation and tenant isolation (seed 002).

System: one 16GFC port shared by two LPARs through virtual FC ports. Every
I/O costs an HBA core 1 / core_iops s and the link block_bytes / link s
(usable rate 1600 MB/s x 2048 / 2108 frame payload). ``shared``: the cores
are one pool (a multi-server station); ``occupancy``: virtual port i is
served by core i mod cores only.

- Throughput under overload (section 3.1) is the demand-proportional
  max-min allocation by progressive filling: a saturated resource scales
  its users by capacity / demand (the seed's apportioning).
- Response against outstanding I/Os (section 3.2): a closed network (cores,
  link, a storage delay) solved by MVA, exact for exponential service;
  ``service_scv`` < 1 by the residual-service correction.

The correction's error against simulation (worst at the knee: 4.4 % shared,
10.2 % occupancy at cv^2 = 0; why ``service_scv`` is bounded to [0, 1]):
docs/validation/hba.md. Every number is declared once in :data:`FAMILIES`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from iosizer.errors import InputError
from iosizer.units import KIB
from iosizer.model._validate import as_nonnegative, as_positive
from iosizer.model.family import (DECLARED_OR_SHIPPED, MAX_GRID_POINTS, SIMULATED_SCV, Column, CpuScaling, Family,
                                  FitPlan, Input, Output, ParameterSpec, Plot, Question, Role, Schema, SimulateOption,
                                  Simulation, Sizing, TableRow, changes_note, parse_grid)
from iosizer.model.mva import SERVICE_SCV as _mva_scv

__all__ = [
    "BLOCK_BYTES",
    "BLOCK_KIB",
    "CORES",
    "CORE_IOPS",
    "FAMILIES",
    "LINK_MBPS",
    "MODE",
    "MODES",
    "SERVICE_SCV",
    "STORAGE_US",
    "FcPort",
    "IsolationResult",
    "ResponseResult",
    "frame_limited_mbps",
    "isolation",
    "port_ceiling_iops",
    "response",
    "response_network",
    "share_pro_rata",
    "virtual_port_iops",
]

Mode = Literal["shared", "occupancy"]
MODES: tuple[str, ...] = ("shared", "occupancy")
#: Relative headroom under which a resource counts as full while filling.
_FULL_RTOL = 1e-12


_SEED = "002_e63f96f17eb4d7e0.txt"

#: One full FC data frame: 2048 bytes of payload; around it SOF 4 + header 24
#: + CRC 4 + EOF 4 bytes (FC-FS-3 section 9) and at least six idle ordered
#: sets of 4 bytes between frames, on the wire as 60 bytes that carry no data.
FRAME_PAYLOAD_BYTES = 2048
FRAME_OVERHEAD_BYTES = 36 + 24
#: Share of the nominal FC rate that carries data when every frame is full.
FULL_FRAME_EFFICIENCY = FRAME_PAYLOAD_BYTES / (FRAME_PAYLOAD_BYTES + FRAME_OVERHEAD_BYTES)
#: 16GFC nominal data rate per direction, MB/s (FC-PI-5); the speed seed 002 measured.
NOMINAL_16GFC_MBPS = 1600.0
#: LPAR1 alone at its limit with 4 KB reads in shared mode, both cores of the
#: port busy: "300,000IOPS 程度" (about 300,000), seed 002 sec 3.1.1 (1).
SHARED_4K_IOPS = 300_000.0


def frame_limited_mbps(nominal_mbps: float) -> float:
    """Usable link rate, MB/s: nominal rate x FULL_FRAME_EFFICIENCY (2048 / 2108)."""
    return nominal_mbps * FULL_FRAME_EFFICIENCY


# The numbers of the hba family, each stated once; FcPort, response() and the
# declaration below read them, and so do the CLI, the report and the scenarios.
LINK_MBPS = ParameterSpec(
    "link_mbps", "MB/s", frame_limited_mbps(NOMINAL_16GFC_MBPS), (1.0, 1e5), "derived",
    f"16GFC nominal {NOMINAL_16GFC_MBPS:g} MB/s (FC-PI-5) x full-frame efficiency "
    f"{FRAME_PAYLOAD_BYTES}/({FRAME_PAYLOAD_BYTES}+{FRAME_OVERHEAD_BYTES}) (FC-FS); "
    f"{_SEED} sec 3.1.2: '1600MB/sec 弱' at 256 KB, a little under the nominal rate",
    "usable link rate per direction, MB/s = 10^6 B/s")
CORES = ParameterSpec(
    "cores", "cores", 2, (1, 1024), "published",
    f"{_SEED} sec 2.2 footnote: 4 cores on the 2-port Hitachi 16G FC board, 2 per FC port",
    "HBA cores serving one physical FC port", integer=True)
CORE_IOPS = ParameterSpec(
    "core_iops", "IOPS", SHARED_4K_IOPS / CORES.value, (1.0, 1e8), "derived",
    f"{_SEED} sec 3.1.1 (1): ~{SHARED_4K_IOPS:,.0f} IOPS at 4 KB with both cores of the port, "
    f"/ {CORES.value} cores",
    "I/Os per second one HBA core completes at full load, whatever the block size",
    # Command and transfer control is code on the HBA's own processor: a
    # faster core completes more I/Os, at most in proportion to its speed
    # (exponent 1) and never fewer (0).
    cpu_scaling=CpuScaling.power, exponent_bounds=(0.0, 1.0))
STORAGE_US = ParameterSpec(
    "storage_us", "us", 50.0, (0.0, 1e6), "assumed",
    f"not published: {_SEED} sec 3.2 (fig 3-4) gives no response values and no storage round trip; "
    "the value is our placeholder for the array's service time per I/O, not a measurement: "
    "replace it with the array's measured round trip",
    "storage round trip per I/O, a delay station in the response network")
#: The FC speeds with a shipped port (data/profiles/fc_ports.json: a test holds the two equal).
PORT_SPEEDS: tuple[str, ...] = ("8gfc", "16gfc", "32gfc")
PORT = ParameterSpec(
    "port", "", "16gfc", (0.0, 0.0), "published",
    f"{_SEED} sec 2.2: the measured port is 16GFC; 8GFC and 32GFC are the FC standard's neighbours "
    "(FC-PI-4, FC-PI-6) on the same board's cores, an assumption stated in their profiles",
    "FC speed: picks the shipped port of that speed (its usable link rate; the 16G board's cores)",
    kind="setting", choices=PORT_SPEEDS, variant=True)
MODE = ParameterSpec(
    "mode", "", "shared", (0.0, 0.0), "published",
    f"{_SEED} secs 1, 2.2: HBA-core occupancy is an option of a shared FC port; "
    "without it every core serves every virtual port",
    "how HBA cores serve virtual ports: shared (all cores) or occupancy (one core each)",
    kind="setting", choices=MODES)
BLOCK_KIB = ParameterSpec(
    "block_kib", "KiB", 4, (2.0**-10, 2.0**14), "published",
    f"{_SEED} sec 3.1.1 and environment table (3.1): blocksize=4KB, the small-block runs",
    "LPAR1's I/O size in the isolation question", kind="setting")
BLOCK_BYTES = ParameterSpec(
    "block_bytes", "bytes", 512, (1.0, 2.0**24), "published",
    f"{_SEED} sec 3.2 environment table: blocksize=512Byte",
    "I/O size in the response question and of its measured data", kind="setting")
#: Service-time variability at the cores and the link (declared once in model/mva/single.py).
#: Service-time variability of the port's cores and link: the mva module's declaration, bounded to
#: [0, 1] where the residual-service correction holds on this network (module docstring).
SERVICE_SCV = replace(
    _mva_scv, bounds=(0.0, 1.0),
    source=_mva_scv.source + ". The bound 1: above it the correction scales the shared 2-core station's "
    "whole wait by (1 + cv^2) / 2 and overstates a saturated port (cv^2 = 2, 64 threads: +48 % against "
    "simulation, where exponential MVA is within 0.5 %)")

#: The inputs of the hba questions, bounded once for every caller.
OFFERED_IOPS = ParameterSpec(
    "offered_iops", "IOPS", None, (0.0, 1e8), "assumed",
    f"{_SEED} sec 3.1 offers up to ~300,000 IOPS per virtual port; the bound is core_iops' own (10^8): "
    "four times what 128GFC could carry in 512 B frames, so anything above is a typo",
    "I/Os per second a virtual port (LPAR) offers", kind="setting")
THREADS = ParameterSpec(
    "threads", "I/Os", None, (1, 65536), "derived",
    f"{_SEED} sec 3.2 runs 1, 8 and 16 threads; FC exchange IDs (OX_ID) are 16 bits (FC-FS-3), so a port "
    "has at most 65,536 exchanges, i.e. outstanding I/Os, open",
    "outstanding I/Os of one virtual port (the closed network's population)", kind="setting", integer=True)


class FcPort(BaseModel):
    """One physical FC port and the HBA cores behind it (defaults: the declared 16GFC port)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    link_mbps: float = Field(LINK_MBPS.value, gt=0, allow_inf_nan=False,
                             description="usable link rate, MB/s (10^6 B/s) per direction")
    cores: int = Field(CORES.value, ge=1, description="HBA cores serving this port")
    core_iops: float = Field(CORE_IOPS.value, gt=0, allow_inf_nan=False,
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


def _mode(mode: str) -> str:
    """``mode`` checked by its declaration (:data:`MODE`), in its normal form."""
    return MODE.check(mode, "mode")


def _usage(port: FcPort, mode: Mode, block_bytes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Resource usage (V, R) in seconds per I/O and capacities (R,) in s/s.

    Resources: the core pool (shared) or one resource per core (occupancy),
    then the link.
    """
    mode = _mode(mode)
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
    mode = _mode(mode)
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
    #: The I/O size (bytes) and storage delay (us) the answer used, declared or given.
    block_bytes: float
    storage_us: float


def response_network(port: FcPort, mode: Mode, block_bytes: float | None = None,
                     storage_us: float | None = None) -> tuple[list[float], list[float], float, float]:
    """The closed network of :func:`response`: (demands us, servers, block bytes, storage us).

    HBA cores (``cores`` servers shared, 1 in occupancy mode), the link, and
    the storage as a delay station (left out at 0 us).
    """
    mode = _mode(mode)
    size = float(as_positive("block_bytes", BLOCK_BYTES.value if block_bytes is None else block_bytes))
    storage = float(as_nonnegative("storage_us", STORAGE_US.value if storage_us is None else storage_us))
    servers = [port.cores if mode == "shared" else 1, 1]
    demands = [port.core_us_per_io, float(port.link_us_per_io(size))]
    if storage > 0:
        demands.append(storage)
        servers.append(math.inf)
    return demands, servers, size, storage


def response(port: FcPort, mode: Mode, threads: object, block_bytes: float | None = None,
             storage_us: float | None = None, service_scv: float | None = None) -> ResponseResult:
    """Exact MVA of one virtual port with ``threads`` I/Os outstanding.

    Stations: HBA cores (demand 10^6 / core_iops us; ``cores`` servers in
    shared mode, 1 in occupancy mode), the link (block / link us) and the
    storage as a delay of ``storage_us``. ``response_us`` excludes nothing:
    it is the full round trip, R(N) = N / X(N) by Little's law.
    ``block_bytes`` and ``storage_us`` left out take their declared values
    (:data:`BLOCK_BYTES`, :data:`STORAGE_US`). ``service_scv`` (declared 1:
    exponential, exact MVA) is the cores' and the link's service-time
    variability; other values use :data:`~iosizer.model.mva.SCV_APPROXIMATION`.
    """
    from iosizer.model.mva import mva

    counts = np.atleast_1d(as_positive("threads", threads))
    if np.any(counts != np.floor(counts)):
        raise InputError(f"threads must be whole numbers, got {counts.tolist()}")
    demands, servers, size, storage = response_network(port, mode, block_bytes, storage_us)
    scv = float(SERVICE_SCV.value if service_scv is None else service_scv)
    SERVICE_SCV.check(scv, "service_scv")
    solved = mva(demands, 0.0, int(counts.max()), servers=servers, service_scv=scv)
    index = counts.astype(int) - 1
    return ResponseResult(
        mode=mode,
        threads=counts.astype(int),
        response_us=np.asarray(solved.curve.response_time)[index],
        iops=np.asarray(solved.curve.throughput)[index] * 1e6,
        core_utilization=np.asarray(solved.curve.utilization)[index, 0],
        block_bytes=size,
        storage_us=storage,
    )


# --- tenants over physical ports: the open model the sizing searches (seed 002) ---------------------
#
# Each tenant (a virtual port) offers its IOPS, spread evenly over the physical ports it is given.
# Per physical port: the HBA cores are an M/G/k queue (shared: every core serves every tenant) or one
# M/G/1 queue per core (occupancy: tenant i on core i mod k); the link an M/G/1 queue whose service is
# each tenant's block / link rate; the storage adds its delay. Service variability is ``service_scv``
# at the cores and on the link alike: a core waits by Allen-Cunneen (exact for k = 1 by
# Pollaczek-Khinchine and for cv^2 = 1; M/D/4 against simulation: the response within 1.6 % at
# utilisation 0.5-0.95), the link Wq = sum_i lambda_i (1 + cv^2) s_i^2 / (2 (1 - rho)) (Pollaczek-Khinchine
# with the tenants' mixture, exact). More ports or more cores never lengthen a queue: each count is a
# monotone search (iosizer.calibration.declared_sizing); cores cannot help a link-bound mix.

#: The most physical ports the tenants question takes (and its sizing searches).
MAX_PORTS = 4096


def _tenant_iops(value: object, label: str) -> tuple[float, ...]:
    """``250000,120000``: each tenant's offered IOPS, within :data:`OFFERED_IOPS`, a positive total."""
    iops = _listed(value, label, OFFERED_IOPS) if isinstance(value, (tuple, list)) else \
        tuple(parse_grid(str(value), "tenant-iops", OFFERED_IOPS))
    if not iops or sum(iops) <= 0:
        raise InputError("--tenant-iops needs at least one tenant and a positive total")
    return iops


def _tenant_block_kib(value: object, label: str) -> tuple[float, ...]:
    """``4,8,64``: one block size for every tenant or one per tenant, KiB, within :data:`BLOCK_KIB`."""
    if isinstance(value, (tuple, list)):
        return _listed(value, label, BLOCK_KIB)
    return tuple(parse_grid(str(value), "block-kib", BLOCK_KIB))


def _listed(values: list | tuple, label: str, spec: ParameterSpec) -> tuple[float, ...]:
    """A list given as a list (HTTP, a scenario table): each value checked by ``spec``, as many as a sweep."""
    if len(values) > MAX_GRID_POINTS:
        raise InputError(f"{label}: the list has {len(values)} values, more than {MAX_GRID_POINTS}")
    return tuple(spec.check(v, label) for v in values)


TENANT_IOPS = ParameterSpec(
    "tenant_iops", "IOPS", None, (0.0, 0.0), "assumed", "the planner's tenant mix",
    "Offered IOPS of each tenant (virtual port), a list: 250000,120000", kind="setting", parse=_tenant_iops)
TENANT_BLOCK_KIB = ParameterSpec(
    "block_kib", "KiB", None, (0.0, 0.0), "published", BLOCK_KIB.source,
    "Block size, KiB: one for all or one per tenant [the family's block_kib]", kind="setting",
    parse=_tenant_block_kib)


def _mgc_response_s(lam: float, service_s: float, servers: int, service_scv: float) -> float:
    """Mean response of an M/G/c queue (Allen-Cunneen), inf when unstable; no arrivals: the service time."""
    from iosizer.model.queueing import ggc

    if lam <= 0:
        return service_s
    if lam * service_s >= servers:
        return math.inf
    return float(ggc(lam, 1.0 / service_s, servers, 1.0, service_scv).mean_response)


def hba_response_us(port: FcPort, mode: str, tenant_iops, block_bytes, ports: int, storage_us: float,
                    service_scv: float = 1.0) -> np.ndarray:
    """Mean response (us) of each tenant with its IOPS spread over ``ports`` physical ports (the open model
    above); inf for a tenant whose core or link queue is unstable."""
    mode = MODE.check(mode, "mode")
    scv = SERVICE_SCV.check(service_scv, "service_scv")
    iops = np.asarray(tenant_iops, dtype=np.float64) / ports
    sizes = np.broadcast_to(np.asarray(block_bytes, dtype=np.float64), iops.shape)
    core_s = 1.0 / port.core_iops
    cores = int(port.cores)
    if mode == "shared":
        core = np.full(iops.shape, _mgc_response_s(float(iops.sum()), core_s, cores, scv))
    else:
        assigned = np.arange(iops.size) % cores
        # Only the cores a tenant is pinned to: the work is the tenants', not the cores' (1,024 idle ones).
        per_core = {k: _mgc_response_s(float(iops[assigned == k].sum()), core_s, 1, scv) for k in set(assigned)}
        core = np.asarray([per_core[k] for k in assigned])
    transfer_s = sizes / (port.link_mbps * 1e6)
    utilisation = float(iops @ transfer_s)
    if utilisation >= 1:
        link = np.full(iops.shape, math.inf)
    else:
        link = transfer_s + (1.0 + scv) * float(iops @ transfer_s**2) / (2.0 * (1.0 - utilisation))
    return (core + link) * 1e6 + storage_us


def _tenant_mix(values) -> tuple[np.ndarray, np.ndarray]:
    """The tenants' IOPS and block sizes (bytes, one per tenant) of ``values``."""
    iops = np.asarray(values["tenant_iops"], dtype=np.float64)
    sizes_kib = np.atleast_1d(np.asarray(values["block_kib"], dtype=np.float64))
    if sizes_kib.size not in (1, iops.size):
        raise InputError(f"--block-kib: give one size or one per tenant ({iops.size}), got {sizes_kib.size}")
    return iops, np.broadcast_to(sizes_kib * KIB, iops.shape)


def _tenants_solve(values, inputs):
    """The worst tenant's mean response at each point's ports (and cores, where the sizing searches them)."""
    iops, sizes = _tenant_mix(values)
    ports = np.asarray(inputs["ports"])
    cores = np.broadcast_to(np.asarray(inputs.get("cores", values["cores"])), ports.shape)
    worst = np.empty(ports.shape)
    for at in np.ndindex(ports.shape):
        port = FcPort(link_mbps=values["link_mbps"], cores=int(cores[at]), core_iops=values["core_iops"])
        worst[at] = hba_response_us(port, values["mode"], iops, sizes, int(ports[at]), values["storage_us"],
                                    values.get("service_scv", SERVICE_SCV.value)).max()
    return {"worst_response_us": worst}


def _one_io_us(values) -> float:
    """Even with no queueing a tenant takes its core time, its transfer and the storage delay."""
    iops, sizes = _tenant_mix(values)
    return (1.0 / values["core_iops"] + float(sizes.max()) / (values["link_mbps"] * 1e6)) * 1e6 + values["storage_us"]


def _cores_reason(values, point) -> str:
    """Why no core count meets the target at the given ports."""
    iops, sizes = _tenant_mix(values)
    ports = int(np.asarray(point["ports"]).reshape(-1)[0])
    link_use = float(iops @ sizes) / ports / (values["link_mbps"] * 1e6)
    heaviest = float(iops.max()) / ports
    if link_use >= 1:
        return f"link-bound: {ports} port(s) at {link_use:.3g} x their link rate; more cores do not help"
    if values["mode"] == "occupancy" and heaviest >= values["core_iops"]:
        return (f"occupancy pins a tenant to one core: {heaviest:,.6g} IOPS per port exceeds one core's "
                f"{values['core_iops']:,.6g}; more cores do not help")
    return f"the link's queueing at {ports} port(s) alone exceeds the target; more cores do not help"


def _sizing_title(values, targets, inputs) -> str:
    return (f"FC ports and HBA cores for {len(values['tenant_iops'])} tenant(s) within "
            f"{targets['target_response_us']:g} us")


def _sizing_notes(values, records, inputs) -> tuple[str, ...]:
    scv = float(values.get("service_scv", SERVICE_SCV.value))
    return (f"ports: physical ports at {int(values['cores'])} cores each; cores_needed: cores per port at "
            f"{records[0]['given_ports']} port(s); *_one_fewer_response_us: the worst tenant one port (core) fewer "
            "(empty: unstable)",
            f"storage delay {values['storage_us']:g} us; link {values['link_mbps']:,.6g} MB/s; "
            f"{values['core_iops']:,.6g} IOPS per core; service cv^2 {scv:g}" + (" (exponential)" if scv == 1 else ""))


def _ports_solve(values, rows):
    """``iosizer hba ports``: every tenant's carried IOPS on one physical port (progressive filling, section
    3.1), the port's throughput, tenant 1's ceiling alone and its mean response at ``threads`` (MVA, section
    3.2), one row per tenant (the port's figures on each)."""
    port, mode = port_from_values(values), values["mode"]
    iops, sizes = _tenant_mix(values)
    carried = virtual_port_iops(port, mode, iops, sizes)
    alone = response(port, mode, [values["threads"]], float(sizes[0]), values["storage_us"], values.get("service_scv"))
    count = iops.size
    return {"tenant": np.arange(1, count + 1), "offered_iops": iops, "iops": carried,
            "port_mbps": np.full(count, (carried * sizes).sum() / 1e6),
            "ceiling_iops": np.full(count, port_ceiling_iops(port, mode, sizes[0])),
            "response_us": np.full(count, alone.response_us[0])}


def _ports_table(records, context):
    """The ``[hba]`` table's rows: each tenant's carried IOPS, then the port's throughput, tenant 1's ceiling
    alone and its response at ``threads``."""
    values, given = context["values"], context["given"]
    mode, mine = values["mode"], values.get("profile_origin") is not None
    blocks = np.broadcast_to(np.atleast_1d(np.asarray(values["block_kib"], dtype=float)), (len(records),))
    rows = []
    for record, block in zip(records, blocks):
        demand, got = record["offered_iops"], record["iops"]
        rows.append(TableRow.of(record, "iops", f"virtual port {record['tenant']} IOPS ({mode})", "IOPS",
                                f"offered {demand:,.0f} at {block:g} KiB; "
                                f"{100 * (got / demand - 1) if demand else 0.0:+.1f} % of its demand"))
    first = records[0]
    where = ("" if mine else f"{values['port'].upper()}, ") + f"usable {values['link_mbps']:,.0f} MB/s"
    if context["source"]:
        where += f"; {context['source']}" + changes_note({k: given[k] for k in ("port", "cores", "core_iops",
                                                                             "storage_us") if k in given})
    storage = "(the profile's)" if mine and "storage_us" not in given else "(assumed)"
    return rows + [
        TableRow.of(first, "port_mbps", "port throughput", "MB/s", where),
        TableRow.of(first, "ceiling_iops", "virtual port 1 ceiling alone", "IOPS", f"{mode} mode"),
        TableRow.of(first, "response_us", f"virtual port 1 response at {values['threads']} threads", "us",
                    f"MVA, storage delay {values['storage_us']:g} us {storage}")]


# --- family declaration: hba ------------------------------------------------------


def port_from_values(values) -> FcPort:
    return FcPort(link_mbps=values["link_mbps"], cores=int(values["cores"]), core_iops=values["core_iops"])


def _response_solve(values, inputs):
    """Response (us) and IOPS of one virtual port at each thread count, one MVA for all of them."""
    threads = np.asarray(inputs["threads"])
    solved = response(port_from_values(values), values["mode"], threads.ravel(), values["block_bytes"],
                      values["storage_us"], values.get("service_scv"))
    return {"response_us": solved.response_us.reshape(threads.shape),
            "iops": solved.iops.reshape(threads.shape)}


def _response_question(values, inputs):
    """The response question: :func:`_response_solve` and the cores' utilization."""
    threads = np.asarray(inputs["threads"])
    solved = response(port_from_values(values), values["mode"], threads.ravel(), values["block_bytes"],
                      values["storage_us"], values.get("service_scv"))
    return {"response_us": solved.response_us.reshape(threads.shape), "iops": solved.iops.reshape(threads.shape),
            "core_utilization": solved.core_utilization.reshape(threads.shape)}


def _response_percentiles(values, inputs, percentiles):
    """``response_pP_us`` at each thread count: the arrival theorem's mixture over the closed network
    (cores and link queue, the storage delay constant); within 2.0 % of simulation over the grid
    data/error_grids/hba_percentiles.csv (4 to 64 threads, 512 B and 4 KiB, both modes)."""
    from iosizer.model.percentiles import closed_network_percentiles, percentile_key

    if float(values.get("service_scv", SERVICE_SCV.value)) != 1.0:
        raise InputError("--percentile's approximation assumes exponential service; "
                         "give --percentile or --service-scv other than 1, not both")
    threads = np.asarray(inputs["threads"])
    demands, servers, _, storage = response_network(port_from_values(values), values["mode"],
                                                     values["block_bytes"], values["storage_us"])
    queues = [(d, c) for d, c in zip(demands, servers) if not math.isinf(c)]
    out = {f"response_{percentile_key(p)}_us": np.empty(threads.shape) for p in percentiles}
    for index, n in np.ndenumerate(threads):
        found = closed_network_percentiles([d for d, _ in queues], 0.0, int(n), list(percentiles),
                                           [c for _, c in queues], storage)
        for key, value in found.response.items():
            out[f"{key}_us"][index] = value
    return out


def _response_start(data, settings):
    """Storage delay from the lightest load (one thread: the bare sum of demands); core
    capacity from the highest measured IOPS per core when the file has it, else declared."""
    lightest = int(np.argmin(data["threads"]))
    port = FcPort(link_mbps=LINK_MBPS.value, cores=CORES.value, core_iops=CORE_IOPS.value)
    bare_us = port.core_us_per_io + float(port.link_us_per_io(settings["block_bytes"]))
    storage = max(float(data["response_us"][lightest]) - bare_us, 0.0)
    iops = data.get("iops")
    per_core = CORE_IOPS.value
    if iops is not None and np.isfinite(iops).any():
        serving = CORES.value if settings["mode"] == "shared" else 1
        per_core = max(float(np.nanmax(iops)) / serving, per_core * 0.1)
    return {"storage_us": storage, "core_iops": per_core}


def _isolation_solve(values, inputs):
    """LPAR1 steady (its offered IOPS), LPAR2 the disturbance, both on one port: the carried IOPS
    and MB/s of each, and LPAR1's change against itself alone (LPAR2 offering 0), at every point."""
    port, mode = port_from_values(values), values["mode"]
    lpar2 = np.asarray(inputs["lpar2_offered_iops"], dtype=np.float64)
    size1 = float(values["block_kib"]) * KIB
    # Left out (NaN), LPAR1 offers its limit at these values: a band's port has its own ceiling.
    lpar1 = np.broadcast_to(inputs["lpar1_demand_iops"], lpar2.shape)
    lpar1 = np.where(np.isnan(lpar1), float(port_ceiling_iops(port, mode, size1)), lpar1)
    size2 = np.broadcast_to(inputs["lpar2_block_kib"], lpar2.shape) * KIB
    carried = np.empty(lpar2.shape + (2,))
    alone = np.empty(lpar2.shape)
    for block in np.unique(size2):  # the usage matrix depends on LPAR2's block: one solve per size
        at = size2 == block
        sizes = np.array([size1, block])
        offered = np.stack([lpar1[at], lpar2[at]], axis=-1)
        carried[at] = virtual_port_iops(port, mode, offered, sizes)
        idle = np.stack([lpar1[at], np.zeros(offered.shape[:-1])], axis=-1)
        alone[at] = virtual_port_iops(port, mode, idle, sizes)[..., 0]
    lpar1_iops, lpar2_iops = carried[..., 0], carried[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        change = np.where(alone > 0, 100 * (lpar1_iops / alone - 1), 0.0)
    return {"lpar1_iops": lpar1_iops, "lpar2_iops": lpar2_iops,
            "lpar1_mbps": lpar1_iops * size1 / 1e6, "lpar2_mbps": lpar2_iops * size2 / 1e6,
            "lpar1_offered_iops": lpar1, "lpar1_change_pct": change}


def _lpar2_block_kib(values, given):
    """LPAR1's (the block_kib setting)."""
    return float(values["block_kib"])


def _lpar1_at_its_limit(values, given):
    """At its limit: its stand-alone ceiling in the mode (sections 3.1.1 (1), 3.1.2)."""
    return math.nan  # the solve takes the ceiling at the values it is evaluated at


def _lpar2_up_to_the_ceiling(values, given):
    """0 to one virtual port's shared ceiling at LPAR2's block, in 12 steps.

    The ceiling is the load at which LPAR2 alone would fill the port (at LPAR2's smallest block when
    several are given)."""
    size = float(np.min(given.get("lpar2_block_kib", values["block_kib"]))) * KIB
    return tuple(np.linspace(0.0, float(port_ceiling_iops(port_from_values(values), "shared", size)), 13).tolist())


def _published(order, banded):
    """The published record shape of an hba question (as the hand-written commands printed it): ``order``
    first (``block_kib`` from the values), then the bands of ``banded``, then the percentiles unbanded."""
    def shape(records, values):
        out = []
        for record in records:
            row = {k: values[k] if k == "block_kib" else record[k] for k in order}
            row.update({f"{k}_{e}": record[f"{k}_{e}"] for k in banded for e in ("ci_low", "ci_high")
                        if f"{k}_{e}" in record})
            row.update({k: v for k, v in record.items() if k.startswith("response_p") and "_ci_" not in k})
            out.append(row)
        return out
    return shape


def _value_notes(values, outputs):
    """Where the port's numbers come from: the shipped FC speed's or the profile's."""
    scv = float(values.get("service_scv", SERVICE_SCV.value))
    return ("service times exponential (cv^2 = 1): exact MVA" if scv == 1 else
            f"service-time cv^2 = {scv:g}: MVA with the residual-service correction (approximate)")



#: ``iosizer simulate hba ...``: the group's help.
_SIMULATED_GROUP = "Shared FC ports (seed 002): simulate 'response'."


def _simulated_option(name, help, kind=float, flag=""):
    return SimulateOption(name, flag or "--" + name.replace("_", "-"), f"{help} {DECLARED_OR_SHIPPED}.", kind=kind)


#: ``iosizer simulate hba response``: the port's closed network at one thread count.
_RESPONSE_SIMULATION = Simulation(
    "hba response", "One virtual port's response against outstanding I/Os (seed 002 sec 3.2; numpy; --engine simpy).",
    (SimulateOption("threads", "--threads", "Outstanding I/Os on the virtual port.", kind=int, default=16),
     _simulated_option("mode", "shared or occupancy", str),
     _simulated_option("block_bytes", "I/O size, bytes"),
     _simulated_option("storage_us", "Storage round trip per I/O, us (assumed)"),
     SimulateOption("speed", "--port", "FC speed profile: 8GFC, 16GFC or 32GFC.", kind=str),
     _simulated_option("cores", "HBA cores per port", int),
     _simulated_option("core_iops", "I/Os per second per core"),
     SimulateOption("link_mbps", "--link-mbps", "Usable link rate, MB/s."),
     SIMULATED_SCV), group=_SIMULATED_GROUP, metrics=("response_us", "iops"))


FAMILIES = (
    Family(
        name="hba",
        formula=("isolation: progressive-filling max-min shares of the cores (cores x core_iops, or "
                 "core_iops per core in occupancy) and the link (link_mbps / block) pro rata to "
                 "demand; response: closed network of N threads, the cores (a k-server station, 1 / "
                 "core_iops per I/O), the link (block / link rate) and the storage delay, exact MVA: "
                 "R(N) = N / X(N)"),
        summary="virtual FC ports sharing one physical port and its HBA cores: isolation and response (seed 002)",
        source=f"{_SEED} secs 2.2, 3.1, 3.2",
        parameters=(LINK_MBPS, CORES, CORE_IOPS, STORAGE_US, PORT, MODE, BLOCK_KIB, BLOCK_BYTES, SERVICE_SCV),
        columns=Schema("hba", (
            Column("threads", Role.input, "I/Os", "I/Os kept outstanding on one virtual port",
                   minimum=1, integer=True, maximum=100_000),
            Column("response_us", Role.observed, "us", "mean response time per I/O",
                   minimum=0, minimum_inclusive=False),
            Column("iops", Role.observed, "IOPS", "I/Os completed per second",
                   required=False, minimum=0, minimum_inclusive=False),
        )),
        solve=_response_solve,
        # Response against threads pins the storage delay (light load) and
        # the core capacity (the knee); cores and link are held as declared.
        fit=FitPlan(_response_start, relative=True, holdable=("service_scv",)),
        service_time=(
            "isolation: fixed capacities (core time per I/O, link rate) shared pro rata, a fluid "
            "allocation with no queueing; response: MVA assuming exponential (product-form) "
            "service at the cores (one station of 'cores' servers shared, 1 in occupancy mode) and "
            "the link (service_scv = 1, exact), the storage a delay station. Hardware service is "
            "closer to constant: with every service time constant, exponential MVA overstates the "
            "simulated response most at the knee, by 14.4 % at 17 threads (shared) and 18.5 % at 8 "
            "(occupancy); service_scv = 0 (residual-service correction) by 4.4 % and 10.2 % there, "
            "exactly right past the knee; at cv^2 = 0.5 the correction is within -3.1..+1.5 %. Above "
            "cv^2 = 1 it overstates shared mode's saturated response by about (1 + cv^2) / 2 (cv^2 = 2: "
            "+48 % at 64 threads) where exponential MVA is within 6 %. The seed "
            "publishes no response values to check either against"
        ),
        questions=(
            Question(
                "hba isolation", "LPAR1's throughput while LPAR2's load grows on the same FC port (section 3.1)",
                inputs=(
                    Input("lpar2_offered_iops", "IOPS", OFFERED_IOPS.bounds, default=_lpar2_up_to_the_ceiling,
                          description="LPAR2's offered IOPS"),
                    Input("lpar1_demand_iops", "IOPS", OFFERED_IOPS.bounds, default=_lpar1_at_its_limit,
                          description="LPAR1's offered IOPS; below one core's capacity is section 3.1.1 (2)"),
                    Input("lpar2_block_kib", "KiB", BLOCK_KIB.bounds, default=_lpar2_block_kib,
                          description="LPAR2's I/O size"),
                ),
                outputs=(
                    Output("lpar1_iops", "IOPS", "LPAR1's carried I/Os per second"),
                    Output("lpar2_iops", "IOPS", "LPAR2's carried I/Os per second"),
                    Output("lpar1_mbps", "MB/s", "LPAR1's carried throughput"),
                    Output("lpar2_mbps", "MB/s", "LPAR2's carried throughput"),
                    Output("lpar1_offered_iops", "IOPS", "LPAR1's offered IOPS: as given, or its limit"),
                    Output("lpar1_change_pct", "%", "LPAR1's IOPS against LPAR1 alone (LPAR2 offering 0)"),
                ),
                solve=_isolation_solve, scenario=False,
                sweeps=("mode",), sweep_all=("mode",), flat_bands=True, always_list=True,
                notes=(f"{_SEED} sec 3.1: overload is shared pro rata to the offered IOPS at the saturated "
                       "resource (progressive filling); LPAR1 offers its limit unless told",
                       "lpar1_change_pct: LPAR1's IOPS against LPAR1 alone (LPAR2 offering 0)"),
                plot=Plot("lpar2_offered_iops", ("lpar1_iops", "lpar2_iops"), series="mode"),
                aliases={"lpar2_offered_iops": ("lpar2_iops",), "lpar1_demand_iops": ("lpar1_iops",)},
                shape=_published(("mode", "block_kib", "lpar2_offered_iops", "lpar1_iops", "lpar2_iops",
                                  "lpar1_mbps", "lpar2_mbps", "lpar1_offered_iops", "lpar1_change_pct"),
                                 ("lpar1_iops", "lpar2_iops")),
                simulate=Simulation(
                    "hba isolation", "Not simulated: a fluid allocation of fixed capacities (exits 2 and says so).",
                    refused="hba isolation is a fluid allocation of fixed capacities (no queueing, nothing random "
                            "to simulate); simulate answers 'hba response'", group=_SIMULATED_GROUP),
            ),
            Question(
                "hba response", "one virtual port's response against outstanding I/Os, closed network by MVA "
                "(section 3.2)",
                inputs=(Input("threads", "I/Os", THREADS.bounds, default=(1, 8, 16), integer=True,
                              description="outstanding I/Os of one virtual port"),),
                outputs=(Output("response_us", "us", "mean response time per I/O, the full round trip"),
                         Output("iops", "IOPS", "I/Os completed per second"),
                         Output("core_utilization", "1", "utilization of the HBA cores serving the port")),
                solve=_response_question, scenario=False,
                sweeps=("mode",), sweep_all=("mode",), flat_bands=True, always_list=True,
                percentiles=_response_percentiles,
                notes=(f"{_SEED} sec 3.2: threads cycle through the HBA cores (cores servers shared, 1 in "
                       "occupancy mode), the link and the storage (a delay station of storage_us)",
                       _value_notes),
                plot=Plot("threads", ("response_us",), series="mode"),
                shape=_published(("mode", "threads", "response_us", "iops", "core_utilization"),
                                 ("response_us", "iops")),
                simulate=_RESPONSE_SIMULATION,
            ),
            Question(
                "hba ports", "tenants (virtual ports) sharing one physical FC port: each one's carried IOPS, the "
                "port's throughput, tenant 1's ceiling alone and its response (sections 3.1, 3.2)", rows=True,
                outputs=(Output("tenant", "", "the tenant (virtual port), in the order given", band=False,
                                integer=True),
                         Output("offered_iops", "IOPS", "its offered I/Os per second", band=False),
                         Output("iops", "IOPS", "its carried I/Os per second"),
                         Output("port_mbps", "MB/s", "the port's carried throughput, every tenant"),
                         Output("ceiling_iops", "IOPS", "tenant 1's ceiling alone in the mode"),
                         Output("response_us", "us", "tenant 1's mean response alone at threads (MVA)")),
                solve=_ports_solve, settings=(TENANT_IOPS, TENANT_BLOCK_KIB, replace(THREADS, value=16)),
                optional=("block_kib",),
                takes=("link_mbps", "cores", "core_iops", "storage_us", "port", "mode", "service_scv"),
                sweeps=("mode",), flat_bands=True, shipped_bands=False, always_list=True,
                notes=(f"{_SEED} sec 3.1: overload is shared pro rata to the offered IOPS at the saturated "
                       "resource (progressive filling); sec 3.2: tenant 1's response alone, closed network by MVA",
                       _value_notes),
                table=_ports_table, table_keys={"tenant_iops": ("offered_iops",)}),
            Question(
                "hba tenants", "the worst tenant's mean response of a tenant mix spread evenly over physical FC "
                "ports (open model: cores M/G/k or M/G/1 each, link M/G/1, storage a delay)",
                inputs=(Input("ports", "ports", (1, MAX_PORTS), default=1, integer=True,
                              description="physical ports the tenants' IOPS are spread over"),),
                outputs=(Output("worst_response_us", "us", "the worst tenant's mean response"),),
                solve=_tenants_solve, settings=(TENANT_IOPS, TENANT_BLOCK_KIB), optional=("block_kib",),
                takes=("link_mbps", "cores", "core_iops", "storage_us", "port", "mode", "service_scv"),
                sweeps=("mode",), sweep_all=("mode",), always_list=True, scenario=False,
                notes=(f"{_SEED} secs 2.2, 3.1: tenants spread evenly over the ports; cores M/G/k (shared) or "
                       "M/G/1 per core (occupancy, tenant i on core i mod k), link M/G/1 with each tenant's "
                       "transfer, storage a delay; waits by Allen-Cunneen and Pollaczek-Khinchine",),
                # 'iosizer size hba': ports at the given cores and cores at the given ports, one target.
                sizing=(
                    Sizing("ports", "worst_response_us", target="target_response_us", limit=_one_io_us,
                           unreachable=("target response {target:g} us is unreachable: one I/O alone takes "
                                        "{limit:.6g} us (core time + transfer + storage delay), which no port or "
                                        "core count shortens"),
                           keys=(("target", "target_response_us"), ("ports", "ports"),
                                 ("measure", "ports_response_us"), ("one_fewer", "ports_one_fewer_response_us"),
                                 ("cores", "cores")),
                           title=_sizing_title, notes=_sizing_notes,
                           columns=("mode", "ports", "ports_response_us", "ports_one_fewer_response_us",
                                    "cores_needed", "cores_response_us", "cores_one_fewer_response_us",
                                    "cores_reason")),
                    Sizing("cores", "worst_response_us", target="target_response_us", reason=_cores_reason,
                           interval=False,
                           keys=(("ports", "given_ports"), ("cores", "cores_needed"),
                                 ("measure", "cores_response_us"), ("one_fewer", "cores_one_fewer_response_us"),
                                 ("reason", "cores_reason"), ("service_scv", "service_scv"))),
                ),
            ),
        ),
        example="hba.csv",
        measurements=("seed002_env", "seed002_sec3_1_isolation", "seed002_sec3_2_response"),
    ),
)
