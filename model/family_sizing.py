"""Sizing questions of the seed families, answered by root finding on each family's model.

Each answer is a monotone search on the model the family's what-ifs use
(:func:`iosizer.model.sizing.smallest_integer`: galloping, then bisection;
about 2 log2(answer) solves), or a bracketing root finder on a continuous
input, never a scan over a list of candidates.

Seed 000, switch tiers within a degradation budget
    PD(x) does not decrease with the added round-trip latency x, so t tiers
    of one-way hop h (round trip 2 t h) stay within the budget exactly when
    2 t h <= x_max, the largest latency within it:
    t_max = floor(x_max / (2 h)). x_max is a root of PD(x) = budget
    (Brent's method on the OLTP network's MVA curve, or the DMA closed form).
"""

from __future__ import annotations

import math

from iosizer.errors import InputError

__all__ = [
    "max_switch_tiers",
]


# --- seed 000 -------------------------------------------------------------------------------


def max_switch_tiers(max_added_latency_ns: float, hop_ns: float) -> float:
    """Most tiers of one-way hop ``hop_ns`` whose round trip 2 t h stays within ``max_added_latency_ns``.

    inf when the hop costs nothing or the budget allows any latency.
    """
    if hop_ns < 0 or not math.isfinite(hop_ns):
        raise InputError(f"hop latency must be a finite number >= 0 ns, got {hop_ns:g}")
    if hop_ns == 0 or math.isinf(max_added_latency_ns):
        return math.inf
    # A tier count exactly on the budget is within it: guard the division's rounding.
    return float(math.floor(max_added_latency_ns / (2.0 * hop_ns) * (1 + 1e-12)))
