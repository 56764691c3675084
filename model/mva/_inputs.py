"""Validation at the edge (the solvers trust their inputs) and the work limits.

The system and its formulas: :mod:`iosizer.model.mva`; derivations: docs/validation/mva.md.
"""

from __future__ import annotations

import math

import numpy as np

from iosizer.errors import InputError
from iosizer.model.family import ParameterSpec
from iosizer.model._validate import as_nonnegative, as_positive, as_server_count


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


def parse_servers(texts: "list[str] | list[float]", spec: ParameterSpec | None = None) -> list[float]:
    """``--servers`` values: a whole number >= 1, or ``inf``/``delay`` for a delay station.

    With ``spec`` a server count is checked against its declared bounds.
    """
    counts = []
    for text in texts:
        key = str(text).strip().lower()
        if key in {"inf", "delay", "infinite"}:
            counts.append(math.inf)
            continue
        try:
            value = float(key)
        except ValueError:
            raise InputError(
                f"--servers: expected a whole number >= 1 or 'delay', got {text!r}"
            ) from None
        counts.append(value if spec is None else float(spec.check(value, "--servers")))
    return counts
