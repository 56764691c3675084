"""Sizing: what every inverse question shares (the typed error of a target out of reach, a monotone search).

The inverse questions themselves ("how many servers for this load within this
response?", "how much load within it?") are declared beside their models
(:class:`iosizer.model.family.Sizing`: the mmc family's ``size servers`` and
``size load``, the closed network's ``size load``) and answered by one search,
:mod:`iosizer.calibration.declared_sizing`.
"""

from __future__ import annotations

from typing import Callable

from iosizer.errors import InputError

__all__ = ["UnreachableTargetError", "smallest_integer"]


class UnreachableTargetError(InputError):
    """No configuration meets the target (a response below the service time itself)."""


def smallest_integer(meets: Callable[[int], bool], lowest: int, highest: int) -> int | None:
    """Smallest whole n in [lowest, highest] with meets(n), for a predicate monotone in n
    (False ... False True ... True); None when even ``highest`` fails. Galloping then bisection:
    about 2 log2(answer - lowest) evaluations, each one solve of the model."""
    if meets(lowest):
        return lowest
    lo, step = lowest, 1
    while True:
        probe = min(lo + step, highest)
        if meets(probe):
            hi = probe
            break
        if probe >= highest:
            return None
        lo, step = probe, step * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if meets(mid) else (mid, hi)
    return hi
