"""Results of the MVA solvers: per-station and per-class curves and the bounds.

The system and its formulas: :mod:`iosizer.model.mva`; derivations: docs/validation/mva.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np



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
