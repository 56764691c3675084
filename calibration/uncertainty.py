"""Carry a profile's parameter intervals through any what-if.

Endpoint propagation: each parameter is moved, one at a time, to the two
ends of its 95 % interval (the others held at their values) and the answer
y is recomputed. Per parameter i, the downward and upward deviations are
d-_i = min(0, y(lo_i) - y, y(hi_i) - y) and d+_i = max(0, ...); the band is

    [y - sqrt(sum_i d-_i^2),  y + sqrt(sum_i d+_i^2)].

For one parameter and a monotone answer this is exact: the band is the image
of the interval, asymmetric where the interval is (a one-CPU extrapolation)
and never crosses a physical limit the model respects (no negative waits).
Several parameters combine in quadrature, which treats them as independent:
an approximation where a fit left them correlated. When an interval end lies
outside the model's domain (a service rate too low for the offered load) the
answer there does not exist, and the band is unbounded on both sides
(infinite; ``null`` in JSON): the profile cannot rule that case out.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from iosizer.calibration.profile import Profile
from iosizer.errors import IosizerError


_Z95 = 1.959963984540054


def _interval(estimate: Any) -> tuple[float, ...]:
    """The stated 95 % interval, or value +/- 1.96 stderr when only that is given."""
    if estimate.ci_low is not None and estimate.ci_high is not None:
        return (estimate.ci_low, estimate.ci_high)
    if estimate.stderr:
        return (estimate.value - _Z95 * estimate.stderr, estimate.value + _Z95 * estimate.stderr)
    return ()


def propagate(
    profile: Profile,
    evaluate: Callable[[Mapping[str, float]], Mapping[str, Any]],
) -> dict[str, tuple[float, float]]:
    """95 % band (low, high) of each numeric output of ``evaluate(params)``."""
    params = profile.values()
    centre = {k: float(v) for k, v in evaluate(params).items() if isinstance(v, (int, float))}
    down = dict.fromkeys(centre, 0.0)
    up = dict.fromkeys(centre, 0.0)
    for name, estimate in profile.parameters.items():
        ends = [e for e in _interval(estimate) if e != estimate.value]
        for end in ends:
            try:
                moved = evaluate({**params, name: end})
            except IosizerError:
                down = dict.fromkeys(centre, math.inf)
                up = dict.fromkeys(centre, math.inf)
                continue
            for key, value in centre.items():
                change = float(moved[key]) - value
                if change < 0:
                    down[key] = math.hypot(down[key], change)
                else:
                    up[key] = math.hypot(up[key], change)
    return {key: (value - down[key], value + up[key]) for key, value in centre.items()}
