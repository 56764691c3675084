"""M/M/1/K against the stationary distribution summed term by term, and the laws it must obey."""

from __future__ import annotations

import numpy as np
import pytest

from iosizer_mm1k import mm1k


def _by_summation(lam: float, mu: float, k: int) -> dict[str, float]:
    """p_n proportional to a^n, n = 0..K, normalised; every measure from the distribution itself."""
    weights = (lam / mu) ** np.arange(k + 1)
    p = weights / weights.sum()
    number = float((np.arange(k + 1) * p).sum())
    throughput = lam * (1 - p[-1])
    return {"blocking_probability": p[-1], "throughput": throughput, "utilization": 1 - p[0],
            "mean_number": number, "mean_response": number / throughput}


@pytest.mark.parametrize("lam, mu, k", [(0.5, 1, 1), (0.9, 1, 10), (1.0, 1, 10), (3.0, 1, 7), (40.0, 2, 50),
                                        (1 + 1e-10, 1, 5), (0.999, 1, 200)])
def test_closed_forms_equal_the_distribution(lam: float, mu: float, k: int) -> None:
    # Tolerance 1e-9 relative: the summation is exact to rounding; the a = 1 limit is used within 1e-9 of a = 1.
    exact = _by_summation(lam, mu, k)
    got = mm1k(lam, mu, k)
    for key, value in exact.items():
        assert float(got[key]) == pytest.approx(value, rel=1e-9, abs=1e-15), key


def test_laws_hold_over_a_grid() -> None:
    lam = np.linspace(0.01, 5, 50)[:, None]
    k = np.arange(1, 30)[None, :]
    got = mm1k(lam, 1.3, k)
    assert np.all((got["blocking_probability"] >= 0) & (got["blocking_probability"] <= 1))
    assert np.all((got["utilization"] > 0) & (got["utilization"] <= 1))  # 1 - p_0 rounds to 1 in overload
    np.testing.assert_allclose(got["mean_number"], got["throughput"] * got["mean_response"], rtol=1e-12)
    # More room never blocks more, and more load never blocks less.
    assert np.all(np.diff(got["blocking_probability"], axis=1) <= 1e-15)
    assert np.all(np.diff(got["blocking_probability"], axis=0) >= -1e-15)


def test_overload_does_not_overflow() -> None:
    got = mm1k(1e6, 1.0, 10_000)
    assert all(np.isfinite(v) for v in got.values())
    assert float(got["throughput"]) == pytest.approx(1.0)
