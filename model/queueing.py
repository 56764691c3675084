"""Open queues in steady state: M/M/1, M/M/c, M/G/1, M/D/1 and G/G/c.

Physical picture: requests arrive at a station (an HBA core, a controller
port, a root-complex unit) at ``arrival_rate`` per unit time and are served by
``servers`` identical servers, each completing ``service_rate`` requests per
unit time when busy. Times come back in the unit of ``1 / rate``: give rates
per second and the times are seconds.

Formulas (Kleinrock, *Queueing Systems* vol. 1; Allen, *Probability,
Statistics and Queueing Theory*), with offered load a = lambda/mu and
utilisation rho = a/c:

- Erlang B (loss): B(c, a) = (a^c / c!) / sum_{k=0..c} a^k / k!
  = Poisson pmf(c; a) / Poisson cdf(c; a); the cdf is the regularised upper
  incomplete gamma function Q(c + 1, a), so no factorial or power is formed
  and the result stays exact and finite for c in the millions.
- Erlang C (wait): C(c, a) = B / (1 - rho (1 - B)).
- M/M/c: Wq = C / (c mu - lambda), W = Wq + 1/mu.
- M/G/1 (Pollaczek-Khinchine): Wq = rho (1 + cs^2) / (2 mu (1 - rho)),
  cs^2 the squared coefficient of variation of the service time; M/D/1 is
  cs^2 = 0, M/M/1 is cs^2 = 1.
- G/G/c (Allen-Cunneen approximation): Wq = C(c, a) / (c mu - lambda)
  x (ca^2 + cs^2) / 2; exact for M/M/c, an approximation otherwise (its
  error against simulation: :func:`ggc`).

Little's law then gives Lq = lambda Wq and L = lambda W. Every function
broadcasts over its inputs (numpy rules) and returns Python floats when all
inputs are scalars.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields, replace
from typing import Callable

import numpy as np

from iosizer.errors import ConsistencyError, InputError, UnstableQueueError
from iosizer.model.family import (SIMULATED_SCV, Column, CpuScaling, Family, FitPlan, Input, Output, ParameterSpec,
                                  Plot, Question, Role, Schema, SimulateOption, Simulation, Sizing)
from iosizer.model._validate import (
    as_declared,
    as_positive,
    as_server_count,
    scalar_or_array,
)

#: Variability of an open queue's inter-arrival or service times (M/G/1, G/G/c), declared once:
#: the queue commands, the percentiles and ``iosizer simulate`` check against it.
SCV = ParameterSpec(
    "scv", "1", 1.0, (0.0, 100.0), "assumed",
    "1 is exponential (Poisson arrivals, M/M/c service), 0 constant; measured I/O service times have cv^2 "
    "from near 0 (a fixed transfer) to a few (a mix of cache hits and seeks). Both mean-value formulas grow "
    "linearly in cv^2, so a value past 100 (a standard deviation ten times the mean) only scales the wait "
    "by a number no measurement supports: it is a typo, refused",
    "squared coefficient of variation (variance / mean^2) of inter-arrival or service times")

#: Relative tolerance of the self-check; results are computed in float64.
_SELF_CHECK_RTOL = 1e-9
#: Below this the Poisson cdf is no longer a safe divisor (subnormal range).
_CDF_FLOOR = 1e-290

__all__ = [
    "SCV",
    "QueueResult",
    "erlang_b",
    "erlang_c",
    "ggc",
    "md1",
    "mg1",
    "mm1",
    "mmc",
]


def _handles_overflow(function: Callable) -> Callable:
    """Overflow to inf and underflow to 0 are meaningful here (an infinite
    capacity waits 0; a vanishing load blocks 0) and every answer is checked
    for finiteness, so numpy's warnings about them are noise."""

    @functools.wraps(function)
    def quiet(*args: object, **kwargs: object) -> object:
        with np.errstate(over="ignore", under="ignore"):
            return function(*args, **kwargs)

    return quiet


@dataclass(frozen=True)
class QueueResult:
    """Steady-state measures of an open queue.

    Attribute names are the CLI's JSON keys. Times are in the unit of
    ``1 / rate``; ``utilization`` is per server; ``p_wait`` is the probability
    an arrival waits (exact for M/M/c, the Erlang C approximation for G/G/c).
    """

    utilization: float | np.ndarray
    p_wait: float | np.ndarray
    mean_wait: float | np.ndarray
    mean_response: float | np.ndarray
    mean_queue_length: float | np.ndarray
    mean_in_system: float | np.ndarray

    def to_dict(self) -> dict[str, float | list]:
        """Plain, JSON-ready values (lists for arrays)."""
        return {
            f.name: (v.tolist() if isinstance(v, np.ndarray) else v)
            for f in fields(self)
            for v in [getattr(self, f.name)]
        }


def _stirling_remainder(k: np.ndarray) -> np.ndarray:
    """log(k!) - (k log k - k + log(2 pi k) / 2), without cancellation.

    Asymptotic series (Abramowitz & Stegun 6.1.41) for k >= 15, where its
    truncation error is below 1e-17; direct difference below that, where the
    terms are small enough not to cancel.
    """
    from scipy.special import gammaln

    large = k >= 15
    kk = np.where(large, k, 15.0)
    inv2 = 1.0 / (kk * kk)
    series = (1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260 - inv2 / 1680))) / kk
    small_k = np.where(large, 1.0, k)
    direct = gammaln(small_k + 1.0) - (
        small_k * np.log(small_k) - small_k + 0.5 * np.log(2 * np.pi * small_k)
    )
    return np.where(large, series, direct)


def _one_plus_x_log_one_plus_x_minus_x(x: np.ndarray) -> np.ndarray:
    """(1 + x) log(1 + x) - x for x > -1, accurate near x = 0.

    Near 0 both terms are close and cancel; there the series
    sum_{n>=2} (-1)^n x^n / (n (n - 1)) converges fast (|x| <= 0.1: 18 terms
    reach 1e-20).
    """
    near = np.abs(x) <= 0.1
    xs = np.where(near, x, 0.0)
    series = np.zeros_like(xs)
    for n in range(19, 1, -1):  # Horner, innermost term first
        series = xs * ((-1.0) ** n / (n * (n - 1)) + series)
    series = xs * series
    xd = np.where(near, 0.0, x)
    direct = (1.0 + xd) * np.log1p(xd) - xd
    return np.where(near, series, direct)


def _log_poisson_pmf(k: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """log(mean^k e^-mean / k!) for k >= 1.

    Near the mean (mean >= k/2) in Loader's deviance form,
    log pmf = -log(2 pi k) / 2 - stirling_remainder(k) - mean f(k/mean - 1)
    with f(x) = (1 + x) log(1 + x) - x: the O(k)-sized terms of the naive
    k log(mean) - mean - log(k!) cancel analytically, so a million servers
    keep full precision (C. Loader, "Fast and accurate computation of
    binomial probabilities", 2000). Far below it (a light load on many
    servers) the naive form has no cancellation and, unlike k/mean, cannot
    overflow.
    """
    from scipy.special import gammaln, xlogy

    near = mean >= 0.5 * k
    safe_mean = np.where(near, mean, k)
    deviance = safe_mean * _one_plus_x_log_one_plus_x_minus_x(k / safe_mean - 1.0)
    loader = -0.5 * np.log(2 * np.pi * k) - _stirling_remainder(k) - deviance
    naive = xlogy(k, mean) - mean - gammaln(k + 1.0)
    return np.where(near, loader, naive)


def _overload_erlang_b(servers: np.ndarray, offered_load: np.ndarray) -> np.ndarray:
    """Erlang B where a >> c and Q(c + 1, a) underflows.

    1/B = sum_{j=0..c} c! / ((c-j)! a^j): the terms shrink at least as fast
    as (c/a)^j, so summing until they vanish is exact to rounding and short
    in exactly the regime where the incomplete gamma underflows.
    """
    inverse = np.ones_like(offered_load)
    term = np.ones_like(offered_load)
    j = 0
    while True:
        term = term * np.maximum(servers - j, 0.0) / offered_load
        inverse += term
        j += 1
        if not np.any(term > 1e-17 * inverse):
            return 1.0 / inverse


#: Up to this many servers (the same for every point) Erlang B is the classic
#: recursion: c vector steps beat one incomplete-gamma pass by 10-50x.
_RECURSION_MAX_SERVERS = 64


def _erlang_b_recursion(servers: int, offered_load: np.ndarray) -> np.ndarray:
    """B(k) = a B(k-1) / (k + a B(k-1)), B(0) = 1: every step is a ratio of
    positive terms, so it is stable and exact to rounding (Jagerman 1974)."""
    blocking = np.ones_like(offered_load, dtype=np.float64)
    for k in range(1, servers + 1):
        carried = offered_load * blocking
        blocking = carried / (k + carried)
    return blocking


@_handles_overflow
def erlang_b(servers: object, offered_load: object) -> float | np.ndarray:
    """Erlang B blocking probability of an M/M/c/c loss system.

    ``servers`` is a whole number >= 1, ``offered_load`` = lambda/mu in
    erlangs (> 0). Overload (a > c) is allowed: a loss system is always
    stable.
    """
    c = as_server_count("servers", servers)
    a = as_positive("offered_load", offered_load)
    c, a = np.broadcast_arrays(c, a)
    if c.size and c.flat[0] <= _RECURSION_MAX_SERVERS and np.all(c == c.flat[0]):
        return scalar_or_array(_erlang_b_recursion(int(c.flat[0]), a))
    # Imported here, not above: scipy.special costs ~0.2 s of a CLI answer's start-up,
    # and the recursion above (the usual few-server case) needs none of it.
    from scipy.special import gammaincc

    with np.errstate(all="ignore"):  # underflow to 0 is the right answer for tiny loads
        cdf = gammaincc(c + 1.0, a)
        safe = cdf > _CDF_FLOOR
        blocking = np.empty(np.shape(a))
        blocking[safe] = np.exp(_log_poisson_pmf(c[safe], a[safe]) - np.log(cdf[safe]))
        if not safe.all():
            blocking[~safe] = _overload_erlang_b(c[~safe], a[~safe])
    return scalar_or_array(np.clip(blocking, 0.0, 1.0))


def _erlang_c_stable(c: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Erlang C for already validated, stable inputs (a < c)."""
    blocking = np.asarray(erlang_b(c, a), dtype=np.float64)
    rho = a / c
    return blocking / (1.0 - rho * (1.0 - blocking))


def _spare(lam: np.ndarray, mu: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Spare capacity c mu - lambda, as mu (c - lambda / mu): c mu alone overflows for rates near 1e308."""
    return mu * (c - lam / mu)


def _check_stable(utilization: np.ndarray, where: str) -> None:
    unstable = utilization >= 1.0
    if unstable.any():
        raise UnstableQueueError(float(utilization[unstable].flat[0]), where)


@_handles_overflow
def erlang_c(servers: object, offered_load: object) -> float | np.ndarray:
    """Erlang C: probability an arrival to an M/M/c queue has to wait.

    Requires a stable queue, offered_load < servers; raises
    :class:`UnstableQueueError` otherwise.
    """
    c = as_server_count("servers", servers)
    a = as_positive("offered_load", offered_load)
    c, a = np.broadcast_arrays(c, a)
    _check_stable(a / c, "M/M/c queue")
    return scalar_or_array(_erlang_c_stable(c, a))


def _require_finite(result: QueueResult, where: str) -> None:
    """An answer that overflows float64 comes from inputs out of range, not a bug."""
    for f in fields(result):
        values = np.asarray(getattr(result, f.name))
        if not np.all(np.isfinite(values)):
            raise InputError(
                f"{where}: {f.name} overflows double precision for these inputs "
                "(rates or variability far outside any physical range)"
            )


def _self_check(
    lam: np.ndarray,
    mu: np.ndarray,
    c: np.ndarray,
    result: QueueResult,
    where: str,
    variability: np.ndarray | float = 1.0,
) -> QueueResult:
    """Refuse to return a result that breaks a law every queue obeys.

    Checks: 0 <= rho < 1, 0 <= P(wait) <= 1, W >= 1/mu (the bound with no
    queueing), Wq <= K / (c mu - lambda) with K = (ca^2 + cs^2)/2 the
    variability factor (P(wait) <= 1 in the Erlang C and Allen-Cunneen
    forms), and L = Lq + lambda/mu (Little's law on the queue and on the
    servers). They catch a broken law or an escaped NaN; a wrong but lawful
    Erlang C is what the reference tests are for.
    """
    rho = np.asarray(result.utilization)
    p_wait = np.asarray(result.p_wait)
    w = np.asarray(result.mean_response)
    in_system = np.asarray(result.mean_in_system)
    busy_servers = lam / mu
    little_gap = np.abs(in_system - (np.asarray(result.mean_queue_length) + busy_servers))
    failures = {
        "utilization outside [0, 1)": (rho < 0) | (rho >= 1) | ~np.isfinite(rho),
        "P(wait) outside [0, 1]": (p_wait < 0) | (p_wait > 1 + _SELF_CHECK_RTOL)
        | ~np.isfinite(p_wait),
        "response below the service time": w < (1.0 / mu) * (1 - _SELF_CHECK_RTOL),
        "wait above its P(wait) = 1 bound": np.asarray(result.mean_wait)
        > variability / _spare(lam, mu, c) * (1 + _SELF_CHECK_RTOL),
        "Little's law L = lambda W broken": little_gap
        > _SELF_CHECK_RTOL * np.maximum(in_system, 1.0),
    }
    for what, bad in failures.items():
        if np.any(bad):
            index = np.argmax(np.broadcast_to(bad, np.shape(w)))
            raise ConsistencyError(
                f"{where} self-check failed: {what} at point {int(index)} "
                f"(lambda={np.broadcast_to(lam, np.shape(w)).flat[index]:.6g}, "
                f"mu={np.broadcast_to(mu, np.shape(w)).flat[index]:.6g}, "
                f"c={np.broadcast_to(c, np.shape(w)).flat[index]:.6g})"
            )
    return result


def _result(
    lam: np.ndarray,
    mu: np.ndarray,
    c: np.ndarray,
    p_wait: np.ndarray,
    mean_wait: np.ndarray,
    where: str,
    variability: np.ndarray | float = 1.0,
) -> QueueResult:
    rho = lam / mu / c  # not lam / (c mu): c mu overflows first (1e308 per server x 2 servers)
    mean_response = mean_wait + 1.0 / mu
    shape = np.broadcast_shapes(np.shape(rho), np.shape(p_wait), np.shape(mean_wait))
    out = [  # broadcast only where needed: np.broadcast_to is most of a one-point answer's time here
        v if np.shape(v) == shape else np.broadcast_to(v, shape)
        for v in (rho, p_wait, mean_wait, mean_response, lam * mean_wait, lam * mean_response)
    ]
    result = QueueResult(*(scalar_or_array(np.array(v)) for v in out))
    _require_finite(result, where)
    return _self_check(lam, mu, c, result, where, variability)


@_handles_overflow
def mmc(arrival_rate: object, service_rate: object, servers: object) -> QueueResult:
    """M/M/c queue: Poisson arrivals, exponential service, c servers, FCFS.

    ``arrival_rate`` lambda and ``service_rate`` mu (per server) in requests
    per unit time, > 0; ``servers`` a whole number >= 1 (up to 10^6 and
    beyond: Erlang C is evaluated through the incomplete gamma function).
    Raises :class:`UnstableQueueError` when lambda >= c mu.
    """
    lam = as_positive("arrival_rate", arrival_rate)
    mu = as_positive("service_rate", service_rate)
    c = as_server_count("servers", servers)
    lam, mu, c = np.broadcast_arrays(lam, mu, c)
    name = "M/M/1" if np.all(c == 1) else "M/M/c"
    _check_stable(lam / mu / c, f"{name} queue")
    p_wait = _erlang_c_stable(c, lam / mu)
    mean_wait = p_wait / _spare(lam, mu, c)
    return _result(lam, mu, c, p_wait, mean_wait, name)


def mm1(arrival_rate: object, service_rate: object) -> QueueResult:
    """M/M/1 queue: W = 1 / (mu - lambda), P(wait) = rho."""
    return mmc(arrival_rate, service_rate, 1)


@_handles_overflow
def mg1(arrival_rate: object, service_rate: object, service_scv: object) -> QueueResult:
    """M/G/1 queue by Pollaczek-Khinchine.

    ``service_scv`` is the squared coefficient of variation of the service
    time (variance / mean^2, >= 0): 0 deterministic, 1 exponential.
    Wq = rho (1 + scv) / (2 mu (1 - rho)); P(wait) = rho (PASTA).
    """
    lam = as_positive("arrival_rate", arrival_rate)
    mu = as_positive("service_rate", service_rate)
    scv = as_declared("service_scv", service_scv, SCV)
    lam, mu, scv = np.broadcast_arrays(lam, mu, scv)
    rho = lam / mu
    _check_stable(rho, "M/G/1 queue")
    with np.errstate(over="ignore", invalid="ignore"):
        mean_wait = rho * (1.0 + scv) / (2.0 * mu * (1.0 - rho))
    return _result(lam, mu, np.ones_like(rho), rho, mean_wait, "M/G/1", (1.0 + scv) / 2.0)


def md1(arrival_rate: object, service_rate: object) -> QueueResult:
    """M/D/1 queue: Pollaczek-Khinchine with deterministic service (scv 0)."""
    return mg1(arrival_rate, service_rate, 0.0)


@_handles_overflow
def ggc(
    arrival_rate: object,
    service_rate: object,
    servers: object,
    arrival_scv: object = 1.0,
    service_scv: object = 1.0,
) -> QueueResult:
    """G/G/c queue by the Allen-Cunneen approximation.

    Wq = C(c, a) / (c mu - lambda) x (ca^2 + cs^2) / 2, with ca^2 and cs^2
    the squared coefficients of variation of inter-arrival and service times.
    Exact for M/M/c (both 1); reported P(wait) is the Erlang C value.

    Measured error of the mean response W against simulation (FCFS
    Lindley / Kiefer-Wolfowitz recursions, gamma inter-arrival and service
    times, 8-10 replications of 4 x 10^5 to 10^6 customers, fixed seed; 95 %
    half-widths 0.1-1.5 %, up to 3 % at utilisation 0.9): exact with Poisson
    arrivals and one server (Pollaczek-Khinchine; ca^2 = 1, any cs^2); with
    ca^2 != 1 it errs most at light load, the sign of ca^2 - 1:

    - c = 1, ca^2 = 0.5 (cs^2 0.5-2): +8 % at utilisation 0.3-0.5, +6 % at
      0.7, +3 % at 0.9 (overstates);
    - c = 1, ca^2 = 2: -10 % at 0.5, -6 % at 0.7, -2 % at 0.9, -13 % at 0.3
      (understates); ca^2 = 4: -20 % at 0.5, -12 % at 0.7;
    - c = 2: ca^2 = 0.5 +4 to +6 % at 0.5, +1 to +4 % at 0.9; ca^2 = 2 -9 to
      -10 % at 0.5 (-9 % at 0.3), -2 to -3 % at 0.9;
    - c = 4 and 8 at 0.5-0.8: within 6 % (ca^2 = 2 under, 0.5 over);
      Poisson arrivals with constant service (c = 4, 8): within 1 %.

    The reported P(wait) (Erlang C) errs more (4 replications of 4 x 10^5
    customers, standard deviation below 0.002): at utilisation 0.5 one
    server waits 0.38 of the time with ca^2 = 0.5 and 0.64 with ca^2 = 2
    against 0.5 reported (+31 / -22 %), two servers 0.23 and 0.48 against
    0.33 (+45 / -30 %); G/G/4 at 0.7, ca^2 = 2: -22 %; at 0.9 one server
    within 4 %; Poisson arrivals with constant service (c = 4 at 0.7): +4 %.
    """
    lam = as_positive("arrival_rate", arrival_rate)
    mu = as_positive("service_rate", service_rate)
    c = as_server_count("servers", servers)
    ca2 = as_declared("arrival_scv", arrival_scv, SCV)
    cs2 = as_declared("service_scv", service_scv, SCV)
    lam, mu, c, ca2, cs2 = np.broadcast_arrays(lam, mu, c, ca2, cs2)
    _check_stable(lam / mu / c, "G/G/c queue")
    p_wait = _erlang_c_stable(c, lam / mu)
    with np.errstate(over="ignore", invalid="ignore"):
        mean_wait = p_wait / _spare(lam, mu, c) * (ca2 + cs2) / 2.0
    return _result(lam, mu, c, p_wait, mean_wait, "G/G/c", (ca2 + cs2) / 2.0)


# --- the M/M/c family declaration ---------------------------------------------

#: Largest server count the M/M/c family accepts: Erlang C is exact far
#: beyond it, but no I/O station has more (an input above is a typo).
MAX_SERVERS = 10_000_000


#: Rows per block of :func:`mmc_mean_response` and its gradient: a fit evaluates them on every row at
#: every step, and by blocks their temporaries stay in cache and cost a few blocks, not a few whole
#: columns (a million-row fit: tens of MB less at its peak).
_BLOCK_ROWS = 65_536


def _rows(arrival_rate: object, service_rate: object, servers: object) -> tuple[np.ndarray, ...]:
    """Validated lambda, mu, c broadcast together, flattened (views where they can be), and the shape."""
    lam = as_positive("arrival_rate", arrival_rate)
    mu = as_positive("service_rate", service_rate)
    c = as_server_count("servers", servers)
    shape = np.broadcast_shapes(lam.shape, mu.shape, c.shape)
    lam, mu, c = (np.broadcast_to(v, shape).reshape(-1) for v in (lam, mu, c))
    return lam, mu, c, shape


def _by_blocks(rows: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray], lam: np.ndarray,
               mu: np.ndarray, c: np.ndarray, shape: tuple[int, ...], what: str) -> float | np.ndarray:
    """``rows(lam, mu, c)`` block by block (it is elementwise), checked finite, in the inputs' shape."""
    _check_stable(lam / mu / c, "M/M/1 queue" if np.all(c == 1) else "M/M/c queue")
    out = np.empty(lam.size)
    for start in range(0, lam.size, _BLOCK_ROWS):
        block = slice(start, start + _BLOCK_ROWS)
        out[block] = rows(lam[block], mu[block], c[block])
    if not np.all(np.isfinite(out)):
        raise ConsistencyError(f"M/M/c {what} is not finite")
    return scalar_or_array(out.reshape(shape))


def _mean_response_rows(lam: np.ndarray, mu: np.ndarray, c: np.ndarray) -> np.ndarray:
    return _erlang_c_stable(c, lam / mu) / _spare(lam, mu, c) + 1.0 / mu


@_handles_overflow
def mmc_mean_response(arrival_rate: object, service_rate: object, servers: object) -> float | np.ndarray:
    """W = C(c, a) / (c mu - lambda) + 1 / mu of an M/M/c queue, and nothing else.

    The same validated formula as :func:`mmc` without its other measures and
    self-check arrays: a fit over a million points evaluates it dozens of
    times, and each extra measure is another array of that size. :func:`mmc`
    checks this very formula against Little's law on every call.
    """
    return _by_blocks(_mean_response_rows, *_rows(arrival_rate, service_rate, servers), "mean response")


def _gradient_rows(lam: np.ndarray, mu: np.ndarray, c: np.ndarray) -> np.ndarray:
    a = lam / mu
    rho = a / c
    blocking = np.asarray(erlang_b(c, a), dtype=np.float64)
    d_blocking = blocking * (c / a - 1.0 + blocking)
    denominator = 1.0 - rho * (1.0 - blocking)
    d_erlang = (d_blocking * (1.0 - rho) + blocking * (1.0 - blocking) / c) / denominator**2
    spare = _spare(lam, mu, c)
    return -(a / mu) * d_erlang / spare - c * (blocking / denominator) / spare**2 - 1.0 / mu**2


@_handles_overflow
def mmc_mean_response_gradient(arrival_rate: object, service_rate: object, servers: object) -> float | np.ndarray:
    """dW/dmu of :func:`mmc_mean_response` (s per unit of 1/s): the calibration's analytic Jacobian.

    With a = lambda/mu, rho = a/c and B the Erlang B of (c, a): dB/da = B (c/a - 1 + B) (from
    ln B = c ln a - ln c! - ln sum_k a^k/k!). Erlang C is C = B / D with D = 1 - rho (1 - B), so
    dC/da = (B' D - B D') / D^2 = (B' (1 - rho) + B (1 - B) / c) / D^2. W = C / (c mu - lambda) + 1/mu
    and da/dmu = -a/mu give dW/dmu = -(a/mu) C' / (c mu - lambda) - c C / (c mu - lambda)^2 - 1/mu^2.
    Exact for every c (no symbolic sum); tests/model/test_symbolic.py checks it against sympy's
    derivative for c up to 64 (1e-10 relative).
    """
    return _by_blocks(_gradient_rows, *_rows(arrival_rate, service_rate, servers), "mean response gradient")


def _mmc_solve(values, inputs):
    return {"mean_response_s": np.asarray(mmc_mean_response(
        inputs["arrival_rate_per_s"], values["service_rate_per_s"], values["servers"]), dtype=np.float64)}


def _mmc_tail(values, inputs, percentile):
    """Exact M/M/c response percentile (s) at each arrival rate."""
    from iosizer.model.percentiles import mmc_response_quantile

    return np.asarray(mmc_response_quantile(inputs["arrival_rate_per_s"], values["service_rate_per_s"],
                                            values["servers"], percentile), dtype=np.float64)


#: Every open-queue answer is in the unit of its rates.
QUEUE_NOTE = "Times are in the unit of 1/rate; utilization is per server."
#: How ``--percentile`` of an M/M/c queue is computed.
MMC_PERCENTILE_NOTE = "wait_pP/response_pP: exact M/M/c percentiles (Erlang C wait + exponential service)"


def _measures(result: QueueResult) -> dict[str, np.ndarray]:
    return {f.name: np.asarray(getattr(result, f.name), dtype=np.float64) for f in fields(result)}


def _queue_mmc(values, inputs):
    """``iosizer queue mmc``: every measure of :func:`mmc` at each arrival rate (unit of the rates); the servers
    an input where ``size servers`` searches them."""
    servers = inputs.get("servers", values["servers"])
    return _measures(mmc(inputs["arrival_rate"], values["service_rate_per_s"], servers))


def _queue_mmc_percentiles(values, inputs, percentiles):
    from iosizer.model.percentiles import mmc_percentiles

    servers = inputs.get("servers", values["servers"])
    return mmc_percentiles(inputs["arrival_rate"], values["service_rate_per_s"], servers, percentiles)


#: Inter-arrival and service variability of a G/G/c or M/G/1 question: :data:`SCV` under the options' names.
ARRIVAL_SCV = replace(SCV, name="arrival_scv", kind="setting",
                      description="squared coefficient of variation of inter-arrival time (1 Poisson)")
SERVICE_SCV = replace(SCV, name="service_scv", kind="setting",
                      description="squared coefficient of variation of service time (0 deterministic, 1 exponential)")

#: How ``--percentile`` of an M/D/1 queue (or an M/D/c one) is computed.
MD_PERCENTILE_NOTE = ("wait_pP/response_pP: exact M/D/c percentiles (Crommelin's distribution of the wait, "
                      "response = wait + the constant service; see iosizer.model.mdc)")
MG1_PERCENTILE_NOTE = (
    "wait_pP/response_pP: exact M/G/1 percentiles (Pollaczek-Khinchine transform of gamma service of this cv^2 "
    "inverted numerically, Abate-Whitt Euler: tail probabilities within 1e-7 relative for cv^2 >= 0.1, 2e-4 for "
    "cv^2 >= 0.01; constant service by Crommelin's M/D/1 distribution; see iosizer.model.transforms)")
GGC_PERCENTILE_NOTE = (
    "wait_pP/response_pP: approximation (exponential-tail wait with the model's P(wait) and mean, Whitt's QNA, "
    "+ gamma-fitted service); its response error against simulation is measured on a grid "
    "(iosizer/data/error_grids/ggc_percentiles.csv) and stated as response_pP_error_pct (the wait's as "
    "wait_pP_error_pct) where it exceeds 2 %")
#: Below this cv^2 (but above 0) the service density is a spike too narrow for Euler's 31 nodes.
NEAR_DETERMINISTIC_SCV = 0.01


def _queue_mm1(values, inputs):
    return _measures(mm1(inputs["arrival_rate"], values["service_rate_per_s"]))


def _queue_md1(values, inputs):
    return _measures(md1(inputs["arrival_rate"], values["service_rate_per_s"]))


def _queue_mg1(values, inputs):
    return _measures(mg1(inputs["arrival_rate"], values["service_rate_per_s"], values["service_scv"]))


def _queue_ggc(values, inputs):
    return _measures(ggc(inputs["arrival_rate"], values["service_rate_per_s"], values["servers"],
                         values["arrival_scv"], values["service_scv"]))


def _mm1_percentiles(values, inputs, percentiles):
    from iosizer.model.percentiles import mm1_percentiles

    return mm1_percentiles(inputs["arrival_rate"], values["service_rate_per_s"], percentiles)


def _md1_percentiles(values, inputs, percentiles):
    from iosizer.model.percentiles import md1_percentiles

    return md1_percentiles(inputs["arrival_rate"], values["service_rate_per_s"], percentiles)


def _mg1_percentiles(values, inputs, percentiles):
    from iosizer.model.percentiles import mg1_percentiles

    return mg1_percentiles(inputs["arrival_rate"], values["service_rate_per_s"], values["service_scv"], percentiles)


def ggc_is_exact(servers: int, arrival_scv: float, service_scv: float) -> bool:
    """Poisson arrivals with one server, constant or exponential service: an exact method answers."""
    return arrival_scv == 1.0 and (servers == 1 or service_scv in (0.0, 1.0))


def _ggc_percentiles(values, inputs, percentiles):
    """G/G/c percentiles, plus ``response_pP_error_pct`` and ``wait_pP_error_pct`` (the measured error of the
    approximation around the point, grid ``ggc_percentiles``) wherever that error exceeds :data:`ERROR_RULE_PCT`.
    Exact cases add nothing."""
    from iosizer.data.error_grids import ERROR_RULE_PCT, load
    from iosizer.model.percentiles import ggc_percentiles, percentile_approximation_error, percentile_key

    lam, mu = inputs["arrival_rate"], values["service_rate_per_s"]
    servers, arrival_scv, service_scv = values["servers"], values["arrival_scv"], values["service_scv"]
    out = dict(ggc_percentiles(lam, mu, servers, arrival_scv, service_scv, percentiles))
    if ggc_is_exact(servers, arrival_scv, service_scv):
        return out
    grid = load("ggc_percentiles")
    # The wait's columns: a cell whose simulated quantile is 0 has no relative error (nan: counted as 0).
    waits = {**grid, "error_pct": grid["wait_error_pct"], "half_width_pct": grid["wait_half_width_pct"]}
    rho = np.atleast_1d(np.asarray(lam, dtype=np.float64) / (float(mu) * servers))
    for p in percentiles:
        for kind, measured in (("wait", waits), ("response", grid)):
            error = np.array([percentile_approximation_error(measured, {
                "servers": servers, "arrival_scv": arrival_scv, "service_scv": service_scv, "utilization": r,
                "percentile": p}) for r in rho.reshape(-1)]).reshape(rho.shape)
            if np.any(np.abs(error) > ERROR_RULE_PCT):
                out[f"{kind}_{percentile_key(p)}_error_pct"] = error
    return out


def _tailed(note):
    """A note said when the answer carries percentiles (``note(values)``: the text)."""
    def said(values, outputs):
        return note(values) if any(k.startswith("wait_p") for k in outputs) else None
    return said


def _mg1_note(values):
    """The M/G/1 percentile note; a cv^2 in (0, 0.01) says the inversion is not exact there."""
    scv = values["service_scv"]
    if 0 < scv < NEAR_DETERMINISTIC_SCV:
        return MG1_PERCENTILE_NOTE + (
            f"; but cv^2 {scv:g} < {NEAR_DETERMINISTIC_SCV:g} is a near-constant service whose narrow density "
            "the inversion resolves only approximately: measured up to 2.6 % off at the response's 90th (cv^2 1e-6, "
            "utilisation 0.1); cv^2 0 (M/D/1) is exact")
    return MG1_PERCENTILE_NOTE


def _ggc_note(values):
    servers, service_scv = values["servers"], values["service_scv"]
    if not ggc_is_exact(servers, values["arrival_scv"], service_scv):
        return GGC_PERCENTILE_NOTE
    if servers == 1:
        return _mg1_note(values)
    return MD_PERCENTILE_NOTE if service_scv == 0 else MMC_PERCENTILE_NOTE


def _ggc_mean_note(values, outputs):
    """Allen-Cunneen's measured error where it is not exact (see :func:`ggc`)."""
    if values["arrival_scv"] == 1.0 and (values["servers"] == 1 or values["service_scv"] == 1.0):
        return None
    return ("mean_wait/mean_response: Allen-Cunneen, against simulation up to +8 % (ca^2 0.5) and -13 % "
            "(ca^2 2) at light load, within 3 % at utilization 0.9, -20 % with ca^2 4; Poisson arrivals with "
            "constant service within 1 %; p_wait is Erlang C's, 22-45 % off at utilization 0.5 when ca^2 is 0.5 "
            "or 2 (see iosizer.model.queueing.ggc)")


#: ``queue erlang --arrival-rate`` with a profile: the offered load is this over its service rate.
ERLANG_ARRIVAL_RATE = ParameterSpec(
    "arrival_rate", "1/s", None, (0.0, math.inf), "assumed", "the planner's load",
    "with --profile: arrivals per second (the offered load is this over the calibrated service rate)",
    kind="setting")


def _erlang_servers(values, given):
    """With a profile: its server count."""
    return values.get("servers")


def _erlang_load(values, given):
    """With a profile and ``--arrival-rate``: the arrival rate over the calibrated service rate."""
    if values.get("arrival_rate") is None:
        return None
    if values.get("service_rate_per_s") is None:
        raise InputError("--arrival-rate goes with --profile (which supplies the service rate); without one "
                         "give --offered-load (arrival rate / service rate)")
    return values["arrival_rate"] / values["service_rate_per_s"]


def _queue_erlang(values, inputs):
    """``iosizer queue erlang``: Erlang B at every point, Erlang C where the queue is stable (nan elsewhere)."""
    servers, load = inputs["servers"], inputs["offered_load"]
    blocking = np.asarray(erlang_b(servers, load), dtype=np.float64)
    stable = np.asarray(load < servers)
    waiting = np.full(np.shape(load), np.nan)
    if stable.any():
        waiting[stable] = erlang_c(servers[stable], load[stable])
    return {"erlang_b": blocking, "erlang_c": waiting}


def _erlang_notes(values, outputs):
    said = []
    if values.get("arrival_rate") is not None:
        said.append(f"offered load = arrival rate {values['arrival_rate']:.6g} / calibrated service rate "
                    f"{values['service_rate_per_s']:.6g}")
    if np.any(np.isnan(outputs["erlang_c"])):
        said.append("Erlang C undefined (null) where offered load >= servers (the queue would grow without bound).")
    return "; ".join(said) or None


def _open_queue(command, summary, solve, percentiles, note, extra_notes=(), **declared):
    """A question of an open queue at the family's service rate: the arrival rate swept, the measures of
    :class:`QueueResult` out (times in the unit of 1/rate), ``note(values)`` said with percentiles."""
    return Question(
        command, summary,
        inputs=(Input("arrival_rate", "1/t", (0.0, math.inf), description="arrivals per unit time"),),
        outputs=(Output("utilization", "1", "busy share of each server"),
                 Output("p_wait", "1", "probability an arrival waits (Erlang C for c servers)"),
                 Output("mean_wait", "t", "mean time in queue"),
                 Output("mean_response", "t", "mean wait + service", measured="mean_response_s"),
                 Output("mean_queue_length", "jobs", "mean number waiting"),
                 Output("mean_in_system", "jobs", "mean number waiting or in service")),
        solve=solve, percentiles=percentiles, notes=(QUEUE_NOTE, *extra_notes, _tailed(note)),
        plot=Plot("arrival_rate", ("mean_response",)),
        aliases={"service_rate_per_s": ("service_rate",)}, shipped=False,
        scenario=command == "queue mmc", **declared)


#: ``iosizer simulate mmc|mm1|md1|mg1|ggc``: the open queue's options (a single arrival rate).
_SIM_ARRIVAL = SimulateOption("arrival_rate", "--arrival-rate", "Arrivals per unit time.", required=True)
_SIM_RATE = SimulateOption("service_rate", "--service-rate",
                           "Completions per unit time of one busy server [the mmc family's shipped profile].")
_SIM_SERVERS = SimulateOption("servers", "--servers", "Servers [the mmc family's shipped profile].", kind=int)


def _simulated(command, summary, *options):
    """An open queue simulated (FCFS, renewal arrivals) against the question's formula."""
    return Simulation(command, summary + " (numpy; --engine ciw).", options,
                      metrics=("mean_response", "mean_wait", "p_wait", "utilization"))


# --- sizing: iosizer size servers (the smallest c) and iosizer size load (the largest arrival rate) ---

def _stable_servers(values, inputs):
    """The smallest stable count floor(lambda / mu) + 1: fewer servers have no answer (nan for a rate the
    queue refuses: its solve says why)."""
    mu = values["service_rate_per_s"]
    return np.floor(inputs["arrival_rate"] / mu) + 1.0 if mu > 0 else math.nan


def _response_out_of_reach(values, target, percentile):
    """A response target at or below the service time (or its percentile): no server count shortens it."""
    mu = values["service_rate_per_s"]
    if not mu > 0:  # refused by the queue's solve, with its message
        return None
    if percentile is None:
        if target * mu <= 1.0:
            return (f"target response {target:.6g} is unreachable: it is at or below the service time "
                    f"1/mu = {1 / mu:.6g}, which no number of servers shortens")
        return None
    if target * mu <= -math.log1p(-percentile / 100.0):
        floor = -math.log1p(-percentile / 100.0) / mu
        return (f"target p{percentile:g} response {target:.6g} is unreachable: the service time alone has "
                f"p{percentile:g} = {floor:.6g}, which no number of servers shortens")
    return None


def _rate_note(values, key):
    if values["profile_name"] is None:
        return []
    return [f"service rate {values['service_rate_per_s']:.6g} from {values['profile_name']}; {key}"]


def _servers_notes(values, records, inputs):
    measure = values["measure"]
    return [f"servers: the smallest count with {measure} within the target (exact M/M/c); "
            f"{measure}_one_fewer: the same at one server fewer (empty, null in JSON: one fewer is unstable)",
            *_rate_note(values, "servers_ci_low/_ci_high: the count at the ends of its 95 % interval")]


def _load_notes(values, records, inputs):
    return [f"arrival_rate: the largest with {values['measure']} within the target (exact M/M/c, bisection to 1e-12)",
            *_rate_note(values, "arrival_rate_ci_low/_ci_high at the ends of its 95 % interval")]


def _mmc_sizing():
    """``size servers``: the smallest c for a mean or percentile response, or a P(wait) (Erlang C) target;
    ``size load``: the largest arrival rate within one, bisected on (0, c mu). Each target alone."""
    response = {"target": "target_response_s", "percentile": "response", "out_of_reach": _response_out_of_reach}
    wait = {"target": "target_wait_probability", "target_bounds": (0.0, 1.0)}
    named = (("service_rate_per_s", "service_rate"),)
    servers = {"command": "servers", "alone": True, "options": named, "lowest": _stable_servers,
               "notes": _servers_notes, "summary": "Smallest M/M/c server count meeting a response (mean or "
                                                   "--percentile) or wait-probability target.",
               "title": lambda values, targets, inputs: "Smallest M/M/c server count",
               "keys": (("servers", "servers"), ("arrival_rate", "arrival_rate"),
                        ("service_rate_per_s", "service_rate"), ("target", "{target}"), ("percentile", "percentile"),
                        ("measure", "{measure}"), ("one_fewer", "{measure}_one_fewer"), ("utilization", "utilization"),
                        ("lowest", "minimum_stable_servers"))}
    load = {"command": "load", "alone": True, "smallest": False, "options": named, "bracket": True,
            "notes": _load_notes, "summary": "Largest load within a target: the arrival rate of an M/M/c queue",
            "stop": lambda values: values["servers"] * values["service_rate_per_s"],
            "title": lambda values, targets, inputs: f"Largest arrival rate, M/M/{int(values['servers'])}",
            "keys": (("arrival_rate", "arrival_rate"), ("servers", "servers"),
                     ("service_rate_per_s", "service_rate"), ("target", "{target}"), ("percentile", "percentile"),
                     ("measure", "{measure}"), ("utilization", "utilization"))}

    def declared(search, output, shared, own):
        keys = tuple((k, v.replace("{target}", own["target"])) for k, v in shared["keys"])
        return Sizing(search, output, **{**shared, **own, "keys": keys})

    return (declared("servers", "mean_response", servers, response), declared("servers", "p_wait", servers, wait),
            declared("arrival_rate", "mean_response", load, response), declared("arrival_rate", "p_wait", load, wait))


def _mmc_start(data, settings):
    """At the lightest load the response is close to the bare service time;
    every measured arrival rate must stay below c mu (the rate's lower bound)."""
    servers = settings["servers"]
    stable_floor = float(np.max(data["arrival_rate_per_s"])) / servers * (1 + 1e-9)
    start = max(1.0 / float(np.min(data["mean_response_s"])), stable_floor * 1.05)
    return {"service_rate_per_s": (start, stable_floor, math.inf)}


def _mmc_jacobian(settings):
    servers = settings["servers"]

    def jacobian(values, inputs):
        lam = np.asarray(inputs["arrival_rate_per_s"], dtype=np.float64)
        d_mu = mmc_mean_response_gradient(lam, values["service_rate_per_s"], servers)
        return {"mean_response_s": np.asarray(np.broadcast_to(d_mu, lam.shape), dtype=np.float64)[:, None]}

    return jacobian


def _declare_mmc():
    return Family(
        name="mmc",
        formula=("W = C(c, a) / (c mu - lambda) + 1 / mu, a = lambda / mu, rho = a / c < 1; Erlang C "
                 "C(c, a) = B / (1 - rho (1 - B)) with Erlang B B(c, a) = Poisson pmf(c; a) / Q(c + 1, a) "
                 "(Q the regularised upper incomplete gamma); P(Wq > t) = C exp(-(c mu - lambda) t)"),
        summary="M/M/c queue: service rate from mean response at several arrival rates",
        source="Kleinrock, Queueing Systems vol. 1, sec. 3.5 (Erlang C)",
        parameters=(
            ParameterSpec("service_rate_per_s", "1/s", None, (0.0, math.inf), "fitted",
                          "calibrated from the planner's measured mean responses",
                          "completions per second of one busy server",
                          cpu_scaling=CpuScaling.power, exponent_bounds=(0.0, 1.0)),
            ParameterSpec("servers", "servers", None, (1, MAX_SERVERS), "assumed",
                          "no default: the planner's configuration (cores, channels, ports)",
                          "identical servers behind one queue", kind="setting", integer=True),
        ),
        columns=Schema("mmc", (
            Column("arrival_rate_per_s", Role.input, "1/s", "arrivals per second",
                   minimum=0, minimum_inclusive=False),
            Column("mean_response_s", Role.observed, "s", "mean response time",
                   minimum=0, minimum_inclusive=False),
        )),
        solve=_mmc_solve,
        service_time="exponential service, Poisson arrivals, FCFS (exact M/M/c)",
        questions=(
            _open_queue("queue mmc", "M/M/c: c servers sharing one queue (Erlang C); --percentile exact",
                        _queue_mmc, _queue_mmc_percentiles, lambda values: MMC_PERCENTILE_NOTE,
                        simulate=_simulated("mmc", "M/M/c: Poisson arrivals, c exponential servers, FCFS",
                                            _SIM_ARRIVAL, _SIM_RATE, _SIM_SERVERS),
                        sizing=_mmc_sizing()),
            _open_queue("queue mm1", "M/M/1: one server, Poisson arrivals, exponential service; --percentile exact",
                        _queue_mm1, _mm1_percentiles, lambda values: MMC_PERCENTILE_NOTE,
                        fixed={"servers": 1}, simulate=_simulated("mm1", "M/M/1", _SIM_ARRIVAL, _SIM_RATE)),
            _open_queue("queue mg1", "M/G/1: one server, general service time (Pollaczek-Khinchine); --percentile "
                        "exact (the transform of gamma service of this cv^2 inverted numerically)",
                        _queue_mg1, _mg1_percentiles, _mg1_note, fixed={"servers": 1},
                        settings=(replace(SERVICE_SCV, value=None),),
                        simulate=_simulated("mg1", "M/G/1: gamma service times of the given scv", _SIM_ARRIVAL,
                                            SIMULATED_SCV, _SIM_RATE)),
            _open_queue("queue md1", "M/D/1: one server, constant service time; --percentile exact (Crommelin)",
                        _queue_md1, _md1_percentiles, lambda values: MD_PERCENTILE_NOTE,
                        fixed={"servers": 1, "service_scv": 0.0},
                        simulate=_simulated("md1", "M/D/1: constant service times", _SIM_ARRIVAL, _SIM_RATE)),
            _open_queue("queue ggc", "G/G/c by the Allen-Cunneen approximation (exact for M/M/c); the notes state "
                        "its measured error, and the percentiles'",
                        _queue_ggc, _ggc_percentiles, _ggc_note, settings=(ARRIVAL_SCV, SERVICE_SCV),
                        extra_notes=(_ggc_mean_note,),
                        simulate=_simulated("ggc", "G/G/c: gamma inter-arrival and service times against "
                                            "Allen-Cunneen", _SIM_ARRIVAL, _SIM_RATE, _SIM_SERVERS,
                                            SimulateOption("arrival_scv", "--arrival-scv", "Inter-arrival scv [1]."),
                                            SIMULATED_SCV)),
            Question("queue erlang", "Erlang B (blocking, M/M/c/c) and Erlang C (waiting, M/M/c) probabilities",
                     inputs=(Input("servers", "servers", (1, MAX_SERVERS), _erlang_servers, integer=True,
                                   description="identical servers"),
                             Input("offered_load", "erlang", (0.0, math.inf), _erlang_load,
                                   description="offered load: arrival rate / service rate of one server",
                                   reads=("arrival_rate",))),
                     outputs=(Output("erlang_b", "1", "probability an arrival is blocked (M/M/c/c)"),
                              Output("erlang_c", "1", "probability an arrival waits (M/M/c); null where the "
                                                      "offered load reaches the servers")),
                     solve=_queue_erlang, notes=(_erlang_notes,), settings=(ERLANG_ARRIVAL_RATE,),
                     optional=("arrival_rate",), takes=(), shipped=False, scenario=False,
                     plot=Plot("offered_load", ("erlang_b", "erlang_c"), "servers")),
        ),
        fit=FitPlan(_mmc_start, _mmc_jacobian, relative=True),
        tail=_mmc_tail,
        example="hba_core_response.csv",
        example_settings={"servers": 4},
    )


FAMILIES = (_declare_mmc(),)
