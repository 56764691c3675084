"""Exact response-time distribution of a closed network: one delay station and one c-server FCFS station.

Physical system
---------------
N jobs circulate between a delay (infinite-server) station of mean time Z
and a station of c identical servers behind one FCFS queue, exponential
service of mean S. A storage device driven by fio at queue depth N is this
network (Z the latency floor, c the parallel units); so is any closed loop
of a fixed think/transport time in front of a multi-server bottleneck.

Queue length (product form; Buzen's normalising constant written out)
--------------------------------------------------------------------
With m jobs in the network, the probability of j at the c-server station is::

    p_m(j) = [Z^(m-j) / (m-j)!] [S^j / prod_{i=1..j} min(i, c)] / G(m),   j = 0..m

(BCMP: the delay station's factor is insensitive to its time distribution,
so Z may be a constant). Every term is formed in logarithms,
ln prod min(i, c) = ln min(j, c)! + (j - min(j, c)) ln c, and normalised by
their log-sum: only sums of logs, no subtraction, finite for any N. The
throughput is X(N) = E_N[min(j, c)] / S, and by Little's law the time per
cycle is N / X(N) (exact, as load-dependent MVA: tests check both agree).

Response time (arrival theorem)
-------------------------------
A job arriving at the c-server station finds it as the network with N - 1
jobs is in equilibrium (Sevcik & Mitrani 1981; Reiser & Lavenberg 1980).
Finding j jobs it waits 0 if j < c, else for j - c + 1 departures of the c
busy servers, Erlang(j - c + 1, rate c / S); then its own Exp(1/S)
service. In service units x = t / S, with k = j - c + 1::

    P(W + S > x) = e^-x                                          j < c
                 = Q(k + 1, x)                                   c = 1
                 = Q(k, c x) + e^-x (c / (c - 1))^k P(k, (c - 1) x)   c > 1

(Q, P the regularised incomplete gamma functions; the c > 1 form is the
convolution of the Erlang with the exponential, every term positive). The
station response is the mixture over p_{N-1}(j); its density, in the same
units, is e^-x for j < c, x^k e^-x / k! for c = 1 and
e^-x (c / (c - 1))^k P(k, (c - 1) x) for c > 1. A response that adds a
constant (the device's floor) to the station's is that constant plus the
mixture's quantile.

Quantiles: the root of ln P(T > x) = ln(1 - q) by safeguarded Newton on the
log-survival (:func:`iosizer.model.percentiles._invert`), vectorised over
every point, bracketed below by the service quantile -ln(1 - q) (T exceeds
its service) and above by the union bound: the quantile of Erlang(N - c, c)
(the longest wait) at (1 + q) / 2 plus the service's at (1 + q) / 2.
Checked against a numerically solved CTMC and an event simulation
(tests/model/test_closed_tails.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from iosizer.errors import InputError
from iosizer.model._validate import as_nonnegative, as_positive, as_server_count

__all__ = [
    "ClosedTails",
    "MAX_STATES",
    "closed_tails",
    "closed_throughput",
    "queue_distribution",
    "throughput_gradient",
]

#: Points x (population + 1) states a call may form: about 0.5 s of incomplete gamma
#: evaluations per Newton step at the top, and 1.6 GB never allocated.
MAX_STATES = 20_000_000


def _log_weights(delay: np.ndarray, service: np.ndarray, servers: np.ndarray, jobs: np.ndarray,
                 states: int) -> np.ndarray:
    """ln p_m(j), j = 0..states-1, of every point (m = ``jobs``); -inf where j > m."""
    from scipy.special import gammaln

    j = np.arange(states, dtype=np.float64)[None, :]
    m = jobs[:, None]
    c = servers[:, None]
    rest = m - j
    busy = np.minimum(j, c)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_delay = np.where(rest == 0, 0.0, rest * np.log(delay)[:, None])  # Z^0 = 1 even at Z = 0
        log_w = (log_delay - gammaln(np.maximum(rest, 0.0) + 1.0) + j * np.log(service)[:, None]
                 - gammaln(busy + 1.0) - (j - busy) * np.log(c))
    log_w = np.where(rest >= 0, log_w, -np.inf)
    top = np.max(log_w, axis=1, keepdims=True)
    return log_w - (top + np.log(np.sum(np.exp(log_w - top), axis=1, keepdims=True)))


def _broadcast(delay: object, service: object, servers: object, population: object) -> tuple[np.ndarray, ...]:
    z = as_nonnegative("delay", delay)
    s = as_positive("service", service)
    c = as_server_count("servers", servers)
    n = as_server_count("population", population)
    z, s, c, n = np.broadcast_arrays(z, s, c, n)
    states = int(np.max(n)) + 1
    if z.size * states > MAX_STATES:
        raise InputError(f"{z.size:,} points at population up to {states - 1:,} form {z.size * states:,} "
                         f"queue-length states, more than the {MAX_STATES:,} solved in about a second; "
                         "ask for fewer points or a smaller population")
    return z, s, c, n


def queue_distribution(delay: object, service: object, servers: object, population: object) -> np.ndarray:
    """P(j jobs at the c-server station), j = 0..max(population), for each broadcast point.

    ``delay`` Z >= 0 and ``service`` S > 0 in one time unit; ``servers`` c
    and ``population`` N whole numbers >= 1. Shape: the broadcast shape of
    the inputs plus one axis of length max(N) + 1 (zero beyond each N).
    """
    z, s, c, n = _broadcast(delay, service, servers, population)
    shape = z.shape
    log_p = _log_weights(z.ravel(), s.ravel(), c.ravel(), n.ravel(), int(np.max(n)) + 1)
    return np.exp(log_p).reshape(*shape, -1)


def _solve_at_n(delay: object, service: object, servers: object, population: object) -> tuple[Any, ...]:
    """The points flattened, j = 0..max N, p_N(j) and X(N)."""
    z, s, c, n = _broadcast(delay, service, servers, population)
    shape = z.shape
    z, s, c, n = (a.ravel().astype(np.float64) for a in (z, s, c, n))
    states = int(np.max(n)) + 1
    j = np.arange(states, dtype=np.float64)[None, :]
    at_n = np.exp(_log_weights(z, s, c, n, states))
    throughput = np.sum(at_n * np.minimum(j, c[:, None]), axis=1) / s  # X(N) = E_N[min(j, c)] / S
    return shape, (z, s, c, n), j, at_n, throughput


def _solve(delay: object, service: object, servers: object, population: object) -> tuple[Any, ...]:
    """As :func:`_solve_at_n`, with ln p_{N-1}(j) (what an arrival finds) before X(N)."""
    shape, (z, s, c, n), j, at_n, throughput = _solve_at_n(delay, service, servers, population)
    found = _log_weights(z, s, c, n - 1.0, j.shape[1])
    return shape, (z, s, c, n), j, at_n, found, throughput


def closed_throughput(delay: object, service: object, servers: object, population: object) -> np.ndarray:
    """X(N) alone (jobs per time unit), per point: :func:`throughput_gradient`'s first array at half its cost
    (one queue-length distribution, not two)."""
    shape, _, _, _, throughput = _solve_at_n(delay, service, servers, population)
    return throughput.reshape(shape)


def throughput_gradient(delay: object, service: object, servers: object,
                        population: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X(N) (jobs per time unit) and its logarithmic slopes d ln X / dZ and d ln X / dS, per point.

    X(N) = G(N - 1) / G(N), and each term of G(m) carries Z^(m-j) S^j, so
    d ln G(m) / dZ = E_m[m - j] / Z and d ln G(m) / dS = E_m[j] / S: the
    slopes are differences of two means of the queue-length distribution,
    exact (a fit's analytic Jacobian). At Z = 0 the Z-slope is that of
    the limit Z -> 0+ (only j >= m - 1 carry weight there).
    """
    shape, (z, s, c, n), j, at_n, found, throughput = _solve(delay, service, servers, population)
    before = np.exp(found)
    queued_n, queued_before = at_n @ j[0], before @ j[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        by_delay = np.where(z > 0, ((n - 1.0 - queued_before) - (n - queued_n)) / z,
                            np.where(n > 1, -np.inf, 0.0))
    by_service = (queued_before - queued_n) / s
    return throughput.reshape(shape), by_delay.reshape(shape), by_service.reshape(shape)


@dataclass(frozen=True, eq=False)
class ClosedTails:
    """The network solved at each point (arrays of the broadcast input shape).

    ``throughput`` X(N) in jobs per time unit; ``cycle_time`` N / X(N)
    (delay plus station, the time unit of the inputs); ``station_response``
    the mean wait plus service at the c-server station; ``p_wait`` the
    probability an arriving job finds every server busy.
    """

    throughput: np.ndarray
    cycle_time: np.ndarray
    station_response: np.ndarray
    p_wait: np.ndarray
    # kept for quantiles: the arrival distribution over k = j - c + 1 >= 1 (log), per point
    _service: np.ndarray
    _servers: np.ndarray
    _log_found: np.ndarray
    _log_no_wait: np.ndarray

    def station_quantile(self, percentile: object) -> np.ndarray:
        """The ``percentile`` (percent, 0 < P < 100) of the station's wait plus service, per point."""
        from iosizer.model.percentiles import _as_probability, _invert

        q = np.broadcast_to(_as_probability(percentile), self.throughput.shape).ravel()
        s, c = self._service.ravel(), self._servers.ravel()
        log_found, log_no_wait = self._log_found, self._log_no_wait
        k = np.arange(1, log_found.shape[1] + 1, dtype=np.float64)[None, :]
        log_tail = np.log1p(-q)

        def log_survival(x: np.ndarray, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return _log_survival(x, c[i], log_found[i], log_no_wait[i], k)

        from scipy.special import gammaincinv

        half = 0.5 * (1.0 + q)
        longest = np.maximum(np.max(np.where(np.isfinite(log_found), k, 0.0), axis=1), 1.0)
        lower = -log_tail
        upper = gammaincinv(longest, half) / c - np.log1p(-half) + 1e-12
        x = _invert(log_survival, log_tail, lower, np.maximum(upper, lower * (1 + 1e-9)))
        return (x * s).reshape(self.throughput.shape)


def _log_survival(x: np.ndarray, c: np.ndarray, log_found: np.ndarray, log_no_wait: np.ndarray,
                  k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ln P(T > x), ln hazard) of the station response, x in service units, for rows of points."""
    from scipy.special import gammainc, gammaincc, gammaln

    xs, cs = x[:, None], c[:, None]
    single = cs == 1
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        # c = 1: Erlang(k + 1, 1); c > 1: Erlang(k, c) + Exp(1), every term positive.
        ratio = np.where(single, 1.0, cs / np.where(single, 2.0, cs - 1.0))
        mixed = -xs + k * np.log(ratio) + np.log(gammainc(k, np.where(single, 1.0, cs - 1.0) * xs))
        survival = np.where(single, np.log(gammaincc(k + 1.0, xs)),
                            np.logaddexp(np.log(gammaincc(k, cs * xs)), mixed))
        density = np.where(single, k * np.log(xs) - xs - gammaln(k + 1.0), mixed)
        log_g = np.logaddexp(log_no_wait - x, np.logaddexp.reduce(log_found + survival, axis=1))
        log_f = np.logaddexp(log_no_wait - x, np.logaddexp.reduce(log_found + density, axis=1))
    return log_g, log_f - log_g


def closed_tails(delay: object, service: object, servers: object, population: object) -> ClosedTails:
    """Solve the delay + c-server network exactly at each broadcast point (module docstring).

    ``delay`` Z >= 0 and ``service`` S > 0 (mean per job, one time unit),
    ``servers`` c >= 1 and ``population`` N >= 1 whole numbers. Means and
    the arrival distribution for :meth:`ClosedTails.station_quantile`.
    """
    shape, (z, s, c, n), j, _, found, throughput = _solve(delay, service, servers, population)
    states = j.shape[1]
    ahead = j - c[:, None] + 1.0  # k = departures to wait for
    waits = ahead >= 1
    with np.errstate(under="ignore"):
        p_found = np.exp(found)
    p_wait = np.sum(np.where(waits, p_found, 0.0), axis=1)
    station = s * (1.0 + np.sum(np.where(waits, p_found * ahead, 0.0), axis=1) / c)
    # log P(find j) re-indexed by k = j - c + 1 = 1..states-1 (columns past a point's N - c are -inf)
    shift = np.arange(states - 1)[None, :] + c[:, None].astype(np.int64)  # j = k + c - 1
    valid = shift < states
    log_found = np.where(valid, np.take_along_axis(found, np.minimum(shift, states - 1), axis=1), -np.inf)
    with np.errstate(divide="ignore"):
        log_no_wait = np.log(np.sum(np.where(waits, 0.0, p_found), axis=1))
    width = max(int(np.max(n - c)), 1)  # k runs to N - c at most
    return ClosedTails(
        throughput=throughput.reshape(shape),
        cycle_time=(n / throughput).reshape(shape),
        station_response=station.reshape(shape),
        p_wait=p_wait.reshape(shape),
        _service=s.reshape(shape),
        _servers=c.reshape(shape),
        _log_found=log_found[:, :width],
        _log_no_wait=log_no_wait,
    )
