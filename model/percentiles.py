"""Percentiles of waiting and response times: exact for M/M/c, M/G/1 and M/D/c, measured approximations elsewhere.

Every function broadcasts over its inputs and takes percentiles in percent (0 < p < 100); times come back
in the unit of ``1 / rate``.

- M/M/c (exact): P(Wq > t) = C exp(-(c mu - lambda) t), C the Erlang C probability; the response is the
  wait plus an independent exponential service, its quantile the root of ln P(T > t) = ln(1 - q).
- M/G/1 with gamma, Erlang-k, hyperexponential or constant service (exact): the Pollaczek-Khinchine
  transform inverted numerically (:mod:`iosizer.model.transforms`); M/D/c by Crommelin's distribution
  (:mod:`iosizer.model.mdc`).
- G/G/c with non-Poisson arrivals (approximation from two moments), load sharing (a mixture of per-port
  M/M/c-form responses) and closed networks (the arrival theorem: exact for single-server cycles and one
  multi-server station; a mixture over arrival states elsewhere, gamma-fitted past 20,000 states).

Each approximation's error is measured against simulation on the grids of ``data/error_grids`` and stated
in the answer past 2 %; the derivations and the measured errors: docs/validation/percentiles.md and
docs/validation/tails.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from iosizer.model.family import ParameterSpec
from iosizer.errors import ConvergenceError, InputError
from iosizer.model._validate import (
    as_declared,
    as_finite,
    as_nonnegative,
    as_positive,
    as_server_count,
    scalar_or_array,
)

__all__ = [
    "ClosedNetworkPercentiles",
    "closed_network_grid_point",
    "closed_network_percentiles",
    "ggc_percentiles",
    "port_mixture_percentiles",
    "md1_percentiles",
    "mg1_exact_quantiles",
    "mg1_percentiles",
    "mm1_percentiles",
    "mmc_percentiles",
    "mmc_response_quantile",
    "mmc_response_survival",
    "mmc_wait_quantile",
    "parse_percentiles",
    "percentile_approximation_error",
    "percentile_key",
]

#: Relative tolerance of the quantile root finder.
_RTOL = 1e-13
_MAX_ITERATIONS = 200
#: ... and on a transform inversion, whose own relative error is ~1e-10 (so 1e-13 is noise).
_TRANSFORM_RTOL = 1e-9
#: A quantile below this (in the time unit) is 0 for every purpose; the search stops there.
_TINY = 1e-280
#: Below this squared coefficient of variation a service time is deterministic.
_DETERMINISTIC_SCV = 1e-12


# --- percentiles as the user gives them ------------------------------------------------


def percentile_key(percentile: float) -> str:
    """The JSON suffix of a percentile: 99 -> ``p99``, 99.9 -> ``p99_9``, 50 -> ``p50``."""
    text = np.format_float_positional(float(percentile), trim="-")
    return "p" + text.replace(".", "_")


#: Percentiles a planner may ask for. The ends are where a quantile stops meaning
#: anything a double can resolve: P = 0.001 is the 10^-5 quantile, P = 99.9999 one
#: event in a million; beyond them the tail sits at the solver's relative tolerance.
PERCENTILE = ParameterSpec(
    "percentile", "%", 99.0, (0.001, 99.9999), "assumed",
    "assumed: SLAs are written on P50..P99.99; outside 0.001..99.9999 a quantile is below the "
    "solver's 1e-9 relative resolution", "percentile of the wait or response time", kind="setting")


def parse_percentiles(values: Iterable[Any] | None) -> list[float]:
    """Checked percentiles (within :data:`PERCENTILE`'s bounds), duplicates dropped, order kept."""
    out: list[float] = []
    for value in (() if values is None else np.ravel(np.asarray(values, dtype=object))):
        number = PERCENTILE.check(value, "--percentile")
        if number not in out:
            out.append(number)
    return out


def _as_probability(percentile: object) -> np.ndarray:
    p = as_finite("percentile", percentile)
    bad = (p <= 0) | (p >= 100)
    if bad.any():
        raise InputError(f"percentile must lie strictly between 0 and 100, got {float(p[bad].flat[0]):g}")
    return p / 100.0


# --- a vectorised, safeguarded Newton solver on a log-survival function ----------------

#: log_survival(x, index) -> (ln G(x), ln h(x)) for the points ``index``; h = g / G the hazard.
LogSurvival = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def _invert(log_survival: LogSurvival, target: np.ndarray, lower: np.ndarray, upper: np.ndarray,
            start: np.ndarray | None = None, rtol: float = _RTOL) -> np.ndarray:
    """x with ln G(x) = target, G decreasing, lower <= x <= upper, for every point.

    Newton steps on ln G (derivative -h) from ``start`` (default: the lower end, or mid-bracket
    from 0); a step leaving the current bracket is replaced by bisection, so it converges from any
    bracket. Stops at a step (or bracket) below ``rtol`` relative (1e-13 by default).
    """
    lo, hi = lower.astype(np.float64).copy(), upper.astype(np.float64).copy()
    x = np.where(lo > 0, lo, 0.5 * hi) if start is None else np.clip(start, lo, hi)
    active = np.flatnonzero(hi > lo * (1 + rtol))
    for _ in range(_MAX_ITERATIONS):
        if active.size == 0:
            return x
        xa = x[active]
        log_g, log_h = log_survival(xa, active)
        residual = log_g - target[active]
        above = residual > 0  # survival still above the target: the root is further right
        lo[active] = np.where(above, xa, lo[active])
        hi[active] = np.where(above, hi[active], xa)
        with np.errstate(over="ignore", invalid="ignore"):
            step = residual / np.exp(log_h)
            proposal = xa + step
        bad = ~np.isfinite(proposal) | (proposal <= lo[active]) | (proposal >= hi[active])
        # Bisect geometrically across orders of magnitude (a quantile 1e-200 of a gamma of shape 0.01).
        floor = np.maximum(lo[active], _TINY)
        middle = np.where(hi[active] > 4.0 * floor, np.sqrt(floor * hi[active]), 0.5 * (lo[active] + hi[active]))
        proposal = np.where(bad, middle, proposal)
        done = (residual == 0) | (np.abs(proposal - xa) <= rtol * np.abs(proposal)) \
            | (hi[active] - lo[active] <= rtol * hi[active]) | (hi[active] <= _TINY)
        x[active] = np.where(residual == 0, xa, proposal)
        active = active[~done]
    raise ConvergenceError(f"quantile solver did not converge in {_MAX_ITERATIONS} iterations")


def _log_phi(y: np.ndarray) -> np.ndarray:
    """ln((1 - e^-y) / y) for y >= 0, 0 at y = 0, exact for tiny y."""
    safe = np.where(y > 0, y, 1.0)
    return np.where(y > 0, np.log(-np.expm1(-safe)) - np.log(safe), 0.0)


def _log(value: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(value)


# --- exponential wait with an atom, plus a service time ---------------------------------


def _atom_exponential_quantile(log_p_wait: np.ndarray, rate: np.ndarray, log_tail: np.ndarray) -> np.ndarray:
    """Quantile of 0 w.p. 1 - P, else Exp(rate): max(0, ln(P / (1 - q))) / rate."""
    with np.errstate(invalid="ignore"):
        excess = np.maximum(log_p_wait - log_tail, 0.0)
        return np.where(excess > 0, excess / rate, 0.0)


def _exp_service_response(log_p_wait: np.ndarray, log_not_wait: np.ndarray, r: np.ndarray,
                          q: np.ndarray) -> np.ndarray:
    """Response quantile, in service-time units x = mu t, of (atom + Exp(r mu) wait) + Exp(mu) service.

    ln G(x) = ln[e^-x + P x e^(-m x) phi(|1 - r| x)], ln g(x) = ln[(1 - P) e^-x + P r x e^(-m x) phi].
    """
    shape = np.shape(q)
    log_p_wait, log_not_wait, r, q = (np.ravel(v) for v in np.broadcast_arrays(log_p_wait, log_not_wait, r, q))
    log_tail = np.log1p(-q)
    m = np.minimum(r, 1.0)
    gap = np.abs(1.0 - r)

    def log_survival(x: np.ndarray, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mixed = log_p_wait[i] + np.log(x) - m[i] * x + _log_phi(gap[i] * x)
        log_g = np.logaddexp(-x, mixed)
        log_density = np.logaddexp(log_not_wait[i] - x, mixed + np.log(r[i]))
        return log_g, log_density - log_g

    upper_tail = log_tail - np.log(2.0)
    lower = np.maximum(-log_tail, _atom_exponential_quantile(log_p_wait, r, log_tail))
    upper = -upper_tail + _atom_exponential_quantile(log_p_wait, r, upper_tail)
    return _invert(log_survival, log_tail, lower, upper).reshape(shape)


def _gamma_service_response(log_p_wait: np.ndarray, r: np.ndarray, scv: np.ndarray,
                            q: np.ndarray) -> np.ndarray:
    """Response quantile (x = mu t) of (atom + Exp(r mu) wait) + Gamma(mean 1/mu, scv) service.

    G(x) = P(S > x) + P e^(-r x) E[e^(r S); S <= x] (see the module docstring);
    for shape k and rate k (x units) the expectation has a closed form: the
    regularised incomplete gamma when k > r, Kummer's 1F1(1; k+1; -(r-k) x)
    otherwise. Deterministic service (scv 0) is the wait quantile plus 1.
    """
    from scipy.special import gammainc, gammaincc, gammainccinv, gammaln, hyp1f1

    shape = np.shape(q)
    log_p_wait, r, scv, q = (np.ravel(v) for v in np.broadcast_arrays(log_p_wait, r, scv, q))
    log_tail = np.log1p(-q)
    wait = _atom_exponential_quantile(log_p_wait, r, log_tail)
    deterministic = scv <= _DETERMINISTIC_SCV
    answer = np.where(deterministic, 1.0 + wait, np.nan)
    todo = np.flatnonzero(~deterministic)
    if todo.size == 0:
        return answer.reshape(shape)
    k = 1.0 / scv[todo]
    lp, rr, lt = log_p_wait[todo], r[todo], log_tail[todo]
    log_not_wait = np.log1p(-np.exp(lp))

    def log_survival(x: np.ndarray, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ki, ri = k[i], rr[i]
        faster = ki > ri
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            shifted = np.where(faster, ki - ri, 1.0)
            via_gamma = (-ri * x + ki * (np.log(ki) - np.log(shifted))
                         + np.log(gammainc(ki, shifted * x)))
            via_kummer = (ki * np.log(ki * x) - ki * x - gammaln(ki + 1.0)
                          + np.log(hyp1f1(1.0, ki + 1.0, -np.maximum(ri - ki, 0.0) * x)))
            log_k = np.where(faster, via_gamma, via_kummer)
            log_service = np.log(gammaincc(ki, ki * x))
            log_pdf = ki * np.log(ki) + (ki - 1.0) * np.log(x) - ki * x - gammaln(ki)
            log_g = np.logaddexp(log_service, lp[i] + log_k)
            log_density = np.logaddexp(log_not_wait[i] + log_pdf, lp[i] + np.log(ri) + log_k)
        return log_g, log_density - log_g

    def service_quantile(log_t: np.ndarray) -> np.ndarray:
        return gammainccinv(k, np.exp(log_t)) / k

    upper_tail = lt - np.log(2.0)
    lower = np.maximum(service_quantile(lt), wait[todo])
    upper = service_quantile(upper_tail) + _atom_exponential_quantile(lp, rr, upper_tail)
    answer[todo] = _invert(log_survival, lt, lower, upper)
    return answer.reshape(shape)


# --- M/M/c, exact ------------------------------------------------------------------------


def _mmc_state(arrival_rate: object, service_rate: object, servers: object,
               percentile: object) -> tuple[np.ndarray, ...]:
    """(lambda, mu, theta, ln C, ln(1 - C), q) broadcast, after the stability check."""
    from iosizer.model.open_queues import _check_stable, _erlang_c_stable, _spare

    lam = as_positive("arrival_rate", arrival_rate)
    mu = as_positive("service_rate", service_rate)
    c = as_server_count("servers", servers)
    q = _as_probability(percentile)
    lam, mu, c, q = np.broadcast_arrays(lam, mu, c, q)
    _check_stable(lam / mu / c, "M/M/1 queue" if np.all(c == 1) else "M/M/c queue")
    with np.errstate(under="ignore", over="ignore"):
        p_wait = np.asarray(_erlang_c_stable(c, lam / mu), dtype=np.float64)
    theta = _spare(lam, mu, c)
    return lam, mu, theta, _log(p_wait), np.log1p(-p_wait), q


def mmc_wait_quantile(arrival_rate: object, service_rate: object, servers: object,
                      percentile: object) -> float | np.ndarray:
    """Exact percentile of the M/M/c waiting time: max(0, ln(C / (1 - q)) / (c mu - lambda))."""
    _, _, theta, log_c, _, q = _mmc_state(arrival_rate, service_rate, servers, percentile)
    return scalar_or_array(_atom_exponential_quantile(log_c, theta, np.log1p(-q)))


def mmc_response_quantile(arrival_rate: object, service_rate: object, servers: object,
                          percentile: object) -> float | np.ndarray:
    """Exact percentile of the M/M/c response time (wait + exponential service), to 1e-13 relative."""
    _, mu, theta, log_c, log_not, q = _mmc_state(arrival_rate, service_rate, servers, percentile)
    return scalar_or_array(_exp_service_response(log_c, log_not, theta / mu, q) / mu)


def mmc_response_survival(time: object, arrival_rate: object, service_rate: object,
                          servers: object) -> float | np.ndarray:
    """P(T > t) of the M/M/c response time (module docstring), vectorised."""
    t = as_nonnegative("time", time)
    _, mu, theta, log_c, _, _ = _mmc_state(arrival_rate, service_rate, servers, 50.0)
    t, mu, theta, log_c = np.broadcast_arrays(t, mu, theta, log_c)
    return scalar_or_array(np.exp(_mmc_log_survival(mu * t, theta / mu, log_c)))


def _mmc_log_survival(x: np.ndarray, r: np.ndarray, log_c: np.ndarray) -> np.ndarray:
    """ln P(T > t) at x = mu t, r = theta / mu (shared with the sizing module)."""
    with np.errstate(divide="ignore"):
        mixed = log_c + np.log(x) - np.minimum(r, 1.0) * x + _log_phi(np.abs(1.0 - r) * x)
    return np.logaddexp(-x, mixed)


def _keys(percentiles: Sequence[float]) -> list[float]:
    return parse_percentiles(percentiles) if percentiles is not None else []


def mmc_percentiles(arrival_rate: object, service_rate: object, servers: object,
                    percentiles: Sequence[float]) -> dict[str, float | np.ndarray]:
    """``wait_pP`` and ``response_pP`` for each percentile P (exact M/M/c)."""
    out: dict[str, float | np.ndarray] = {}
    for p in _keys(percentiles):
        key = percentile_key(p)
        out[f"wait_{key}"] = mmc_wait_quantile(arrival_rate, service_rate, servers, p)
        out[f"response_{key}"] = mmc_response_quantile(arrival_rate, service_rate, servers, p)
    return out


def mm1_percentiles(arrival_rate: object, service_rate: object,
                    percentiles: Sequence[float]) -> dict[str, float | np.ndarray]:
    """M/M/1: wait and response percentiles (exact; the response is Exp(mu - lambda))."""
    return mmc_percentiles(arrival_rate, service_rate, 1, percentiles)


# --- M/G/1, M/D/1, G/G/c: two-moment approximation ------------------------------------------


def _approximate(result: Any, service_rate: object, service_scv: object,
                 percentiles: Sequence[float]) -> dict[str, float | np.ndarray]:
    """Percentiles from a queue result's P(wait) and mean wait, with a gamma service time."""
    mu = as_positive("service_rate", service_rate)
    scv = as_nonnegative("service_scv", service_scv)
    p_wait = np.asarray(result.p_wait, dtype=np.float64)
    mean_wait = np.asarray(result.mean_wait, dtype=np.float64)
    mu, scv, p_wait, mean_wait = np.broadcast_arrays(mu, scv, p_wait, mean_wait)
    with np.errstate(divide="ignore", invalid="ignore"):
        # Tail rate of the wait in service-time units: P / (mu Wq); any value where P = 0.
        r = np.where((p_wait > 0) & (mean_wait > 0), p_wait / (mu * mean_wait), 1.0)
    log_p = _log(np.where(mean_wait > 0, p_wait, 0.0))
    out: dict[str, float | np.ndarray] = {}
    for p in _keys(percentiles):
        q = np.full(mu.shape, p / 100.0)
        key = percentile_key(p)
        wait = _atom_exponential_quantile(log_p, r, np.log1p(-q)) / mu
        exponential = np.abs(scv - 1.0) <= 1e-15
        response = np.empty(mu.shape)
        if exponential.any():
            e = exponential
            response[e] = _exp_service_response(log_p[e], np.log1p(-np.exp(log_p[e])), r[e], q[e])
        if (~exponential).any():
            g = ~exponential
            response[g] = _gamma_service_response(log_p[g], r[g], scv[g], q[g])
        out[f"wait_{key}"] = scalar_or_array(wait)
        out[f"response_{key}"] = scalar_or_array(response / mu)
    return out


# --- M/G/1 by transform inversion, M/D/c by Crommelin: exact ----------------------------------


def mg1_exact_quantiles(utilization: object, service_scv: object, probability: object,
                        law: str = "gamma") -> tuple[np.ndarray, np.ndarray]:
    """(wait, response) q-quantiles of the M/G/1 queue in service units (mean service 1), exact.

    ``law`` "gamma" (shape 1 / cs^2: iosizer's service law for ``service_scv``, Erlang-k at 1/k) or
    "hyperexponential" (balanced means, cs^2 > 1). The distributions are the Pollaczek-Khinchine
    transforms inverted by Abate-Whitt's Euler method (:mod:`iosizer.model.transforms`); each quantile
    is the root of ln P(> x) = ln(1 - q), bracketed by 0 and Lundberg's bound e^(-eta x) (response:
    (1 + eta / rho) e^(-eta x)) and found by safeguarded Newton steps (the density comes from the same
    transform values), vectorised over every point, to 1e-13 relative. The wait is 0 for q <= 1 - rho.
    """
    from iosizer.model import transforms

    rho, scv, q = (np.ravel(v).astype(np.float64) for v in np.broadcast_arrays(
        np.asarray(utilization, dtype=np.float64), np.asarray(service_scv, dtype=np.float64),
        np.asarray(probability, dtype=np.float64)))
    if law == "gamma":
        service = transforms.gamma_law(scv)
    elif law == "hyperexponential":
        if np.any(scv <= 1.0):
            raise InputError("a balanced-means hyperexponential needs service_scv > 1")
        service = transforms.hyperexponential_law(scv)
    else:
        raise InputError(f"service law must be gamma or hyperexponential, got {law!r}")
    eta = transforms.mg1_decay_rate(rho, service)
    constant = transforms.mg1_tail_constant(rho, service, eta)
    log_tail = np.log1p(-q)

    def solver(tail: Callable[..., tuple[np.ndarray, np.ndarray]]) -> LogSurvival:
        def log_survival(x: np.ndarray, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            survival, density = tail(np.maximum(x, _TINY), i, rho, service, eta)
            survival = np.maximum(survival, 1e-300)
            with np.errstate(invalid="ignore", over="ignore"):
                return np.log(survival), np.log(np.maximum(density, 1e-300) / survival)
        return log_survival

    wait = np.zeros_like(rho)
    waits = np.flatnonzero(q > 1.0 - rho)
    if waits.size:
        upper = -log_tail[waits] / eta[waits]
        sub = _subset_solver(solver(transforms.mg1_wait_tail), waits)
        # ln P(W > x) tends to ln C - eta x (Cramer-Lundberg): Newton from that asymptote's root.
        start = np.maximum((np.log(constant[waits]) - log_tail[waits]) / eta[waits], 1e-6 * upper)
        wait[waits] = _invert(sub, log_tail[waits], np.zeros(waits.size), upper, start, _TRANSFORM_RTOL)
    upper = (np.log1p(eta / rho) - log_tail) / eta
    # T >= S: the service quantile bounds the response's from below (gamma; 0 for other laws).
    lower = _gamma_quantile(scv, q) if law == "gamma" else np.zeros_like(rho)
    start = np.maximum((np.log(constant) + np.log1p(eta / rho) - log_tail) / eta, np.maximum(wait, 1e-6 * upper))
    response = _invert(solver(transforms.mg1_response_tail), log_tail, lower, np.maximum(upper, lower), start,
                       _TRANSFORM_RTOL)
    return wait, response


def _gamma_quantile(scv: np.ndarray, q: np.ndarray) -> np.ndarray:
    """q-quantile of a gamma of mean 1 and cv^2 ``scv`` (shape 1 / scv)."""
    from scipy.special import gammaincinv

    return gammaincinv(1.0 / scv, q) * scv


def _subset_solver(log_survival: LogSurvival, index: np.ndarray) -> LogSurvival:
    """The same log-survival seen through the points ``index`` (``_invert`` numbers them from 0)."""
    return lambda x, i: log_survival(x, index[i])


def _mdc_exact(offered: np.ndarray, servers: np.ndarray, q: np.ndarray) -> np.ndarray:
    """M/D/c wait quantiles in service units, one chain solved per distinct (load, servers)."""
    from iosizer.model.mdc import mdc_wait_quantile

    wait = np.empty(q.shape)
    pairs = np.stack([offered, servers], axis=-1)
    unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
    for n, (a, c) in enumerate(unique):
        chosen = np.flatnonzero(inverse.ravel() == n)
        wait[chosen] = mdc_wait_quantile(a, int(c), q[chosen])
    return wait


def _exact_open(lam: np.ndarray, mu: np.ndarray, c: np.ndarray, scv: np.ndarray,
                percentiles: Sequence[float]) -> dict[str, float | np.ndarray]:
    """Exact ``wait_pP``/``response_pP`` for Poisson arrivals: M/M/c, M/D/c or M/G/1 (gamma service)."""
    out: dict[str, float | np.ndarray] = {}
    exponential = np.abs(scv - 1.0) <= 1e-15
    deterministic = scv <= _DETERMINISTIC_SCV
    general = ~exponential & ~deterministic
    if np.any(general & (c != 1)):
        raise InputError("exact percentiles with general service need one server (M/G/1)")
    for p in _keys(percentiles):
        q = np.full(lam.shape, p / 100.0)
        wait, response = np.empty(lam.shape), np.empty(lam.shape)
        if exponential.any():
            e = exponential
            wait[e] = np.asarray(mmc_wait_quantile(lam[e], mu[e], c[e], p)) * mu[e]
            response[e] = np.asarray(mmc_response_quantile(lam[e], mu[e], c[e], p)) * mu[e]
        if deterministic.any():
            d = deterministic
            wait[d] = _mdc_exact(lam[d] / mu[d], c[d], q[d])
            response[d] = wait[d] + 1.0
        if general.any():
            g = general
            wait[g], response[g] = mg1_exact_quantiles(lam[g] / mu[g], scv[g], q[g])
        key = percentile_key(p)
        out[f"wait_{key}"] = scalar_or_array(wait / mu)
        out[f"response_{key}"] = scalar_or_array(response / mu)
    return out


def mg1_percentiles(arrival_rate: object, service_rate: object, service_scv: object,
                    percentiles: Sequence[float]) -> dict[str, float | np.ndarray]:
    """M/G/1 percentiles, exact: gamma service of cv^2 ``service_scv`` by transform inversion,
    constant service (0) by Crommelin's M/D/1 distribution, exponential (1) in closed form."""
    from iosizer.model.open_queues import SCV, mg1

    mg1(arrival_rate, service_rate, service_scv)  # validation and the stability check, once
    lam = as_positive("arrival_rate", arrival_rate)
    mu = as_positive("service_rate", service_rate)
    scv = as_declared("service_scv", service_scv, SCV)
    lam, mu, scv = np.broadcast_arrays(lam, mu, scv)
    return _exact_open(lam, mu, np.ones(lam.shape), scv, percentiles)


def md1_percentiles(arrival_rate: object, service_rate: object,
                    percentiles: Sequence[float]) -> dict[str, float | np.ndarray]:
    """M/D/1 percentiles, exact (Crommelin / Erlang: :mod:`iosizer.model.mdc`); response = wait + 1/mu."""
    return mg1_percentiles(arrival_rate, service_rate, 0.0, percentiles)


def ggc_percentiles(arrival_rate: object, service_rate: object, servers: object, arrival_scv: object = 1.0,
                    service_scv: object = 1.0, percentiles: Sequence[float] = ()) -> dict[str, float | np.ndarray]:
    """G/G/c percentiles: exact where the arrivals are Poisson and an exact method exists (M/M/c,
    M/D/c, M/G/1), else the exponential-tail approximation (Erlang C, Allen-Cunneen mean, gamma
    service) whose error against simulation is measured on a grid (:func:`percentile_approximation_error`)."""
    from iosizer.model.open_queues import ggc

    result = ggc(arrival_rate, service_rate, servers, arrival_scv, service_scv)  # validates every input
    lam, mu, c, ca2, cs2 = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (
        arrival_rate, service_rate, servers, arrival_scv, service_scv)))
    exact = (ca2 == 1.0) & ((c == 1) | (np.abs(cs2 - 1.0) <= 1e-15) | (cs2 <= _DETERMINISTIC_SCV))
    if exact.all():
        return _exact_open(lam, mu, c, cs2, percentiles)
    approximate = _approximate(result, service_rate, service_scv, percentiles)
    if not exact.any():
        return approximate
    chosen = np.flatnonzero(exact.ravel())
    exact_part = _exact_open(lam.ravel()[chosen], mu.ravel()[chosen], c.ravel()[chosen],
                             cs2.ravel()[chosen], percentiles)
    out: dict[str, float | np.ndarray] = {}
    for key, values in approximate.items():
        merged = np.array(np.broadcast_to(values, lam.shape), dtype=np.float64).ravel()
        merged[chosen] = np.ravel(exact_part[key])
        out[key] = merged.reshape(lam.shape)
    return out


def percentile_approximation_error(grid: Mapping[str, np.ndarray], query: Mapping[str, float]) -> float:
    """Measured error (%) of an approximate percentile around a query, from an error grid.

    ``grid``: one column per axis named in ``query`` plus ``error_pct``, one row per simulated cell
    (the grids of ``iosizer/data/error_grids``). In every axis the grid levels bracketing the query
    are taken (the nearest end outside the grid; only that level on it), and the signed error of
    largest magnitude among those cells is returned: the worst measured error of the region. A cell
    whose error lies within its simulation's 95 % half-width (column ``half_width_pct``) counts as 0:
    that error is not distinguishable from the simulation's noise.
    """
    measured = np.where(np.abs(grid["error_pct"]) > grid["half_width_pct"], grid["error_pct"], 0.0) \
        if "half_width_pct" in grid else grid["error_pct"]
    chosen = np.ones(grid["error_pct"].shape, dtype=bool)
    for axis, value in query.items():
        levels = np.unique(grid[axis])
        below, above = levels[levels <= value], levels[levels >= value]
        near = [below.max() if below.size else levels.min(), above.min() if above.size else levels.max()]
        chosen &= np.isin(grid[axis], near)
    # No measured cell brackets the query on every axis (the grid is not a full product): the grid's worst.
    errors = measured[chosen] if np.any(chosen) else measured
    return float(errors[np.argmax(np.abs(errors))])


# --- closed networks ----------------------------------------------------------------------


@dataclass(frozen=True)
class ClosedNetworkPercentiles:
    """Percentiles of a closed network's residence and response times at population N.

    ``station[key]`` has one value per station (per-cycle residence time);
    ``response[key]`` is end to end (think time excluded); keys are
    ``response_pP``. ``station_mean`` and ``station_variance`` are the
    per-station moments the end-to-end fit used.
    """

    response: Mapping[str, float]
    station: Mapping[str, np.ndarray]
    station_mean: np.ndarray
    station_variance: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.response)
        for key, values in self.station.items():
            out[f"station_{key}"] = np.asarray(values).tolist()
        return out


def _erlang_mixture_quantile(weights: np.ndarray, demand: float, q: float) -> float:
    """Quantile of sum_j w_j Erlang(j + 1, rate 1/D): per-station residence under the arrival theorem."""
    from scipy.special import gammaincc, gammaln

    order = np.arange(1, weights.size + 1, dtype=np.float64)
    keep = weights > 0
    order, w = order[keep], weights[keep] / weights[keep].sum()
    log_w = np.log(w)

    def log_survival(x: np.ndarray, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xs = x[:, None]
        with np.errstate(divide="ignore", under="ignore"):
            log_g = np.logaddexp.reduce(log_w + np.log(gammaincc(order, xs)), axis=1)
            log_pdf = np.logaddexp.reduce(log_w + (order - 1) * np.log(xs) - xs - gammaln(order), axis=1)
        return log_g, log_pdf - log_g

    log_tail = np.log1p(-np.array([q]))
    top = float(order.max())
    upper = np.array([top + 10.0 * np.sqrt(top) - 2.0 * log_tail[0] + 10.0])
    return float(_invert(log_survival, log_tail, np.zeros(1), upper)[0]) * demand


def _multi_server_marginal(demands: np.ndarray, servers: np.ndarray, think: float, population: int, k: int,
                           throughput: np.ndarray) -> np.ndarray:
    """P(n_k = j | N - 1), j = 0..N-1, at the c-server station k (what an arrival finds).

    Product form: P(n_k = j | M) = f_k(j) G_{-k}(M - j) / G(M), with
    f_k(j) = D^j / prod_{i<=j} min(i, c) and each G from its throughput
    curve, G(n) / G(n - 1) = 1 / X(n): only sums of logarithms, no
    subtraction. G_{-k} is the network without station k (one more MVA).
    """
    from scipy.special import gammaln

    from iosizer.model.mva.single import mva

    m = population - 1
    j = np.arange(m + 1, dtype=np.float64)
    d, c = float(demands[k]), float(servers[k])
    log_f = j * np.log(d) - np.concatenate([[0.0], np.cumsum(np.log(np.minimum(j[1:], c)))])
    log_g = -np.concatenate([[0.0], np.cumsum(np.log(throughput[:m]))])  # ln G(0..M)
    rest = np.delete(np.arange(demands.size), k)
    if rest.size:
        others = mva(demands[rest], think, max(m, 1), servers[rest]).curve.throughput
        log_rest = -np.concatenate([[0.0], np.cumsum(np.log(np.asarray(others, dtype=np.float64)[:m]))])
    elif think > 0:
        log_rest = j * np.log(think) - gammaln(j + 1.0)
    else:  # station k alone: every other job is there
        return np.eye(m + 1)[m]
    log_p = log_f + log_rest[::-1] - log_g[m]
    found = np.exp(log_p - log_p.max())
    return found / found.sum()


def _found_work_variance(demands: np.ndarray, throughput: np.ndarray, population: int) -> float:
    """Var(sum_k D_k n_k) over the queue lengths n_k a job finds at single-server stations on arrival.

    By the arrival theorem the state is that of population M = N - 1, and in
    any product-form network P(n_j >= a, n_k >= b) = D_j^a D_k^b G(M-a-b) / G(M)
    with G(M - i) / G(M) = prod_{m<i} X(M - m) (the throughput curve), so
    E[n_k^2] = sum_i (2i - 1) D_k^i P_i and, for j != k,
    E[n_j n_k] = sum_i P_i sum_{a+b=i} D_j^a D_k^b (a convolution). Demands
    are scaled by the largest so every power and P_i stays within [0, 1].
    """
    from scipy.signal import fftconvolve

    m = population - 1
    if m < 1 or demands.size == 0:
        return 0.0
    reference = float(demands.max())
    with np.errstate(divide="ignore", under="ignore"):
        log_p = np.cumsum(np.log(np.minimum(throughput[:m][::-1] * reference, 1.0)))
        p = np.exp(log_p)                                   # P_i, i = 1..m
        order = np.arange(1, m + 1, dtype=np.float64)
        powers = np.exp(order[None, :] * np.log(demands / reference)[:, None])  # (S, m)
    weights = demands / reference
    mean_n = powers @ p
    second = np.empty((demands.size, demands.size))
    for j in range(demands.size):
        second[j, j] = float(((2 * order - 1) * powers[j]) @ p)
        for k in range(j + 1, demands.size):
            pairs = np.maximum(fftconvolve(powers[j], powers[k])[: m - 1], 0.0)  # a + b = 2..m
            second[j, k] = second[k, j] = float(pairs @ p[1:])
    mean_w = float(weights @ mean_n)
    variance = float(weights @ second @ weights) - mean_w**2
    return max(variance, 0.0) * reference**2


def _cycle_quantiles(demand: np.ndarray, servers: np.ndarray, others: float, population: int,
                     chosen: Sequence[float], start: np.ndarray) -> np.ndarray | None:
    """End-to-end response quantiles from the arrival-state mixture (:func:`iosizer.model.transforms.
    cycle_response_law`), or None when it has too many states; Newton from ``start`` (the gamma fit)."""
    from iosizer.model import transforms

    if not chosen:
        return np.zeros(0)
    found = transforms.cycle_response_law(demand, servers, others, population)
    if found is None:
        return None
    return _mixture_quantiles(found, chosen, start)


def _mixture_quantiles(found: tuple[Callable[[np.ndarray], np.ndarray], float, float], chosen: Sequence[float],
                       start: np.ndarray) -> np.ndarray:
    """Quantiles of the law whose (transform, decay rate, F(-decay/2)) is ``found``, Newton from ``start``."""
    from iosizer.model import transforms

    law, decay, at_half = found
    q = np.asarray(chosen, dtype=np.float64) / 100.0
    log_tail = np.log1p(-q)

    def log_survival(x: np.ndarray, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        survival, density = transforms.cycle_response_tail(np.maximum(x, _TINY), law, decay)
        survival = np.maximum(survival, 1e-300)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            return np.log(survival), np.log(np.maximum(density, 1e-300) / survival)

    # Chernoff: P(T > x) <= F(-decay / 2) e^(-decay x / 2) bounds every quantile from above.
    upper = (np.log(at_half) - log_tail) / (0.5 * decay)
    return _invert(log_survival, log_tail, np.zeros_like(q), upper, np.minimum(start, upper), _TRANSFORM_RTOL)


def closed_network_percentiles(demands: object, think_time: object, population: int,
                               percentiles: Sequence[float], servers: object = None,
                               constant_delay: float = 0.0) -> ClosedNetworkPercentiles:
    """Per-station and end-to-end response percentiles of a closed network at population N.

    Module docstring: per station the arrival theorem's mixture given the
    state found (exact when a job visits it once per cycle); end to end the
    mixture over the joint state inverted numerically (exact for a cycle of
    single servers, within 2 % measured with a c-server station), or where
    more than 20,000 states carry all but 1e-9 of the probability a gamma fit
    of the exact mean and variance. ``demands``, ``think_time``, ``servers`` as
    :func:`iosizer.model.mva.mva`. ``constant_delay``: a fixed latency in
    every cycle (a flash write, a storage round trip: a delay station whose
    time does not vary); for the queues it acts as think time (an infinite
    server's distribution does not change the product form), and it is added
    to the end-to-end response percentiles.
    """
    from iosizer.model.mva.single import mva

    chosen = _keys(percentiles)
    if not (np.isfinite(constant_delay) and constant_delay >= 0):
        raise InputError(f"constant_delay must be a finite number >= 0, got {constant_delay}")
    solved = mva(demands, float(think_time) + constant_delay, population, servers)
    demand = np.atleast_1d(np.asarray(demands, dtype=np.float64))
    count = np.ones_like(demand) if servers is None else np.atleast_1d(np.asarray(servers, dtype=np.float64))
    throughput = np.asarray(solved.curve.throughput, dtype=np.float64)  # X(1..N)
    n = int(population)
    others = float(think_time) + constant_delay
    means, variances, station = _stations(demand, count, others, n, throughput, chosen)
    response = _end_to_end(demand, count, others, n, throughput, means, variances, chosen, constant_delay)
    return ClosedNetworkPercentiles(
        response=response,
        station={k: np.asarray(v) for k, v in station.items()},
        station_mean=means,
        station_variance=variances,
    )


def _stations(demand: np.ndarray, count: np.ndarray, others: float, n: int, throughput: np.ndarray,
              chosen: Sequence[float]) -> tuple[np.ndarray, np.ndarray, dict[str, list[float]]]:
    """Each station's mean, variance and response percentiles, by the arrival theorem's mixture over the
    state an arrival finds (``others``: the think time and constant delay)."""
    means = np.empty(demand.size)
    variances = np.empty(demand.size)
    station: dict[str, list[float]] = {f"response_{percentile_key(p)}": [] for p in chosen}
    # X(n) for n = N-1 down to 0 (X(0) = 0): the diagonal of the marginal recursion.
    x_down = np.concatenate([throughput[: n - 1][::-1], [0.0]])
    for k, (d, c) in enumerate(zip(demand, count)):
        if np.isinf(c):
            means[k], variances[k], quantiles = _delay_station(d, chosen)
        elif c == 1:
            means[k], variances[k], quantiles = _single_server_station(d, x_down, chosen)
        else:
            found = _multi_server_marginal(demand, count, others, n, k, throughput)
            means[k], variances[k], quantiles = _multi_server_station(d, c, found, chosen)
        for p, x in zip(chosen, quantiles):
            station[f"response_{percentile_key(p)}"].append(x)
    return means, variances, station


def _end_to_end(demand: np.ndarray, count: np.ndarray, others: float, n: int, throughput: np.ndarray,
                means: np.ndarray, variances: np.ndarray, chosen: Sequence[float],
                constant_delay: float) -> dict[str, float]:
    """The cycle's response percentiles: the mixture over the joint state an arrival finds, inverted, or
    past 20,000 states the gamma fit of its exact mean and variance; plus the constant delay."""
    from scipy.special import gammaincinv

    total_mean = float(means.sum())
    single = (count == 1)
    # Single-server stations: E[Var(T | n)] + Var(E[T | n]) over the state an arrival finds, with the
    # stations' queue lengths correlated as the product form makes them (a fixed population); the others
    # as independent.
    conditional = float(np.sum(demand[single] ** 2 * means[single] / demand[single])) if single.any() else 0.0
    found = _found_work_variance(demand[single], throughput, n)
    total_variance = conditional + found + float(variances[~single].sum())
    total_variance = float(max(total_variance, 1e-300 * total_mean**2))
    shape = total_mean**2 / total_variance
    scale = total_variance / total_mean
    fitted = np.array([gammaincinv(shape, p / 100.0) * scale for p in chosen])
    # One queueing station behind a delay is iosizer.model.closed_tails' network (closed form, issue 27);
    # the mixture below is the same distribution (within 1e-7: tests/model/test_transforms.py), and
    # closed_tails imports this module, so it is not called from here (no import cycle).
    exact_mix = _cycle_quantiles(demand, count, others, n, chosen, fitted)
    if exact_mix is not None:
        return {f"response_{percentile_key(p)}": constant_delay + float(x) for p, x in zip(chosen, exact_mix)}
    # too many arrival states to sum: the gamma fit of the moments
    return {f"response_{percentile_key(p)}": constant_delay + float(gammaincinv(shape, p / 100.0) * scale)
            for p in chosen}


def _delay_station(d: float, chosen: Sequence[float]) -> tuple[float, float, list[float]]:
    """(mean, variance, percentiles) of a delay station's time: exponential of mean D."""
    return d, d * d, [float(-d * np.log1p(-p / 100.0)) for p in chosen]


def _single_server_station(d: float, x_down: np.ndarray, chosen: Sequence[float]) -> tuple[float, float, list[float]]:
    """(mean, variance, percentiles) at a single server: Erlang(j + 1) in D given j found, j by the
    arrival theorem's marginal (``x_down``: X(N-1), ..., X(1), 0)."""
    utilisation = np.minimum(x_down * d, 1.0)  # U(N-1), U(N-2), ..., U(0) = 0
    log_prefix = np.concatenate([[0.0], np.cumsum(_log(utilisation[:-1]))])
    weights = np.exp(log_prefix) * (1.0 - utilisation)  # p(j | N-1), j = 0..N-1
    weights = weights / weights.sum()
    order = np.arange(1, weights.size + 1)
    mean = d * float(weights @ order)
    variance = d * d * float(weights @ (order * (order + 1))) - mean**2
    return mean, variance, [_erlang_mixture_quantile(weights, d, p / 100.0) for p in chosen]


def _multi_server_station(d: float, c: float, found: np.ndarray,
                          chosen: Sequence[float]) -> tuple[float, float, list[float]]:
    """(mean, variance, percentiles) at c servers: the wait for j - c + 1 departures at rate c / D, then
    the service; given j found (``found``: its distribution), exact: Erlang((j - c + 1)+) in D / c, then
    Exp(D); the mixture inverted."""
    from scipy.special import gammaincinv

    from iosizer.model.transforms import erlang_mixture_law

    ahead = np.maximum(np.arange(found.size) - c + 1, 0.0) * d / c
    mean = d + float(found @ ahead)
    variance = d * d + float(found @ (ahead * d / c)) + float(found @ ahead**2) - float(found @ ahead) ** 2
    shape, scale = mean**2 / variance, variance / mean
    fitted = np.array([gammaincinv(shape, p / 100.0) * scale for p in chosen])
    stages = np.column_stack([np.ones(found.size), ahead * c / d])
    law = erlang_mixture_law(found, stages, np.array([d, d / c]), np.zeros(0))
    return mean, variance, [float(x) for x in _mixture_quantiles(law, chosen, fitted)]


def closed_network_grid_point(demands: object, think_time: float, population: int, servers: object = None,
                              constant_delay: float = 0.0) -> dict[str, float] | None:
    """Where a closed network sits on the multi-server error grid (``closed_percentiles.csv``), or None where
    :func:`closed_network_percentiles` is exact (no c-server station, or one queueing station: issue 27).

    Axes: ``servers`` the largest c of a multi-server station; ``stations`` the queueing (finite-server)
    stations; ``bottleneck`` 1 where that station has the largest D / c of them, else 0; ``think_ratio``
    the think time, constant delay and delay stations over the queueing stations' demands; ``load`` the
    population over the knee N* = (every demand + think + constant delay) / max D / c. A proxy, not the
    network itself: the grid's networks (benchmarks/grid_closed_network_tails.py) vary these axes.
    """
    demand = np.atleast_1d(np.asarray(demands, dtype=np.float64))
    count = np.ones_like(demand) if servers is None else np.atleast_1d(np.asarray(servers, dtype=np.float64))
    finite = np.isfinite(count)
    multi = finite & (count > 1)
    if finite.sum() < 2 or not multi.any():
        return None
    per_server = demand[finite] / count[finite]
    k = int(np.flatnonzero(multi)[np.argmax(count[multi])])
    outside = float(demand[~finite].sum()) + float(think_time) + float(constant_delay)
    knee = (float(demand[finite].sum()) + outside) / float(per_server.max())
    return {"servers": float(count[k]), "stations": float(finite.sum()),
            "bottleneck": float(demand[k] / count[k] >= per_server.max()),
            "think_ratio": outside / float(demand[finite].sum()), "load": population / knee}


# --- a mixture of ports' M/M/c-form responses (the load-sharing model's per-port queues) ----------


def port_mixture_percentiles(ports: Mapping[str, np.ndarray], non_core: float,
                             percentiles: Sequence[float]) -> dict[str, np.ndarray]:
    """``response_pP`` of a throughput-weighted mixture of ports' responses in M/M/c form, per load point.

    ``ports`` (the load-sharing model's ``port_waits``): each port's ``service`` s_p, mean ``wait`` W_p
    and wait probability ``p_wait`` P_p (B, P), and its ``weight`` (P,). Each port's response is its
    exponential service plus a wait that is 0 with probability 1 - P_p and exponential otherwise: the
    M/M/c form, exact for one M/M/c queue per port group (Erlang C); where port groups of different
    sizes pool their cores it matches each port's wait probability and mean wait (not its variance).
    The percentiles are those of the mixture, sum_p w_p P(T_p > t) = 1 - q, solved by bisection (to
    1e-12 relative) at every load point; ``non_core`` (a constant time every I/O also spends, in
    service times) shifts each percentile by itself. Measured error: the grid its caller names.
    """
    chosen = _keys(percentiles)
    busy = ports["weight"] > 0
    service, wait, p_wait = (ports[k][:, busy] for k in ("service", "wait", "p_wait"))
    weights = ports["weight"][busy]
    with np.errstate(under="ignore", divide="ignore", invalid="ignore"):
        log_c = np.log(p_wait)
        # Conditional wait W / P, as a rate relative to the service rate (the r of the M/M/c form).
        r = np.where(wait > 0, service * p_wait / np.where(wait > 0, wait, 1.0), np.inf)
    r = np.where(np.isfinite(r), r, 1e300)

    def mixture(t: np.ndarray) -> np.ndarray:
        return np.exp(_mmc_log_survival(t[:, None] / service, r, log_c)) @ weights

    out: dict[str, np.ndarray] = {}
    for p in chosen:
        q = p / 100.0
        per_port = _exp_service_response(log_c, np.log1p(-np.minimum(p_wait, 1.0 - 1e-16)), r,
                                         np.full(r.shape, q)) * service
        lo, hi = per_port.min(axis=1), per_port.max(axis=1)
        for _ in range(100):
            if np.all(hi - lo <= 1e-12 * hi):
                break
            mid = 0.5 * (lo + hi)
            above = mixture(mid) > 1.0 - q
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        # Every I/O also spends the fixed non-core time c: it shifts the whole distribution.
        out[f"response_{percentile_key(p)}"] = 0.5 * (lo + hi) + non_core
    return out
