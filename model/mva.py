"""Closed queueing networks solved by Mean Value Analysis (MVA), and their bounds.

Physical system
---------------
A *closed* network: a fixed population of N jobs (terminals, worker threads,
I/Os allowed in flight by a tag or credit pool...) circulates for ever
between K service stations and a think (terminal) station. A job "thinks"
for Z time units outside the system (user think time, local CPU work between
two I/Os), then collects a total *service demand* D_k = V_k S_k (visits times
service time per visit) at each station k, then thinks again. A station is

* a queueing station (one server, FCFS with exponential service or any other
  product-form discipline): the time spent there grows with the queue found;
* a delay (infinite-server) station: a pure latency, residence time = demand;
* a c-server station: c identical servers behind one queue, so it serves at
  rate min(j, c) / S with j jobs present (a load-dependent station).

Times are in any consistent unit (seconds, microseconds...); throughputs are
in jobs per that unit. The response time R is the time spent at the stations
per cycle, think time excluded, so that N = X (R + Z) (Little's law).

Exact MVA (Reiser & Lavenberg 1980; Lazowska et al. 1984, ch. 6)
-----------------------------------------------------------------
By the arrival theorem a job arriving at station k of a network holding n
jobs finds it as the network holding n - 1 jobs would be in equilibrium::

    R_k(n) = D_k (1 + Q_k(n-1))   queueing station
    R_k(n) = D_k                  delay station
    X(n)   = n / (Z + sum_k R_k(n))
    Q_k(n) = X(n) R_k(n)          (Little's law per station)

starting from Q_k(0) = 0. Cost O(N K).

c-server stations (Bruell, Balbo & Afshari 1984; Lazowska et al. ch. 8)
-----------------------------------------------------------------------
Only the marginal probabilities p_k(j|n) of j = 0..c-1 jobs are needed::

    R_k(n)   = (D_k / c) (1 + Q_k(n-1) + sum_{j=0}^{c-2} (c-1-j) p_k(j|n-1))
    p_k(j|n) = (X(n) D_k / j) p_k(j-1|n-1)            1 <= j <= c-1

The textbook p_k(0|n) = 1 - sum_{j>=1} (...) is a subtraction whose rounding
errors grow geometrically for c >= 3 near saturation. We use instead the
product-form identity p_k(0|n) = G_{-k}(n) / G(n), i.e.::

    p_k(0|n) = p_k(0|n-1) X(n) / X_{-k}(n)

where X_{-k} is the throughput of the same network with station k removed,
solved recursively by the same method (memoised). Only products of positive
numbers appear, so it is stable; the cost grows as 2^L in the number L of
c-server stations, so beyond L = 4 we switch to Seidmann's approximation
(Seidmann, Schweitzer & Shalev-Oren 1987): a c-server station of demand D
becomes a queueing station of demand D/c in series with a delay of
D (c-1)/c. A c-server station with c >= N never queues and is solved exactly
as a delay station.

Multi-class networks
--------------------
Exact multi-class MVA (Reiser & Lavenberg 1980) runs the same recursion over
every population vector n <= N: R_ck(n) = D_ck (1 + Q_k(n - e_c)). The
Bard-Schweitzer approximation (Bard 1979; Schweitzer 1979) replaces the
recursion by a fixed point on the full population with
Q_k(N - e_c) ~ Q_k(N) - Q_ck(N) / N_c. Both handle queueing and delay
stations exactly as stated; a c-server station is replaced by Seidmann's
split in both (see above).

Service-time variability (``service_scv`` != 1, :data:`SCV_APPROXIMATION`):
a class-c job arriving at single-server station k waits for the jobs there
minus the one in service, plus that one's residual life::

    R_ck(n) = D_ck (1 + Q_k(n - e_c) - U_k(n - e_c) + U_k(n - e_c) (1 + cv_k^2) / 2)

with Q_k and U_k summed over the classes (Schweitzer: Q_k(N) - Q_ck(N) / N_c
and U_k(N) - U_ck(N) / N_c). At cv^2 = 1 it is exact MVA's D_ck (1 + Q_k).
The wait is counted in class c's demand, as exact MVA counts it: a form
summing D_jk per class-j job found, D_ck + sum_j D_jk (Q_jk - U_jk) + ...,
equals it when every class has the same demand at the station (the rmw
network: each link carries one class, every port's TLP the same RMW work)
and otherwise does not reduce to MVA at cv^2 = 1. A station the correction
drives past utilisation 1 is held at 1: every class visiting it is slowed
by the same factor and its extra jobs wait there (single-class, this is the
clamp of :func:`mva`). A c-server station that queues is refused (no
residual form for Seidmann's split); delay stations are untouched.

Bounds (Lazowska et al. 1984, ch. 5)
------------------------------------
Asymptotic: X(N) <= min(N / (D + Z), 1 / max_k(D_k / c_k)) and
R(N) >= max(D, N max_k(D_k / c_k) - Z), with D = sum_k D_k; the knee of the
throughput curve is at N* = (D + Z) / max_k(D_k / c_k). Balanced job bounds
(Zahorjan, Sevcik, Eager & Galler 1982) for single-server networks::

    N / (D + Z + (N-1) Dmax / (1 + Z/(N D)))  <=  X(N)
    X(N)  <=  min(1/Dmax, N / (D + Z + (N-1) Davg / (1 + Z/D)))

Self-check
----------
Before returning, every solver checks each population it reports against
the asymptotic bounds, R >= D, Little's law per station, N = X (R + Z) and
utilisation <= 1, and raises :class:`~iosizer.errors.ConsistencyError`
rather than return numbers known to be wrong. Utilisation is per server,
X D / c; for a delay station it is X D, the mean number of jobs in service.

References
----------
- M. Reiser, S. S. Lavenberg, "Mean-value analysis of closed multichain
  queueing networks", J. ACM 27(2), 1980.
- E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, "Quantitative
  System Performance", Prentice-Hall, 1984, ch. 5-8.
- Y. Bard, "Some extensions to multiclass queueing network analysis", 1979;
  P. Schweitzer, "Approximate analysis of multiclass closed networks of
  queues", 1979.
- S. C. Bruell, G. Balbo, P. V. Afshari, "Mean value analysis of mixed,
  multiple class BCMP networks with load dependent service stations",
  Performance Evaluation 4, 1984.
- A. Seidmann, P. Schweitzer, S. Shalev-Oren, "Computerized closed queueing
  network models of flexible manufacturing systems", Large Scale Systems 12,
  1987.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from operator import mul

import numpy as np

from iosizer.errors import ConsistencyError, ConvergenceError, InputError
from iosizer.model.family import Column, CpuScaling, Family, FitPlan, ParameterSpec, Question, Role, Schema
from iosizer.model._validate import (
    as_nonnegative,
    as_positive,
    as_server_count,
    scalar_or_array,
)

__all__ = [
    "AsymptoticBounds",
    "BalancedJobBounds",
    "MVACurve",
    "MVAResult",
    "MultiClassResult",
    "StationResult",
    "asymptotic_bounds",
    "balanced_job_bounds",
    "check_batch_steps",
    "knee_population",
    "mva",
    "mva_multiclass",
]

# Above this many single-server stations one numpy vector op per step beats
# Python list comprehensions (measured crossover: about 20 stations).
_NUMPY_MIN_STATIONS = 20
# Exact handling of c-server stations costs 2^L solves; past this, Seidmann.
_MAX_EXACT_MULTISERVER = 4
# Multi-class exact MVA visits prod(N_c + 1) population vectors.
_MAX_EXACT_VECTORS = 2_000_000
_AUTO_EXACT_VECTORS = 20_000

_BOUND_RTOL = 1e-9
_LITTLE_RTOL = 1e-9
_CONSERVATION_RTOL = 1e-8


# --------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class StationResult:
    """One station at the final population.

    ``utilization`` is per server: X D / c for a c-server station (X D for a
    queueing station); for a delay station it is X D, the mean number of jobs
    in service, which may exceed 1. ``queue_length`` is the mean number of
    jobs at the station (jobs), ``residence_time`` the time a job spends there
    per cycle, all visits included (time units).
    """

    utilization: float
    queue_length: float
    residence_time: float


@dataclass(frozen=True, eq=False)
class MVACurve:
    """The whole recursion, populations 1..N (read-only numpy arrays).

    ``population`` (N,), ``throughput`` (N,) in jobs per time unit,
    ``response_time`` (N,) in time units (think time excluded), and
    ``utilization``, ``queue_length``, ``residence_time`` of shape (N, K).
    """

    population: np.ndarray
    throughput: np.ndarray
    response_time: np.ndarray
    utilization: np.ndarray
    queue_length: np.ndarray
    residence_time: np.ndarray


@dataclass(frozen=True, eq=False)
class MVAResult:
    """Solution of a single-class closed network at population ``population``.

    ``throughput`` in jobs per time unit, ``response_time`` in time units
    (sum of the residence times, think time excluded). ``method`` is
    ``"exact"``, ``"exact-load-dependent"`` or ``"seidmann-approximation"``.
    ``knee_population`` is N* = (D + Z) / max_k(D_k / c_k).
    """

    population: int
    throughput: float
    response_time: float
    stations: tuple[StationResult, ...]
    curve: MVACurve
    method: str
    knee_population: float

    def to_dict(self) -> dict[str, object]:
        """JSON-ready summary at the final population (plain Python floats)."""
        return {
            "population": int(self.population),
            "throughput": float(self.throughput),
            "response_time": float(self.response_time),
            "stations": [
                {
                    "utilization": float(s.utilization),
                    "queue_length": float(s.queue_length),
                    "residence_time": float(s.residence_time),
                }
                for s in self.stations
            ],
            "method": self.method,
        }


@dataclass(frozen=True, eq=False)
class MultiClassResult:
    """Solution of a multi-class closed network at populations ``populations``.

    Per class (C,): ``populations``, ``throughput`` (jobs per time unit),
    ``response_time`` (time units, think time excluded). Per class and
    station (C, K): ``utilization`` (per server, delay stations X D),
    ``queue_length`` (jobs), ``residence_time`` (time units). Per station
    (K,): ``station_utilization``, the sum over classes. A class with no jobs
    has zero throughput, queue length and residence time. ``method`` is
    ``"exact"`` or ``"schweitzer"``, suffixed ``"+seidmann"`` when c-server
    stations were split; ``iterations`` is 0 for the exact method.
    """

    populations: np.ndarray
    throughput: np.ndarray
    response_time: np.ndarray
    utilization: np.ndarray
    station_utilization: np.ndarray
    queue_length: np.ndarray
    residence_time: np.ndarray
    method: str
    iterations: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready summary (nested lists of plain Python numbers)."""
        return {
            "populations": [int(n) for n in self.populations],
            "throughput": self.throughput.tolist(),
            "response_time": self.response_time.tolist(),
            "utilization": self.utilization.tolist(),
            "station_utilization": self.station_utilization.tolist(),
            "queue_length": self.queue_length.tolist(),
            "residence_time": self.residence_time.tolist(),
            "method": self.method,
            "iterations": int(self.iterations),
        }


@dataclass(frozen=True, eq=False)
class AsymptoticBounds:
    """Asymptotic bounds at the given populations (scalars in, scalars out).

    ``throughput_upper`` in jobs per time unit, ``response_lower`` in time
    units (think time excluded).
    """

    population: float | np.ndarray
    throughput_upper: float | np.ndarray
    response_lower: float | np.ndarray


@dataclass(frozen=True, eq=False)
class BalancedJobBounds:
    """Balanced job bounds at the given populations (scalars in, scalars out).

    Throughputs in jobs per time unit, response times in time units (think
    time excluded); the response bounds follow from the throughput bounds by
    Little's law, R = N / X - Z.
    """

    population: float | np.ndarray
    throughput_lower: float | np.ndarray
    throughput_upper: float | np.ndarray
    response_lower: float | np.ndarray
    response_upper: float | np.ndarray


# --------------------------------------------------------------------------
# Validation (at the edge; the solvers below trust their inputs)
# --------------------------------------------------------------------------


def _as_demands(demands: object) -> np.ndarray:
    array = as_positive("demands", demands)
    if array.ndim != 1:
        raise InputError(f"demands must be a 1-D sequence, got shape {array.shape}")
    return array


def _as_think(name: str, value: object) -> float:
    array = as_nonnegative(name, value)
    if array.ndim != 0:
        raise InputError(f"{name} must be a scalar, got shape {array.shape}")
    return float(array)


#: The curve 1..N is kept for every station: N x K values per array.
_MAX_CURVE_VALUES = 20_000_000
#: Exact load-dependent MVA updates p(j|n), j < c, of every c-server station at
#: every population, in each of the 2^(L-1) sub-networks holding it: c + 16
#: steps of about 0.25 us each (the 16: the station's fixed cost per
#: population), so this many steps take about two seconds.
MAX_LOAD_DEPENDENT_STEPS = 10_000_000
_STATION_STEPS = 16
#: Batched MVA (:func:`mva_batch`, a sweep solved as one recursion) costs about
#: 25 ns per network and population: this many take about a second.
MAX_BATCH_STEPS = 50_000_000

#: The population a question may ask for (``iosizer queue mva --population``).
POPULATION = ParameterSpec(
    "population", "jobs", None, (1, 100_000), "assumed",
    "exact MVA is a recursion over every population 1..N, about 2 us a step per station in Python; "
    "100,000 jobs (terminals, threads, I/Os in flight) is far past the knee of any I/O network, where "
    "more jobs only lengthen the queue at the bottleneck (the asymptotic bounds give it exactly)",
    "jobs circulating in the closed network (N)", kind="setting", integer=True)


def _check_scale(demands: np.ndarray, think: np.ndarray | float, population: object) -> None:
    """The times MVA forms must stay floats: N (Z + sum D) and min(N / (Z + sum D), 1 / D_max) finite.

    Each is a bound MVA reaches (the cycle time at population N; the throughput's asymptotic
    bound), so past 1.8e308 every answer is inf or nan: an input error (a time in the wrong
    unit), not the self-check's ConsistencyError.
    """
    jobs = float(np.max(population))
    rows = np.atleast_2d(demands)
    cycle = np.asarray(think, dtype=np.float64) + np.sum(rows, axis=-1)
    with np.errstate(over="ignore", divide="ignore"):
        longest = jobs * np.max(cycle)
        fastest = np.max(np.minimum(jobs / cycle, 1.0 / np.max(rows, axis=-1)))
    if not (math.isfinite(longest) and math.isfinite(fastest)):
        raise InputError(
            f"demands and think time (sum {float(np.max(cycle)):g}) at population {jobs:g} put MVA's times "
            f"outside double precision ({longest:g} per cycle, throughput up to {fastest:g}); "
            "give them in another time unit")


def _as_population(value: object, stations: int = 1) -> int:
    array = as_server_count("population", value)
    if array.ndim != 0:
        raise InputError(f"population must be a scalar, got shape {array.shape}")
    if float(array) * stations > _MAX_CURVE_VALUES:
        raise InputError(
            f"population {int(array):,} x {stations} stations exceeds the {_MAX_CURVE_VALUES:,} "
            "curve values MVA keeps; a population past the knee changes nothing but the queue "
            "at the bottleneck (see knee_population)"
        )
    return int(array)


def _as_servers(servers: object, n_stations: int) -> np.ndarray:
    """Server counts as floats: whole numbers >= 1, or +inf for a delay station."""
    if servers is None:
        return np.ones(n_stations)
    try:
        array = np.asarray(servers, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"servers must be numbers, got {servers!r}") from None
    if array.shape != (n_stations,):
        raise InputError(
            f"servers must have one entry per station ({n_stations}), "
            f"got shape {array.shape}"
        )
    # +inf is the one non-finite value allowed: it marks a delay station.
    delay = array == np.inf
    if (~delay).any():
        as_server_count("servers", array[~delay])
    return array


# --------------------------------------------------------------------------
# Bounds and knee
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# Self-check shared by the single- and multi-class solvers
# --------------------------------------------------------------------------


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

    # Bottleneck: each class alone cannot push a station past c_k / D_ck.
    finite = np.isfinite(servers)
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

    little = x[:, :, None] * residence
    scale = np.maximum(queue_length, little)
    ok = np.abs(queue_length - little) <= _LITTLE_RTOL * scale
    _require(ok, "Little's law Q_k = X R_k", pops, queue_length, little)

    jobs = queue_length.sum(axis=2) + x * think
    ok = np.abs(jobs - pops) <= conservation_rtol * pops
    _require(ok, "population conservation sum Q + X Z = N", pops, jobs, pops)

    station_util = utilization.sum(axis=1)
    ok = (station_util <= 1 + _BOUND_RTOL) | ~finite
    _require(ok, "utilization <= 1", pops, station_util, np.ones(1))


# --------------------------------------------------------------------------
# Single-class solvers
# --------------------------------------------------------------------------


def _plain_mva(
    queue_demands: np.ndarray, fixed: float, n_max: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact MVA for single-server stations plus a constant residence ``fixed``.

    ``fixed`` = think time + all delay demands (their residence never
    changes). Returns X (N,) and the queueing residence times (N, Kq).
    """
    if queue_demands.size > _NUMPY_MIN_STATIONS:
        return _plain_mva_numpy(queue_demands, fixed, n_max)
    # Plain floats in lists: ~2 us per step for 10 stations, where numpy's
    # per-call overhead would cost several times that.
    # Q_k(n-1) = X(n-1) R_k(n-1) is folded into the next step's comprehension
    # (same float operations, one list fewer per step).
    dq = queue_demands.tolist()
    r = dq
    x = 0.0
    xs: list[float] = []
    rows: list[list[float]] = []
    for n in range(1, n_max + 1):
        r = [d * (1.0 + x * rk) for d, rk in zip(dq, r)]
        x = n / (fixed + sum(r))
        xs.append(x)
        rows.append(r)
    return np.array(xs), np.array(rows, dtype=np.float64).reshape(n_max, len(dq))


def _plain_mva_numpy(
    queue_demands: np.ndarray, fixed: float, n_max: int
) -> tuple[np.ndarray, np.ndarray]:
    xs = np.empty(n_max)
    rows = np.empty((n_max, queue_demands.size))
    q = np.zeros(queue_demands.size)
    for n in range(1, n_max + 1):
        r = queue_demands * (1.0 + q)
        x = n / (fixed + r.sum())
        q = x * r
        xs[n - 1] = x
        rows[n - 1] = r
    return xs, rows


class _Marginals:
    """p(j|n), j = 0..c-1, of one c-server station (Bruell-Balbo-Afshari form)."""

    __slots__ = ("demand", "d_over_c", "weights", "inverse", "p", "x_without")

    def __init__(self, demand: float, servers: int, x_without: list[float]) -> None:
        self.demand = demand
        self.d_over_c = demand / servers
        self.weights = [float(servers - 1 - j) for j in range(servers - 1)]
        self.inverse = [1.0 / j for j in range(1, servers)]
        self.p = [1.0] + [0.0] * (servers - 1)  # empty network: p(0|0) = 1
        self.x_without = x_without

    def residence(self, q_prev: float) -> float:
        """R(n) from Q(n-1) and p(.|n-1): idle servers shorten the stay."""
        idle = sum(map(mul, self.weights, self.p))
        return self.d_over_c * (1.0 + q_prev + idle)

    def advance(self, n: int, x: float) -> None:
        """p(.|n-1) -> p(.|n) given X(n)."""
        p = self.p
        xd = x * self.demand
        # p(0|n) = p(0|n-1) X(n)/X_{-k}(n): ratio of positives, no cancellation.
        head = p[0] * x / self.x_without[n - 1]
        self.p = [head] + [xd * inv * pj for inv, pj in zip(self.inverse, p)]


def _network_throughput(
    demands: np.ndarray,
    servers: np.ndarray,
    think: float,
    n_max: int,
    active: tuple[int, ...],
    memo: dict[tuple[int, ...], list[float]],
) -> list[float]:
    """X(1..N) of the sub-network made of stations ``active`` (memoised)."""
    if active in memo:
        return memo[active]
    if not active:
        # Only the think station is left: jobs never queue; with no think
        # time either, G(n) = 0 for n >= 1 and the throughput is infinite.
        xs = [n / think if think > 0 else math.inf for n in range(1, n_max + 1)]
    else:
        xs, _ = _load_dependent_mva(demands, servers, think, n_max, active, memo)
        xs = list(xs)
    memo[active] = xs
    return xs


def _load_dependent_mva(
    demands: np.ndarray,
    servers: np.ndarray,
    think: float,
    n_max: int,
    active: tuple[int, ...],
    memo: dict[tuple[int, ...], list[float]],
    scv: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact MVA over stations ``active`` with queueing, delay and c-server stations.

    ``servers`` must already map c >= N to inf. Returns X (N,) and the
    residence times (N, len(active)). ``scv`` (K,) or None (exponential):
    the service-time variability correction of :func:`mva` (approximate).
    """
    d = demands[list(active)]
    c = servers[list(active)]
    single = np.flatnonzero(c == 1)
    delay = np.flatnonzero(np.isinf(c))
    multi = np.flatnonzero((c > 1) & np.isfinite(c))
    if multi.size == 0 and scv is None:
        xs, rq = _plain_mva(d[single], think + float(d[delay].sum()), n_max)
        rows = np.empty((n_max, d.size))
        rows[:, single] = rq
        rows[:, delay] = d[delay]
        return xs, rows

    marginals = []
    for i in multi.tolist():
        rest = tuple(a for a in active if a != active[i])
        x_without = _network_throughput(demands, servers, think, n_max, rest, memo)
        marginals.append((i, _Marginals(float(d[i]), int(c[i]), x_without)))
    dl = d.tolist()
    single_l = single.tolist()
    q = [0.0] * d.size
    r = [0.0] * d.size
    for i in delay.tolist():
        r[i] = dl[i]
    xs: list[float] = []
    rows: list[list[float]] = []
    # Residual-life factor (1 + cv^2) / 2 of each station (1: exponential).
    half = None if scv is None else ((1.0 + scv[list(active)]) / 2.0).tolist()
    if half is not None:
        # The residual-life correction can carry X past the bottleneck bound
        # near saturation; there X is held at the bound and the jobs over it
        # wait at the bottleneck (N = X (Z + sum R) still holds).
        capacity = np.where(np.isinf(c), np.inf, c / d)
        bottleneck = int(np.argmin(capacity))
        x_bound = float(capacity[bottleneck])
    x = 0.0
    for n in range(1, n_max + 1):
        r = list(r)  # delay entries carry over; the rows keep each step's list
        if half is None:
            for i in single_l:
                r[i] = dl[i] * (1.0 + q[i])
            for i, marg in marginals:
                r[i] = marg.residence(q[i])
        else:
            for i in single_l:
                # Reiser: wait for the queue but the one in service (U = X D),
                # plus that one's residual life D (1 + cv^2) / 2.
                u = x * dl[i]
                r[i] = dl[i] * (1.0 + q[i] - u) + u * dl[i] * half[i]
            for i, marg in marginals:
                # c servers: the exponential wait scaled by (1 + cv^2) / 2
                # (Allen-Cunneen's service term, Poisson-like arrivals).
                r[i] = dl[i] + (marg.residence(q[i]) - dl[i]) * half[i]
            if n > x_bound * (think + sum(r)):
                r[bottleneck] += n / x_bound - think - sum(r)
        x = n / (think + sum(r))
        q = [x * ri for ri in r]
        for _, marg in marginals:
            marg.advance(n, x)
        xs.append(x)
        rows.append(r)
    return np.array(xs), np.array(rows, dtype=np.float64)


def _solve_single_class(
    demands: np.ndarray, servers: np.ndarray, think: float, n_max: int,
    scv: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, str]:
    """X (N,), residence (N, K) and the method name."""
    # With c >= N servers a station never queues: exactly a delay station.
    solver_servers = np.where(servers >= n_max, np.inf, servers)
    multi = (solver_servers > 1) & np.isfinite(solver_servers)
    n_multi = int(multi.sum())
    if 0 < n_multi <= _MAX_EXACT_MULTISERVER:
        steps = n_max * 2 ** (n_multi - 1) * float(solver_servers[multi].sum() + _STATION_STEPS * n_multi)
        if steps > MAX_LOAD_DEPENDENT_STEPS:
            counts = ", ".join(f"{int(c):,}" for c in solver_servers[multi])
            raise InputError(
                f"exact MVA of population {n_max:,} with multi-server stations of {counts} servers takes "
                f"about {steps:.3g} steps, more than the {MAX_LOAD_DEPENDENT_STEPS:,} it solves in a few "
                "seconds; lower the population or the servers (a station with as many servers as jobs "
                "is a pure delay)"
            )
    if n_multi > _MAX_EXACT_MULTISERVER:
        if scv is not None:
            raise InputError(f"service_scv other than 1 needs at most {_MAX_EXACT_MULTISERVER} multi-server "
                             f"stations, got {n_multi}")
        xs, rows = _seidmann_mva(demands, solver_servers, think, n_max)
        return xs, rows, "seidmann-approximation"
    everything = tuple(range(demands.size))
    xs, rows = _load_dependent_mva(
        demands, solver_servers, think, n_max, everything, {}, scv
    )
    method = "exact-load-dependent" if n_multi else "exact"
    return xs, rows, method if scv is None else method + "+residual-scv"


def _seidmann_split(
    demands: np.ndarray, servers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Queueing part and constant (delay) part of each station's demand.

    Queueing station: (D, 0); delay: (0, D); c-server station, after
    Seidmann: a queue of demand D/c in series with a delay of D (c-1)/c.
    Shapes follow ``demands`` ((K,) or (C, K)).
    """
    delay = np.isinf(servers)
    c = np.where(delay, 1.0, servers)
    queue_part = np.where(delay, 0.0, demands / c)
    fixed_part = np.where(delay, demands, demands * (c - 1) / c)
    return queue_part, fixed_part


def _seidmann_mva(
    demands: np.ndarray, servers: np.ndarray, think: float, n_max: int
) -> tuple[np.ndarray, np.ndarray]:
    queue_part, fixed_part = _seidmann_split(demands, servers)
    queued = np.flatnonzero(queue_part > 0)
    xs, rq = _plain_mva(queue_part[queued], think + float(fixed_part.sum()), n_max)
    rows = np.tile(fixed_part, (n_max, 1))
    rows[:, queued] += rq
    return xs, rows


#: The approximation ``service_scv`` != 1 applies (stated once; docstrings, the
#: family declarations and the report quote it).
SCV_APPROXIMATION = (
    "MVA with residual service (Reiser 1979; Lazowska et al. 1984, sec 6.3.1 for the FCFS form): at a "
    "single-server FCFS station an arrival waits for the queue it sees minus the job in service, plus that "
    "job's residual life, R_k = D_k (1 + Q_k - U_k) + U_k D_k (1 + cv^2) / 2 with Q_k, U_k at population "
    "n - 1 (exact MVA when cv^2 = 1); at a c-server station the exact load-dependent wait is scaled by "
    "(1 + cv^2) / 2 (Allen-Cunneen's service term). Near saturation the correction can carry the "
    "throughput past the bottleneck bound c_k / D_k; it is held at the bound there, the excess jobs "
    "queueing at the bottleneck. Multi-class (mva_multiclass): Q_k and U_k summed over the classes at "
    "n - e_c, R_ck = D_ck (1 + Q_k - U_k + U_k (1 + cv^2) / 2), single-server stations only; a station "
    "driven past utilisation 1 is held at 1, every class visiting it slowed by the same factor. Measured "
    "against simulation (each family's docstring): at cv^2 0 to 1, hba's response within 4.4 % (shared "
    "cores) and 10.2 % (one core), worst at the knee and exact past it; oltp's loss exact at 0, within 0.4 "
    "points at 0.5; rmw's throughput within 3 %; "
    "above 1 the c-server scaling keeps a saturated station below full use and overstates its response by "
    "about (1 + cv^2) / 2 (cv^2 2: +48 %), and the multi-class form misses (rmw, cv^2 2: loss 5.7 % vs 12.1 %)"
)


#: Service-time variability of the queueing stations of a family solved by MVA.
SERVICE_SCV = ParameterSpec(
    "service_scv", "1", 1.0, (0.0, 100.0), "assumed",
    "assumed exponential (cv^2 = 1), the product-form assumption under which MVA is exact; hardware "
    "service times are often nearly constant (cv^2 near 0): give the measured variance / mean^2. "
    "Other values apply SCV_APPROXIMATION (iosizer.model.mva)",
    "squared coefficient of variation of service times at the queueing stations (1 exponential, 0 constant)")


def _as_scv(value: object, stations: int) -> np.ndarray | None:
    """Per-station service scv, or None when every station is exponential (scv 1)."""
    scv = as_nonnegative("service_scv", value)
    if scv.ndim > 1 or (scv.ndim == 1 and scv.size != stations):
        raise InputError(f"service_scv must be a scalar or one entry per station ({stations}), "
                         f"got shape {scv.shape}")
    scv = np.broadcast_to(scv, (stations,)).astype(np.float64)
    if not np.all(np.isfinite(scv)) or np.any(scv > 1e4):
        raise InputError(f"service_scv must be finite and at most 1e4, got {scv.tolist()}")
    return None if np.all(scv == 1.0) else scv


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def mva(
    demands: Sequence[float] | np.ndarray,
    think_time: float = 0.0,
    population: int = 1,
    servers: Sequence[float] | np.ndarray | None = None,
    service_scv: float | Sequence[float] | np.ndarray = 1.0,
) -> MVAResult:
    """Solve a single-class closed network for populations 1..``population``.

    ``demands``: K service demands D_k > 0 (time units). ``think_time``:
    Z >= 0 (time units) spent at the terminal station, outside the response
    time. ``population``: N >= 1 jobs. ``servers``: None (all single-server
    queueing stations) or K entries, each a whole number c >= 1 (c identical
    servers) or ``math.inf`` (delay station, residence = demand).

    Exact MVA without c-server stations (``method="exact"``); exact
    load-dependent MVA with up to 4 c-server stations
    (``"exact-load-dependent"``, cost grows as 2^L); Seidmann's approximation
    beyond (``"seidmann-approximation"``). Every population is checked
    against the asymptotic bounds and Little's law before returning; a
    failure raises :class:`~iosizer.errors.ConsistencyError`.

    ``service_scv``: squared coefficient of variation of the service times
    at the queueing stations (scalar or K entries; delay stations ignore
    it). 1, the default, is exponential service: the exact product-form
    answer, computed exactly as without the option. Any other value applies
    :data:`SCV_APPROXIMATION` and appends ``"+residual-scv"`` to the method.
    """
    d = _as_demands(demands)
    z = _as_think("think_time", think_time)
    n_max = _as_population(population, d.size)
    _check_scale(d, z, n_max)
    c = _as_servers(servers, d.size)
    scv = _as_scv(service_scv, d.size)

    xs, residence, method = _solve_single_class(d, c, z, n_max, scv)
    queue = xs[:, None] * residence
    per_server = np.where(np.isinf(c), 1.0, c)
    utilization = xs[:, None] * (d / per_server)
    pops = np.arange(1, n_max + 1)
    _self_check(
        populations=pops[:, None],
        throughput=xs[:, None],
        residence=residence[:, None, :],
        queue_length=queue[:, None, :],
        utilization=utilization[:, None, :],
        demands=d[None, :],
        think=np.array([z]),
        servers=c,
    )
    response = residence.sum(axis=1)
    curve = MVACurve(
        population=_readonly(pops),
        throughput=_readonly(xs),
        response_time=_readonly(response),
        utilization=_readonly(utilization),
        queue_length=_readonly(queue),
        residence_time=_readonly(residence),
    )
    stations = tuple(
        StationResult(float(u), float(q), float(r))
        for u, q, r in zip(utilization[-1], queue[-1], residence[-1])
    )
    return MVAResult(
        population=n_max,
        throughput=float(xs[-1]),
        response_time=float(response[-1]),
        stations=stations,
        curve=curve,
        method=method,
        knee_population=knee_population(d, z, c),
    )


# --------------------------------------------------------------------------
# Multi-class solvers
# --------------------------------------------------------------------------


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
    """Hold each station's utilisation at 1 where the residual correction carried it past.

    ``load`` (C, K) is the per-server demand D_ck / c_k (0 at delay
    stations). At the station most over 1, every class that visits it is
    slowed by the same factor (the class mix there is kept), and the jobs
    over the bound wait there: X_c R_c grows to N_c, so N = X (R + Z) still
    holds. Single-class, this is :func:`_load_dependent_mva`'s clamp. A
    station can only fall under 1 by slowing another, so K rounds suffice.
    """
    rows = np.arange(x.shape[0])
    has = counts > 0
    for _ in range(load.shape[1]):
        util = x @ load
        worst = util.argmax(axis=1)
        peak = util[rows, worst]
        over = peak > 1.0
        if not over.any():
            break
        slowed = over[:, None] & (load[:, worst].T > 0) & has
        cycle = think[None, :] + r.sum(axis=2)
        excess = np.where(slowed, (peak[:, None] - 1.0) * cycle, 0.0)
        rq = rq.copy()
        rq[rows, :, worst] += excess
        r = r.copy()
        r[rows, :, worst] += excess
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

    ``service_scv``: squared coefficient of variation of the service times
    at each station (scalar or K entries; delay stations ignore it). 1, the
    default, is exponential service, computed exactly as without the
    option. Other values apply :data:`SCV_APPROXIMATION` in its multi-class
    form at single-server stations, in both methods: class c arriving at
    station k finds the jobs of every class there minus the one in service,
    plus that one's residual life, R_ck = D_ck (1 + Q_k - U_k + U_k (1 +
    cv_k^2) / 2), with Q_k, U_k (all classes) at n - e_c (Schweitzer: Q_k(N)
    - Q_ck(N) / N_c, and the same for U), so exact MVA is recovered at
    cv^2 = 1. A utilisation carried past 1 is held at 1
    (:func:`_hold_at_bounds`). ``"+residual-scv"`` is appended to the
    method. A c-server station that queues (c < sum(N_c)) with scv other
    than 1 is refused: use :func:`mva`, whose c-server stations are exact.
    """
    d, z, pops, c = _as_multiclass(demands, think_times, populations, servers)
    scv = _as_scv(service_scv, d.shape[1])
    tol = float(as_positive("tol", tol))
    max_iter = int(as_server_count("max_iter", max_iter))
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

    # With c >= sum(N_c) servers a station never queues: exactly a delay.
    solver_servers = np.where(c >= pops.sum(), np.inf, c)
    queue_part, fixed_part = _seidmann_split(d, solver_servers[None, :])
    extra = None
    if scv is not None:
        queued = (solver_servers > 1) & np.isfinite(solver_servers) & (scv != 1.0)
        if queued.any():
            k = int(np.flatnonzero(queued)[0])
            raise InputError(
                f"service_scv {float(scv[k]):g} at station {k} of {int(solver_servers[k])} servers: "
                "multi-class MVA splits c-server stations (Seidmann) and has no residual-service form for "
                "them; give it scv 1 there, or solve one class with mva()"
            )
        # (cv^2 - 1) / 2 per station; delay stations have no queue to correct.
        extra = np.where(np.isinf(solver_servers), 0.0, (scv - 1.0) / 2.0)
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


# --------------------------------------------------------------------------
# Many independent networks at once (what-if sweeps)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class BatchResult:
    """Throughput and response time (think excluded) of M networks at population N."""

    throughput: np.ndarray
    response_time: np.ndarray


def check_batch_steps(population: int, networks: int, what: str = "networks") -> None:
    """Refuse a batched MVA of ``networks`` x ``population`` steps beyond :data:`MAX_BATCH_STEPS`."""
    steps = float(population) * float(networks)
    if steps > MAX_BATCH_STEPS:
        raise InputError(
            f"MVA of {networks:,} {what} at population {int(population):,} takes {steps:.3g} steps, more than "
            f"the {MAX_BATCH_STEPS:,} it solves in about a second; sweep fewer points or a smaller population"
        )


def mva_batch(demands: object, think_time: object, population: int,
              service_scv: object = 1.0) -> BatchResult:
    """Exact MVA of M independent single-class networks of queueing stations.

    ``demands`` is (M, K), one network per row; ``think_time`` a scalar or
    (M,). The recursion of :func:`mva` runs over n = 1..N once, vectorised
    across the M networks, which is what a sweep of a what-if parameter
    (an added latency, a CPU speed) needs. Checked before returning against
    X <= min(N/(D+Z), 1/D_max), R >= D and N = X (R + Z). ``service_scv``
    (scalar or K entries, 1 exponential: exact, computed as without it)
    applies :data:`SCV_APPROXIMATION` otherwise.
    """
    d = np.atleast_2d(as_positive("demands", demands))
    z = np.broadcast_to(as_nonnegative("think_time", think_time), (d.shape[0],)).astype(np.float64)
    n_jobs = _as_population(population)
    _check_scale(d, z, n_jobs)
    check_batch_steps(n_jobs, d.shape[0])
    scv = _as_scv(service_scv, d.shape[1])
    queue = np.zeros_like(d)
    if scv is None:
        for n in range(1, n_jobs + 1):
            residence = d * (1.0 + queue)
            throughput = n / (z + residence.sum(axis=1))
            queue = throughput[:, None] * residence
    else:
        half = (1.0 + scv) / 2.0
        utilization = np.zeros_like(d)
        rows, worst = np.arange(d.shape[0]), d.argmax(axis=1)
        d_max = d.max(axis=1)
        for n in range(1, n_jobs + 1):
            residence = d * (1.0 + queue - utilization) + utilization * d * half
            # Held at the bottleneck bound, the excess jobs queueing there (see _load_dependent_mva).
            excess = np.maximum(n * d_max - (z + residence.sum(axis=1)), 0.0)
            residence[rows, worst] += excess
            throughput = n / (z + residence.sum(axis=1))
            queue = throughput[:, None] * residence
            utilization = throughput[:, None] * d
    response = residence.sum(axis=1)
    total = d.sum(axis=1)
    pops = np.full((d.shape[0], 1), float(n_jobs))
    bound = np.minimum(n_jobs / (total + z), 1.0 / d.max(axis=1))
    _require((throughput <= bound * (1 + _BOUND_RTOL))[:, None], "throughput <= min(N/(D+Z), 1/Dmax)",
             pops, throughput[:, None], bound[:, None])
    _require((response >= total * (1 - _BOUND_RTOL))[:, None], "response time >= total demand D",
             pops, response[:, None], total[:, None])
    jobs = throughput * (response + z)
    _require((np.abs(jobs - n_jobs) <= _CONSERVATION_RTOL * n_jobs)[:, None],
             "population conservation X (R + Z) = N", pops, jobs[:, None], pops)
    return BatchResult(throughput, response)


# --- the closed-network family declaration --------------------------------------


def demand_name(station: int) -> str:
    """Parameter name of station ``station``'s service demand (1-based)."""
    return f"demand_{station}_s"


def _closed_demands(settings) -> tuple[ParameterSpec, ...]:
    return tuple(
        ParameterSpec(demand_name(k + 1), "s", None, (0.0, math.inf), "fitted",
                      "calibrated from the planner's load test",
                      f"service demand of station {k + 1}",
                      cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0))
        for k in range(settings["stations"])
    )


def parse_station_servers(value: object, label: str = "servers") -> str:
    """``servers`` of a closed network as text: one entry for every station (``4``) or one per
    station (``1,4,delay``), each a whole number of servers or ``delay`` (``inf``: a delay station)."""
    text = str(value).strip().lower()
    parts = [part.strip() for part in text.split(",")]
    for part in parts:
        if part in ("delay", "inf"):
            continue
        try:
            number = float(part)
        except ValueError:
            number = math.nan
        if not (math.isfinite(number) and number >= 1 and number == math.floor(number)
                and number <= POPULATION.bounds[1]):
            raise InputError(f"{label} must list whole numbers of servers (1 to {int(POPULATION.bounds[1]):,}) or "
                             f"'delay', one for every station or one per station (1,4,delay), got {value!r}")
    return ",".join("delay" if p in ("delay", "inf") else str(int(float(p))) for p in parts)


def station_servers(values) -> list[float]:
    """Servers per station (inf for a delay) from the ``servers`` setting (all single servers without it)."""
    stations = int(values["stations"])
    parts = parse_station_servers(values.get("servers") or "1").split(",")
    if len(parts) == 1:
        parts = parts * stations
    if len(parts) != stations:
        raise InputError(f"servers lists {len(parts)} stations ({','.join(parts)}) but the network has "
                         f"{stations}; give one entry per station or one for all")
    return [math.inf if p == "delay" else float(p) for p in parts]


def _closed_solve(values, inputs):
    population = np.asarray(inputs["population"]).astype(np.int64)
    demands = [values[demand_name(k + 1)] for k in range(values["stations"])]
    curve = mva(demands, values["think_time_s"], int(population.max()), station_servers(values)).curve
    index = population - 1
    return {"throughput_per_s": curve.throughput[index], "response_time_s": curve.response_time[index]}


def _closed_tail(values, inputs, percentile):
    """End-to-end response percentile (s) at each population, by the approximation of
    :func:`iosizer.model.percentiles.closed_network_percentiles` (arrival theorem per station,
    gamma fit end to end; its error against simulation is stated there)."""
    from iosizer.model.percentiles import closed_network_percentiles, percentile_key

    demands = [values[demand_name(k + 1)] for k in range(values["stations"])]
    key = "response_" + percentile_key(percentile)
    population = np.asarray(inputs["population"]).astype(np.int64)
    servers = station_servers(values)
    cache = {int(n): closed_network_percentiles(demands, values["think_time_s"], int(n), [percentile],
                                                servers=servers).response[key]
             for n in np.unique(population)}
    return np.array([cache[int(n)] for n in population.ravel()], dtype=np.float64).reshape(population.shape)


def _closed_start(data, settings):
    """Start where the data point: the bottleneck from peak throughput, the
    total demand from the lightest load; stations start unequal so the fit
    is not stuck on the symmetric saddle where all demands are the same."""
    stations = settings["stations"]
    population, throughput = data["population"], data["throughput_per_s"]
    bottleneck_s = 1.0 / float(np.max(throughput))
    lightest = int(np.argmin(population))
    cycle_s = float(population[lightest] / throughput[lightest])  # R + Z at the lightest load
    response = data.get("response_time_s")
    if response is not None and np.isfinite(response[lightest]):
        think_s = max(cycle_s - float(response[lightest]), 0.0)
    else:
        think_s = max(cycle_s - 1.5 * bottleneck_s, 0.0)
    shares = np.linspace(1.0, 0.3, stations)
    # A c-server station carries c times the demand of one server at the same utilisation.
    per_server = [1.0 if math.isinf(c) else c for c in station_servers(settings)]
    start: dict[str, object] = {
        demand_name(k + 1): (bottleneck_s * float(shares[k]) * per_server[k], 1e-12 * bottleneck_s, math.inf)
        for k in range(stations)
    }
    start["think_time_s"] = float(think_s)
    return start


FAMILIES = (
    Family(
        name="closed-network",
        formula=("exact MVA over n = 1..N: R_k(n) = D_k (1 + Q_k(n - 1)) at a queueing station, D_k at "
                 "a delay, a c-server station through its marginal probabilities p_k(j | n) "
                 "(Seidmann's split beyond 4 multi-server stations); X(n) = n / (Z + sum_k R_k(n)), "
                 "Q_k(n) = X(n) R_k(n), R(n) = n / X(n) - Z"),
        summary="closed network by exact MVA: station demands and think time from X(N), R(N)",
        source="Reiser & Lavenberg 1980 (exact MVA); Lazowska et al. 1984 ch. 5-6",
        parameters=(
            ParameterSpec("think_time_s", "s", None, (0.0, math.inf), "fitted",
                          "calibrated from the load test unless the planner gives --think-time-s",
                          "think time outside the stations"),
            ParameterSpec("stations", "stations", None, (1, 1000), "assumed",
                          "no default: the planner's configuration, queueing stations (CPU, disks, links)",
                          "single-server queueing stations", kind="setting", integer=True),
            ParameterSpec("servers", "servers", "1", (0.0, 0.0), "assumed",
                          "single servers unless the planner's configuration says otherwise: a whole number "
                          "per station, or delay for a pure latency (exact load-dependent MVA, up to 4 "
                          "multi-server stations)",
                          "servers per station: one for all (4) or one per station (1,4,delay)",
                          kind="setting", parse=parse_station_servers),
        ),
        expand=_closed_demands,
        columns=Schema("closed-network", (
            Column("population", Role.input, "jobs", "jobs in the network (N)", minimum=1, integer=True,
                   maximum=POPULATION.bounds[1]),
            Column("throughput_per_s", Role.observed, "1/s", "completions per second",
                   minimum=0, minimum_inclusive=False),
            Column("response_time_s", Role.observed, "s", "time at the stations, think time excluded",
                   required=False, minimum=0, minimum_inclusive=False),
        )),
        solve=_closed_solve,
        service_time="exponential (product-form) FCFS stations; exact MVA",
        questions=(
            Question("queue mva", "throughput, response and utilisations of a closed network vs population",
                     ("demand_s", "think_time_s", "population"),
                     ("throughput_per_s", "response_time_s", "utilization")),
        ),
        fit=FitPlan(_closed_start, relative=True, holdable=("think_time_s",)),
        tail=_closed_tail,
        example="load_test.csv",
        example_settings={"stations": 3},
    ),
)
