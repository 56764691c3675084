"""The worst rows a judgement names (calibrate._worst) are the full sort's, found without sorting every row."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from iosizer.calibration.calibrate import WORST_SHOWN, _worst


def _by_full_sort(observed: np.ndarray, residual: np.ndarray, lines: np.ndarray) -> str:
    relative = np.abs(residual) / np.where(observed != 0, np.abs(observed), 1.0)
    measured = np.flatnonzero(np.isfinite(relative))
    order = measured[np.argsort(relative[measured])[::-1][:WORST_SHOWN]]
    return "worst: " + ", ".join(f"line {int(lines[i])} ({100 * relative[i]:.1f} % off)" for i in order)


@pytest.mark.parametrize("seed", range(6))
def test_the_worst_rows_are_the_full_sorts(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 5_000
    observed = rng.uniform(0.5, 2.0, n)
    residual = rng.normal(0, 0.05, n)
    if seed % 2:  # ties among the largest (repeated rows), and a row not measured
        residual[[10, 20, 30]] = residual[np.argmax(np.abs(residual))] * 2
        observed[[10, 20, 30]] = 1.0
        residual[40] = np.nan
    lines = np.arange(2, n + 2)
    result = SimpleNamespace(observed={"y": observed}, residuals={"y": residual})
    assert _worst(result, SimpleNamespace(lines=lines), "y") == _by_full_sort(observed, residual, lines)
