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

These are the formulas; :mod:`iosizer.model.queueing` declares them as the
``mmc`` family's questions (``iosizer queue mmc|mm1|mg1|md1|ggc|erlang``), and
:mod:`iosizer.model.percentiles` builds the tails on them (this module
imports neither). Allen-Cunneen's measured error: :func:`ggc`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Callable

import numpy as np

from iosizer.errors import ConsistencyError, InputError, UnstableQueueError
from iosizer.model.family import ParameterSpec
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
