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
    "cores_per_policy",
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
