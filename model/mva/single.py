"""Single-class MVA: exact, load-dependent (c-server stations), Seidmann's split, service-time scv.

The system and its formulas: :mod:`iosizer.model.mva`; derivations: docs/validation/mva.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import mul

import numpy as np

from iosizer.errors import InputError
from iosizer.model.family import ParameterSpec
from iosizer.model._validate import as_nonnegative
from iosizer.model.mva._constants import _MAX_EXACT_MULTISERVER, _NUMPY_MIN_STATIONS
from iosizer.model.mva._inputs import MAX_LOAD_DEPENDENT_STEPS, _STATION_STEPS, _as_demands, _as_population, _as_servers, _as_think, _check_scale
from iosizer.model.mva._selfcheck import _self_check
from iosizer.model.mva.bounds import knee_population
from iosizer.model.mva.results import MVACurve, MVAResult, StationResult


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


def _queues_and_delays(d: np.ndarray, single: np.ndarray, delay: np.ndarray, think: float,
                       n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact MVA of single-server and delay stations only: X (N,) and residence times (N, K)."""
    xs, rq = _plain_mva(d[single], think + float(d[delay].sum()), n_max)
    rows = np.empty((n_max, d.size))
    rows[:, single] = rq
    rows[:, delay] = d[delay]
    return xs, rows


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
        return _queues_and_delays(d, single, delay, think, n_max)
    marginals = [(i, _Marginals(float(d[i]), int(c[i]), _network_throughput(
        demands, servers, think, n_max, tuple(a for a in active if a != active[i]), memo))) for i in multi.tolist()]
    # Residual-life factor (1 + cv^2) / 2 of each station (1: exponential).
    half = None if scv is None else ((1.0 + scv[list(active)]) / 2.0).tolist()
    return _recursion(d, c, single, delay, marginals, think, n_max, half)


def _recursion(d: np.ndarray, c: np.ndarray, single: np.ndarray, delay: np.ndarray,
               marginals: list[tuple[int, _Marginals]], think: float, n_max: int,
               half: list[float] | None) -> tuple[np.ndarray, np.ndarray]:
    """The arrival-theorem recursion n = 1..N of :func:`_load_dependent_mva`: R_k(n) from Q_k(n - 1) (a
    c-server station's from its marginal), X(n) = n / (Z + sum R), Q = X R; with ``half`` (the
    residual-life factors), the service-time variability correction."""
    dl = d.tolist()
    single_l = single.tolist()
    q = [0.0] * d.size
    r = [0.0] * d.size
    for i in delay.tolist():
        r[i] = dl[i]
    xs: list[float] = []
    rows: list[list[float]] = []
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
    solver_servers, multi, n_multi = _multi_server(servers, n_max)
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
    return xs, rows, solver_method(servers, n_max, scv is not None)


def _multi_server(servers: np.ndarray, n_max: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Servers as the solver takes them (c >= N is exactly a delay: it never queues), which of them are
    multi-server stations, and how many."""
    solver_servers = np.where(servers >= n_max, np.inf, servers)
    multi = (solver_servers > 1) & np.isfinite(solver_servers)
    return solver_servers, multi, int(multi.sum())


def solver_method(servers: Sequence[float] | np.ndarray, population: int, residual_scv: bool = False) -> str:
    """The method :func:`mva` answers a population with, by the stations' servers (inf: a delay):
    ``"exact"``, ``"exact-load-dependent"`` (1 to 4 multi-server stations) or ``"seidmann-approximation"``,
    ``"+residual-scv"`` appended when service is not exponential (``residual_scv``)."""
    n_multi = _multi_server(np.asarray(servers, dtype=np.float64), int(population))[2]
    if n_multi > _MAX_EXACT_MULTISERVER:
        return "seidmann-approximation"
    method = "exact-load-dependent" if n_multi else "exact"
    return method + "+residual-scv" if residual_scv else method


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
    "n - e_c, R_ck = D_ck (1 + Q_k - U_k + U_k (1 + cv^2) / 2), single-server stations only; stations "
    "driven past utilisation 1 are held at or under 1, each class slowed by the most over-full station it "
    "visits. Measured "
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
    return _mva_result(d, z, c, xs, residence, queue, utilization, method)


def _mva_result(d: np.ndarray, z: float, c: np.ndarray, xs: np.ndarray, residence: np.ndarray,
                queue: np.ndarray, utilization: np.ndarray, method: str) -> MVAResult:
    """The checked arrays as :class:`MVAResult`: the curve over 1..N and the last population's stations."""
    pops = np.arange(1, xs.size + 1)
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
        population=int(xs.size),
        throughput=float(xs[-1]),
        response_time=float(response[-1]),
        stations=stations,
        curve=curve,
        method=method,
        knee_population=knee_population(d, z, c),
    )
