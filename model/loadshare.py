"""Load-sharing policies for storage-port queues on a multi-core controller (seed 003).

Seed 003 (Yoshihara et al., "Performance improvement of the method sharing
loads by multi-core processors") lets the cores of a storage controller poll
the I/O queues of its host ports. Every I/O costs one unit of core time
(service time s = 1: loads, throughputs and responses here are in units of
one core and of s). A port with load L_p is served by k_p cores; when
k_p > 1 an I/O picked up by one core is continued by another with
probability (k_p - 1) / k_p and pays the inter-core communication overhead
h (``comm_overhead_pct``), so its service time is

    s_p = 1 + h (k_p - 1) / k_p                                  (1)

which costs both throughput and low-load response (the seed's table 1 and
figure 6: lock and scan overheads were solved by batching, only the
communication overhead remains). The policies decide k_p:

* ``shared`` (A): every port on every core, k_p = n;
* ``exclusive`` (B): one owner core per port, k_p = 1;
* ``one-stage`` (alpha): k_p = 1 while L_p <= threshold, n above;
* ``multi-stage`` (beta): k_p grows with the port's load, one core at a
  time, up to n; ``switch_rule`` says where (see "Multi-stage's switch").

``threshold`` is a port's load per core (fraction of one core), as the seed
describes one-stage's switch ("負荷が一定以上"); it is not published and is a
parameter.

A write hit (the seed's measured pattern, sec 4.1) also spends time no core
spends: the host link carries its data, the adapter DMAs it into cache. That
fixed non-core part c (``non_core_pct``, % of s; 40 % sized from seed 002's
16G FC port, see ``NON_CORE``) is added to every port's response, so it
lowers a relative jump (R+ + c) / (R- + c) and every normalised response,
and changes no maximum.

Declaration. The numbers above are declared once, as :class:`ParameterSpec`
constants below (``CORES``, ``COMM_OVERHEAD``, ``THRESHOLD``, ``NON_CORE``
and the ``POLICY``, ``SCENARIO`` and ``SWITCH_RULE`` settings); the
``loadshare`` family at the bottom of the module ties them to a data schema
(total load in cores -> mean response in service times) and a solve function.

Placement and response. Ports are placed heaviest first, each on its k_p
least loaded cores; the cores' utilisations are those of the most balanced
split of each port's work over its cores (where FCFS sends it). Cores linked
by a port pool their work as one M/M/K line (Erlang C over the cores a port
reaches: its own and those of ports sharing one, within its connected
component); a port on k_p < K cores also counts its own I/Os ahead, which only
its own cores serve (Little's law), and never waits less than its own
M/M/k_p:

    W_p = max( (Q_p + (W_K / k_p) sum_{q != p} omega_pq L_q s_q) / (1 - u_p),
               s_p C(k_p, k_p u_p) / (k_p (1 - u_p)) ),    u_p = L_p s_p / k_p
    R_p = s_p + W_p + c                                          (4)

exact for ``exclusive`` and ``shared`` (one M/M/1 per core, one M/M/n),
an approximation for the switching policies. The derivation (formulas (2)
to (4), the capacity-share rule omega_pq, multi-stage's switch and the
maximum-throughput search) and the error measured against simulation, row
by row, are in ``docs/validation/loadshare.md``; :data:`RESPONSE_ERROR`
states the worst case where answers are given, and the percentile error
grid is ``data/error_grids/loadshare_percentiles.csv``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
import math
from typing import Any, Callable, Literal, Mapping, Sequence

import numpy as np
from scipy.special import gammaincc, gammaln

from iosizer.errors import InputError, UnstableQueueError
from iosizer.model._validate import as_nonnegative, as_positive
from iosizer.model.family import (DECLARED_OR_SHIPPED, SIMULATED_SCV, Column, CpuScaling, Family, FitPlan, Input,
                                  Output, ParameterSpec, Plot, Question, Role, Schema, SimulateOption, Simulation,
                                  Sizing, TableRow, changes_note)

__all__ = [
    "COMM_OVERHEAD",
    "CORES",
    "FAMILIES",
    "NON_CORE",
    "POLICIES",
    "POINTS",
    "POLICY",
    "SCENARIO",
    "SHARES",
    "SWITCH_RULE",
    "SWITCH_RULES",
    "THRESHOLD",
    "PolicyCurve",
    "PolicyParams",
    "RESPONSE_ERROR",
    "equal_response_loads",
    "evaluate",
    "loadshare_percentiles",
    "max_throughput",
    "percentile_errors",
    "policy_curve",
    "port_shares_of",
    "parse_shares",
    "port_waits",
    "serving_cores",
    "switching_loads",
    "balanced_utilisation",
]

Policy = Literal["shared", "exclusive", "one-stage", "multi-stage"]
POLICIES: tuple[str, ...] = ("shared", "exclusive", "one-stage", "multi-stage")
#: Multi-stage's switching rules (PolicyParams.switch_rule): see the module docstring.
SWITCH_RULES: tuple[str, ...] = ("system-response", "equal-response", "threshold")
#: Relative offset either side of a switching load used to read R- and R+.
_SIDE_RTOL = 1e-9
#: Relative jumps below this are float rounding (system-response's are ~1e-15) and read as none.
_JUMP_ROUNDING = 1e-12

_SEED = "003_50b3b541aaf1e973.txt"
#: Table 2's single port: the one scenario whose port mix needs no table.
_ONE_PORT = "one-port"

# --- declared numbers: every default of PolicyParams, the CLI and the report ---

CORES = ParameterSpec(
    "cores", "cores", 4, (1, 256), "published",
    f"{_SEED} tables 2-4: 'システム内コア数 4' in every scenario; the bound, 256, is beyond any storage "
    "controller (a few dozen cores) and keeps the placement of every port on its cores (load points x "
    "ports x cores per curve) within a few seconds and a few hundred MB",
    "controller cores polling the port queues (n)", kind="setting", integer=True, from_profile=False)
COMM_OVERHEAD = ParameterSpec(
    "comm_overhead_pct", "%", 20.0, (0.0, 100.0), "assumed",
    f"assumed: {_SEED} table 1 (note 2) names shared's inter-core communication as its one remaining "
    "overhead but gives no size; 20 % of an I/O is a moderate round value under which the seed's "
    "orderings show without being forced: on 4 cores shared's service time is 1 + 0.2 x 3/4 = 1.15, "
    "so its maximum is 13 % below exclusive's on 16 ports (figures 5, 10) and within 2 % of "
    "multi-stage's under skew (figure 11)",
    "extra core time when another core continues an I/O, % of one I/O's service time (h)",
    # Exponent 0: the hand-off is core work that speeds up with the core like the
    # I/O itself. Exponent 1: it is cache-line and interconnect latency that does
    # not, while the I/O's service time shrinks as 1/s, so its share grows as s.
    cpu_scaling=CpuScaling.power, exponent_bounds=(0.0, 1.0))
THRESHOLD = ParameterSpec(
    "threshold", "1", 0.7, (0.01, 0.99), "assumed",
    f"assumed: {_SEED} sec 3.1 switches a port 'above a certain load' ('負荷が一定以上') and states "
    "no value (seed003_policies); 0.7 of a core hands a port on while its owner is below the knee of "
    "its M/M/1 response (1 / (1 - 0.7) = 3.3 service times), short of 1 where the owner saturates",
    "a port's work per serving core before it gets another, fraction of one core "
    "(one-stage, multi-stage); the ends 0 and 1 are excluded",
    # A share of one core's time: the same fraction on any CPU.
    cpu_scaling=CpuScaling.fixed)
IO_SERVICE_US = ParameterSpec(
    "io_service_us", "us", 10.0, (1e-3, 1e6), "assumed",
    f"assumed: {_SEED} states every time in units of one I/O's service time and gives no absolute "
    "value; 10 us (100,000 IOPS per core) is a placeholder of the order of a storage controller "
    "core's per-I/O work, only to print answers in IOPS and us: calibrate it from measured "
    "IOPS and response times (iosizer calibrate loadshare)",
    "core time one I/O takes without overhead (s = 1 of the seed)",
    cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0))
NON_CORE = ParameterSpec(
    "non_core_pct", "%", 40.0, (0.0, 10000.0), "assumed",
    f"assumed: {_SEED} measures write hits (sec 4.1, 'ライトヒット') but states no time; a write hit also "
    "spends time no controller core spends: the host link carries the data and the adapter DMAs it into "
    "cache. Sized from seed 002 (002_e63f96f17eb4d7e0.txt), the one seed with both numbers for one "
    "16G FC port: 2 cores nearly full at ~300,000 IOPS of 4 KB (sec 3.1.1) is 2 / 300,000 s = 6.67 us "
    "of core time per I/O, and 4,096 B on the usable 1554 MB/s of the port (model/hba.py: 1600 MB/s x "
    "2048 / 2108 of a frame) is 2.64 us, 0.40 of it: 40 %. Protocol round trips (transfer-ready, "
    "status) would add to it; a storage controller's per-I/O core time differs from an HBA core's",
    "fixed time of a write hit that no core spends (link transfer, adapter DMA, protocol), added to every "
    "port's response, % of one I/O's service time (c)",
    # A link and DMA time, the same on any controller CPU, while the I/O's core time
    # (io_service_us) scales as s^e with e in [-1, 0]: as a share of it, it scales as
    # s^-e. Carried from one CPU each parameter spans its own range, so this one
    # mirrors io_service_us's: the mid exponents (+0.5, -0.5) keep the absolute
    # non-core time in the central answer; the band treats the two as independent,
    # wider than the tied one.
    cpu_scaling=CpuScaling.power, exponent_bounds=(0.0, 1.0))
SWITCH_RULE = ParameterSpec(
    "switch_rule", "name", "system-response", (0.0, 0.0), "assumed",
    f"assumed: {_SEED} sec 3.1 gives a port 'cores according to its load' ('ポートの負荷に応じたコア数') "
    "and asks for no response jump (figure 8) with one-port performance of A and system performance of B "
    "(sec 2.3); it states no rule. system-response is the one of the three that meets all three in the "
    "model (module docstring: jumps, maxima)",
    "when multi-stage gives a port another core: system-response (where the controller's mean response "
    "with k and k+1 cores is equal), equal-response (the port judged alone), threshold (per-core work "
    "reaches the threshold)", kind="setting", choices=SWITCH_RULES)
POINTS = ParameterSpec(
    "points", "points", 60, (2, 2000), "assumed",
    "assumed: 60 load points draw the seed's figures 4-11 smoothly; a curve also gets both sides of every "
    "switching load below its end, so it has more rows than points; beyond 2,000 points no screen shows a "
    "difference and the cost grows as points x ports x cores",
    "load points per response curve, from near zero to 0.95 of the policy's maximum", kind="setting",
    integer=True)


def parse_shares(value: object, label: str = "shares") -> str:
    """``shares`` as a planner types it (``1,2,3,4``, or a list): one load share per port, any positive
    scale; its normal form is the shares as text, "" for none (the scenario's mix)."""
    text = ",".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value).strip()
    if not text:
        return ""
    try:
        shares = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise InputError(f"{label} must be numbers separated by commas (1,2,3,4), got {value!r}") from None
    if any(not share >= 0 for share in shares) or sum(shares) <= 0:
        raise InputError(f"{label} must be non-negative loads with a positive sum, got {value!r}")
    return ",".join(repr(share) for share in shares)


SHARES = ParameterSpec(
    "shares", "1", "", (0.0, 0.0), "assumed",
    "the planner's port mix: none by default (the scenario's, tables 2-4); a mix the seed never measured is "
    "normalised, as figure 9 normalises, by shared's maximum and minimum",
    "any port mix instead of a scenario: one load share per port, comma-separated, normalised (1,2,3,4)",
    kind="setting", parse=parse_shares, excludes=("scenario",), from_profile=False)
POLICY = ParameterSpec(
    "policy", "name", "multi-stage", (0.0, 0.0), "published",
    f"{_SEED} sec 2.2 (A shared, B exclusive), sec 3.1 (alpha one-stage, beta multi-stage); "
    "the default is the seed's proposal, beta (sec 3.1)",
    "load-sharing policy", kind="setting", choices=POLICIES, from_profile=False)
SCENARIO = ParameterSpec(
    "scenario", "name", "skew", (0.0, 0.0), "published",
    f"{_SEED} table 2 (one port), table 3 (16 ports), table 4 (1 hot port 87.5 % + 8 cold 12.5 %); "
    "the default is table 4, the mixed case the proposal is for (sec 4.4); port shares are read "
    "from seed003_tables2_4_scenarios by iosizer.calibration.loadshare",
    "port mix of the seed's tables 2-4", kind="setting", choices=(_ONE_PORT, "system", "skew"), from_profile=False)


@dataclass(frozen=True)
class PolicyParams:
    """Controller parameters: ``cores`` n, ``comm_overhead_pct`` 100 h, ``threshold`` (core fraction)."""

    cores: int = CORES.value
    comm_overhead_pct: float = COMM_OVERHEAD.value
    threshold: float = THRESHOLD.value
    #: When multi-stage gives a port its (k+1)-th core: ``system-response`` (where the controller's
    #: mean response with k and k+1 cores is equal, the default), ``equal-response`` (the port alone,
    #: :func:`equal_response_loads`) or ``threshold`` (per-core work reaches ``threshold``, the only
    #: rule that reads it). See the module docstring.
    switch_rule: str = SWITCH_RULE.value
    #: The fixed non-core part of a write hit's response, % of one I/O's service time (c).
    non_core_pct: float = NON_CORE.value

    def __post_init__(self) -> None:
        if self.switch_rule not in SWITCH_RULES:
            raise InputError(f"switch_rule must be one of {', '.join(SWITCH_RULES)}, got {self.switch_rule!r}")
        as_nonnegative("non_core_pct", self.non_core_pct)
        if not (isinstance(self.cores, (int, np.integer)) and self.cores >= 1):
            raise InputError(f"cores must be a whole number >= 1, got {self.cores!r}")
        as_nonnegative("comm_overhead_pct", self.comm_overhead_pct)
        if not 0 < float(as_positive("threshold", self.threshold)) < 1:
            # At 1 the single owner core saturates before the switch: no finite response.
            raise InputError(f"threshold must be in (0, 1) of a core, got {self.threshold:g}")

    @property
    def overhead(self) -> float:
        return self.comm_overhead_pct / 100.0

    @property
    def non_core(self) -> float:
        return self.non_core_pct / 100.0


def equal_response_loads(params: PolicyParams) -> np.ndarray:
    """Port loads (cores of work) where k and k + 1 cores give one port equal response, k = 1..n-1.

    The port alone on k cores is M/M/k with service s_k = 1 + h (k - 1) / k at
    per-server utilisation L s_k / k; the (k+1)-th core is worth its overhead
    from the load where R_k(L) = R_{k+1}(L) (brentq on (0, saturation of k cores)).
    """
    return _equal_response_loads(params.cores, params.overhead)


@lru_cache(maxsize=64)
def _equal_response_loads(cores: int, overhead: float) -> np.ndarray:
    from scipy.optimize import brentq  # lazy: scipy.optimize costs a what-if that never reaches it

    from iosizer.model.queueing import erlang_c

    def response(k: int, load: float) -> float:
        service = 1.0 + overhead * (k - 1) / k
        rho = load * service / k
        return service * (1.0 + erlang_c(k, k * rho) / (k * (1.0 - rho)))

    loads = []
    for k in range(1, cores):
        saturation = k / (1.0 + overhead * (k - 1) / k)
        low = max(loads[-1] if loads else 0.0, 1e-9 * saturation)
        gap = lambda load: response(k, load) - response(k + 1, load)  # noqa: E731
        loads.append(brentq(gap, low, saturation * (1 - 1e-9), xtol=1e-12) if gap(low) < 0 else low)
    result = np.array(loads)
    result.setflags(write=False)
    return result


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise InputError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")


#: The most port x core pairs a question places: the seed's largest port mix (16 ports) at the declared
#: core bound (256). Every load point places each port on its cores, so the work grows as ports x cores:
#: 4,096 pairs answer in seconds, 256 ports on 256 cores took four minutes and 1.8 GB, 10^5 ports
#: a MemoryError.
MAX_PORT_CORES = 16 * 256


def _shares(port_shares: Sequence[float] | np.ndarray, params: PolicyParams | None = None) -> np.ndarray:
    shares = np.atleast_1d(as_nonnegative("port share", port_shares)).astype(float)
    if shares.ndim != 1 or shares.sum() <= 0:
        raise InputError("port shares must be a list of loads with a positive sum")
    cores = (params or PolicyParams()).cores
    if shares.size * cores > MAX_PORT_CORES:
        raise InputError(f"{shares.size:,} ports on {cores} cores are {shares.size * cores:,} port x core pairs, more "
                         f"than the {MAX_PORT_CORES:,} answered in seconds; give fewer ports (group alike ones: "
                         "their shares add) or fewer cores")
    return shares / shares.sum()


def serving_cores(policy: Policy, port_load: object, params: PolicyParams) -> np.ndarray:
    """k_p, the cores serving each port at its load (core fractions), same shape.

    A port judged by its own load: under multi-stage's ``system-response``
    rule these are the counts of a port alone (as ``equal-response``), which
    the rule caps where the other ports' work makes fewer cores answer
    better; ``evaluate(...).cores_per_port`` gives the counts it chooses.
    """
    _check_policy(policy)
    load = as_nonnegative("port load", port_load)
    n = params.cores
    if policy == "shared":
        return np.full(load.shape, n, dtype=int)
    if policy == "exclusive":
        return np.ones(load.shape, dtype=int)
    if policy == "one-stage":
        return np.where(load > params.threshold, n, 1).astype(int)
    if params.switch_rule != "threshold":
        crossings = equal_response_loads(params).reshape((-1,) + (1,) * load.ndim)
        return (1 + (load > crossings).sum(axis=0)).astype(int)
    # Fewest cores whose per-core work, overhead (1) included, is within the threshold.
    k = np.arange(1, n + 1).reshape((n,) + (1,) * load.ndim)
    per_core = load * (1.0 + params.overhead * (k - 1) / k) / k
    within = per_core <= params.threshold * (1 + 1e-12)
    return np.where(within.any(axis=0), within.argmax(axis=0) + 1, n).astype(int)


def _placement(work: np.ndarray, cores_per_port: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Place each port on its k least-loaded cores, heaviest port first; the cores' balanced utilisations.

    ``work``, ``cores_per_port``: (B, P). Returns core utilisations (B, n) and
    which cores serve each port (B, P, n). The cores are chosen by the even
    spread (longest-processing-time placement); the utilisations are those of
    the most balanced split of each port's work over its cores
    (:func:`balanced_utilisation`), which is where FCFS service sends it: a
    free core takes whatever its ports have waiting, so work drains to the
    cores the even spread leaves idle (six equal ports on 2 of 7 cores each
    leave two cores at half the others' load; simulated, they are as busy).
    Vectorised over B; the loop runs over ports (a handful), not load points.
    """
    batch, ports = work.shape
    utilisation = np.zeros((batch, n))
    membership = np.zeros((batch, ports, n), dtype=bool)
    order = np.argsort(-work, axis=1, kind="stable")
    rows = np.arange(batch)
    rank = np.arange(n)
    for position in range(ports):
        port = order[:, position]
        k = cores_per_port[rows, port]
        least_loaded = np.argsort(utilisation, axis=1, kind="stable")
        chosen = np.zeros((batch, n), dtype=bool)
        chosen[rows[:, None], least_loaded] = rank[None, :] < k[:, None]
        utilisation += chosen * (work[rows, port] / k)[:, None]
        membership[rows, port] = chosen
    return balanced_utilisation(work, membership, utilisation), membership


#: Sweeps of :func:`balanced_utilisation` at most, and the utilisation change that ends them. The split it
#: stops at is feasible (each port's work on its own cores), so a maximum read from it is never too high;
#: 40 sweeps put six ports on 7 cores within 4e-6 of the balanced maximum. Many cores converge slowly:
#: 16 ports on 256 cores under multi-stage take 23 s per curve at 40 sweeps (3 s before the split).
_BALANCE_SWEEPS, _BALANCE_TOL = 40, 1e-10


def balanced_utilisation(work: np.ndarray, membership: np.ndarray, even: np.ndarray | None = None) -> np.ndarray:
    """Core utilisations (B, n) of the most balanced split of each port's work over its cores.

    ``work``: (B, P) each port's work (cores); ``membership``: (B, P, n) its
    cores; ``even``: the even spread's utilisations, if known. The split
    minimises sum_j U_j^2 over x_pj >= 0 with sum_j x_pj = work_p, which also
    minimises the busiest core's utilisation: the system is stable exactly
    when that minimum is below 1 (FCFS with eligibility needs, for every set
    of ports, less work than the cores that serve them can do). Found by
    water-filling one port at a time over the others' work (coordinate
    descent on a convex quadratic), from the even spread; where the even
    spread already puts every port's cores at one utilisation it is the
    optimum (the seed's scenarios) and is returned as it is.
    """
    per_core = work / np.maximum(membership.sum(axis=2), 1)
    split = membership * per_core[:, :, None]                                 # x (B, P, n)
    utilisation = split.sum(axis=1) if even is None else even
    spread = np.where(membership, utilisation[:, None, :], -np.inf).max(axis=2) - \
        np.where(membership, utilisation[:, None, :], np.inf).min(axis=2)
    uneven = np.any((spread > _BALANCE_TOL) & (work > 0), axis=1)
    if not uneven.any():
        return utilisation
    split, cells, w = split[uneven], membership[uneven], work[uneven]
    total = split.sum(axis=1)
    n = total.shape[1]
    rank = np.arange(1, n + 1)
    for _ in range(_BALANCE_SWEEPS):
        before = total.copy()
        for port in range(w.shape[1]):
            # Water-fill port's work over its cores on the others' work b: x_j = max(0, level - b_j).
            base = np.where(cells[:, port], total - split[:, port], np.inf)
            ordered = np.sort(base, axis=1)
            level = (w[:, port, None] + np.cumsum(np.where(np.isfinite(ordered), ordered, 0.0), axis=1)) / rank
            fits = np.isfinite(ordered) & (level > ordered)
            last = n - 1 - np.argmax(fits[:, ::-1], axis=1)
            chosen = np.where(fits.any(axis=1), level[np.arange(level.shape[0]), last], -np.inf)  # no work
            new = np.where(cells[:, port], np.maximum(chosen[:, None] - base, 0.0), 0.0)
            total += new - split[:, port]
            split[:, port] = new
        if np.max(np.abs(total - before)) < _BALANCE_TOL:
            break
    utilisation = utilisation.copy()
    utilisation[uneven] = total
    return utilisation


def _erlang_c(servers: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """P(wait) in M/M/c at per-server utilisation rho < 1 (vectorised over c)."""
    from iosizer.model.queueing import erlang_c

    servers, rho = np.broadcast_arrays(servers, rho)
    wait = np.zeros(rho.shape)
    busy = rho > 0                  # erlang_c takes a positive offered load
    if busy.any():
        wait[busy] = erlang_c(servers[busy], servers[busy] * rho[busy])
    return wait


def _components(membership: np.ndarray) -> np.ndarray:
    """Connected components of the port-core eligibility graph: each core's label (B, n), the least
    core index of its component (cores linked by a port that may use both). Label propagation over
    ports, at most n rounds, each vectorised over load points."""
    batch, _, n = membership.shape
    label = np.broadcast_to(np.arange(n, dtype=float), (batch, n))
    for _ in range(n):
        port_label = np.where(membership, label[:, None, :], np.inf).min(axis=2)
        spread = np.minimum(label, np.where(membership, port_label[:, :, None], np.inf).min(axis=1))
        if np.array_equal(spread, label):
            break
        label = spread
    return label.astype(int)


def _pooled_waiting(load: np.ndarray, service: np.ndarray, k: np.ndarray, membership: np.ndarray,
                    busy: np.ndarray, peak: np.ndarray, core_utilisation: np.ndarray,
                    with_probability: bool = False) -> Any:
    """Each port's mean wait W_p (B, P), service-time units: formulas (3) and (4) of the module docstring.

    ``load``, ``service``, ``k``: (B, P); ``membership``: (B, P, n) the cores of each port; ``busy``:
    (P,) the ports that carry work (only they link cores); ``peak``: (B,) the busiest core's
    utilisation (< 1), which no component's mean exceeds but for float rounding. A component of K
    cores is one M/M/K queue at its ports' work a with the mean residual service
    s_r = sum L s^2 / sum L s; a port on k_p of its cores waits when all k_p are busy: with every
    core busy (Erlang C) through the pooled line and then for one of its own cores, with b < K busy
    (M/M/K's pi_b, busy cores taken at random) for the first of its k_p to free. The pooled line of
    (3) is then replaced by the I/Os ahead that the port's own cores must serve (:func:`_own_line`).

    A port pools only with the cores it reaches: its own and those of the ports that share one of them
    (``core_utilisation``, (B, n), the balanced split's, gives their work). Where that is fewer than its
    component's (a chain of ports on 2 cores each, six ports on 7 cores), K and a are the reach's: work
    two ports away does not relieve it (docs/validation/loadshare.md, "Reach").
    """
    pooled, work, residual = _reach(load, service, membership, busy, core_utilisation)
    rho = np.minimum(work / pooled, peak[:, None])
    all_busy = _erlang_c(pooled, rho)
    some_busy = _some_busy(all_busy, rho, pooled, k)
    waiting = residual * (all_busy * (1.0 / (pooled * (1.0 - rho)) + 1.0 / k - 1.0 / pooled) + some_busy / k)
    pooled_wait = residual * all_busy / (pooled * (1.0 - rho))  # W_K, M/M/K's mean wait
    waiting = _own_line(load, service, k, pooled, membership, busy, waiting - rho * pooled_wait, pooled_wait)
    # With ``with_probability``: also P(the port waits) = P(all k_p of its cores busy), for the tails.
    return (waiting, all_busy + some_busy) if with_probability else waiting


def _reach(load: np.ndarray, service: np.ndarray, membership: np.ndarray, busy: np.ndarray,
           core_utilisation: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pool each port waits in, (B, P) each: its cores K (the component's, or the reach's where
    narrower), their work a, and the mean residual service s_r = sum L s^2 / sum L s (see
    :func:`_pooled_waiting`)."""
    batch, ports, n = membership.shape
    label = _components(membership & busy[None, :, None])
    rows = np.arange(batch)[:, None]
    port_label = np.where(membership, label[:, None, :], n).min(axis=2)           # (B, P)
    flat = (rows * n + port_label).ravel()

    def per_port(values: np.ndarray) -> np.ndarray:
        total = np.bincount(flat, weights=np.where(busy, values, 0.0).ravel(), minlength=batch * n)
        return np.take_along_axis(total.reshape(batch, n), port_label, axis=1)

    servers = np.bincount((rows * n + label).ravel(), minlength=batch * n).reshape(batch, n)
    pooled = np.take_along_axis(servers, port_label, axis=1).astype(float)        # K of each port
    work = per_port(load * service)
    residual = per_port(load * service ** 2) / np.where(work > 0, work, 1.0)
    cells = (membership & busy[None, :, None]).astype(float)
    shared = np.einsum("bpn,bqn->bpq", cells, cells) > 0                        # ports with a core in common
    reach = np.einsum("bpq,bqn->bpn", shared.astype(float), cells) > 0
    size = reach.sum(axis=2).astype(float)
    narrower = busy & (size < pooled)
    if narrower.any():
        pooled = np.where(narrower, size, pooled)
        work = np.where(narrower, (reach * core_utilisation[:, None, :]).sum(axis=2), work)
    return pooled, work, residual


def _some_busy(all_busy: np.ndarray, rho: np.ndarray, pooled: np.ndarray, k: np.ndarray) -> np.ndarray:
    """P(all k of the port's cores busy but not all K), M/M/K's pi_b with busy cores taken at random.

    sum_{b=k}^{K-1} pi_b C(b, k) / C(K, k), with pi_b = (1 - C) (a^b / b!) / sum_{j<K} a^j / j!. As
    C(b, k) / C(K, k) = b! (K-k)! / ((b-k)! K!), the sum is (1 - C) a^k (K-k)! / K! sum_{m<K-k} a^m / m!
    / sum_{j<K} a^j / j!, and each partial exponential sum is e^a Q(n, a) (Q the regularised upper
    incomplete gamma): a closed form, in logs."""
    a = rho * pooled
    kk = np.minimum(k.astype(float), pooled)  # a port never spans more than its component
    partial = (kk < pooled) & (rho > 0)
    safe_a, rest = np.where(partial, a, 1.0), np.where(partial, pooled - kk, 1.0)
    with np.errstate(divide="ignore", under="ignore"):
        log_some = (np.log1p(-np.minimum(all_busy, 1.0)) + kk * np.log(safe_a) + gammaln(rest + 1.0)
                    - gammaln(np.where(partial, pooled, 1.0) + 1.0)
                    + np.log(gammaincc(rest, safe_a)) - np.log(gammaincc(np.where(partial, pooled, 1.0), safe_a)))
    return np.where(partial, np.exp(log_some), 0.0)


def _own_line(load: np.ndarray, service: np.ndarray, k: np.ndarray, pooled: np.ndarray, membership: np.ndarray,
              busy: np.ndarray, until_free: np.ndarray, pooled_wait: np.ndarray) -> np.ndarray:
    """Formula (4) of the module docstring, each port's mean wait W_p (B, P), service times.

    ``load``, ``service``, ``k``, ``pooled``: L_p, s_p, k_p and K (B, P); ``until_free``: Q_p, formula
    (3) less its pooled line rho W_K (the wait for one of the port's cores to free); ``pooled_wait``:
    W_K = s_r C(K, a) / (K (1 - rho)). The I/Os ahead of an arrival are taken by Little's law: the
    port's own, L_p W_p of them, only its k_p cores serve; of another port q's, L_q W_K, the share
    omega_pq that lands on p's cores, each core j of q taking q's work in proportion to its spare
    capacity 1 - (U_j - L_q s_q / k_q) (U_j the placement's utilisation, q's own share left out):

        W_p = (Q_p + F_p) / (1 - u_p),  F_p = W_K sum_{q != p} omega_pq L_q s_q / k_p,  u_p = L_p s_p / k_p

    and a narrow port's W_p at least its own M/M/k_p wait, s_p C(k_p, k_p u_p) / (k_p (1 - u_p)).
    With k_p = K (omega = 1 for every q) or K = 1 this is (3) again, exactly.
    """
    work = np.where(busy, load * service, 0.0)
    per_core = work / k                                                       # (B, P)
    utilisation = (membership * per_core[:, :, None]).sum(axis=1)            # U_j (B, n)
    # Spare capacity of each of q's cores once q's own share is taken off: where q's work goes when
    # other ports' I/Os hold a core (the simulated [3, 1, 1, 1] mix: the hot port's work splits
    # 0.40 / 0.20 x 3 over its four cores at 0.9, this rule 0.39 / 0.20 x 3; the placement's 0.25 each).
    spare = np.where(membership, np.maximum(1.0 - utilisation[:, None, :] + per_core[:, :, None], 1e-12), 0.0)
    share = spare / spare.sum(axis=2, keepdims=True)                         # (B, Q, n)
    # sum_q omega_pq L_q s_q: the work landing on each core, summed over p's cores; omega_pp = 1, so
    # p's own work comes off whole (one pass over cores instead of one per pair of ports).
    landing = np.einsum("bqn,bq->bn", share, work)
    foreign = np.maximum(np.einsum("bpn,bn->bp", membership, landing) - work, 0.0)
    waiting = (until_free + pooled_wait * foreign / k) / (1.0 - per_core)
    # Never below the port's own M/M/k_p: its I/Os start in arrival order on its own cores, and other
    # ports' work only holds those cores longer. (3) and the first term read the pooled busy probability,
    # below that of the port's cores where a light wide port links narrow ones (module docstring).
    # Erlang C is at most the utilisation, so s_p u_p / (k_p (1 - u_p)) bounds M/M/k_p's wait from above:
    # only ports under that need Erlang C (few: none in the seed's scenarios).
    narrow = busy & (k < pooled) & (service * per_core / (k * (1.0 - per_core)) > waiting)
    if narrow.any():
        u, kn = per_core[narrow], k[narrow]
        waiting[narrow] = np.maximum(waiting[narrow], service[narrow] * _erlang_c(kn, u) / (kn * (1.0 - u)))
    return waiting


def port_waits(policy: Policy, total_load: object, port_shares: Sequence[float] | np.ndarray,
               params: PolicyParams = PolicyParams()) -> dict[str, np.ndarray]:
    """Each port's service time, mean wait and probability of waiting (B, P), service-time units.

    Formulas (1), (3) and (4) with the cores the policy chooses at each total load
    (cores of work): ``service`` s_p, ``wait`` W_p, ``p_wait`` the chance all
    k_p of the port's cores are busy when an I/O arrives, and ``weight`` the
    ports' load shares (P,). :func:`loadshare_percentiles`
    builds the response tails from them.
    """
    _check_policy(policy)
    total = np.atleast_1d(as_nonnegative("total load", total_load)).astype(np.float64)
    shares = _shares(port_shares, params)
    load = total[:, None] * shares[None, :]
    k = _cores(policy, load, shares, params)
    service = 1.0 + params.overhead * (k - 1) / k
    utilisation, membership = _placement(load * service, k, params.cores)
    peak = utilisation.max(axis=1)
    if np.any(peak >= 1.0):
        raise UnstableQueueError(float(peak.max()), f"{policy} policy at total load "
                                                    f"{total[peak >= 1.0][0]:.4g} cores")
    wait, p_wait = _pooled_waiting(load, service, k, membership, shares > 0, peak, utilisation,
                                   with_probability=True)
    return {"service": service, "wait": wait, "p_wait": np.minimum(p_wait, 1.0), "weight": shares}


@dataclass(frozen=True, eq=False)
class _State:
    throughput: np.ndarray         # (B,) total load, cores
    response: np.ndarray           # (B,) throughput-weighted mean response, s units
    port_response: np.ndarray      # (B, P)
    cores_per_port: np.ndarray     # (B, P)
    core_utilization: np.ndarray   # (B, n)


def _configuration(load: np.ndarray, k: np.ndarray, shares: np.ndarray,
                   params: PolicyParams) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean response (inf where a core saturates), port responses and core utilisations of one
    choice of k_p per port and load point: formulas (1), (3) and (4), the last with the non-core part c."""
    service = 1.0 + params.overhead * (k - 1) / k
    utilisation, membership = _placement(load * service, k, params.cores)
    stable = utilisation.max(axis=1) < 1.0
    busy = shares > 0
    waiting = _pooled_waiting(np.where(stable[:, None], load, 0.0), service, k, membership, busy,
                              np.where(stable, utilisation.max(axis=1), 0.0), utilisation)
    port_response = service + waiting + params.non_core
    mean = (port_response[:, busy] * shares[busy]).sum(axis=1)
    return np.where(stable, mean, np.inf), port_response, utilisation


def _caps(cores: int) -> list[int]:
    """The heaviest port's core counts the system-response rule compares: 1..8, then steps of
    about 1.5x to n (at most 17 on 256 cores, so the work stays bounded)."""
    caps = list(range(1, min(cores, 8) + 1))
    while caps[-1] < cores:
        caps.append(min(cores, int(np.ceil(caps[-1] * 1.5))))
    return caps


def _stage(cap: int, shares: np.ndarray) -> np.ndarray:
    """Stage ``cap`` of system-response: the heaviest port on ``cap`` cores, every other port on cores
    in proportion to its load (rounded, at least 1), (P,)."""
    return np.maximum(1, np.floor(cap * shares / shares.max() + 0.5)).astype(int)


def _cores(policy: Policy, load: np.ndarray, shares: np.ndarray, params: PolicyParams) -> np.ndarray:
    """k_p at each load point (B, P): the port's own load decides, except under system-response.

    System-response compares the stages m = 1..n (:func:`_stage`: the heaviest port on m cores,
    the others in proportion) and takes the one with the least mean response over the whole
    controller (the lower stage on a tie; where every stage saturates a core, the least peak
    utilisation). A stage's k_p do not depend on the load, so its mean response is continuous in
    the load, and the lower envelope of continuous curves does not jump where the stage changes:
    the switch from m to m + 1 cores is where both give the controller equal response.
    """
    if policy != "multi-stage" or params.switch_rule != "system-response":
        return serving_cores(policy, load, params)
    best_k = np.ones(load.shape, dtype=int)
    best, _, utilisation = _configuration(load, best_k, shares, params)
    peak = utilisation.max(axis=1)
    for cap in _caps(params.cores)[1:]:
        k = np.broadcast_to(_stage(cap, shares), load.shape)
        mean, _, utilisation = _configuration(load, k, shares, params)
        trial_peak = utilisation.max(axis=1)
        better = (mean < best) | (np.isinf(best) & np.isinf(mean) & (trial_peak < peak))
        best_k = np.where(better[:, None], k, best_k)
        best, peak = np.where(better, mean, best), np.where(better, trial_peak, peak)
    return best_k


def _state(policy: Policy, total: np.ndarray, shares: np.ndarray, params: PolicyParams,
           require_stable: bool = True) -> _State:
    load = total[:, None] * shares[None, :]
    k = _cores(policy, load, shares, params)
    mean, port_response, utilisation = _configuration(load, k, shares, params)
    stable = np.isfinite(mean)
    if require_stable and not stable.all():
        worst = float(utilisation.max())
        raise UnstableQueueError(worst, f"{policy} policy at total load {total[~stable][0]:.4g} cores")
    return _State(total, mean, port_response, k, utilisation)


def evaluate(policy: Policy, total_load: object, port_shares: Sequence[float] | np.ndarray,
             params: PolicyParams = PolicyParams()) -> _State:
    """Mean response (s units) and core utilisations at total loads (cores of work, before overhead).

    Raises :class:`UnstableQueueError` when any core would be at or above
    utilisation 1.
    """
    _check_policy(policy)
    total = np.atleast_1d(as_nonnegative("total load", total_load))
    return _state(policy, total, _shares(port_shares, params), params)


def switching_loads(policy: Policy, port_shares: Sequence[float] | np.ndarray,
                    params: PolicyParams = PolicyParams()) -> np.ndarray:
    """Total loads at which the policy changes some port's k_p (sorted, cores).

    Under system-response they are found numerically below the policy's
    maximum: on a 400-point grid, each interval where some k_p changes is
    bisected to 1e-13 (two changes within 1/400 of the range count as one).
    """
    _check_policy(policy)
    shares = _shares(port_shares, params)
    if policy in ("shared", "exclusive"):
        return np.empty(0)
    if policy == "one-stage":
        port_loads = np.array([params.threshold])
    elif params.switch_rule != "threshold":
        port_loads = equal_response_loads(params)
    else:  # k -> k + 1 where the port's per-core work on k cores reaches the threshold
        k = np.arange(1, params.cores)
        port_loads = params.threshold * k / (1.0 + params.overhead * (k - 1) / k)
    if policy == "multi-stage" and params.switch_rule == "system-response":
        return _system_switches(shares, params, max_throughput(policy, shares, params))
    busy = shares[shares > 0]
    return np.unique((port_loads[:, None] / busy[None, :]).ravel())


def _cores_at(total: np.ndarray, shares: np.ndarray, params: PolicyParams) -> np.ndarray:
    """The multi-stage rule's cores of each port at each total load (rows)."""
    return _cores("multi-stage", total[:, None] * shares[None, :], shares, params)


def _picks_high(total: np.ndarray, k_low: np.ndarray, k_high: np.ndarray, shares: np.ndarray,
                params: PolicyParams) -> tuple[np.ndarray, np.ndarray]:
    """Where :func:`_cores` would take ``k_high`` over ``k_low`` (the only two stages an interval
    holds): the stage it meets second must be strictly better, as its loop over stages has it. Also
    the gap of mean responses, high minus low (nan where a stage saturates), for the root search."""
    load = total[:, None] * shares[None, :]
    mean_low, _, use_low = _configuration(load, k_low, shares, params)
    mean_high, _, use_high = _configuration(load, k_high, shares, params)
    peak_low, peak_high = use_low.max(axis=1), use_high.max(axis=1)
    saturated = np.isinf(mean_low) & np.isinf(mean_high)
    strictly = (mean_high < mean_low) | (saturated & (peak_high < peak_low))
    at_least = np.where(saturated, peak_high <= peak_low, mean_high <= mean_low)
    finite = np.isfinite(mean_low) & np.isfinite(mean_high)
    gap = np.where(finite, mean_high - np.where(finite, mean_low, 0.0), np.nan)
    return np.where(k_low.max(axis=1) < k_high.max(axis=1), strictly, at_least), gap


def _illinois(low: np.ndarray, high: np.ndarray, k_low: np.ndarray, k_high: np.ndarray,
              picks_high: Callable[..., tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Each bracket [low, high] narrowed to 1e-13 around the load where the rule switches from ``k_low``
    to ``k_high``.

    Between the two stages each interval holds, R_high - R_low changes sign where the rule switches:
    regula falsi with the Illinois halving (about 8 steps to 1e-13 instead of 40 halvings; each step
    two configurations), halving instead where a stage saturates. The bracket always holds the switch
    as the rule decides it (low: k_low chosen, high: k_high)."""
    ends = picks_high(np.concatenate([low, high]), np.concatenate([k_low, k_low]),
                      np.concatenate([k_high, k_high]))[1]
    g_low, g_high = ends[:low.size], ends[low.size:]
    kept = np.zeros(low.size, dtype=int)  # +1: high was moved last, -1: low
    for _ in range(100):
        width = high - low
        if np.all(width <= 1e-13 * high):
            break
        secant = np.isfinite(g_low) & np.isfinite(g_high) & (g_low != g_high)
        with np.errstate(invalid="ignore", divide="ignore"):
            x = high - g_high * width / np.where(secant, g_high - g_low, 1.0)
        inside = secant & (x > low + 0.01 * 1e-13 * high) & (x < high - 0.01 * 1e-13 * high)
        x = np.where(inside, x, 0.5 * (low + high))
        x = np.where(width <= 1e-13 * high, low, x)  # converged intervals stay put
        high_side, g_x = picks_high(x, k_low, k_high)
        active = width > 1e-13 * high
        move_high, move_low = active & high_side, active & ~high_side
        # Illinois: the end kept twice in a row has its gap halved, so the next secant reaches past the root.
        g_low = np.where(move_high & (kept == 1), 0.5 * g_low, g_low)
        g_high = np.where(move_low & (kept == -1), 0.5 * g_high, g_high)
        high, g_high = np.where(move_high, x, high), np.where(move_high, g_x, g_high)
        low, g_low = np.where(move_low, x, low), np.where(move_low, g_x, g_low)
        kept = np.where(move_high, 1, np.where(move_low, -1, kept))
        # A secant step that lands within 1e-13 of the root from one side is closed from the other.
        near = active & inside & (high - low > 1e-13 * high)
        if near.any():
            step = 0.5e-13 * high
            probe = np.where(move_high, x - step, x + step)
            probe = np.clip(probe, low, high)
            side, g_p = picks_high(probe, k_low, k_high)
            close_low = near & move_high & ~side
            close_high = near & move_low & side
            low, g_low = np.where(close_low, probe, low), np.where(close_low, g_p, g_low)
            high, g_high = np.where(close_high, probe, high), np.where(close_high, g_p, g_high)
    return low, high


def _each_change(start: float, end: float, before: np.ndarray, after: np.ndarray,
                 cores_at: Callable[[np.ndarray], np.ndarray], cores: int) -> list[float]:
    """The switches of an interval that held two changes or more (``before`` -> m -> ``after``): each
    change, one after another, bisected on the rule itself (every stage)."""
    found = []
    a0 = start
    for _ in range(cores):  # the rule changes the cores at most this often in one interval
        a, b = a0, end
        while b - a > 1e-13 * b:
            middle = 0.5 * (a + b)
            if np.array_equal(cores_at(np.array([middle]))[0], before):
                a = middle
            else:
                b = middle
        found.append(0.5 * (a + b))
        before = cores_at(np.array([b]))[0]
        if np.array_equal(before, after) or b >= end:
            break
        a0 = b
    return found


def _system_switches(shares: np.ndarray, params: PolicyParams, top: float) -> np.ndarray:
    """Every total load below ``top`` where the multi-stage rule changes a port's cores: a scan of the
    rule on a grid, each change then narrowed by :func:`_illinois` (or :func:`_each_change`)."""
    def cores_at(total: np.ndarray) -> np.ndarray:
        return _cores_at(total, shares, params)

    def picks_high(total: np.ndarray, k_low: np.ndarray, k_high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _picks_high(total, k_low, k_high, shares, params)

    # 400 even steps, and geometric ones below the first (many cores switch early: skew on 256 cores
    # takes its second and third core at 0.02 and 0.07 of the maximum).
    grid = np.unique(np.concatenate([np.geomspace(top * 1e-6, top / 400, 40), np.linspace(0.0, top, 401)[1:-1]]))
    k = cores_at(grid)
    changed = np.any(k[1:] != k[:-1], axis=1)
    low, high, k_low, k_high = grid[:-1][changed], grid[1:][changed], k[:-1][changed], k[1:][changed]
    # Where an interval holds more than one change, the point found is checked below.
    if low.size:
        low, high = _illinois(low, high, k_low, k_high, picks_high)
    # Each switch found must be a real change of the rule's choice, from k_low to k_high; an interval
    # that held two changes is bisected again on the rule itself (every stage), as before.
    chosen = cores_at(np.concatenate([low, high]))
    real = np.all(chosen[:low.size] == k_low, axis=1) & np.all(chosen[low.size:] == k_high, axis=1)
    found = list(0.5 * (low + high)[real])
    for start, end, before, after in zip(grid[:-1][changed][~real], grid[1:][changed][~real], k_low[~real],
                                         k_high[~real]):
        found += _each_change(float(start), float(end), before, after, cores_at, params.cores)
    return np.unique(np.array(found, dtype=float))


def max_throughput(policy: Policy, port_shares: Sequence[float] | np.ndarray,
                   params: PolicyParams = PolicyParams()) -> float:
    """Largest total load (cores) with every core below utilisation 1.

    Core utilisation is piecewise linear in the load between switching
    points; the largest stable load is found on a grid refined by brentq on
    the last stable interval.
    """
    from scipy.optimize import brentq

    _check_policy(policy)
    shares = _shares(port_shares, params)
    if policy == "multi-stage" and params.switch_rule == "system-response":
        # Each stage's k_p are fixed, so its core utilisations are linear in the load and it is
        # stable up to 1 / (peak utilisation per core of load); the envelope up to the best stage's.
        stages = [_stage(cap, shares) for cap in _caps(params.cores)]
        _, _, utilisation = _configuration(shares[None, :], np.array(stages), shares, params)
        return float(1.0 / utilisation.max(axis=1).min())

    def peaks(totals: np.ndarray) -> np.ndarray:
        # Only the utilisations: these policies' k_p depend on each port's own load, not on responses.
        load = totals[:, None] * shares[None, :]
        k = _cores(policy, load, shares, params)
        utilisation, _ = _placement(load * (1.0 + params.overhead * (k - 1) / k), k, params.cores)
        return utilisation.max(axis=1) - 1.0

    # No policy carries more than n cores of work, so the answer lies below n.
    # The first saturation counts: a policy may be stable again above an
    # unstable stretch (one-stage on many cores: a cold port saturates its
    # one core just before its own switch), but no load gets through it.
    grid = np.linspace(0.0, float(params.cores), 4001)[1:]
    stable = peaks(grid) < 0
    if stable.all():
        return float(grid[-1])
    first = int(np.argmin(stable))
    low = grid[first - 1] if first > 0 else 1e-12
    return float(brentq(lambda total: float(peaks(np.array([total]))[0]), low, grid[first], xtol=1e-12))


@dataclass(frozen=True, eq=False)
class PolicyCurve:
    """Response against throughput for one policy; loads in cores, response in s units."""

    policy: str
    throughput: np.ndarray
    response: np.ndarray
    cores_per_port: np.ndarray
    max_throughput: float
    low_load_response: float
    singularity: float
    switch_loads: np.ndarray
    switch_jumps: np.ndarray


def policy_curve(policy: Policy, port_shares: Sequence[float] | np.ndarray,
                 params: PolicyParams = PolicyParams(), points: int = 60,
                 max_fraction: float = 0.95) -> PolicyCurve:
    """Sample R(X) from near zero to ``max_fraction`` of the policy's maximum.

    The curve includes both sides of every switching load below the end, so a
    plotted jump is vertical; ``switch_jumps`` holds the relative jump at each
    switching load (max/min - 1 of R with the cores chosen just below and just
    above, both at the switching load) and ``singularity`` their maximum (0
    when the policy never switches within the curve).
    """
    _check_policy(policy)
    if points < 2:
        raise InputError(f"points must be >= 2, got {points}")
    if not 0 < max_fraction < 1:
        raise InputError(f"max_fraction must be in (0, 1), got {max_fraction:g}")
    shares = _shares(port_shares, params)
    top = max_throughput(policy, shares, params)
    end = max_fraction * top
    switches = switching_loads(policy, shares, params)
    switches = switches[switches < end]
    sides = np.concatenate([switches * (1 - _SIDE_RTOL), switches * (1 + _SIDE_RTOL)])
    grid = np.unique(np.concatenate([np.linspace(end / points, end, points), sides]))
    # One pass over the stages for every load the curve reads: its points, zero, and both sides of each
    # switch (the rule's cores either side).
    every = _state(policy, np.concatenate([grid, [0.0], sides]), shares, params)
    m, count = grid.size, switches.size
    state = _State(grid, every.response[:m], every.port_response[:m], every.cores_per_port[:m],
                   every.core_utilization[:m])
    low = float(every.response[m])
    if switches.size:
        # The cores chosen either side, both evaluated at the switching load itself: the jump is the
        # discontinuity alone, not the slope of R across the two reading points.
        load = np.concatenate([switches, switches])[:, None] * shares[None, :]
        sides_k = every.cores_per_port[m + 1:]
        at = _configuration(load, sides_k, shares, params)[0]
        at_below, at_above = at[:count], at[count:]
        side_response = every.response[m + 1:]
        exact = np.isfinite(at_below) & np.isfinite(at_above)
        r_below = np.where(exact, at_below, side_response[:count])
        r_above = np.where(exact, at_above, side_response[count:])
        jumps = np.maximum(r_below, r_above) / np.minimum(r_below, r_above) - 1.0
        jumps = np.where(jumps < _JUMP_ROUNDING, 0.0, jumps)  # rounding, not a jump
    else:
        jumps = np.empty(0)
    return PolicyCurve(
        policy=policy,
        throughput=grid,
        response=state.response,
        cores_per_port=state.cores_per_port,
        max_throughput=top,
        low_load_response=low,
        singularity=float(jumps.max()) if jumps.size else 0.0,
        switch_loads=switches,
        switch_jumps=jumps,
    )


# --- the loadshare family declaration --------------------------------------------


def port_shares_of(values: Mapping[str, Any]) -> Sequence[float]:
    """The port mix ``solve`` uses: ``values["port_shares"]``, else table 2's single port.

    The seed's port mixes are tables 2-4, shipped as measurement data; the
    model has no I/O, so the caller that knows the ``scenario`` setting puts
    its shares under ``port_shares`` (:func:`iosizer.calibration.loadshare.solve_values`).
    Only the one-port scenario needs no table; any other scenario without
    shares is an error rather than a silent one-port answer.
    """
    shares = values.get("port_shares")
    if shares is not None:
        return shares
    chosen = values.get("scenario", _ONE_PORT)
    if chosen != _ONE_PORT:
        raise InputError(f"loadshare scenario '{chosen}' needs its port_shares "
                         "(iosizer.calibration.loadshare.solve_values reads them from tables 2-4)")
    return (1.0,)


def _params_of(values: Mapping[str, Any]) -> PolicyParams:
    """PolicyParams from a family's values (the declared ones where a name is missing or None)."""
    def value(spec: ParameterSpec) -> Any:
        given = values.get(spec.name)
        return spec.value if given is None else given

    return PolicyParams(int(value(CORES)), float(value(COMM_OVERHEAD)), float(value(THRESHOLD)),
                        str(value(SWITCH_RULE)), float(value(NON_CORE)))


def _loadshare_solve(values: Mapping[str, Any], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Throughput-weighted mean response (us) at total offered ``iops``, any shape.

    The seed's units are one I/O's service time s: a load of L cores is
    ``iops x io_service_us / 10^6`` and a response of R service times is
    ``R x io_service_us`` microseconds.
    """
    params = _params_of(values)
    service_us = float(values["io_service_us"])
    iops = np.asarray(inputs["iops"], dtype=np.float64)
    state = evaluate(values["policy"], iops.ravel() * service_us * 1e-6, port_shares_of(values), params)
    return {"response_us": state.response.reshape(iops.shape) * service_us}


def _loadshare_start(data: Mapping[str, np.ndarray], settings: Mapping[str, Any]) -> dict[str, Any]:
    """The lightest load's response is close to one service time plus the non-core part; the start
    keeps the heaviest measured load stable at the declared overhead (10 % below the policy's maximum)."""
    params = _params_of({**settings, "comm_overhead_pct": COMM_OVERHEAD.value})
    ceiling_cores = max_throughput(settings["policy"], port_shares_of(settings), params)
    stable_us = 0.9 * ceiling_cores / (float(np.max(data["iops"])) * 1e-6)
    lightest = int(np.argmin(data["iops"]))
    return {"io_service_us": min(float(data["response_us"][lightest]) / (1.0 + params.non_core), stable_us),
            "comm_overhead_pct": COMM_OVERHEAD.value}


@lru_cache(maxsize=8)
def _cached_curve(policy: str, shares: tuple[float, ...], params: PolicyParams, points: int) -> PolicyCurve:
    """One policy's curve, kept: every policy of a comparison is normalised by the same reference curve."""
    return policy_curve(policy, shares, params, points=points)


def _curves(values: Mapping[str, Any], policies: Sequence[str]) -> tuple[list[PolicyCurve], PolicyCurve]:
    """Each policy's curve and the reference policy's (``values["reference_policy"]``: the one the
    scenario's figure normalises by), at ``values["points"]`` load points."""
    params, shares, points = _params_of(values), tuple(port_shares_of(values)), int(values["points"])
    reference = _cached_curve(values["reference_policy"], shares, params, points)
    return [reference if policy == reference.policy else policy_curve(policy, shares, params, points=points)
            for policy in policies], reference


def _compare(values: Mapping[str, Any], inputs: Mapping[str, np.ndarray]) -> dict[str, Any]:
    """``iosizer loadshare compare``: a policy's maximum (cores) and low-load response (service times),
    each over the reference policy's, its largest response jump and the jumps at its switching loads; in
    IOPS and us from ``io_service_us``."""
    curves, reference = _curves(values, (values["policy"],))
    service_us = float(values["io_service_us"])
    return {
        "scenario": np.array([values["mix"]] * len(curves), dtype=object),
        "max_throughput_norm": np.array([c.max_throughput / reference.max_throughput for c in curves]),
        "low_load_response_norm": np.array([c.low_load_response / reference.low_load_response for c in curves]),
        "singularity": np.array([c.singularity for c in curves]),
        "switch_throughput_norm": [c.switch_loads / reference.max_throughput for c in curves],
        "switch_jumps": [c.switch_jumps for c in curves],
        "max_throughput_iops": np.array([c.max_throughput / (service_us * 1e-6) for c in curves]),
        "low_load_response_us": np.array([c.low_load_response * service_us for c in curves]),
    }


#: Relative distance within which two rows of a curve are the two sides of one switching load (they sit
#: 1e-9 either side of it): no band means anything there, the response jumps between them.
_SIDE_ROWS = 2e-6


def loadshare_percentiles(policy: str, total_load: object, port_shares: Sequence[float], params: PolicyParams,
                          percentiles: Sequence[float]) -> dict[str, np.ndarray]:
    """``response_pP`` (service times) of :func:`evaluate`'s response, per total load: the throughput-weighted
    mixture of the ports' M/M/c-form responses with the wait probability (formula (3)) and mean wait (formula
    (4)) of :func:`port_waits` (:func:`iosizer.model.percentiles.port_mixture_percentiles`); exact for
    exclusive and shared (Erlang C). Measured error: ``data/error_grids/loadshare_percentiles.csv``."""
    from iosizer.model.percentiles import port_mixture_percentiles

    return port_mixture_percentiles(port_waits(policy, total_load, port_shares, params), params.non_core, percentiles)


def _curve(values: Mapping[str, Any], rows: Mapping[str, np.ndarray]) -> dict[str, Any]:
    """``iosizer loadshare curve``: one policy's response against its throughput, from near zero to 0.95 of
    its maximum and both sides of each switching load, in cores and service times and over the reference
    policy's maximum and minimum; in IOPS and us from ``io_service_us``.

    Given ``rows`` (the answer's own, Question.rows), the response in us at those rows' IOPS with the values
    moved (a band at the same IOPS), none (NaN) on the two rows either side of a jump."""
    service_us = float(values["io_service_us"])
    if rows:
        load = np.asarray(rows["throughput_cores"], dtype=float)
        response = evaluate(values["policy"], np.asarray(rows["throughput_iops"]) * service_us * 1e-6,
                            port_shares_of(values), _params_of(values)).response * service_us
        near = np.abs(np.diff(load) / load[1:]) < _SIDE_ROWS
        sides = np.concatenate([near, [False]]) | np.concatenate([[False], near])
        return {"response_us": np.where(sides, np.nan, response)}
    (curve,), reference = _curves(values, (values["policy"],))
    count = curve.throughput.size
    out: dict[str, Any] = {
        "scenario": np.array([values["mix"]] * count, dtype=object),
        "throughput_norm": curve.throughput / reference.max_throughput,
        "response_norm": curve.response / reference.low_load_response,
        "throughput_cores": curve.throughput,
        "response_service_times": curve.response,
        "hot_port_cores": curve.cores_per_port.max(axis=1),
    }
    error = _mean_error(values, curve)
    if error is not None:
        out["response_error_pct"] = error
    out.update(throughput_iops=curve.throughput / (service_us * 1e-6), response_us=curve.response * service_us)
    return out


def _error_region(values: Mapping[str, Any], grid: Mapping[str, np.ndarray], label: str) -> np.ndarray:
    """The grid's cells for this answer: the seed's scenario at its cores, else every mix off the seed's."""
    policy = grid["policy"] == values["policy"]
    same = (grid[label] == values["mix"]) & (grid["cores"] == int(values["cores"])) & policy
    return same if same.any() else (~np.isin(grid[label], values["seed_mixes"]) & policy)


def _mean_error(values: Mapping[str, Any], curve: PolicyCurve) -> np.ndarray | None:
    """The mean response's error (%) measured against simulation around each row's load, where it passes
    the rule somewhere (grid ``loadshare_response``); shared and exclusive are exact."""
    from iosizer.data.error_grids import ERROR_RULE_PCT, load
    from iosizer.model.percentiles import percentile_approximation_error

    if values["policy"] in ("shared", "exclusive"):
        return None
    grid = load("loadshare_response")
    region = _error_region(values, grid, "mix")
    subset = {key: column[region] for key, column in grid.items()}
    errors = np.array([percentile_approximation_error(subset, {"load_fraction": float(f)})
                       for f in curve.throughput / curve.max_throughput])
    return errors if np.any(np.abs(errors) > ERROR_RULE_PCT) else None


def _curve_percentiles(values: Mapping[str, Any], rows: Mapping[str, np.ndarray],
                       percentiles: tuple[float, ...]) -> dict[str, np.ndarray]:
    """``response_pP_service_times`` and ``_norm`` at the curve's rows (:func:`iosizer.model.percentiles.
    loadshare_percentiles`), and ``response_pP_error_pct`` where the error measured against simulation
    (grid ``loadshare_percentiles``) passes the rule."""
    params, shares, policy = _params_of(values), port_shares_of(values), values["policy"]
    loads = np.asarray(rows["throughput_cores"], dtype=float)
    reference_low = np.asarray(rows["response_service_times"]) / np.asarray(rows["response_norm"])
    out: dict[str, np.ndarray] = {}
    for key, tail in loadshare_percentiles(policy, loads, shares, params, percentiles).items():
        out[f"{key}_service_times"], out[f"{key}_norm"] = tail, tail / reference_low
    if policy in ("shared", "exclusive"):  # exact: Erlang C per port group
        return out
    top = max_throughput(policy, np.asarray(shares, dtype=float) / np.sum(shares), params)
    return {**out, **percentile_errors(values, loads / top, percentiles)}


def percentile_errors(values: Mapping[str, Any], load_fractions: Any,
                      percentiles: Sequence[float]) -> dict[str, np.ndarray]:
    """``response_pP_error_pct`` at each load (a fraction of the policy's maximum) where the percentile's error
    measured against simulation (grid ``loadshare_percentiles``) passes the rule somewhere: the seed's scenario
    (``values["mix"]``) at its cores, else the worst of the mixes measured off the seed's scenarios."""
    from iosizer.data.error_grids import ERROR_RULE_PCT, load
    from iosizer.model.percentiles import percentile_approximation_error, percentile_key

    grid = load("loadshare_percentiles")
    region = _error_region(values, grid, "scenario")
    if not region.any():
        return {}
    subset = {key: column[region] for key, column in grid.items()}
    out: dict[str, np.ndarray] = {}
    for p in percentiles:
        error = np.array([percentile_approximation_error(subset, {"load_fraction": float(f), "percentile": p})
                          for f in np.atleast_1d(load_fractions)])
        if np.any(np.abs(error) > ERROR_RULE_PCT):
            out[f"response_{percentile_key(p)}_error_pct"] = error
    return out


def _switches_note(values: Mapping[str, Any], outputs: Mapping[str, Any]) -> str | None:
    """Where the curve switches (the pairs of rows either side of a switching load) and how far it jumps."""
    x, r = np.asarray(outputs["throughput_norm"], float), np.asarray(outputs["response_service_times"], float)
    pairs = np.flatnonzero(np.abs(np.diff(x) / x[1:]) < _SIDE_ROWS)
    parts = [(0.5 * (x[i] + x[i + 1]), max(r[i], r[i + 1]) / min(r[i], r[i + 1]) - 1) for i in pairs]
    rows = f"{x.size} rows: {int(values['points'])} load points and both sides of {len(parts)} switching load" \
        f"{'s' if len(parts) != 1 else ''} below 0.95 of the maximum (where the response jumps); " if parts else ""
    return (rows + "switches at " + ", ".join(f"{at:.3f} (jump {100 * jump:.1f} %)" for at, jump in parts)) \
        if parts else None


def _curve_notes(values: Mapping[str, Any], outputs: Mapping[str, Any]) -> str | None:
    """What the optional columns are, when they are there."""
    lines = []
    if "response_error_pct" in outputs:
        lines.append("response_error_pct: the mean response's worst error measured against simulation around each "
                     "load (data/error_grids/loadshare_response.csv; 0 within the simulation's interval); past 2 % "
                     "ask --simulate")
    if any(key.startswith("response_p") for key in outputs):
        lines.append("response_pP: mixture over ports of M/M/c-form responses with each port's wait probability and "
                     "mean wait from the model (exact for shared and exclusive; for one-stage and multi-stage "
                     "measured against simulation on a grid, data/error_grids/loadshare_percentiles.csv, and stated "
                     "as response_pP_error_pct past 2 %); a switch's jump is the mean's, a percentile may move "
                     "there too")
    if "response_us" in outputs:
        lines.append("throughput_iops = throughput_cores x 10^6 / io_service_us, response_us = response_service_times "
                     "x io_service_us; its band is at the same IOPS, none either side of a jump")
    return "; ".join(lines) or None


def _normalised_note(values: Mapping[str, Any], outputs: Mapping[str, Any]) -> str:
    source = (f"seed 003 table {values['table']}, figure {values['figure']}" if values["table"] else
              f"port shares {', '.join(f'{v:.4g}' for v in port_shares_of(values))} (not a seed scenario)")
    reference = values["reference_policy"]
    return f"{source}: throughput / {reference}'s maximum, response / {reference}'s minimum"


def _controller_note(values: Mapping[str, Any], outputs: Mapping[str, Any]) -> str:
    return (f"{values['cores']} cores; communication overhead {values['comm_overhead_pct']:g} %; threshold "
            f"{values['threshold']:g} of a core per serving core (one-stage; multi-stage only under the threshold "
            f"rule); multi-stage switch rule {values['switch_rule']}; every response includes the non-core part "
            f"of a write hit, {values['non_core_pct']:g} % of a service time")


def _iops_note(values: Mapping[str, Any], outputs: Mapping[str, Any]) -> str | None:
    if not any(key.endswith(("_iops", "_us")) for key in outputs):
        return None
    return f"one I/O is {float(values['io_service_us']):.4g} us of core time (io_service_us): IOPS and us from it"


_POOLED = ("response: each group of cores linked by shared ports pooled as one M/M/K (Erlang C), a port on fewer "
           "of them also waiting for one of its own and behind its own I/Os ahead, throughput-weighted over ports")


#: Load points of an operating point's curve (only its maximum and switching loads are read).
_POINT_POINTS = 20

UTILIZATION = ParameterSpec(
    "utilization", "1", 0.7, (1e-6, 0.999999), "assumed",
    "a planning choice, no model number: 70 % of each policy's own maximum, below the knee of every policy's "
    "response and short of the switching region's top",
    "the operating point: a fraction of each policy's own maximum throughput (not the switching threshold)",
    kind="setting")


def _operating_point(values: Mapping[str, Any], rows: Mapping[str, np.ndarray]) -> dict[str, Any]:
    """``iosizer loadshare point``: a policy's maximum throughput (cores), its mean response at
    ``utilization`` of that maximum (service times) and its largest response jump at a switching load (%);
    in IOPS and us from ``io_service_us``. Given ``rows`` (Question.rows: a band), the response in us at
    the rows' IOPS (a band at the same IOPS), the others at the values given."""
    params, shares = _params_of(values), port_shares_of(values)
    service_us = float(values["io_service_us"])
    curve = policy_curve(values["policy"], shares, params, points=_POINT_POINTS)
    load = float(values["utilization"]) * curve.max_throughput
    response = float(evaluate(curve.policy, [load], shares, params).response[0])
    out = {"max_throughput_cores": np.array([curve.max_throughput]),
           "response_service_times": np.array([response]),
           "jump_pct": np.array([100 * curve.singularity]),
           "max_throughput_iops": np.array([curve.max_throughput / (service_us * 1e-6)]),
           "load_iops": np.array([load / (service_us * 1e-6)]),
           "response_us": np.array([response * service_us])}
    if rows:
        at = np.asarray(rows["load_iops"], dtype=float) * service_us * 1e-6
        out["response_us"] = evaluate(curve.policy, at, shares, params).response * service_us
    return out


def _point_table(records: list[dict[str, Any]], context: Mapping[str, Any]) -> list[TableRow]:
    """The ``[loadshare]`` table's rows: the policy of the highest maximum, then each policy's maximum, its
    response at the operating point and its largest jump; in IOPS and us when ``io_service_us`` is the
    planner's (a profile, or carried to a CPU)."""
    values, given = context["values"], context["given"]
    best = max(records, key=lambda r: r["max_throughput_cores"])
    rows = [TableRow("policy with the highest throughput", best["policy"], "",
                     f"{best['max_throughput_cores']:.3g} cores of I/O work")]
    at = f"at {values['utilization']:.0%} of its maximum"
    # As a profile's what-if names its values: the source, then the controller values the table sets.
    changed = {k: given[k] for k in ("switch_rule", "comm_overhead_pct", "threshold", "non_core_pct")
               if given.get(k) is not None}
    source = (context["source"] or "") + changes_note(changed)
    for record in records:
        policy = record["policy"]
        jump = (f"threshold {values['threshold']:g} of a core" if policy == "one-stage"
                or values["switch_rule"] == "threshold" else f"{values['switch_rule']} switching"
                if policy == "multi-stage" else "no switch")
        rows += [TableRow.of(record, "max_throughput_cores", f"{policy}: maximum throughput", "cores",
                             "I/Os per service time; 1 = one core's worth"),
                 TableRow.of(record, "response_service_times", f"{policy}: mean response {at}", "service times",
                             "core groups pooled as M/M/K (Erlang C), a narrow port's own I/Os ahead on its own "
                             f"cores, plus the non-core part, {values['non_core_pct']:g} % of a service time"),
                 TableRow.of(record, "jump_pct", f"{policy}: largest response jump at a switch", "%", jump)]
        if "max_throughput_iops" in record:
            rows += [TableRow.of(record, "max_throughput_iops", f"{policy}: maximum throughput in IOPS", "IOPS",
                                 source),
                     TableRow.of(record, "response_us", f"{policy}: mean response {at} in us", "us",
                                 f"{source}; band at the same IOPS")]
    return rows


#: The response approximation's error against simulation (module docstring's table), stated once:
#: the declaration's service-time text and the report quote it.
RESPONSE_ERROR = (
    "measured against simulation, within 3 % up to 0.9 of the maximum load in the seed's scenarios (skew "
    "multi-stage -0.1 / -1.0 / -0.2 % at 0.6 / 0.8 / 0.9, where M/M/k_p per port group was +4.7 / +11.4 / "
    "+19.6 %) and in mixes where a narrow port's own work loads its cores heavily ([3, 1, 1, 1] ports: -0.3 / "
    "+1.4 % at 0.6 / 0.9, where the pooled queue without the port's own line was -6.6 / -11.0 %); up to 5.4 % "
    "under where a light port spread over every core links narrow ones ([0.5, 1, 1, 1] at 0.8); percentiles "
    "p50-p99 within 1.1 %; off the seed's scenarios (data/error_grids/loadshare_response.csv, 120 cells, 16 random "
    "mixes on 4-8 cores) multi-stage within 2 % up to 0.9 of the maximum and up to 22 % under at 0.95, one-stage "
    "up to 7 % under at 0.6 and 13 % at 0.95 (a narrow port beside one spanning every core): stated as "
    "response_error_pct past 2 %, --simulate answers by simulation"
)


# --- cores for a load: the model 'iosizer size cores' searches (seed 003) ------------------------
#
# At a total load (cores of work) the smallest core count n whose throughput-weighted mean response is
# within the target. Capacity grows with n for every policy; the response need not (shared pays more
# hand-off overhead as n grows), so the answer is the lower edge of the feasible counts (a monotone
# search, iosizer.calibration.declared_sizing): exact when they form one interval, which holds for every
# policy and scenario of the seed (the overhead term saturates at h while the waiting falls).

MAX_CORES = ParameterSpec(
    "max_cores", "cores", None, CORES.bounds, "assumed", "the declared core bound",
    "Search up to this many cores [the declared core bound]", kind="setting", integer=True)


def _responses(policy: str, loads: np.ndarray, shares: Sequence[float], params: PolicyParams) -> np.ndarray:
    """Mean response (service times) at each total load on ``params.cores`` cores; inf where unstable."""
    return _state(policy, loads, _shares(shares, params), params, require_stable=False).response


def _load_solve(values: Mapping[str, Any], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The controller's mean response at each total load (and core count, where the sizing searches it)."""
    from dataclasses import replace

    _check_policy(values["policy"])
    params, shares = _params_of(values), port_shares_of(values)
    loads = np.asarray(inputs["load_cores"], dtype=np.float64)
    cores = np.broadcast_to(np.asarray(inputs.get("cores", params.cores)), loads.shape)
    out = np.empty(loads.shape)
    for n in np.unique(cores):  # one vectorised evaluation per core count
        at = cores == n
        out[at] = _responses(values["policy"], loads[at], shares, replace(params, cores=int(n)))
    return {"response_service_times": out}


def _floor(values: Mapping[str, Any]) -> float:
    """An I/O alone takes one service time and the non-core part."""
    return 1.0 + _params_of(values).non_core


def _max_cores(values: Mapping[str, Any]) -> float:
    return float(values.get("max_cores") or CORES.bounds[1])


def _cores_reason(values: Mapping[str, Any], point: Mapping[str, Any]) -> str:
    from dataclasses import replace

    top = int(_max_cores(values))
    params = replace(_params_of(values), cores=top)
    load = np.asarray(point["load_cores"], dtype=np.float64).reshape(-1)[:1]
    if not np.isfinite(_responses(values["policy"], load, port_shares_of(values), params)[0]):
        return (f"no core count up to {top} carries the load: a port served by one core (exclusive, or below its "
                "threshold) holds more than one core of work")
    return f"no core count up to {top} meets the target"


def largest_load_cores(policy: str, shares: Sequence[float], params: PolicyParams, target: float) -> float | None:
    """Largest total load (cores) with mean response within ``target``: the last crossing of R(L) = target.

    R(L) jumps at switching loads, so the crossing is bracketed on a grid of the policy's stable range
    (one vectorised evaluation) and refined by Brent's method.
    """
    from scipy.optimize import brentq

    top = max_throughput(policy, shares, params)
    grid = np.linspace(0.0, top, 2001)[1:-1]
    within = _responses(policy, grid, shares, params) <= target
    if not within.any():
        return None
    last = int(np.flatnonzero(within)[-1])
    if last == grid.size - 1:
        low, high = grid[-1], top * (1 - 1e-12)
    else:
        low, high = grid[last], grid[last + 1]

    def excess(load: float) -> float:
        try:
            return float(evaluate(policy, [load], shares, params).response[0]) - target
        except UnstableQueueError:
            return math.inf

    if excess(high) <= 0:
        return float(high)
    if not np.isfinite(excess(high)):
        high = np.nextafter(high, low)
    try:
        return float(brentq(lambda load: min(excess(load), 1e300), low, high, xtol=1e-12))
    except ValueError:  # a jump at the edge: the grid point is the answer
        return float(low)


def _at_answer(values: Mapping[str, Any], point: Mapping[str, Any], answer: float | None,
               target: float) -> dict[str, Any]:
    """The cores each group of ports gets at the answer, and the largest load within the target at the
    scenario's cores."""
    from dataclasses import replace

    params, shares = _params_of(values), port_shares_of(values)
    weights = np.asarray(shares, dtype=np.float64) / float(np.sum(shares))
    groups: list[dict[str, Any]] = []
    if answer is not None:
        load = np.asarray(point["load_cores"], dtype=np.float64).reshape(-1)[:1]
        serving = evaluate(values["policy"], load, shares, replace(params, cores=int(answer))).cores_per_port[0]
        for share in sorted(set(weights.tolist()), reverse=True):
            members = np.flatnonzero(weights == share)
            groups.append({"ports": int(members.size), "share": share, "cores_per_port": int(serving[members[0]])})
    return {"port_groups": groups,
            "max_load_cores_at_given": largest_load_cores(values["policy"], shares, params, target)}


def _groups_text(groups: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"{g['ports']} x {g['share']:.3g}: {g['cores_per_port']}" for g in groups)


def _cores_title(values: Mapping[str, Any], targets: Mapping[str, float], inputs: Mapping[str, Any]) -> str:
    load = float(np.asarray(inputs["load_cores"]).reshape(-1)[0])
    return f"Cores per policy for {load:g} cores of work within {targets['target_response']:g} service times"


def _cores_notes(values: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
                 inputs: Mapping[str, Any]) -> tuple[str, ...]:
    params = _params_of(values)
    load = float(np.asarray(inputs["load_cores"]).reshape(-1)[0])
    notes = [f"scenario {values['mix']}: {len(port_shares_of(values))} port(s); load {load:g} cores of work; "
             f"hand-off overhead {params.comm_overhead_pct:g} %, threshold {params.threshold:g}, multi-stage switch "
             f"rule {params.switch_rule}; every response includes the non-core part of a write hit, "
             f"{params.non_core_pct:g} % of a service time",
             "port_groups: ports x load share: cores serving each port at the answer",
             f"max_load_cores_at_given: the largest load within the target at the scenario's {params.cores} cores"]
    if values.get("profile_origin") or values.get("cpu_speed") is not None:
        source = f"profile {values['profile_origin']}" if values.get("profile_origin") else values["values_source"]
        notes.append(f"{source}: --load-cores and --target-response are in that CPU's I/O service times "
                     f"({float(values['io_service_us']):.4g} us each)")
    return tuple(notes)


def _simulated_mix(given):
    """``iosizer simulate loadshare``'s options as its builder's: a port mix by --shares or --port-share."""
    text, port_share = given.pop("shares", None), given.pop("port_share", None)
    listed = None
    if text is not None:
        normal = parse_shares(text, "--shares")
        if not normal:  # an empty list is no mix
            raise InputError(f"--shares must be numbers separated by commas (1,2,3,4), got {text!r}")
        listed = tuple(float(v) for v in normal.split(","))
    if listed is not None and port_share:
        raise InputError("give --shares or --port-share, not both")
    return {"scenario": given.pop("scenario", None), "port_shares": listed or port_share or None, **given}


_DECLARED = "[declared value; see `iosizer params loadshare`]"
#: ``iosizer simulate loadshare`` and ``loadshare load --simulate``: the policy on a port mix at one load, its
#: cores simulated (Ciw); the analytic value is the load question's answer.
_SIMULATION = Simulation(
    "loadshare", "A load-sharing policy's mean response at one load, for a scenario of seed 003 or any port mix "
    "(Ciw).", (
        SimulateOption("scenario", "--scenario",
                       f"one-port, system or skew (seed 003 tables 2-4) {DECLARED_OR_SHIPPED}.", kind=str),
        SimulateOption("port_share", "--port-share", "Load share of one port, any positive number (repeat per port; "
                       "normalised), instead of a scenario's mix; --cores then defaults to the declared count.",
                       many=True),
        SimulateOption("shares", "--shares", "Any port mix instead of a scenario: one load share per port, "
                       "comma-separated, normalised (1,2,3,4); --cores then defaults to the declared count and the "
                       "curves are normalised by shared's.", kind=str, metavar="A,B,..."),
        SimulateOption("policy", "--policy", f"shared, exclusive, one-stage or multi-stage {DECLARED_OR_SHIPPED}.",
                       kind=str),
        SimulateOption("load_fraction", "--load-fraction", "Total load as a fraction of the policy's maximum "
                       "throughput."),
        SimulateOption("load_cores", "--load-cores", "Total load in cores of work (instead of --load-fraction)."),
        SimulateOption("cores", "--cores", "Controller cores [the scenario's].", kind=int),
        SimulateOption("comm_overhead_pct", "--comm-overhead-pct",
                       f"Hand-off overhead, % of one I/O (assumed) {DECLARED_OR_SHIPPED}."),
        SimulateOption("threshold", "--threshold", f"Switching threshold per serving core {DECLARED_OR_SHIPPED}."),
        SimulateOption("non_core_pct", "--non-core-pct", "Fixed time of a write hit that no core spends (link "
                       "transfer, adapter DMA), added to every port's response, % of one I/O's service time (not "
                       f"published; assumed). {_DECLARED}"),
        SimulateOption("switch_rule", "--switch-rule", "When multi-stage gives a port another core: system-response, "
                       f"equal-response or threshold (see `iosizer params loadshare`). {_DECLARED}", kind=str),
        SIMULATED_SCV), prepare=_simulated_mix, metrics=("response_service_times",),
    aliases=("curve",))  # declared on 'curve' until the analytic value became the load question's


FAMILIES = (
    Family(
        name="loadshare",
        formula=("s_p = 1 + h (k_p - 1) / k_p (1); a port's response R_p = s_p + W_p + c, W_p the wait in the "
                 "pooled M/M/K queue of its connected group of cores (Erlang C), a port served by k_p < K of "
                 "them also waiting for one of its own and behind its own I/Os ahead, which only its k_p cores "
                 "serve (formulas (3) and (4) of the module docstring); the controller's response is the "
                 "throughput-weighted mean of R_p"),
        summary="port load-sharing policies on a multi-core storage controller: response vs throughput (seed 003)",
        source=f"{_SEED} secs 2-4, tables 1-4, figures 4-11",
        parameters=(COMM_OVERHEAD, THRESHOLD, NON_CORE, IO_SERVICE_US, CORES, POLICY, SCENARIO, SHARES, SWITCH_RULE,
                    POINTS),
        columns=Schema("loadshare", (
            Column("iops", Role.input, "IOPS", "total I/Os per second offered to the controller's ports",
                   minimum=0, minimum_inclusive=False,
                   # The most any declared controller serves: every core at the shortest declared service time.
                   maximum=CORES.bounds[1] / (IO_SERVICE_US.bounds[0] * 1e-6)),
            Column("response_us", Role.observed, "us",
                   "throughput-weighted mean response over ports, microseconds",
                   minimum=0, minimum_inclusive=False),
        )),
        solve=_loadshare_solve,
        # The threshold moves the response only near a switch, so a response
        # curve pins it poorly: it is held at its declared value unless given.
        # The non-core part is held too (--set non_core_pct=...): with the
        # per-I/O core time it would share the low-load response.
        fit=FitPlan(_loadshare_start, relative=True, holdable=("threshold", "non_core_pct")),
        service_time=("exponential service of one core-time per I/O, plus the hand-off overhead h (k_p - 1) / k_p "
                      "when k_p > 1 cores serve a port, plus a fixed non-core time c per I/O (link, DMA) that "
                      "occupies no core; Poisson arrivals; each connected component of the port-core eligibility "
                      "graph pooled as one M/M/K queue (Erlang C), a port on k_p < K of its cores also waiting for "
                      "one of its own and behind its own I/Os ahead (Little's law, served by its k_p cores alone): "
                      "exact for exclusive and shared, approximate where groups of different sizes overlap; "
                      + RESPONSE_ERROR),
        questions=(
            Question(
                "curve", "response against throughput for one policy, normalised as the seed's figures", rows=True,
                always_list=True, sweeps=("policy",),
                outputs=(
                    Output("scenario", "name", "the seed's scenario, or the planner's N-port mix", text=True),
                    Output("throughput_norm", "1", "throughput over the reference policy's maximum", band=False),
                    Output("response_norm", "1", "mean response over the reference policy's minimum", band=False),
                    Output("throughput_cores", "cores", "throughput, cores of I/O work", band=False),
                    Output("response_service_times", "service times", "mean response, throughput-weighted over "
                           "ports", band=False),
                    Output("hot_port_cores", "cores", "cores serving the busiest port", band=False, integer=True),
                    Output("response_error_pct", "%", "the mean response's error measured against simulation "
                           "around the load, where it passes 2 %", band=False, optional=True),
                    Output("throughput_iops", "IOPS", "throughput", band=False, only_with="io_service_us"),
                    Output("response_us", "us", "mean response", only_with="io_service_us"),
                ),
                solve=_curve, percentiles=_curve_percentiles, percentile_bands=False, scenario=False,
                notes=(_normalised_note, _controller_note, _POOLED, _curve_notes, _switches_note),
                plot=Plot("throughput_norm", ("response_norm",))),
            Question(
                "compare", "every policy's maximum throughput, low-load response and largest jump", rows=True,
                always_list=True, sweeps=("policy",), sweep_all=("policy",),
                outputs=(
                    Output("scenario", "name", "the seed's scenario, or the planner's N-port mix", text=True),
                    Output("max_throughput_norm", "1", "maximum throughput over the reference policy's", band=False),
                    Output("low_load_response_norm", "1", "response near zero load over the reference policy's",
                           band=False),
                    Output("singularity", "1", "largest relative jump of mean response at a switching load, "
                           "max/min - 1", band=False),
                    Output("switch_throughput_norm", "1", "the switching loads over the reference maximum",
                           vector=True),
                    Output("switch_jumps", "1", "the relative jump at each switching load", vector=True),
                    Output("max_throughput_iops", "IOPS", "maximum throughput", band=False, only_with="io_service_us"),
                    Output("low_load_response_us", "us", "response near zero load", band=False,
                           only_with="io_service_us"),
                ),
                solve=_compare, notes=(_normalised_note, _controller_note, _POOLED, _iops_note), scenario=False,
                plot=Plot("max_throughput_norm", ("low_load_response_norm",), series="policy")),
            Question(
                "load", "the controller's mean response at a total load on its cores, each policy (the model "
                "'iosizer size cores' searches)",
                inputs=(Input("load_cores", "cores", (0.0, float(CORES.bounds[1])),
                              description="total offered I/O work, in cores (IOPS x one I/O's core time)"),),
                outputs=(Output("response_service_times", "service times", "mean response, throughput-weighted "
                                "over ports (one I/O's core time)"),),
                solve=_load_solve, sweeps=("policy",), sweep_all=("policy",), always_list=True, scenario=False,
                takes=("comm_overhead_pct", "threshold", "non_core_pct", "io_service_us", "cores", "policy",
                       "scenario", "shares", "switch_rule"),
                settings=(MAX_CORES,), optional=("max_cores",),
                notes=(_controller_note, _POOLED), simulate=_SIMULATION,
                # 'iosizer size cores': the fewest cores within a response target, each policy.
                sizing=(Sizing(
                    "cores", "response_service_times", target="target_response", command="cores", limit=_floor,
                    stop=_max_cores,
                    unreachable=("target response {target:g} service times is unreachable: an I/O alone takes one "
                                 "service time and the non-core part ({limit:g} in all), which no core count "
                                 "shortens"),
                    reason=_cores_reason, at_answer=_at_answer, interval=False,
                    keys=(("cores", "cores"), ("measure", "response_service_times"),
                          ("one_fewer", "one_fewer_response_service_times"), ("port_groups", "port_groups"),
                          ("max_load_cores_at_given", "max_load_cores_at_given"), ("reason", "reason")),
                    title=_cores_title, notes=_cores_notes, words=(("port_groups", _groups_text),),
                    columns=("policy", "cores", "response_service_times", "one_fewer_response_service_times",
                             "port_groups", "max_load_cores_at_given", "reason")),),
            ),
            Question(
                "point", "every policy's maximum throughput, mean response at an operating point (a share of that "
                "maximum) and largest response jump", rows=True, always_list=True, sweeps=("policy",),
                sweep_all=("policy",), settings=(UTILIZATION,), flat_bands=True, shipped_bands=False,
                outputs=(
                    Output("max_throughput_cores", "cores", "maximum throughput, cores of I/O work"),
                    Output("response_service_times", "service times", "mean response at the operating point"),
                    Output("jump_pct", "%", "largest relative jump of mean response at a switching load"),
                    Output("max_throughput_iops", "IOPS", "maximum throughput", only_with="io_service_us"),
                    Output("load_iops", "IOPS", "the operating point's throughput", band=False,
                           only_with="io_service_us"),
                    Output("response_us", "us", "mean response at the operating point (band at the same IOPS)",
                           only_with="io_service_us"),
                ),
                solve=_operating_point, notes=(_controller_note, _POOLED, _iops_note),
                table=_point_table, table_keys={"shares": ("port_shares",), "policy": ("policies",)}),
        ),
        example="loadshare.csv",
        # The settings data/examples/loadshare.csv was generated with. Table 2's
        # single port needs no port-share table, so solve reproduces it from
        # the declaration alone.
        example_settings={"scenario": _ONE_PORT, "policy": "multi-stage"},
        measurements=("seed003_tables2_4_scenarios", "seed003_figure_findings", "seed003_policies",
                      "seed003_text_facts"),
    ),
)
