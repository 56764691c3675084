"""The device family's sizing on a profile (its curve is the declared question ``curve``).

Sizing reads a profile (a calibration, or the shipped one fitted to the real
sweep in ``data/examples/device``): :func:`iosizer.model.device.outstanding_for_iops`
and :func:`~iosizer.model.device.largest_iops_within_latency`, solved again at
the corners of the floor's and unit service's intervals at the fitted count
(:func:`iosizer.calibration.sizing.answer_interval`); the plausible counts are
reported beside, since the profile holds no floor and unit service fitted at
the other counts.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from iosizer.errors import InputError

if TYPE_CHECKING:
    from iosizer.calibration.profile import Profile


def device_profile(profile: "Profile | None") -> "Profile":
    """``profile`` checked to be the device family's, or the shipped one."""
    if profile is None:
        from iosizer.calibration.frozen import shipped

        return shipped("device")
    if profile.model != "device":
        from iosizer.errors import ProfileError

        raise ProfileError(f"profile is for family '{profile.model}', not 'device'")
    return profile


def _at_fitted_count(profile: "Profile") -> "Profile":
    """The profile with its count of units held and the other parameters' intervals taken at that count
    (estimate +/- the normal quantile x their standard error there): a count at one end of its plausible
    set with a floor or unit service fitted at another is no device the data allow."""
    from iosizer.calibration.fit import NORMAL_QUANTILE

    parameters = {}
    for name, estimate in profile.parameters.items():
        if name == "parallel_units":
            estimate = estimate.model_copy(update={"vary": False})
        elif estimate.vary and estimate.stderr is not None and math.isfinite(estimate.stderr):
            half = NORMAL_QUANTILE * estimate.stderr
            estimate = estimate.model_copy(update={"ci_low": max(estimate.value - half, 0.0),
                                                   "ci_high": estimate.value + half})
        parameters[name] = estimate
    return profile.model_copy(update={"parameters": parameters})


def size(profile: "Profile | None", target_iops: float | None = None, target_latency_us: float | None = None,
         percentile: float | None = None) -> dict[str, Any]:
    """The smallest outstanding for ``target_iops`` and/or the largest IOPS within ``target_latency_us``
    (the mean, or the ``percentile``), each with its interval over the profile's 95 % intervals."""
    from iosizer.calibration.profile import profile_values
    from iosizer.calibration.sizing import answer_interval, with_interval
    from iosizer.model.device import largest_iops_within_latency, outstanding_for_iops
    from iosizer.model.percentiles import PERCENTILE

    if target_iops is None and target_latency_us is None:
        raise InputError("give --target-iops and/or --target-latency-us")
    if percentile is not None and target_latency_us is None:
        raise InputError("--percentile goes with --target-latency-us")
    if percentile is not None:
        percentile = PERCENTILE.check(percentile, "--percentile")
    profile = device_profile(profile)
    values = profile_values(profile)
    conditional = _at_fitted_count(profile)
    data: dict[str, Any] = {}
    if target_iops is not None:
        sized = outstanding_for_iops(values, target_iops)
        data.update({"target_iops": float(target_iops), "outstanding": int(sized["outstanding"]),
                     "iops": sized["iops"], "mean_latency_us": sized["mean_latency_us"],
                     "ceiling_iops": sized["ceiling_iops"]})
        data = with_interval(data, "outstanding", answer_interval(
            conditional, lambda moved: outstanding_for_iops(moved, target_iops)["outstanding"]))
    if target_latency_us is not None:
        within = largest_iops_within_latency(values, target_latency_us, percentile)
        key = "mean" if percentile is None else f"p{percentile:g}"
        data.update({"target_latency_us": float(target_latency_us), "latency_metric": key,
                     "max_iops_within_latency": within["iops"],
                     "outstanding_at_max_iops": int(within["outstanding"]),
                     "latency_at_max_iops_us": within["latency_us"]})
        data = with_interval(data, "max_iops_within_latency", answer_interval(
            conditional, lambda moved: largest_iops_within_latency(moved, target_latency_us, percentile)["iops"],
            on_failure=0.0))
    return data
