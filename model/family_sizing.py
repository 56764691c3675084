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

Seed 001, x8 ports a root complex feeds within a loss budget
    The RMW loss of a transfer pattern grows with the ports sharing the
    unit (multi-class MVA of :func:`iosizer.model.pcie.rmw_throughput`), so
    the most ports is the last before the first over budget. An aligned
    pattern (no unaligned access) loses nothing at any width.

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

Seed 004, outstanding I/Os for an IOPS target, and the protocol-bound block
    Throughput X(N) of the replication network grows with the I/Os in
    flight up to min(protocol cap, bandwidth cap), so the I/Os needed for a
    target below that cap is a monotone search; at or above it the target
    is unreachable. The largest block size still protocol-bound is the root
    of protocol cap = min(bandwidth cap, concurrency cap) in the block size
    (bisection on the model's own ``bound``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Sequence

import numpy as np

from iosizer.errors import InputError
from iosizer.model.sizing import UnreachableTargetError, smallest_integer
from iosizer.units import MIB

__all__ = [
    "cores_per_policy",
    "largest_protocol_bound_block_kib",
    "largest_replication_iops",
    "max_switch_tiers",
    "most_ports_within_loss",
    "outstanding_for_iops",
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


# --- seed 001 -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PortSizing:
    """Most x``lanes_per_port`` ports within a loss budget, with the loss there and one port more."""

    ports: int | None
    lanes: int | None
    loss_pct: float | None
    next_loss_pct: float | None
    budget_pct: float
    max_ports_searched: int

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


#: The most ports the RMW search goes to. Each step solves a multi-class MVA with one class per port:
#: 128 ports (1,024 lanes at x8, eight times the lanes of the largest socket, TOTAL_LANES) answer in
#: seconds; a search let run to 2,558 ports took two minutes and 1.8 GB.
MAX_PORTS_SEARCHED = 128


def most_ports_within_loss(platform: Any, pattern: Any, budget_pct: float,
                           max_ports: int = MAX_PORTS_SEARCHED) -> PortSizing:
    """Most ports sharing the RMW unit with loss <= ``budget_pct`` (monotone search on the MVA model).

    ``ports`` None: even one port exceeds the budget. ``ports`` equal to
    ``max_ports`` with ``next_loss_pct`` None: no limit up to the search's end.
    """
    from iosizer.model.pcie import rmw_throughput

    if not 0 <= budget_pct < 100:
        raise InputError(f"--budget-pct must lie in [0, 100), got {budget_pct:g}")
    if not 1 <= max_ports <= MAX_PORTS_SEARCHED:
        raise InputError(f"max_ports must lie in [1, {MAX_PORTS_SEARCHED}], got {max_ports}")
    per_port = platform.link.lanes
    cache: dict[int, float] = {}

    def loss(ports: int) -> float:
        if ports not in cache:
            cache[ports] = float(rmw_throughput(platform, pattern, [ports * per_port]).loss_pct[0])
        return cache[ports]

    first_over = smallest_integer(lambda n: loss(n) > budget_pct * (1 + 1e-12), 1, max_ports)
    if first_over == 1:
        return PortSizing(None, None, None, loss(1), budget_pct, max_ports)
    most = max_ports if first_over is None else first_over - 1
    following = None if first_over is None else loss(first_over)
    return PortSizing(most, most * per_port, loss(most), following, budget_pct, max_ports)


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


# --- seed 004 -------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutstandingSizing:
    """I/Os in flight needed for an IOPS target over a link, and the state there."""

    outstanding: int
    iops: float
    latency_us: float
    bound: str
    one_fewer_iops: float | None
    cap_iops: float
    target_iops: float

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


def outstanding_for_iops(system: Any, block_kib: float, target_iops: float,
                         max_outstanding: int | None = None) -> OutstandingSizing:
    """Fewest outstanding I/Os with IOPS >= target (X(N) grows with N up to the protocol/bandwidth cap)."""
    from iosizer.model.replication import BLOCK_SIZE, MAX_OUTSTANDING, replication

    if target_iops <= 0 or not math.isfinite(target_iops):
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
    fewer = float(at(needed - 1).iops) if needed > 1 else None
    return OutstandingSizing(needed, float(result.iops), float(result.latency_us), str(result.bound),
                             fewer, cap, target_iops)


def largest_replication_iops(system: Any, block_kib: float, target_latency_us: float,
                             max_outstanding: int | None = None) -> dict[str, Any]:
    """Largest IOPS with mean write latency within the target: the most outstanding I/Os whose latency
    R(N) (growing with N) stays within it, and the IOPS they carry."""
    from iosizer.model.replication import BLOCK_SIZE, MAX_OUTSTANDING, replication

    if target_latency_us <= 0 or not math.isfinite(target_latency_us):  # nan was taken as "no limit"
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


def largest_protocol_bound_block_kib(system: Any, outstanding: int, low_kib: float = 0.5,
                                     high_kib: float = float(MIB)) -> float | None:
    """Largest block size (KiB) at which the binding cap is still the protocol's.

    Bisection on the block size between a protocol-bound and a non-protocol-bound
    size, to 1e-9 relative; None if ``low_kib`` is not protocol-bound, inf if
    ``high_kib`` still is (the link never takes over within the declared range).
    """
    from iosizer.model.replication import replication

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
