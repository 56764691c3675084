"""Sizing: the inverse questions of the queueing primitives, answered by root finding.

"How many servers do I need for this load within this response time?" and
"how much load does this configuration sustain within it?" are the
questions the what-ifs of :mod:`iosizer.model.queueing` and
:mod:`iosizer.model.mva` answer only one candidate at a time. Here they are
solved directly, vectorised over any number of rows: the Python API of
issue 16 (1,000,000 rows in under a second, ``benchmarks/bench_sizing.py``).
The commands ``iosizer size servers`` and ``size load`` are declared
(:class:`iosizer.model.family.Sizing`) and answered by the registry's one
search (:mod:`iosizer.calibration.declared_sizing`, at most 10,000 points
per question, ``benchmarks/bench_sizing_declared.py``); the tests hold the two
to the same server counts.

Smallest server count (M/M/c)
-----------------------------
With a = lambda / mu the offered load, the smallest stable count is
floor(a) + 1, and each target is monotone in c (Erlang C falls as c grows):

- mean response: W(c) = 1/mu + C(c, a) / (c mu - lambda) <= T; as c grows W
  falls to 1/mu, so a target T <= 1/mu is unreachable;
- percentile P of the response: P(T_resp > T) <= 1 - P/100, the exact M/M/c
  survival of :mod:`iosizer.model.percentiles` evaluated at T (no quantile
  has to be solved); it falls to the service time's exp(-mu T), so a target
  at or below the service time's own percentile -ln(1 - P/100)/mu is
  unreachable;
- probability of waiting (the Erlang C form): C(c, a) <= target.

The search starts from the Halfin-Whitt square-root staffing estimate
c ~ a + beta sqrt(a), with C(c, a) ~ 1 / (1 + beta Phi(beta) / phi(beta))
(S. Halfin, W. Whitt, "Heavy-traffic limits for queues with many
exponential servers", Operations Research 29(3), 1981), beta read from a
precomputed table of that function (np.interp, no special function per
row). The exact target is then evaluated at the estimate and at
one fewer: where the estimate is right (most rows) that settles the answer;
elsewhere an integer search (galloping up, then bisection) finishes it on
the remaining rows only. The answer is exact: the Erlang C of
:func:`iosizer.model.queueing.mmc` (at the first check B(n) comes from
B(n - 1) by one step of the stable forward recurrence, equal to rounding),
checked at the count and one fewer.

Largest load (M/M/c) and largest population (closed networks)
--------------------------------------------------------------
The mean and the percentiles of the response grow with the arrival rate, so
the largest rate within a target is a root on (0, c mu), found by
bisection to 1e-12 relative, vectorised. In a closed network the response
R(N) grows with the population N and R(N) >= N max_k(D_k / c_k) - Z
(asymptotic bound), so N <= (T + Z) / max_k(D_k / c_k): one MVA recursion up
to that bound gives every R(N), and the answer is the last N within the
target (a percentile target is searched by bisection on N with the
approximation of :mod:`iosizer.model.percentiles`). A target below the bare
demand sum D (the response of one job alone) is unreachable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Callable, Sequence

import numpy as np

from iosizer.errors import InputError
from iosizer.model._roots import bisect_increasing
from iosizer.model._validate import as_positive, as_server_count, scalar_or_array

__all__ = [
    "LoadSizing",
    "PopulationSizing",
    "ServerSizing",
    "largest_arrival_rate",
    "largest_population",
    "size_load",
    "size_servers",
    "smallest_integer",
    "smallest_servers",
]

#: The largest server count searched (as the M/M/c family's own bound).
MAX_SERVERS = 10_000_000
#: Largest population a closed-network sizing evaluates.
MAX_POPULATION = 1_000_000


class UnreachableTargetError(InputError):
    """No configuration meets the target (a response below the service time itself)."""


# --- the targets, evaluated exactly ---------------------------------------------------------


def _target_kind(target_response_s: object, percentile: float | None, target_wait_probability: object) -> str:
    if (target_response_s is None) == (target_wait_probability is None):
        raise InputError("give one target: --target-response-s or --target-wait-probability")
    if target_wait_probability is not None:
        if percentile is not None:
            raise InputError("--percentile goes with --target-response-s, not --target-wait-probability")
        return "wait"
    if percentile is not None:
        from iosizer.model.percentiles import PERCENTILE

        PERCENTILE.check(percentile, "--percentile")
    return "mean" if percentile is None else "percentile"


def _mean_response(lam: np.ndarray, mu: np.ndarray, c: np.ndarray) -> np.ndarray:
    """W = 1/mu + C / (c mu - lambda), in the same expressions as queueing.mmc."""
    from iosizer.model.open_queues import _erlang_c_stable

    with np.errstate(over="ignore", under="ignore"):
        p_wait = np.asarray(_erlang_c_stable(c, lam / mu), dtype=np.float64)
    mean_wait = p_wait / (c * mu - lam)
    return mean_wait + 1.0 / mu


def _meets(kind: str, lam: np.ndarray, mu: np.ndarray, c: np.ndarray, target: np.ndarray,
           log_tail: np.ndarray | None) -> np.ndarray:
    """Whether c servers meet the target; c must be stable (c > lambda / mu)."""
    from iosizer.model.open_queues import _erlang_c_stable

    if kind == "mean":
        return _mean_response(lam, mu, c) <= target
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        p_wait = np.asarray(_erlang_c_stable(c, lam / mu), dtype=np.float64)
    return _meets_given_c(kind, lam, mu, c, target, log_tail, p_wait)


def _meets_given_c(kind: str, lam: np.ndarray, mu: np.ndarray, c: np.ndarray, target: np.ndarray,
                   log_tail: np.ndarray | None, p_wait: np.ndarray) -> np.ndarray:
    from iosizer.model.percentiles import _mmc_log_survival

    if kind == "mean":
        return p_wait / (c * mu - lam) + 1.0 / mu <= target
    if kind == "wait":
        return p_wait <= target
    with np.errstate(divide="ignore"):
        return _mmc_log_survival(mu * target, (c * mu - lam) / mu, np.log(p_wait)) <= log_tail


def _meets_pair(kind: str, lam: np.ndarray, mu: np.ndarray, n: np.ndarray, target: np.ndarray,
                log_tail: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Whether n and n - 1 servers meet the target, from one Erlang B evaluation.

    B(n - 1) by the incomplete gamma function (:func:`iosizer.model.queueing.erlang_b`),
    B(n) by one step of the stable forward recurrence B(n) = a B(n-1) / (n + a B(n-1));
    C = B / (1 - rho (1 - B)). n - 1 counts that are not stable do not meet any target.
    """
    from iosizer.model.queueing import erlang_b

    a = lam / mu
    below = n - 1.0
    blocking_below = np.ones(n.shape)
    some = below >= 1
    with np.errstate(over="ignore", under="ignore"):
        if some.any():
            blocking_below[some] = np.asarray(erlang_b(below[some], a[some]), dtype=np.float64)
        blocking = a * blocking_below / (n + a * blocking_below)
        ok_n = _meets_given_c(kind, lam, mu, n, target, log_tail, blocking / (1.0 - a / n * (1.0 - blocking)))
        stable = below > a
        ok_below = np.zeros(n.shape, dtype=bool)
        if stable.any():
            b, c = blocking_below[stable], below[stable]
            p_wait = b / (1.0 - a[stable] / c * (1.0 - b))
            ok_below[stable] = _meets_given_c(kind, lam[stable], mu[stable], c, target[stable],
                                              None if log_tail is None else log_tail[stable], p_wait)
    return ok_n, ok_below


# --- the Halfin-Whitt estimate ----------------------------------------------------------------


def _log_erlang_c_hw(beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ln C ~ -ln(1 + beta Phi / phi) and its derivative in beta (Halfin-Whitt)."""
    from scipy.special import log_ndtr

    log_ratio = log_ndtr(beta) + 0.5 * beta * beta + 0.5 * math.log(2 * math.pi)  # ln(Phi / phi)
    ratio = np.exp(log_ratio)
    denominator = 1.0 + beta * ratio
    # d/dbeta (Phi/phi) = 1 + beta Phi/phi
    slope = -(ratio + beta * denominator) / denominator
    return -np.log(denominator), slope


_BETA_GRID = np.concatenate([np.geomspace(1e-8, 0.1, 200)[:-1], np.linspace(0.1, 37.0, 4000)])


def _hw_table() -> tuple[np.ndarray, np.ndarray]:
    """ln C_HW(beta) and ln(C_HW(beta) / beta) on a grid: both fall with beta, so np.interp inverts them."""
    log_c, _ = _log_erlang_c_hw(_BETA_GRID)
    return log_c, log_c - np.log(_BETA_GRID)


def _hw_servers(a: np.ndarray, kind: str, target: np.ndarray, mu: np.ndarray,
                log_tail: np.ndarray | None) -> np.ndarray:
    """Square-root staffing estimate a + beta sqrt(a) for each row (not exact: a start).

    Every target is one-dimensional in beta and inverted from a table:
    mean response: C / (beta sqrt(a)) = T mu - 1; P(wait): C = target;
    percentile: with r = c - a, the M/M/c survival is
    exp(-x) [1 + C (1 - exp(-(r - 1) x)) / (r - 1)] at x = mu T, so for a
    tail target (1 - exp(-(r - 1) x) ~ 1) C / (r - 1) = exp(x + ln(1 - q)) - 1:
    the mean's equation with r - 1 = beta sqrt(a), i.e. c = a + 1 + beta sqrt(a).
    """
    root = np.sqrt(a)
    log_c, log_c_per_beta = _hw_table()
    if kind == "wait":
        beta = np.interp(-np.log(target), -log_c, _BETA_GRID)
        return a + beta * root
    if kind == "mean":
        excess, shift = target * mu - 1.0, 0.0
    else:
        excess, shift = np.expm1(np.maximum(target * mu + log_tail, 1e-300)), 1.0
    level = np.log(np.maximum(excess, 1e-300) * root)  # C / (beta sqrt(a)) = excess
    beta = np.interp(-level, -log_c_per_beta, _BETA_GRID)
    return a + shift + beta * root


# --- an integer search over rows ---------------------------------------------------------------


def _smallest_feasible(meets: Callable[[np.ndarray, np.ndarray], np.ndarray], lowest: np.ndarray,
                       guess: np.ndarray, cap: float,
                       first: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None) -> np.ndarray:
    """Smallest whole n >= lowest with meets(rows, n), meets monotone in n; 0 where none up to ``cap``.

    Evaluates the guess and one fewer on every row (``first(n)`` does both
    at once where given), then gallops up (steps 1, 2, 4, ...) and bisects
    only on the rows the guess did not settle.
    """
    n = np.clip(np.ceil(guess), lowest, cap)
    below = n - 1
    has_below = below >= lowest
    if first is not None:
        ok_n, ok_below = first(n)
        ok_below &= has_below
    else:
        rows = np.arange(n.size)
        verdict = meets(np.concatenate([rows, rows[has_below]]), np.concatenate([n, below[has_below]]))
        ok_n = verdict[: n.size]
        ok_below = np.zeros(n.size, dtype=bool)
        ok_below[has_below] = verdict[n.size:]
    lo = np.where(ok_n, np.where(has_below & ~ok_below, below, lowest - 1), n)  # largest known failure
    hi = np.where(ok_n, np.where(ok_below, below, n), np.inf)                  # smallest known success
    step = np.ones(n.size)
    active = np.flatnonzero(hi - lo > 1)
    while active.size:
        l, h = lo[active], hi[active]
        unknown = ~np.isfinite(h)
        probe = np.where(unknown, np.minimum(l + step[active], cap), np.floor(0.5 * (l + h)))
        good = meets(active, probe)
        hi[active] = np.where(good, probe, h)
        lo[active] = np.where(good, l, probe)
        step[active] *= 2.0
        capped = unknown & ~good & (probe >= cap)
        hi[active[capped]] = 0.0
        lo[active[capped]] = -1.0
        active = active[(hi[active] - lo[active] > 1) & np.isfinite(lo[active])]
    return hi


def smallest_integer(meets: Callable[[int], bool], lowest: int, highest: int) -> int | None:
    """Smallest whole n in [lowest, highest] with meets(n), for a predicate monotone in n
    (False ... False True ... True); None when even ``highest`` fails. Galloping then bisection:
    about 2 log2(answer - lowest) evaluations, each one solve of the model."""
    if meets(lowest):
        return lowest
    lo, step = lowest, 1
    while True:
        probe = min(lo + step, highest)
        if meets(probe):
            hi = probe
            break
        if probe >= highest:
            return None
        lo, step = probe, step * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if meets(mid) else (mid, hi)
    return hi


# --- smallest servers ---------------------------------------------------------------------------


def _inputs(arrival_rate: object, service_rate: object, target_response_s: object, percentile: float | None,
            target_wait_probability: object) -> tuple[str, tuple[int, ...], np.ndarray, np.ndarray, np.ndarray,
                                                     np.ndarray | None]:
    kind = _target_kind(target_response_s, percentile, target_wait_probability)
    lam = as_positive("arrival_rate", arrival_rate)
    mu = as_positive("service_rate", service_rate)
    if kind == "wait":
        target = as_positive("target_wait_probability", target_wait_probability)
        if np.any(target > 1):
            raise InputError(f"target wait probability must lie in (0, 1], got {float(target.max()):g}")
    else:
        target = as_positive("target_response_s", target_response_s)
    lam, mu, target = np.broadcast_arrays(lam, mu, target)
    shape = lam.shape
    log_tail = None
    if kind == "percentile":
        from iosizer.model.percentiles import parse_percentiles

        q = parse_percentiles([percentile])[0] / 100.0
        log_tail = np.full(lam.size, math.log1p(-q))
    return kind, shape, lam.ravel().astype(np.float64), mu.ravel().astype(np.float64), \
        target.ravel().astype(np.float64), log_tail


def _unreachable(kind: str, mu: np.ndarray, target: np.ndarray, log_tail: np.ndarray | None) -> np.ndarray:
    """Rows whose target no server count can meet: at or below the service time (or its percentile)."""
    if kind == "mean":
        return target * mu <= 1.0
    if kind == "percentile":
        return target * mu <= -log_tail
    return np.zeros(target.shape, dtype=bool)


def smallest_servers(arrival_rate: object, service_rate: object, target_response_s: object = None,
                     percentile: float | None = None, target_wait_probability: object = None,
                     strict: bool = True) -> int | np.ndarray:
    """Smallest M/M/c server count meeting a target, vectorised over (lambda, mu, T) rows.

    Targets (give one): ``target_response_s`` on the mean response, or on
    its ``percentile`` (e.g. 99) when given; ``target_wait_probability`` on
    Erlang C. ``strict``: an unreachable row raises
    :class:`UnreachableTargetError` (one line, naming the row); otherwise it
    gets 0. Times in the unit of 1 / rate.
    """
    kind, shape, lam, mu, target, log_tail = _inputs(arrival_rate, service_rate, target_response_s,
                                                     percentile, target_wait_probability)
    a = lam / mu
    lowest = np.floor(a) + 1.0
    dead = _unreachable(kind, mu, target, log_tail)
    if dead.any() and strict:
        i = int(np.flatnonzero(dead)[0])
        raise UnreachableTargetError(_unreachable_message(kind, mu[i], target[i], percentile, i, lam.size))
    if np.any(lowest > MAX_SERVERS):
        raise InputError(f"offered load {float(a.max()):g} needs more than {MAX_SERVERS:,} servers")
    servers = np.zeros(lam.size)
    live = np.flatnonzero(~dead)
    if live.size:
        l, m, t = lam[live], mu[live], target[live]
        tail = None if log_tail is None else log_tail[live]
        guess = _hw_servers(a[live], kind, t, m, tail)

        def meets(rows: np.ndarray, n: np.ndarray) -> np.ndarray:
            return _meets(kind, l[rows], m[rows], n, t[rows], None if tail is None else tail[rows])

        def first(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return _meets_pair(kind, l, m, n, t, tail)

        found = _smallest_feasible(meets, lowest[live], guess, MAX_SERVERS, first)
        if strict and np.any(found == 0):
            i = int(live[np.flatnonzero(found == 0)[0]])
            raise UnreachableTargetError(f"no server count up to {MAX_SERVERS:,} meets the target (row {i})")
        servers[live] = found
    counts = servers.astype(np.int64).reshape(shape)
    return int(counts) if counts.ndim == 0 else counts


def _unreachable_message(kind: str, mu: float, target: float, percentile: float | None, row: int,
                         rows: int) -> str:
    where = f" (row {row})" if rows > 1 else ""
    if kind == "mean":
        return (f"target response {target:.6g} is unreachable: it is at or below the service time "
                f"1/mu = {1 / mu:.6g}, which no number of servers shortens{where}")
    floor = -math.log1p(-percentile / 100.0) / mu
    return (f"target p{percentile:g} response {target:.6g} is unreachable: the service time alone has "
            f"p{percentile:g} = {floor:.6g}, which no number of servers shortens{where}")


@dataclass(frozen=True)
class ServerSizing:
    """The smallest server count and the response (or wait probability) it gives, and one fewer gives.

    ``achieved`` is the targeted measure at ``servers`` (mean response,
    its percentile, or P(wait)); ``achieved_one_fewer`` at ``servers - 1``
    (inf where one fewer is unstable). ``utilization`` is at ``servers``.
    """

    servers: int | np.ndarray
    measure: str
    target: float | np.ndarray
    achieved: float | np.ndarray
    achieved_one_fewer: float | np.ndarray
    utilization: float | np.ndarray
    minimum_stable_servers: int | np.ndarray

    def to_dict(self) -> dict[str, Any]:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.tolist() if isinstance(value, np.ndarray) else value
        return out


def _measure(kind: str, percentile: float | None, lam: np.ndarray, mu: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The targeted measure at c servers (inf where c is not stable)."""
    from iosizer.model.percentiles import mmc_response_quantile
    from iosizer.model.open_queues import _erlang_c_stable

    stable = c > lam / mu
    out = np.full(np.shape(c), np.inf)
    if stable.any():
        l, m, n = lam[stable], mu[stable], c[stable]
        if kind == "mean":
            out[stable] = _mean_response(l, m, n)
        elif kind == "percentile":
            out[stable] = np.asarray(mmc_response_quantile(l, m, n, percentile))
        else:
            out[stable] = np.asarray(_erlang_c_stable(n, l / m))
    return out


def size_servers(arrival_rate: object, service_rate: object, target_response_s: object = None,
                 percentile: float | None = None, target_wait_probability: object = None) -> ServerSizing:
    """:func:`smallest_servers` with the targeted measure at the answer and at one fewer."""
    kind = _target_kind(target_response_s, percentile, target_wait_probability)
    servers = np.asarray(smallest_servers(arrival_rate, service_rate, target_response_s, percentile,
                                          target_wait_probability))
    lam, mu, target = np.broadcast_arrays(
        as_positive("arrival_rate", arrival_rate), as_positive("service_rate", service_rate),
        np.asarray(target_wait_probability if kind == "wait" else target_response_s, dtype=np.float64))
    c = servers.astype(np.float64)
    achieved = _measure(kind, percentile, lam.ravel(), mu.ravel(), c.ravel()).reshape(c.shape)
    fewer = _measure(kind, percentile, lam.ravel(), mu.ravel(), c.ravel() - 1).reshape(c.shape)
    measure = {"mean": "mean_response", "wait": "p_wait"}.get(kind) or _percentile_name(percentile)
    scalar = servers.ndim == 0
    pick = (lambda v: int(v)) if scalar else (lambda v: v)
    return ServerSizing(
        servers=pick(servers),
        measure=measure,
        target=scalar_or_array(np.asarray(target, dtype=np.float64)),
        achieved=scalar_or_array(achieved),
        achieved_one_fewer=scalar_or_array(fewer),
        utilization=scalar_or_array(lam / (mu * c)),
        minimum_stable_servers=pick((np.floor(lam / mu) + 1).astype(np.int64)),
    )


def _percentile_name(percentile: float | None) -> str:
    from iosizer.model.percentiles import percentile_key

    return f"response_{percentile_key(percentile)}"


# --- largest load, M/M/c ----------------------------------------------------------------------------


def largest_arrival_rate(service_rate: object, servers: object, target_response_s: object = None,
                         percentile: float | None = None,
                         target_wait_probability: object = None) -> float | np.ndarray:
    """Largest lambda an M/M/c queue sustains within a target (the inverse of :func:`smallest_servers`).

    The targeted measure grows with lambda on (0, c mu); bisection to 1e-12
    relative. A response target at or below the service time (or its
    percentile) is unreachable.
    """
    kind = _target_kind(target_response_s, percentile, target_wait_probability)
    mu = as_positive("service_rate", service_rate)
    c = as_server_count("servers", servers)
    raw = target_wait_probability if kind == "wait" else target_response_s
    target = as_positive("target", raw)
    mu, c, target = (v.ravel() for v in np.broadcast_arrays(mu, c, target))
    shape = np.broadcast_shapes(np.shape(service_rate), np.shape(servers), np.shape(raw))
    log_tail = None if kind != "percentile" else np.full(mu.size, math.log1p(-percentile / 100.0))
    dead = _unreachable(kind, mu, target, log_tail)
    if dead.any():
        i = int(np.flatnonzero(dead)[0])
        raise UnreachableTargetError(_unreachable_message(kind, mu[i], target[i], percentile, i, mu.size))
    capacity = c * mu

    def excess(lam: np.ndarray) -> np.ndarray:
        measured = _measure(kind, percentile, lam, mu, c)
        return np.where(np.isfinite(measured), measured - target, np.inf)

    rate = bisect_increasing(excess, np.zeros(mu.size), capacity)
    return scalar_or_array(rate.reshape(shape))


@dataclass(frozen=True)
class LoadSizing:
    """Largest arrival rate within a target and the state there (M/M/c)."""

    arrival_rate: float
    servers: int
    service_rate: float
    measure: str
    target: float
    achieved: float
    utilization: float

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def size_load(service_rate: float, servers: int, target_response_s: float | None = None,
              percentile: float | None = None, target_wait_probability: float | None = None) -> LoadSizing:
    """:func:`largest_arrival_rate` for one configuration, with the measure it reaches there."""
    kind = _target_kind(target_response_s, percentile, target_wait_probability)
    rate = float(largest_arrival_rate(service_rate, servers, target_response_s, percentile,
                                      target_wait_probability))
    achieved = float(_measure(kind, percentile, np.array([rate]), np.array([float(service_rate)]),
                              np.array([float(servers)]))[0])
    measure = {"mean": "mean_response", "wait": "p_wait"}.get(kind) or _percentile_name(percentile)
    target = target_wait_probability if kind == "wait" else target_response_s
    return LoadSizing(rate, int(servers), float(service_rate), measure, float(target), achieved,
                      rate / (servers * service_rate))


# --- largest population, closed networks ----------------------------------------------------------


@dataclass(frozen=True)
class PopulationSizing:
    """Largest population of a closed network within a response target, and its throughput there."""

    population: int
    throughput: float
    response_time: float
    measure: str
    target: float
    next_response_time: float
    throughput_upper_bound: float

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def largest_population(demands: Sequence[float], think_time: float, target_response_s: float,
                       servers: Sequence[float] | None = None, percentile: float | None = None) -> PopulationSizing:
    """Largest N with response R(N) (or its percentile) <= target; X(N) is the throughput it carries.

    R(N) is non-decreasing in N and R(N) >= N max_k(D_k / c_k) - Z, so one
    MVA recursion up to (T + Z) / max_k(D_k / c_k) + 1 holds the answer. A
    target below R(1) = sum_k D_k is unreachable.
    """
    from iosizer.model.mva import asymptotic_bounds, mva
    from iosizer.model.percentiles import closed_network_percentiles

    target = float(as_positive("target_response_s", target_response_s))
    d = np.atleast_1d(as_positive("demands", demands))
    counts = np.ones_like(d) if servers is None else np.asarray(servers, dtype=np.float64)
    per_server = np.where(np.isinf(counts), 0.0, d / np.where(np.isinf(counts), 1.0, counts))
    bottleneck = float(per_server.max())
    top = MAX_POPULATION if bottleneck == 0 else int(min((target + think_time) / bottleneck + 2, MAX_POPULATION))
    curve = mva(d, think_time, max(top, 1), None if servers is None else counts).curve
    responses = np.asarray(curve.response_time)
    measure = "response_time"
    if percentile is None:
        within = np.flatnonzero(responses <= target * (1 + 1e-12))
        best = int(within[-1]) + 1 if within.size else 0
        achieved = responses
    else:
        measure = _percentile_name(percentile)
        key = measure

        def meets(n: int) -> bool:
            return closed_network_percentiles(d, think_time, n, [percentile], servers).response[key] <= target

        worst = smallest_integer(lambda n: not meets(n), 1, top)
        best = (top if worst is None else worst - 1)
        achieved = None
    if best == 0:
        what = "mean response" if percentile is None else f"p{percentile:g} response"
        raise UnreachableTargetError(
            f"target {what} {target:.6g} is unreachable: one job alone takes {float(responses[0]):.6g} "
            f"(the demands' sum {float(d.sum()):.6g} for the mean)")
    if best >= MAX_POPULATION:
        raise InputError(f"the target allows more than {MAX_POPULATION:,} jobs: the network never saturates it")
    bound = asymptotic_bounds(d, think_time, best, None if servers is None else counts)
    value = float(responses[best - 1]) if achieved is not None else float(
        closed_network_percentiles(d, think_time, best, [percentile], servers).response[measure])
    following = (float(responses[best]) if achieved is not None and best < responses.size else
                 float(closed_network_percentiles(d, think_time, best + 1, [percentile], servers).response[measure])
                 if achieved is None else math.inf)
    return PopulationSizing(best, float(curve.throughput[best - 1]), value, measure, target, following,
                            float(bound.throughput_upper))
