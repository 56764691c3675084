"""Closed queueing networks solved by Mean Value Analysis (MVA), and their bounds.

System: N jobs circulate between a think (delay) station of mean Z and K
stations, each a single-server queue, a c-server queue or a delay, with
service demand D_k per cycle. Exact MVA (Reiser & Lavenberg 1980) by the
arrival theorem: R_k(n) = D_k (1 + Q_k(n - 1)), X(n) = n / (Z + sum R_k(n)),
Q_k(n) = X(n) R_k(n); c-server stations by load-dependent MVA (Bruell,
Balbo & Afshari 1984), multi-class networks exactly or by Bard-Schweitzer,
service-time variability by the residual-service correction
(:data:`SCV_APPROXIMATION`). Every solver checks its answer against the
asymptotic bounds, Little's law and utilisation <= 1 before returning.

Modules: :mod:`~.single` (single class), :mod:`~.multiclass`,
:mod:`~.batch` (many networks at once), :mod:`~.bounds`, :mod:`~.results`,
:mod:`~.declaration` (the ``closed-network`` family). The derivations, the
numerically stable p_k(0|n) identity and the references are in
docs/validation/mva.md; the scv correction's error against simulation is in
tests/model/test_service_scv.py and docs/validation/tails.md.
"""

from __future__ import annotations

from iosizer.model.mva._inputs import MAX_BATCH_STEPS, MAX_LOAD_DEPENDENT_STEPS, POPULATION
from iosizer.model.mva.batch import BatchResult, check_batch_steps, mva_batch
from iosizer.model.mva.bounds import asymptotic_bounds, balanced_job_bounds, knee_population
from iosizer.model.mva.declaration import FAMILIES, demand_name, parse_station_servers, station_servers
from iosizer.model.mva.multiclass import mva_multiclass
from iosizer.model.mva.results import (
    AsymptoticBounds,
    BalancedJobBounds,
    MultiClassResult,
    MVACurve,
    MVAResult,
    StationResult,
)
from iosizer.model.mva.single import SCV_APPROXIMATION, SERVICE_SCV, mva

__all__ = [
    "AsymptoticBounds",
    "BalancedJobBounds",
    "BatchResult",
    "FAMILIES",
    "MAX_BATCH_STEPS",
    "MAX_LOAD_DEPENDENT_STEPS",
    "MVACurve",
    "MVAResult",
    "MultiClassResult",
    "POPULATION",
    "SCV_APPROXIMATION",
    "SERVICE_SCV",
    "StationResult",
    "asymptotic_bounds",
    "balanced_job_bounds",
    "check_batch_steps",
    "demand_name",
    "knee_population",
    "mva",
    "mva_batch",
    "mva_multiclass",
    "parse_station_servers",
    "station_servers",
]
