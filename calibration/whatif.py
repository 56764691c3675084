"""What-if questions answered from a calibrated profile, with 95 % bands.

The CLI's ``--profile FILE`` lands here: the profile supplies the parameters
a command would otherwise take as options, and
:func:`~iosizer.calibration.uncertainty.propagate` turns the parameters'
intervals into an interval on each answer.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from iosizer.calibration.models import demand_name
from iosizer.calibration.profile import Profile
from iosizer.calibration.uncertainty import propagate


def mmc_settings(profile: Profile) -> tuple[float, int]:
    """(service_rate_per_s, servers) of an ``mmc`` profile."""
    return profile.value("service_rate_per_s"), int(profile.options["servers"])


def service_rate_band(
    profile: Profile, evaluate: Callable[[float], dict[str, Any]]
) -> dict[str, tuple[float, float]]:
    """95 % bands of an open-queue answer ``evaluate(service_rate)``, from an ``mmc`` profile."""
    return propagate(profile, lambda params: evaluate(params["service_rate_per_s"]))


def closed_network_settings(profile: Profile) -> tuple[list[float], float]:
    """(demands, think time) of a ``closed-network`` profile, in seconds."""
    stations = int(profile.options["stations"])
    return [profile.value(demand_name(k + 1)) for k in range(stations)], profile.value("think_time_s")


def closed_network_band(profile: Profile, population: int) -> dict[str, tuple[float, float]]:
    """95 % bands of throughput and response time at ``population``."""
    from iosizer.model.mva import mva

    stations = int(profile.options["stations"])

    def evaluate(params: dict[str, float]) -> dict[str, Any]:
        demands = [params[demand_name(k + 1)] for k in range(stations)]
        result = mva(demands, params["think_time_s"], population)
        return {"throughput": result.throughput, "response_time": result.response_time}

    return propagate(profile, evaluate)


def with_bands(answer: dict[str, Any], bands: dict[str, tuple[Any, Any]], index: int | None = None) -> dict[str, Any]:
    """``answer`` plus ``<key>_ci_low`` / ``<key>_ci_high`` for each banded key.

    ``index`` picks one element when the bands were computed for a sweep.
    Infinite ends (null in JSON) mean the profile cannot bound the answer.
    """
    out = dict(answer)
    for key, (low, high) in bands.items():
        if key in out:
            low, high = np.asarray(low), np.asarray(high)
            if index is not None and low.ndim:
                low, high = low[index], high[index]
            out[f"{key}_ci_low"], out[f"{key}_ci_high"] = float(low), float(high)
    return out
