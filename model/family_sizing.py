"""Sizing questions of the seed families, answered by root finding on each family's model.

Each answer is a monotone search on the model the family's what-ifs use
(:func:`iosizer.model.sizing.smallest_integer`: galloping, then bisection;
about 2 log2(answer) solves), or a bracketing root finder on a continuous
input, never a scan over a list of candidates.

Seed 000, switch tiers within a degradation budget
    PD(x) does not decrease with the added round-trip latency x, so t tiers
    of one-way hop h (round trip 2 t h) stay within the budget exactly when
    2 t h <= x_max, the largest latency within it:
    t_max = floor(x_max / (2 h)). x_max is a root of PD(x) = budget
    (Brent's method on the OLTP network's MVA curve, or the DMA closed form).

Seed 002, ports and HBA cores for a tenant mix at a response target
    The open (Poisson arrivals) counterpart of the family's stations: each
    tenant (a virtual port) offers its IOPS, spread evenly over the
    physical ports it is given. Per physical port: the HBA cores are an
    M/G/k queue (shared: every core serves every tenant) or one M/G/1 queue
    per core (occupancy: tenant i on core i mod k); the link is an M/G/1
    queue whose service is each tenant's block / link rate; the storage
    adds its delay. Service variability is the family's ``service_scv``
    (cv^2, declared 1: exponential, the closed network's assumption), at
    the cores and on the link alike: a core waits Erlang C / (k mu - lambda)
    x (1 + cv^2) / 2 (Allen-Cunneen with Poisson arrivals; exact for k = 1
    by Pollaczek-Khinchine and for cv^2 = 1; M/D/4 against simulation,
    ``iosizer simulate ggc``, 10 replications: the mean wait -11.7 / -3.2 /
    +0.4 / -2.2 % at utilisation 0.5 / 0.8 / 0.9 / 0.95, where the waits
    are 4 %, 37 %, 98 % and 223 % of a service time, so the response is
    within 1.6 %), the link Wq = sum_i lambda_i (1 + cv^2) s_i^2 / (2 (1 - rho))
    (Pollaczek-Khinchine with the tenants' mixture, exact). A tenant's
    response is core + link + storage; the target holds for the worst
    tenant. More ports or more cores never lengthen a queue, so each
    count is a monotone search; cores cannot help a link-bound mix, which
    is then unreachable by cores and says so.

Seed 003, cores per policy for a load and response target
    The controller's policies of :mod:`iosizer.model.loadshare` at a given
    total load (in cores of work): the smallest core count n whose
    throughput-weighted mean response is within the target. Capacity grows
    with n for every policy; the response need not (shared pays more
    hand-off overhead as n grows), so the answer is the lower edge of the
    feasible counts, found by a monotone search from the first stable
    count (exact when the feasible counts form one interval, which holds for
    every policy and scenario of the seed: the overhead term saturates at h
    while the waiting falls). The cores each port group gets at the answer
    come from the policy's own rule.

(Seed 001's x8 ports within a loss and seed 004's outstanding I/Os and
protocol-bound block are declared sizings of the rmw and replication
questions: :mod:`iosizer.model.pcie`, :mod:`iosizer.model.replication`.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Sequence

import numpy as np

from iosizer.errors import InputError
from iosizer.model.sizing import UnreachableTargetError, smallest_integer

__all__ = [
    "HbaSizing",
    "cores_per_policy",
    "hba_response_us",
    "hba_sizing",
    "max_switch_tiers",
]


def _plain(record: Any) -> dict[str, Any]:
    out = {}
    for f in fields(record):
        value = getattr(record, f.name)
        out[f.name] = value.tolist() if isinstance(value, np.ndarray) else value
    return out


# --- seed 000 -------------------------------------------------------------------------------


def max_switch_tiers(max_added_latency_ns: float, hop_ns: float) -> float:
    """Most tiers of one-way hop ``hop_ns`` whose round trip 2 t h stays within ``max_added_latency_ns``.

    inf when the hop costs nothing or the budget allows any latency.
    """
    if hop_ns < 0 or not math.isfinite(hop_ns):
        raise InputError(f"hop latency must be a finite number >= 0 ns, got {hop_ns:g}")
    if hop_ns == 0 or math.isinf(max_added_latency_ns):
        return math.inf
    # A tier count exactly on the budget is within it: guard the division's rounding.
    return float(math.floor(max_added_latency_ns / (2.0 * hop_ns) * (1 + 1e-12)))


# --- seed 002 -------------------------------------------------------------------------------


def _mgc_response_s(lam: float, service_s: float, servers: int, service_scv: float) -> float:
    """Mean response of an M/G/c queue (Allen-Cunneen, module docstring), inf when unstable.

    No arrivals: the service time.
    """
    from iosizer.model.queueing import ggc

    if lam <= 0:
        return service_s
    if lam * service_s >= servers:
        return math.inf
    return float(ggc(lam, 1.0 / service_s, servers, 1.0, service_scv).mean_response)


def hba_response_us(port: Any, mode: str, tenant_iops: Sequence[float], block_bytes: Sequence[float],
                    ports: int, storage_us: float, service_scv: float = 1.0) -> np.ndarray:
    """Mean response (us) of each tenant with its IOPS spread over ``ports`` physical ports (module docstring).

    ``service_scv``: cv^2 of the core and link service times (1 exponential).
    inf for a tenant whose core or link queue is unstable.
    """
    from iosizer.model.hba import MODE, SERVICE_SCV

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
        per_core = [_mgc_response_s(float(iops[assigned == k].sum()), core_s, 1, scv) for k in range(cores)]
        core = np.asarray(per_core)[assigned]
    transfer_s = sizes / (port.link_mbps * 1e6)
    utilisation = float(iops @ transfer_s)
    if utilisation >= 1:
        link = np.full(iops.shape, math.inf)
    else:
        link = transfer_s + (1.0 + scv) * float(iops @ transfer_s**2) / (2.0 * (1.0 - utilisation))
    return (core + link) * 1e6 + storage_us


@dataclass(frozen=True)
class HbaSizing:
    """Ports (at ``cores`` per port) and cores per port (at ``given_ports``) for a tenant mix.

    ``*_response_us`` are the worst tenant's response at the answer and at
    one fewer; None where there is no answer (``cores_reason`` says why).
    """

    mode: str
    target_response_us: float
    ports: int | None
    ports_response_us: float | None
    ports_one_fewer_response_us: float | None
    cores: int
    given_ports: int
    cores_needed: int | None
    cores_response_us: float | None
    cores_one_fewer_response_us: float | None
    cores_reason: str
    service_scv: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


#: The most physical ports the hba sizing searches (and a planner may give as ``given_ports``).
MAX_PORTS = 4096


def hba_sizing(port: Any, mode: str, tenant_iops: Sequence[float], block_bytes: Sequence[float],
               target_response_us: float, storage_us: float, given_ports: int = 1,
               max_ports: int = MAX_PORTS, max_cores: int = 1024, service_scv: float = 1.0) -> HbaSizing:
    """Physical ports (each with ``port.cores`` cores) and cores per port (at ``given_ports``) for every
    tenant's response to stay within ``target_response_us`` (monotone searches on :func:`hba_response_us`;
    ``service_scv`` the cores' and link's cv^2, 1 exponential). The storage delay and block sizes are
    checked against the hba family's declarations."""
    from iosizer.model.hba import BLOCK_BYTES, STORAGE_US, FcPort

    if not (math.isfinite(target_response_us) and target_response_us > 0):
        raise InputError(f"--target-response-us must be a finite number > 0, got {target_response_us:g}")
    STORAGE_US.check(storage_us, "storage_us")
    for size in np.atleast_1d(np.asarray(block_bytes, dtype=np.float64)):
        BLOCK_BYTES.check(size, "block_bytes")
    if not tenant_iops or any(v < 0 or not math.isfinite(v) for v in tenant_iops) or sum(tenant_iops) <= 0:
        raise InputError("--tenant-iops needs at least one tenant and a positive total")

    def worst(ports: int, cores: int) -> float:
        chosen = port if cores == port.cores else FcPort(link_mbps=port.link_mbps, cores=cores,
                                                         core_iops=port.core_iops)
        return float(hba_response_us(chosen, mode, tenant_iops, block_bytes, ports, storage_us,
                                     service_scv).max())

    # Even with no queueing a tenant takes its core time, its transfer and the storage delay.
    sizes = np.broadcast_to(np.asarray(block_bytes, dtype=np.float64), np.shape(tenant_iops))
    floor = (1.0 / port.core_iops + float(sizes.max()) / (port.link_mbps * 1e6)) * 1e6 + storage_us
    if target_response_us <= floor:
        raise UnreachableTargetError(
            f"target response {target_response_us:g} us is unreachable: one I/O alone takes {floor:.6g} us "
            "(core time + transfer + storage delay), which no port or core count shortens")
    ports = smallest_integer(lambda n: worst(n, port.cores) <= target_response_us, 1, max_ports)
    if ports is None:
        raise UnreachableTargetError(f"no port count up to {max_ports} meets {target_response_us:g} us")
    cores = smallest_integer(lambda k: worst(given_ports, k) <= target_response_us, 1, max_cores)
    reason = ""
    if cores is None:
        link_use = float(np.asarray(tenant_iops, dtype=np.float64) @ sizes) / given_ports / (port.link_mbps * 1e6)
        heaviest = max(tenant_iops) / given_ports
        if link_use >= 1:
            reason = (f"link-bound: {given_ports} port(s) at {link_use:.3g} x their link rate; "
                      "more cores do not help")
        elif mode == "occupancy" and heaviest >= port.core_iops:
            reason = (f"occupancy pins a tenant to one core: {heaviest:,.6g} IOPS per port exceeds one core's "
                      f"{port.core_iops:,.6g}; more cores do not help")
        else:
            reason = (f"the link's queueing at {given_ports} port(s) alone exceeds the target; "
                      "more cores do not help")

    def fewer(value: float) -> float | None:
        return None if not math.isfinite(value) else value

    return HbaSizing(
        mode=mode,
        target_response_us=target_response_us,
        ports=ports,
        ports_response_us=worst(ports, port.cores),
        ports_one_fewer_response_us=fewer(worst(ports - 1, port.cores)) if ports > 1 else None,
        cores=int(port.cores),
        given_ports=given_ports,
        cores_needed=cores,
        cores_response_us=None if cores is None else worst(given_ports, cores),
        cores_one_fewer_response_us=fewer(worst(given_ports, cores - 1)) if cores and cores > 1 else None,
        cores_reason=reason,
        service_scv=float(service_scv),
    )


# --- seed 003 -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PolicyCores:
    """Cores a policy needs for a load within a response target, and how it spreads them over port groups."""

    policy: str
    cores: int | None
    response_service_times: float | None
    one_fewer_response_service_times: float | None
    port_groups: list[dict[str, Any]]
    max_load_cores_at_given: float | None
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


def _response(policy: str, load: float, shares: Sequence[float], params: Any) -> float:
    from iosizer.errors import UnstableQueueError
    from iosizer.model.loadshare import evaluate

    try:
        return float(evaluate(policy, [load], shares, params).response[0])
    except UnstableQueueError:
        return math.inf


def _largest_load(policy: str, shares: Sequence[float], params: Any, target: float) -> float | None:
    """Largest total load (cores) with mean response within ``target``: the last crossing of R(L) = target.

    R(L) jumps at switching loads, so the crossing is bracketed on a grid of
    the policy's stable range (one vectorised evaluation) and refined by
    Brent's method.
    """
    from scipy.optimize import brentq

    from iosizer.model.loadshare import _shares, _state, max_throughput

    top = max_throughput(policy, shares, params)
    grid = np.linspace(0.0, top, 2001)[1:-1]
    state = _state(policy, grid, _shares(shares), params, require_stable=False)
    within = state.response <= target
    if not within.any():
        return None
    last = int(np.flatnonzero(within)[-1])
    if last == grid.size - 1:
        low, high = grid[-1], top * (1 - 1e-12)
    else:
        low, high = grid[last], grid[last + 1]
    excess = lambda load: _response(policy, load, shares, params) - target  # noqa: E731
    if excess(high) <= 0:
        return float(high)
    if not np.isfinite(excess(high)):
        high = np.nextafter(high, low)
    try:
        return float(brentq(lambda load: min(excess(load), 1e300), low, high, xtol=1e-12))
    except ValueError:  # a jump at the edge: the grid point is the answer
        return float(low)


def cores_per_policy(policies: Sequence[str], load_cores: float, shares: Sequence[float],
                     target_service_times: float, params: Any, max_cores: int | None = None) -> list[PolicyCores]:
    """For each policy, the fewest cores keeping the mean response within the target (module docstring).

    ``max_cores`` [the declared core bound] limits the search; ``load_cores`` is checked
    against the same bound (no count of cores could carry more).
    """
    from dataclasses import replace

    from iosizer.model.loadshare import CORES, evaluate

    max_cores = CORES.bounds[1] if max_cores is None else CORES.check(max_cores, "--max-cores")
    if not (np.isfinite(load_cores) and 0 < load_cores <= CORES.bounds[1]):
        raise InputError(f"--load-cores must lie in (0, {CORES.bounds[1]:g}] cores of work, got {load_cores:g}")
    if not np.isfinite(target_service_times):
        raise InputError(f"--target-response must be finite, got {target_service_times:g}")

    floor = 1.0 + params.non_core
    if target_service_times <= floor:
        raise UnreachableTargetError(
            f"target response {target_service_times:g} service times is unreachable: an I/O alone takes one "
            f"service time and the non-core part ({floor:g} in all), which no core count shortens")
    if load_cores <= 0 or not math.isfinite(load_cores):
        raise InputError(f"--load-cores must be a finite number > 0, got {load_cores:g}")
    weights = np.asarray(shares, dtype=np.float64) / float(np.sum(shares))
    answers = []
    for policy in policies:
        def with_cores(n: int) -> Any:
            return replace(params, cores=int(n))

        def meets(n: int) -> bool:
            return _response(policy, load_cores, shares, with_cores(n)) <= target_service_times

        # Capacity first (monotone in n), then the target from the first stable count up.
        stable = smallest_integer(lambda n: math.isfinite(_response(policy, load_cores, shares, with_cores(n))),
                                  1, max_cores)
        cores = None if stable is None else smallest_integer(meets, stable, max_cores)
        groups: list[dict[str, Any]] = []
        response = fewer = None
        reason = ""
        if stable is None:
            reason = (f"no core count up to {max_cores} carries the load: a port served by one core "
                      "(exclusive, or below its threshold) holds more than one core of work")
        elif cores is None:
            reason = f"no core count up to {max_cores} meets the target"
        if cores is not None:
            chosen = with_cores(cores)
            response = _response(policy, load_cores, shares, chosen)
            if cores > 1:
                value = _response(policy, load_cores, shares, with_cores(cores - 1))
                fewer = value if math.isfinite(value) else None
            serving = evaluate(policy, [load_cores], shares, chosen).cores_per_port[0]
            for share in sorted(set(weights.tolist()), reverse=True):
                members = np.flatnonzero(weights == share)
                groups.append({"ports": int(members.size), "share": share,
                               "cores_per_port": int(serving[members[0]])})
        answers.append(PolicyCores(policy, cores, response, fewer, groups,
                                   _largest_load(policy, shares, params, target_service_times), reason))
    return answers
