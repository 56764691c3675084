"""Asymptotic and balanced job bounds, and the knee (Lazowska et al. 1984, ch. 5).

The system and its formulas: :mod:`iosizer.model.mva`; derivations: docs/validation/mva.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from iosizer.errors import InputError
from iosizer.model._validate import as_positive, scalar_or_array
from iosizer.model.mva._inputs import _as_demands, _as_servers, _as_think
from iosizer.model.mva.results import AsymptoticBounds, BalancedJobBounds


def _bottleneck_demand(demands: np.ndarray, servers: np.ndarray) -> float:
    """max_k D_k / c_k over queueing and c-server stations (0 if only delays)."""
    finite = np.isfinite(servers)
    if not finite.any():
        return 0.0
    return float(np.max(demands[finite] / servers[finite]))


def knee_population(
    demands: Sequence[float] | np.ndarray,
    think_time: float = 0.0,
    servers: Sequence[float] | np.ndarray | None = None,
) -> float:
    """Knee population N* = (D + Z) / max_k(D_k / c_k), in jobs.

    Where the two asymptotes of the throughput curve cross: below N* jobs
    mostly wait on think and latency, above it they queue at the bottleneck.
    D includes delay stations; the maximum runs over queueing and c-server
    stations. Returns inf when every station is a delay station.
    """
    d = _as_demands(demands)
    z = _as_think("think_time", think_time)
    c = _as_servers(servers, d.size)
    bottleneck = _bottleneck_demand(d, c)
    return math.inf if bottleneck == 0.0 else (float(d.sum()) + z) / bottleneck


def asymptotic_bounds(
    demands: Sequence[float] | np.ndarray,
    think_time: float,
    population: float | Sequence[float] | np.ndarray,
    servers: Sequence[float] | np.ndarray | None = None,
) -> AsymptoticBounds:
    """Asymptotic bounds on throughput and response time at ``population``.

    X(N) <= min(N / (D + Z), 1 / max_k(D_k / c_k)) and
    R(N) >= max(D, N max_k(D_k / c_k) - Z), where D = sum_k D_k includes
    delay stations and the maximum runs over queueing and c-server stations.
    Demands and think time in time units; throughput in jobs per time unit.
    """
    d = _as_demands(demands)
    z = _as_think("think_time", think_time)
    n = as_positive("population", population)
    c = _as_servers(servers, d.size)
    total = float(d.sum())
    bottleneck = _bottleneck_demand(d, c)
    x_cap = math.inf if bottleneck == 0.0 else 1.0 / bottleneck
    x_upper = np.minimum(n / (total + z), x_cap)
    r_lower = np.maximum(total, n * bottleneck - z)
    return AsymptoticBounds(
        population=scalar_or_array(n),
        throughput_upper=scalar_or_array(x_upper),
        response_lower=scalar_or_array(r_lower),
    )


def balanced_job_bounds(
    demands: Sequence[float] | np.ndarray,
    think_time: float,
    population: float | Sequence[float] | np.ndarray,
    servers: Sequence[float] | np.ndarray | None = None,
) -> BalancedJobBounds:
    """Balanced job bounds (Zahorjan et al. 1982; Lazowska et al. table 5.3).

    For networks of single-server queueing stations only (``servers`` may be
    given but must be all ones). With D = sum_k D_k, Dmax, Davg = D / K::

        N / (D + Z + (N-1) Dmax / (1 + Z/(N D)))  <=  X(N)
        X(N)  <=  min(1/Dmax, N / (D + Z + (N-1) Davg / (1 + Z/D)))

    Demands and think time in time units, throughput in jobs per time unit.
    """
    d = _as_demands(demands)
    z = _as_think("think_time", think_time)
    n = as_positive("population", population)
    c = _as_servers(servers, d.size)
    if (c != 1).any():
        raise InputError(
            "balanced_job_bounds needs single-server queueing stations only, "
            f"got servers {float(c[c != 1][0]):g}"
        )
    total, d_max, d_avg = float(d.sum()), float(d.max()), float(d.mean())
    x_lower = n / (total + z + (n - 1) * d_max / (1 + z / (n * total)))
    x_upper = np.minimum(1 / d_max, n / (total + z + (n - 1) * d_avg / (1 + z / total)))
    return BalancedJobBounds(
        population=scalar_or_array(n),
        throughput_lower=scalar_or_array(x_lower),
        throughput_upper=scalar_or_array(x_upper),
        response_lower=scalar_or_array(n / x_upper - z),
        response_upper=scalar_or_array(n / x_lower - z),
    )
