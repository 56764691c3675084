"""The M/D/c waiting-time distribution, exact (Crommelin 1932), and so M/D/1's.

Poisson arrivals at rate lambda, c servers, every service exactly D, FCFS.
Times here are in units of D and a = lambda D < c is the offered load.

Number in system. Every job in service at time t leaves by t + D and no
other job can (a job that starts after t ends after t + D), so
N(t + D) = max(N(t) - c, 0) + A with A ~ Poisson(a): a Markov chain whose
stationary law p_j is the time-stationary law of N (Crommelin's chain).

Wait. Let a job arrive at t and write x = kD + u, 0 <= u < D. It starts by
t + x exactly when fewer than c of the jobs ahead of it are still present
then (FCFS and work-conserving). Those jobs ahead still present at t + u are
the max(N(t + u - D) - c, 0) left of the jobs present D earlier plus the
Poisson(a (1 - u)) arrivals in (t + u - D, t); each further D removes c of
them. With Y = max(N - c, 0) at a random time (independent of the later
arrivals)::

    P(W <= kD + u) = P(Y + Poisson(a (1 - u)) <= (k + 1) c - 1)

(Crommelin, "Delay probability formulae when the holding times are
constant", P.O. Elec. Engrs. J. 25, 1932; G. J. Franx, "A simple solution
for the M/D/c waiting time distribution", Oper. Res. Lett. 29, 2001). At
u = 0 this is P(N <= (k + 1) c - 1), and P(W = 0) = P(N <= c - 1).

Numerics. The chain is truncated at L = c + 40 / ln z0 + the Poisson
spread, z0 > 1 the root of z^c = e^(a (z - 1)) that sets the geometric
decay of p_j (so the mass cut off is below 1e-17), and solved as one sparse
linear system (scipy's SuperLU). No cancelling sum is formed, unlike
Erlang's closed M/D/1 series, which loses every digit once x/D passes ~30.
The quantile is found by bisection in u inside the right D-interval, to
1e-12 of D. Checked against Erlang's series in 50-digit mpmath (c = 1) and a
simulation of the recursion S_n = max(A_n, S_(n-c) + D) (c > 1) in
tests/model/test_mdc.py.
"""

from __future__ import annotations

import numpy as np

from iosizer.errors import InputError

__all__ = ["MAX_STATES", "mdc_stationary", "mdc_wait_cdf", "mdc_wait_quantile"]

#: Largest truncated chain solved (states x Poisson width); past it the work is refused.
MAX_STATES = 20_000_000
_TAIL_DIGITS = 40.0  # ln(1e-17): mass left beyond the truncation


def _decay(a: float, c: int) -> float:
    """ln z0, z0 > 1 the root of c ln z = a (z - 1): p_j ~ z0^-j (bisection on u = ln z)."""
    lo, hi = 0.0, 1.0
    while c * hi - a * np.expm1(hi) > 0:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if c * mid - a * np.expm1(mid) > 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def mdc_stationary(offered_load: float, servers: int) -> np.ndarray:
    """p_j = P(N = j) at a random time for the M/D/c queue, j = 0..L (the truncation point)."""
    from scipy.sparse import coo_matrix, identity
    from scipy.sparse.linalg import spsolve
    from scipy.stats import poisson

    a, c = float(offered_load), int(servers)
    if not 0 < a < c:
        raise InputError(f"M/D/c needs 0 < offered load < servers, got {a:g} with {c}")
    spread = int(np.ceil(a + 12.0 * np.sqrt(a) + 30.0))
    arrivals = poisson.pmf(np.arange(spread + 1), a)
    states = c + int(np.ceil(_TAIL_DIGITS / _decay(a, c))) + spread
    if states * (spread + 1) > MAX_STATES:
        raise InputError(f"M/D/c with {c} servers at utilisation {a / c:.6g} needs {states} states: "
                         "beyond the exact solver's bound; use --simulate")
    i = np.arange(states + 1)
    base = np.maximum(i - c, 0)
    to = np.minimum(base[:, None] + np.arange(spread + 1)[None, :], states)
    rows, cols = to.ravel(), np.repeat(i, spread + 1)
    # Balance equations (P^T - I) p = 0 are singular once: pin p at the busiest state to 1 (its column
    # moves to the right-hand side) and drop the last equation (the truncated state's); no dense
    # normalising row, so the sparse LU stays banded. Then normalise.
    balance = (coo_matrix((np.tile(arrivals, states + 1), (rows, cols)), shape=(states + 1, states + 1))
               - identity(states + 1, format="coo")).tocsc()
    pin = min(int(a), states)
    keep = np.delete(i, pin)
    rhs = -balance[:, [pin]].toarray().ravel()[:-1]
    solved = spsolve(balance[:-1][:, keep].tocsc(), rhs)
    p = np.empty(states + 1)
    p[keep], p[pin] = solved, 1.0
    p = np.maximum(p, 0.0)
    return p / p.sum()


def _waiting_counts(p: np.ndarray, c: int) -> np.ndarray:
    """Law of Y = max(N - c, 0)."""
    y = p[c:].copy()
    y[0] = p[:c + 1].sum()
    return y


def _cdf_in_interval(y: np.ndarray, a: float, c: int, k: np.ndarray, u: np.ndarray) -> np.ndarray:
    """P(W <= k + u) = sum_j y_j P(Poisson(a (1 - u)) <= (k + 1) c - 1 - j), vectorised over (k, u)."""
    from scipy.special import gammaincc

    j = np.arange(y.size)
    room = ((k + 1) * c - 1)[:, None] - j[None, :]
    mean = (a * (1.0 - u))[:, None]
    with np.errstate(invalid="ignore"):
        cdf = np.where(room >= 0, gammaincc(np.maximum(room, 0) + 1.0, np.maximum(mean, 1e-300)), 0.0)
    return cdf @ y


def mdc_wait_cdf(x: object, offered_load: float, servers: int) -> np.ndarray:
    """P(W <= x) of the M/D/c wait, x >= 0 in units of the service time D."""
    xs = np.atleast_1d(np.asarray(x, dtype=np.float64))
    c = int(servers)
    y = _waiting_counts(mdc_stationary(offered_load, c), c)
    k = np.floor(xs)
    return _cdf_in_interval(y, float(offered_load), c, k, xs - k)


def mdc_wait_quantile(offered_load: float, servers: int, probability: object) -> np.ndarray:
    """q-quantiles of the M/D/c wait in units of D (0 where q <= P(W = 0)), to 1e-12 of D."""
    q = np.atleast_1d(np.asarray(probability, dtype=np.float64))
    a, c = float(offered_load), int(servers)
    p = mdc_stationary(a, c)
    at_multiples = np.cumsum(p)[c - 1::c]  # F(kD) = P(N <= (k + 1) c - 1), k = 0, 1, ...
    k = np.searchsorted(at_multiples, q, side="left") - 1  # F(kD) < q <= F((k + 1) D)
    if np.any(k + 1 >= at_multiples.size):
        raise InputError("M/D/c percentile beyond the truncated chain's tail (percentile too close to 100)")
    y = _waiting_counts(p, c)
    lo, hi = np.zeros_like(q), np.ones_like(q)
    kk = np.maximum(k, 0).astype(np.float64)
    for _ in range(45):  # 2^-45 of D
        mid = 0.5 * (lo + hi)
        below = _cdf_in_interval(y, a, c, kk, mid) < q
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return np.where(k < 0, 0.0, kk + 0.5 * (lo + hi))
