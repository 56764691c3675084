"""The self-check every solver runs before it returns (bounds, Little, N = X (R + Z), U <= 1).

The system and its formulas: :mod:`iosizer.model.mva`; derivations: docs/validation/mva.md.
"""

from __future__ import annotations


import numpy as np

from iosizer.errors import ConsistencyError
from iosizer.model.mva._constants import _BOUND_RTOL, _CONSERVATION_RTOL, _LITTLE_RTOL


def _require(
    ok: np.ndarray,
    check: str,
    populations: np.ndarray,
    lhs: np.ndarray,
    rhs: np.ndarray,
) -> None:
    """Raise ConsistencyError at the first False of ``ok`` (axis 0: population)."""
    if ok.all():
        return
    where = tuple(int(i) for i in np.argwhere(~ok)[0])
    row = populations[where[0]]
    pop = int(row[0]) if row.size == 1 else tuple(int(v) for v in row)
    lhs_v = float(np.broadcast_to(lhs, ok.shape)[where])
    rhs_v = float(np.broadcast_to(rhs, ok.shape)[where])
    raise ConsistencyError(
        f"MVA self-check failed: {check} at population {pop}: "
        f"{lhs_v:.17g} vs {rhs_v:.17g}"
    )


def _self_check(
    *,
    populations: np.ndarray,
    throughput: np.ndarray,
    residence: np.ndarray,
    queue_length: np.ndarray,
    utilization: np.ndarray,
    demands: np.ndarray,
    think: np.ndarray,
    servers: np.ndarray,
    conservation_rtol: float = _CONSERVATION_RTOL,
) -> None:
    """Check a solution against bounds and Little's law; raise ConsistencyError.

    Shapes: ``populations`` and ``throughput`` (P, C); ``residence``,
    ``queue_length``, ``utilization`` (P, C, K); ``demands`` (C, K);
    ``think`` (C,); ``servers`` (K,) with inf for delay stations. P rows are
    the populations checked (1..N for single-class, the final vector for
    multi-class). A violated law means a bug or numerical breakdown, so we
    refuse to return the numbers rather than loosen the check.
    """
    pops = np.asarray(populations, dtype=np.float64)
    x = throughput
    for name, values in (
        ("throughput", x),
        ("residence time", residence),
        ("queue length", queue_length),
        ("utilization", utilization),
    ):
        ok = np.isfinite(values) & (values >= 0)
        _require(ok, f"{name} finite and >= 0", pops, values, np.zeros(1))

    finite = np.isfinite(servers)
    _check_bounds(pops, x, residence, demands, think, servers, finite)
    _check_laws(pops, x, residence, queue_length, think, conservation_rtol)

    station_util = utilization.sum(axis=1)
    ok = (station_util <= 1 + _BOUND_RTOL) | ~finite
    _require(ok, "utilization <= 1", pops, station_util, np.ones(1))


def _check_bounds(pops: np.ndarray, x: np.ndarray, residence: np.ndarray, demands: np.ndarray,
                  think: np.ndarray, servers: np.ndarray, finite: np.ndarray) -> None:
    """The asymptotic bounds: X under the bottleneck's c_k / D_k and under N / (D + Z), R at least D."""
    # Bottleneck: each class alone cannot push a station past c_k / D_ck.
    with np.errstate(divide="ignore"):
        caps = np.where(finite & (demands > 0), servers / demands, np.inf)
    x_bottleneck = caps.min(axis=1)
    ok = x <= x_bottleneck * (1 + _BOUND_RTOL)
    _require(ok, "throughput <= bottleneck bound c_k/D_k", pops, x, x_bottleneck)

    total = demands.sum(axis=1)
    with np.errstate(over="ignore"):  # N / (D + Z) past 1e308 is no bound at all: inf checks nothing
        x_light = pops / (total + think)
    ok = x <= x_light * (1 + _BOUND_RTOL)
    _require(ok, "throughput <= N/(D+Z)", pops, x, x_light)

    response = residence.sum(axis=2)
    ok = (response >= total * (1 - _BOUND_RTOL)) | (pops == 0)
    _require(ok, "response time >= total demand D", pops, response, total)


def _check_laws(pops: np.ndarray, x: np.ndarray, residence: np.ndarray, queue_length: np.ndarray,
                think: np.ndarray, conservation_rtol: float) -> None:
    """Little's law at every station, Q_k = X R_k, and the population's conservation, sum Q + X Z = N."""
    little = x[:, :, None] * residence
    scale = np.maximum(queue_length, little)
    ok = np.abs(queue_length - little) <= _LITTLE_RTOL * scale
    _require(ok, "Little's law Q_k = X R_k", pops, queue_length, little)

    jobs = queue_length.sum(axis=2) + x * think
    ok = np.abs(jobs - pops) <= conservation_rtol * pops
    _require(ok, "population conservation sum Q + X Z = N", pops, jobs, pops)
