"""Load-sharing policies for storage-port queues on a multi-core controller (seed 003).

Seed 003 (Yoshihara et al., "Performance improvement of the method sharing
loads by multi-core processors") lets the cores of a storage controller poll
the I/O queues of its host ports. Every I/O costs one unit of core time
(service time s = 1: loads, throughputs and responses here are in units of
one core and of s). A port with load L_p is served by k_p cores; when
k_p > 1 an I/O picked up by one core is continued by another with
probability (k_p - 1) / k_p and pays the inter-core communication overhead
h (``comm_overhead_pct``), so its service time is

    s_p = 1 + h (k_p - 1) / k_p                                  (1)

which costs both throughput and low-load response (the seed's table 1 and
figure 6: lock and scan overheads were solved by batching, only the
communication overhead remains). The policies decide k_p:

* ``shared`` (A): every port on every core, k_p = n;
* ``exclusive`` (B): one owner core per port, k_p = 1;
* ``one-stage`` (alpha): k_p = 1 while L_p <= threshold, n above;
* ``multi-stage`` (beta): k_p is the fewest cores (up to n) for which the
  port's work per serving core, L_p s_p / k_p, stays within the threshold.

``threshold`` is a port's load per core (fraction of one core), as the seed
describes the switch ("負荷が一定以上"); it is not published and is a
parameter.

Placement. The owner of an exclusive port is rotated to even out the cores
(B, "一定時間毎に切替"); its steady state is a static balanced placement.
Ports are placed heaviest first, each spread evenly over its k_p least
loaded cores (longest-processing-time placement), which gives each core j a
utilisation u_j = sum of the work placed on it.

Response (the approximation, and why). Port p sees its k_p cores busy with
everything placed on them, at mean utilisation rho_p; we take its response
as that of an M/M/k_p queue at per-server utilisation rho_p with service
s_p (Erlang C):

    R_p = s_p (1 + C(k_p, k_p rho_p) / (k_p (1 - rho_p)))         (2)

This is exact for exclusive placement (a core serving several ports FCFS is
one M/M/1 queue, whatever port an I/O came from) and for ``shared`` (one
M/M/n queue); where groups of different sizes overlap it treats the
foreign work on a port's cores as if it were the port's own, which keeps
the utilisation right and the waiting approximate. The seed's figures show
mean response against total throughput; we report the throughput-weighted
mean over ports, R = sum_p L_p R_p / sum_p L_p.

The maximum throughput of a policy is the largest total load at which every
core stays below utilisation 1. A "performance singularity" (figure 8) is a
jump of R where the policy changes some k_p: we evaluate R just below and
just above every switching load and report the largest relative jump,
max(R-, R+) / min(R-, R+) - 1, independent of how finely the curve is
sampled. Policies that never switch have none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

import numpy as np
from scipy.optimize import brentq

from iosizer.errors import InputError, UnstableQueueError
from iosizer.model._validate import as_nonnegative, as_positive

__all__ = [
    "POLICIES",
    "PolicyCurve",
    "PolicyParams",
    "evaluate",
    "max_throughput",
    "policy_curve",
    "serving_cores",
    "switching_loads",
]

Policy = Literal["shared", "exclusive", "one-stage", "multi-stage"]
POLICIES: tuple[str, ...] = ("shared", "exclusive", "one-stage", "multi-stage")
#: Relative offset either side of a switching load used to read R- and R+.
_SIDE_RTOL = 1e-9


@dataclass(frozen=True)
class PolicyParams:
    """Controller parameters: ``cores`` n, ``comm_overhead_pct`` 100 h, ``threshold`` (core fraction)."""

    cores: int = 4
    comm_overhead_pct: float = 20.0
    threshold: float = 0.7

    def __post_init__(self) -> None:
        if not (isinstance(self.cores, (int, np.integer)) and self.cores >= 1):
            raise InputError(f"cores must be a whole number >= 1, got {self.cores!r}")
        as_nonnegative("comm_overhead_pct", self.comm_overhead_pct)
        if not 0 < float(as_positive("threshold", self.threshold)) < 1:
            # At 1 the single owner core saturates before the switch: no finite response.
            raise InputError(f"threshold must be in (0, 1) of a core, got {self.threshold:g}")

    @property
    def overhead(self) -> float:
        return self.comm_overhead_pct / 100.0


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise InputError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")


def _shares(port_shares: Sequence[float] | np.ndarray) -> np.ndarray:
    shares = np.atleast_1d(as_nonnegative("port share", port_shares)).astype(float)
    if shares.ndim != 1 or shares.sum() <= 0:
        raise InputError("port shares must be a list of loads with a positive sum")
    return shares / shares.sum()


def serving_cores(policy: Policy, port_load: object, params: PolicyParams) -> np.ndarray:
    """k_p, the cores serving each port at its load (core fractions), same shape."""
    _check_policy(policy)
    load = as_nonnegative("port load", port_load)
    n = params.cores
    if policy == "shared":
        return np.full(load.shape, n, dtype=int)
    if policy == "exclusive":
        return np.ones(load.shape, dtype=int)
    if policy == "one-stage":
        return np.where(load > params.threshold, n, 1).astype(int)
    # Fewest cores whose per-core work, overhead (1) included, is within the threshold.
    k = np.arange(1, n + 1).reshape((n,) + (1,) * load.ndim)
    per_core = load * (1.0 + params.overhead * (k - 1) / k) / k
    within = per_core <= params.threshold * (1 + 1e-12)
    return np.where(within.any(axis=0), within.argmax(axis=0) + 1, n).astype(int)


def _place(work: np.ndarray, cores_per_port: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Spread each port's work over its k least-loaded cores, heaviest port first.

    ``work``, ``cores_per_port``: (B, P). Returns core utilisations (B, n) and
    each port's mean serving-core utilisation (B, P). Vectorised over B; the
    loop runs over ports (a handful), not over load points.
    """
    batch, ports = work.shape
    utilisation = np.zeros((batch, n))
    membership = np.zeros((batch, ports, n), dtype=bool)
    order = np.argsort(-work, axis=1, kind="stable")
    rows = np.arange(batch)
    rank = np.arange(n)
    for position in range(ports):
        port = order[:, position]
        k = cores_per_port[rows, port]
        least_loaded = np.argsort(utilisation, axis=1, kind="stable")
        chosen = np.zeros((batch, n), dtype=bool)
        chosen[rows[:, None], least_loaded] = rank[None, :] < k[:, None]
        utilisation += chosen * (work[rows, port] / k)[:, None]
        membership[rows, port] = chosen
    port_rho = (membership * utilisation[:, None, :]).sum(axis=2) / cores_per_port
    return utilisation, port_rho


def _erlang_c(servers: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """P(wait) in M/M/c at per-server utilisation rho < 1 (vectorised over c)."""
    from iosizer.model.queueing import erlang_c

    servers, rho = np.broadcast_arrays(servers, rho)
    wait = np.zeros(rho.shape)
    busy = rho > 0                  # erlang_c takes a positive offered load
    if busy.any():
        wait[busy] = erlang_c(servers[busy], servers[busy] * rho[busy])
    return wait


@dataclass(frozen=True, eq=False)
class _State:
    throughput: np.ndarray         # (B,) total load, cores
    response: np.ndarray           # (B,) throughput-weighted mean response, s units
    port_response: np.ndarray      # (B, P)
    cores_per_port: np.ndarray     # (B, P)
    core_utilization: np.ndarray   # (B, n)


def _state(policy: Policy, total: np.ndarray, shares: np.ndarray, params: PolicyParams,
           require_stable: bool = True) -> _State:
    load = total[:, None] * shares[None, :]
    k = serving_cores(policy, load, params)
    service = 1.0 + params.overhead * (k - 1) / k
    utilisation, rho = _place(load * service, k, params.cores)
    stable = utilisation.max(axis=1) < 1.0
    if require_stable and not stable.all():
        worst = float(utilisation.max())
        raise UnstableQueueError(worst, f"{policy} policy at total load {total[~stable][0]:.4g} cores")
    rho_safe = np.where(stable[:, None], rho, 0.0)
    waiting = _erlang_c(k.astype(float), rho_safe) / (k * (1.0 - rho_safe))
    port_response = service * (1.0 + waiting)
    busy = shares > 0
    mean = (port_response[:, busy] * shares[busy]).sum(axis=1)
    mean = np.where(stable, mean, np.inf)
    return _State(total, mean, port_response, k, utilisation)


def evaluate(policy: Policy, total_load: object, port_shares: Sequence[float] | np.ndarray,
             params: PolicyParams = PolicyParams()) -> _State:
    """Mean response (s units) and core utilisations at total loads (cores of work, before overhead).

    Raises :class:`UnstableQueueError` when any core would be at or above
    utilisation 1.
    """
    _check_policy(policy)
    total = np.atleast_1d(as_nonnegative("total load", total_load))
    return _state(policy, total, _shares(port_shares), params)


def switching_loads(policy: Policy, port_shares: Sequence[float] | np.ndarray,
                    params: PolicyParams = PolicyParams()) -> np.ndarray:
    """Total loads at which the policy changes some port's k_p (sorted, cores)."""
    _check_policy(policy)
    shares = _shares(port_shares)
    if policy in ("shared", "exclusive"):
        return np.empty(0)
    if policy == "one-stage":
        port_loads = np.array([params.threshold])
    else:  # k -> k + 1 where the port's per-core work on k cores reaches the threshold
        k = np.arange(1, params.cores)
        port_loads = params.threshold * k / (1.0 + params.overhead * (k - 1) / k)
    busy = shares[shares > 0]
    return np.unique((port_loads[:, None] / busy[None, :]).ravel())


def max_throughput(policy: Policy, port_shares: Sequence[float] | np.ndarray,
                   params: PolicyParams = PolicyParams()) -> float:
    """Largest total load (cores) with every core below utilisation 1.

    Core utilisation is piecewise linear in the load between switching
    points; the largest stable load is found on a grid refined by brentq on
    the last stable interval.
    """
    _check_policy(policy)
    shares = _shares(port_shares)

    def peaks(totals: np.ndarray) -> np.ndarray:
        state = _state(policy, totals, shares, params, require_stable=False)
        return state.core_utilization.max(axis=1) - 1.0

    # No policy carries more than n cores of work, so the answer lies below n.
    grid = np.linspace(0.0, float(params.cores), 4001)[1:]
    stable = peaks(grid) < 0
    if stable.all():
        return float(grid[-1])
    last = int(np.flatnonzero(stable)[-1]) if stable.any() else -1
    low = grid[last] if last >= 0 else 1e-12
    return float(brentq(lambda total: float(peaks(np.array([total]))[0]), low, grid[last + 1], xtol=1e-12))


@dataclass(frozen=True, eq=False)
class PolicyCurve:
    """Response against throughput for one policy; loads in cores, response in s units."""

    policy: str
    throughput: np.ndarray
    response: np.ndarray
    cores_per_port: np.ndarray
    max_throughput: float
    low_load_response: float
    singularity: float
    switch_loads: np.ndarray
    switch_jumps: np.ndarray


def policy_curve(policy: Policy, port_shares: Sequence[float] | np.ndarray,
                 params: PolicyParams = PolicyParams(), points: int = 60,
                 max_fraction: float = 0.95) -> PolicyCurve:
    """Sample R(X) from near zero to ``max_fraction`` of the policy's maximum.

    The curve includes both sides of every switching load below the end, so a
    plotted jump is vertical; ``switch_jumps`` holds the relative jump at each
    switching load (max/min - 1) and ``singularity`` their maximum (0 when
    the policy never switches within the curve).
    """
    _check_policy(policy)
    if points < 2:
        raise InputError(f"points must be >= 2, got {points}")
    if not 0 < max_fraction < 1:
        raise InputError(f"max_fraction must be in (0, 1), got {max_fraction:g}")
    shares = _shares(port_shares)
    top = max_throughput(policy, shares, params)
    end = max_fraction * top
    switches = switching_loads(policy, shares, params)
    switches = switches[switches < end]
    sides = np.concatenate([switches * (1 - _SIDE_RTOL), switches * (1 + _SIDE_RTOL)])
    grid = np.unique(np.concatenate([np.linspace(end / points, end, points), sides]))
    state = _state(policy, grid, shares, params)
    low = float(_state(policy, np.array([0.0]), shares, params).response[0])
    if switches.size:
        below = _state(policy, switches * (1 - _SIDE_RTOL), shares, params).response
        above = _state(policy, switches * (1 + _SIDE_RTOL), shares, params).response
        jumps = np.maximum(below, above) / np.minimum(below, above) - 1.0
    else:
        jumps = np.empty(0)
    return PolicyCurve(
        policy=policy,
        throughput=grid,
        response=state.response,
        cores_per_port=state.cores_per_port,
        max_throughput=top,
        low_load_response=low,
        singularity=float(jumps.max()) if jumps.size else 0.0,
        switch_loads=switches,
        switch_jumps=jumps,
    )
