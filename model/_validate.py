"""Input checks shared by the models: validate once at the edge, then trust.

Each helper returns a float64 numpy array (0-d for scalars) or raises
:class:`~iosizer.errors.InputError` with a one-line message naming the
parameter and the first offending value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from iosizer.errors import InputError

if TYPE_CHECKING:
    from iosizer.model.family import ParameterSpec


def _first_bad(values: np.ndarray, bad: np.ndarray) -> float:
    return float(values[bad].flat[0])


def as_finite(name: str, value: object) -> np.ndarray:
    """``value`` as a float64 array; NaN, infinities and non-numbers are rejected."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {value!r}") from None
    if array.size == 0:
        raise InputError(f"{name} is empty")
    bad = ~np.isfinite(array)
    if bad.any():
        raise InputError(f"{name} must be finite, got {_first_bad(array, bad)}")
    return array


def as_positive(name: str, value: object) -> np.ndarray:
    """Finite and strictly positive (rates, service times)."""
    array = as_finite(name, value)
    bad = array <= 0
    if bad.any():
        raise InputError(f"{name} must be > 0, got {_first_bad(array, bad):g}")
    return array


def as_nonnegative(name: str, value: object) -> np.ndarray:
    """Finite and >= 0 (think times, variability, added latencies)."""
    array = as_finite(name, value)
    bad = array < 0
    if bad.any():
        raise InputError(f"{name} must be >= 0, got {_first_bad(array, bad):g}")
    return array


def as_declared(name: str, value: object, spec: "ParameterSpec") -> np.ndarray:
    """Finite and inside ``spec``'s declared bounds (inclusive); the error gives the bound."""
    array = as_finite(name, value)
    low, high = spec.bounds
    bad = (array < low) | (array > high)
    if bad.any():
        raise InputError(f"{name} must lie in [{low:g}, {high:g}] ({spec.unit}), got {_first_bad(array, bad):g}")
    return array


def as_server_count(name: str, value: object) -> np.ndarray:
    """Whole numbers >= 1, returned as float64 so they broadcast with rates."""
    array = as_positive(name, value)
    bad = (array < 1) | (array != np.floor(array))
    if bad.any():
        raise InputError(
            f"{name} must be a whole number >= 1, got {_first_bad(array, bad):g}"
        )
    return array


def scalar_or_array(array: np.ndarray) -> float | np.ndarray:
    """Scalars in, scalars out: unwrap 0-d arrays to Python floats."""
    return float(array) if np.ndim(array) == 0 else array
