"""Vectorised root finding shared by the models (no I/O, numpy only)."""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["bisect_increasing"]


def bisect_increasing(function: Callable[[np.ndarray], np.ndarray], low: np.ndarray, high: np.ndarray,
                      rtol: float = 1e-12) -> np.ndarray:
    """Largest x in [low, high] with function(x) <= 0, function increasing: bisection at every point at once.

    A NaN value counts as positive (a pole past the root). Stops when every bracket is within ``rtol``
    relative, or after 200 halvings; returns the brackets' lower ends.
    """
    lo = np.array(low, dtype=np.float64, copy=True)
    hi = np.array(np.broadcast_to(high, lo.shape), dtype=np.float64, copy=True)
    for _ in range(200):
        if np.all(hi - lo <= rtol * np.maximum(np.abs(hi), 1e-300)):
            break
        mid = 0.5 * (lo + hi)
        ok = function(mid) <= 0
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
    return lo
