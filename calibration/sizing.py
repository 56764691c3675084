"""The interval of a sizing answer from a profile's parameter intervals.

A sizing answer (the servers, cores, ports or outstanding I/Os needed; the
largest load or latency within a budget) is a step or a root of the model,
not a smooth function of the parameters, so the delta method of
:mod:`iosizer.calibration.uncertainty` does not apply. Instead the answer is
solved again with the varying parameters at the ends of their 95 %
intervals: at every corner of the box when at most four parameters vary
(the answer is monotone in each parameter in every family here, so the
extremes lie on corners), otherwise at each parameter's two ends with the
others at their estimates. The interval is the lowest and highest answer
found (the estimate's own answer included).

A parameter without a defined interval (an exact fit) leaves the answer
unbounded: both ends are None. An end where no answer exists (the target
becomes unreachable) is ``on_failure`` (infinity for "how many do I need",
0 for "how much can it carry").
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable, Mapping

from iosizer.calibration.profile import Profile
from iosizer.calibration.uncertainty import _interval
from iosizer.errors import IosizerError

#: Up to this many varying parameters, every corner of the interval box is solved.
MAX_CORNER_PARAMETERS = 4


def answer_interval(
    profile: Profile,
    answer: Callable[[Mapping[str, float]], float],
    on_failure: float = math.inf,
) -> tuple[float | None, float | None]:
    """(low, high) of ``answer(params)`` over the profile's 95 % parameter intervals."""
    params = profile.values()
    varying = {n: e for n, e in profile.parameters.items() if e.vary}
    if not varying:
        return None, None
    ends = {}
    for name, estimate in varying.items():
        interval = _interval(estimate)
        if interval is None:
            return None, None
        ends[name] = interval
    if len(ends) <= MAX_CORNER_PARAMETERS:
        moves = [dict(zip(ends, corner)) for corner in itertools.product(*ends.values())]
    else:
        moves = [{name: end} for name, pair in ends.items() for end in pair]
    found = []
    for move in [{}] + moves:
        try:
            found.append(float(answer({**params, **move})))
        except IosizerError:
            found.append(on_failure)
    return min(found), max(found)


def with_interval(data: dict[str, Any], key: str, interval: tuple[float | None, float | None]) -> dict[str, Any]:
    """``data`` plus ``<key>_ci_low`` / ``<key>_ci_high`` (None where unbounded: infinite in JSON is null).

    Ends of a whole-number answer (``data[key]`` an int) stay whole numbers.
    """
    whole = isinstance(data.get(key), int) and not isinstance(data.get(key), bool)

    def end(value: float | None) -> float | int | None:
        if value is None or not math.isfinite(value):
            return None
        return int(value) if whole else value

    out = dict(data)
    out[f"{key}_ci_low"], out[f"{key}_ci_high"] = end(interval[0]), end(interval[1])
    return out
