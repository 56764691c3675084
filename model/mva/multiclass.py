"""Multi-class MVA: exact over population vectors, Bard-Schweitzer, the scv correction.

The system and its formulas: :mod:`iosizer.model.mva`; derivations: docs/validation/mva.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from iosizer.errors import ConvergenceError, InputError
from iosizer.model._validate import as_nonnegative, as_positive, as_server_count
from iosizer.model.mva._constants import _AUTO_EXACT_VECTORS, _MAX_EXACT_VECTORS
from iosizer.model.mva._inputs import _as_servers, _check_scale
from iosizer.model.mva._selfcheck import _self_check
from iosizer.model.mva.results import MultiClassResult
from iosizer.model.mva.single import _as_scv, _readonly, _seidmann_split


def _as_multiclass(
    demands: object, think_times: object, populations: object, servers: object
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    d = as_nonnegative("demands", demands)
    if d.ndim == 1:
        d = d[None, :]
    if d.ndim != 2:
        raise InputError(f"demands must be (classes, stations), got shape {d.shape}")
    n_classes, n_stations = d.shape
    idle = np.flatnonzero(d.sum(axis=1) <= 0)
    if idle.size:
        raise InputError(f"demands: class {int(idle[0])} has no positive demand")
    z = as_nonnegative("think_times", think_times)
    if z.ndim == 0:
        z = np.full(n_classes, float(z))
    if z.shape != (n_classes,):
        raise InputError(
            f"think_times must have {n_classes} entries, got shape {z.shape}"
        )
    n = as_nonnegative("populations", populations)
    if n.ndim == 0:
        n = n.reshape(1)
    if n.shape != (n_classes,):
        raise InputError(
            f"populations must have {n_classes} entries, got shape {n.shape}"
        )
    fractional = n != np.floor(n)
    if fractional.any():
        raise InputError(
            f"populations must be whole numbers >= 0, got {float(n[fractional][0]):g}"
        )
    if n.sum() <= 0:
        raise InputError("populations must hold at least one job, got all zeros")
    _check_scale(d, z, n.sum())
    return d, z, n.astype(np.int64), _as_servers(servers, n_stations)


def _exact_step(
    counts: np.ndarray,
    idx: np.ndarray,
    strides: np.ndarray,
    q_flat: np.ndarray,
    queue_part: np.ndarray,
    fixed_part: np.ndarray,
    think: np.ndarray,
    u_flat: np.ndarray | None = None,
    extra: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One batch of population vectors.

    Returns X (M, C) and the queueing-part and total residence times (M, C, K).
    ``extra`` (K,), (cv_k^2 - 1) / 2, and ``u_flat``, the utilisations per
    population vector: the residual-service correction (None: exponential).
    """
    has = counts > 0
    # Q_k(n - e_c): the flat index of n - e_c is idx - stride_c (valid if n_c > 0).
    prev = np.where(has, idx[:, None] - strides[None, :], 0)
    mask = has[:, :, None]
    seen = q_flat[prev]
    if extra is not None:
        # 1 + Q - U + U (1 + cv^2) / 2 = 1 + Q + U (cv^2 - 1) / 2, all at n - e_c.
        seen = seen + u_flat[prev] * extra
    rq = np.where(mask, queue_part[None] * (1.0 + seen), 0.0)
    r = np.where(mask, rq + fixed_part[None], 0.0)
    cycle = think[None, :] + r.sum(axis=2)
    x = np.divide(counts, cycle, out=np.zeros(cycle.shape), where=has)
    if extra is not None:
        x, rq, r = _hold_at_bounds(counts, x, rq, r, queue_part, think)
    return x, rq, r


def _hold_at_bounds(
    counts: np.ndarray, x: np.ndarray, rq: np.ndarray, r: np.ndarray, load: np.ndarray, think: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hold every station's utilisation at or under 1 where the residual correction carried it past.

    ``load`` (C, K) is the per-server demand D_ck / c_k (0 at delay
    stations). Each class is slowed by the largest ratio U_k > 1 among the
    stations it visits, all at once, so every station ends at or under 1 in
    one step (a station at U_k > 1 sees each of its classes slowed by at least
    U_k). The jobs over the bound wait at the over-full stations, shared in
    proportion to U_k - 1: X_c R_c grows to N_c, so N = X (R + Z) still holds.
    With one station over 1 this is the former clamp of the most loaded
    station (single-class, :func:`_load_dependent_mva`'s). Holding the most
    loaded station first instead jumped as two over-full stations swapped
    places, and Schweitzer's fixed point then cycled (docs/validation/mva.md).
    """
    util = x @ load
    visits = (load > 0)[None]
    ratio = np.maximum(np.where(visits, util[:, None, :], 0.0).max(axis=2), 1.0)
    if not (ratio > 1.0).any():
        return x, rq, r
    has = counts > 0
    over = np.where(visits, np.maximum(util[:, None, :] - 1.0, 0.0), 0.0)
    total = over.sum(axis=2, keepdims=True)
    share = np.divide(over, total, out=np.zeros(over.shape), where=total > 0)
    cycle = think[None, :] + r.sum(axis=2)
    excess = np.where(has, (ratio - 1.0) * cycle, 0.0)[:, :, None] * share
    rq, r = rq + excess, r + excess
    x = np.divide(counts, think[None, :] + r.sum(axis=2), out=np.zeros(x.shape), where=has)
    return x, rq, r


def _multiclass_exact(
    queue_part: np.ndarray, fixed_part: np.ndarray, think: np.ndarray, pops: np.ndarray,
    extra: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact multi-class MVA; returns X (C,) and residence (C, K) at ``pops``.

    Vectors are processed level by level (total population t = 1, 2, ...):
    every n - e_c lies one level down, so each level is one numpy batch.
    ``extra`` (K,): the residual-service correction of :func:`_exact_step`.
    """
    n_classes, n_stations = queue_part.shape
    shape = tuple(int(v) + 1 for v in pops)
    size = math.prod(shape)
    strides = np.array([math.prod(shape[c + 1 :]) for c in range(n_classes)])
    # Queue length of the queueing parts, per population vector and station.
    q = np.zeros(shape + (n_stations,))
    q_flat = q.reshape(size, n_stations)
    # Utilisation of the queueing parts (needed only by the correction).
    u_flat = None if extra is None else np.zeros((size, n_stations))
    counts = np.indices(shape).reshape(n_classes, size).T
    levels = counts.sum(axis=1)
    order = np.argsort(levels, kind="stable")
    starts = np.searchsorted(levels[order], np.arange(int(pops.sum()) + 2))
    for t in range(1, int(pops.sum()) + 1):
        idx = order[starts[t] : starts[t + 1]]
        x, rq, _ = _exact_step(
            counts[idx], idx, strides, q_flat, queue_part, fixed_part, think, u_flat, extra
        )
        q_flat[idx] = np.einsum("mc,mck->mk", x, rq)
        if u_flat is not None:
            u_flat[idx] = x @ queue_part
    last = np.array([size - 1])
    x, _, r = _exact_step(
        counts[last], last, strides, q_flat, queue_part, fixed_part, think, u_flat, extra
    )
    return x[0], r[0]


def _multiclass_schweitzer(
    queue_part: np.ndarray,
    fixed_part: np.ndarray,
    think: np.ndarray,
    pops: np.ndarray,
    tol: float,
    max_iter: int,
    extra: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Bard-Schweitzer fixed point; X (C,), residence (C, K), iterations.

    ``extra`` (K,): the residual-service correction, with Schweitzer's
    estimate applied to utilisations too, U_k(N - e_c) ~ U_k(N) - U_ck(N) / N_c.
    Where it drives stations past utilisation 1, :func:`_hold_at_bounds` slows
    each class by the largest U_k of the stations it visits, all stations at
    once: the map stays continuous and independent of the stations' order
    (holding the most loaded station first jumped where two swapped places,
    and the iteration cycled across the jump). The relaxation below damps
    what still oscillates.
    """
    has = pops > 0
    n = pops.astype(np.float64)
    n_safe = np.where(has, n, 1.0)
    visited = queue_part > 0
    # Start from each class's jobs spread evenly over the stations it queues at.
    spread = np.maximum(visited.sum(axis=1, keepdims=True), 1)
    qq = np.where(visited, n[:, None] / spread, 0.0)
    uu = np.zeros_like(qq)
    q_old = None
    # The corrected map (extra < 0 at cv^2 < 1) can cycle instead of settling (two classes, cv^2 = 0: a
    # period-2 orbit); after a stall the update is relaxed, which keeps the fixed point and damps the cycle.
    relax, best, stalled = 1.0, np.inf, 0
    for iteration in range(1, max_iter + 1):
        seen = qq.sum(axis=0)[None, :] - qq / n_safe[:, None]
        if extra is not None:
            seen = seen + (uu.sum(axis=0)[None, :] - uu / n_safe[:, None]) * extra
        rq = np.where(has[:, None], queue_part * (1.0 + seen), 0.0)
        r = np.where(has[:, None], rq + fixed_part, 0.0)
        x = np.divide(n, think + r.sum(axis=1), out=np.zeros_like(n), where=has)
        if extra is not None:
            x, rq, r = (a[0] for a in _hold_at_bounds(pops[None, :], x[None, :], rq[None], r[None],
                                                      queue_part, think))
            uu = relax * x[:, None] * queue_part + (1.0 - relax) * uu
        qq = relax * x[:, None] * rq + (1.0 - relax) * qq
        q_new = x[:, None] * r
        if q_old is not None:
            change = float((np.abs(q_new - q_old) / np.where(q_new > 0, q_new, 1.0)).max())
            if change < tol:
                return x, r, iteration
            best, stalled = (change, 0) if change < best * (1.0 - 1e-9) else (best, stalled + 1)
            if stalled >= 50 and relax > 0.1:
                relax, best, stalled = relax / 2.0, np.inf, 0
        q_old = q_new
    raise ConvergenceError(
        f"Schweitzer MVA did not converge to tol {tol:g} in {max_iter} iterations"
    )


def mva_multiclass(
    demands: Sequence[Sequence[float]] | np.ndarray,
    think_times: Sequence[float] | np.ndarray,
    populations: Sequence[int] | np.ndarray,
    servers: Sequence[float] | np.ndarray | None = None,
    method: str = "auto",
    tol: float = 1e-10,
    max_iter: int = 10_000,
    service_scv: float | Sequence[float] | np.ndarray = 1.0,
) -> MultiClassResult:
    """Solve a multi-class closed network at population vector ``populations``.

    ``demands``: (C, K) service demands D_ck >= 0 (time units; 0 = class c
    never visits station k; every class needs some positive demand).
    ``think_times``: (C,) Z_c >= 0 (time units). ``populations``: (C,) whole
    numbers N_c >= 0, not all zero. ``servers``: as in :func:`mva`; single
    servers and delay stations are handled exactly; a c-server station is
    replaced by Seidmann's split (queue D/c + delay D (c-1)/c) and the
    method name then ends in ``"+seidmann"`` (unless c >= sum(N_c): such a
    station never queues and is solved exactly as a delay).

    ``method``: ``"exact"`` (recursion over all prod(N_c + 1) population
    vectors, at most 2,000,000), ``"schweitzer"`` (Bard-Schweitzer fixed
    point, converged when the largest relative change of any Q_ck falls
    below ``tol``; :class:`~iosizer.errors.ConvergenceError` after
    ``max_iter`` iterations) or ``"auto"`` (exact up to 20,000 vectors).

    ``service_scv``: service-time cv^2 per station (scalar or K entries;
    delay stations ignore it). 1 is exponential, exact. Other values apply
    :data:`SCV_APPROXIMATION`'s multi-class form at single-server stations,
    R_ck = D_ck (1 + Q_k - U_k + U_k (1 + cv_k^2) / 2) with every class's Q_k
    and U_k at n - e_c, utilisation held at or under 1 (each class slowed by
    the most over-full station it visits; docs/validation/mva.md), and
    append ``"+residual-scv"`` to the method; a queueing c-server station
    with scv != 1 is refused (:func:`mva` solves it exactly).
    """
    d, z, pops, c = _as_multiclass(demands, think_times, populations, servers)
    scv = _as_scv(service_scv, d.shape[1])
    tol = float(as_positive("tol", tol))
    max_iter = int(as_server_count("max_iter", max_iter))
    method = _multiclass_method(method, pops)
    x, r, iterations, method = _solve_multiclass(d, z, pops, c, scv, method, tol, max_iter)
    return _multiclass_result(d, z, pops, c, x, r, method, iterations)


def _solve_multiclass(d: np.ndarray, z: np.ndarray, pops: np.ndarray, c: np.ndarray, scv: np.ndarray | None,
                      method: str, tol: float, max_iter: int) -> tuple[np.ndarray, np.ndarray, int, str]:
    """X (C,), R (C, K), the iterations and the method's full name, by ``method`` (exact or schweitzer)
    over Seidmann's split of the c-server stations."""
    # With c >= sum(N_c) servers a station never queues: exactly a delay.
    solver_servers = np.where(c >= pops.sum(), np.inf, c)
    queue_part, fixed_part = _seidmann_split(d, solver_servers[None, :])
    extra = None if scv is None else _residual_extra(scv, solver_servers)
    if method == "exact":
        x, r = _multiclass_exact(queue_part, fixed_part, z, pops, extra)
        iterations = 0
    else:
        x, r, iterations = _multiclass_schweitzer(
            queue_part, fixed_part, z, pops, tol, max_iter, extra
        )
    if ((solver_servers > 1) & np.isfinite(solver_servers)).any():
        method += "+seidmann"
    if scv is not None:
        method += "+residual-scv"
    return x, r, iterations, method


def _multiclass_result(d: np.ndarray, z: np.ndarray, pops: np.ndarray, c: np.ndarray, x: np.ndarray,
                       r: np.ndarray, method: str, iterations: int) -> MultiClassResult:
    """Queue lengths (Little) and utilisations from X and R, self-checked, as a read-only result."""
    queue = x[:, None] * r
    per_server = np.where(np.isinf(c), 1.0, c)
    utilization = x[:, None] * d / per_server[None, :]
    _self_check(
        populations=pops[None, :],
        throughput=x[None, :],
        residence=r[None],
        queue_length=queue[None],
        utilization=utilization[None],
        demands=d,
        think=z,
        servers=c,
    )
    return MultiClassResult(
        populations=_readonly(pops),
        throughput=_readonly(x),
        response_time=_readonly(r.sum(axis=1)),
        utilization=_readonly(utilization),
        station_utilization=_readonly(utilization.sum(axis=0)),
        queue_length=_readonly(queue),
        residence_time=_readonly(r),
        method=method,
        iterations=iterations,
    )


def _multiclass_method(method: str, pops: np.ndarray) -> str:
    """``exact`` or ``schweitzer``: ``auto`` chooses by the number of population vectors."""
    vectors = math.prod(int(v) + 1 for v in pops)
    if method == "auto":
        method = "exact" if vectors <= _AUTO_EXACT_VECTORS else "schweitzer"
    if method == "exact" and vectors > _MAX_EXACT_VECTORS:
        raise InputError(
            f"method='exact' needs prod(N_c + 1) <= {_MAX_EXACT_VECTORS:,} "
            f"population vectors, got {vectors:,}; use method='schweitzer'"
        )
    if method not in ("exact", "schweitzer"):
        raise InputError(
            f"method must be 'auto', 'exact' or 'schweitzer', got {method!r}"
        )
    return method


def _residual_extra(scv: np.ndarray, solver_servers: np.ndarray) -> np.ndarray:
    """(cv^2 - 1) / 2 per station, the residual-service correction's term; delay stations have no
    queue to correct. A c-server station that queues has no residual form in Seidmann's split: refused."""
    queued = (solver_servers > 1) & np.isfinite(solver_servers) & (scv != 1.0)
    if queued.any():
        k = int(np.flatnonzero(queued)[0])
        raise InputError(
            f"service_scv {float(scv[k]):g} at station {k} of {int(solver_servers[k])} servers: "
            "multi-class MVA splits c-server stations (Seidmann) and has no residual-service form for "
            "them; give it scv 1 there, or solve one class with mva()"
        )
    return np.where(np.isinf(solver_servers), 0.0, (scv - 1.0) / 2.0)
