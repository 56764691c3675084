"""M/M/1/K against the stationary distribution summed term by term, and the laws it must obey."""

import numpy as np
import pytest

from iosizer_mm1k import mm1k, response_percentiles


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
    overload = mm1k(1e6, 1.0, 10_000)  # a^(K+1) never overflows: written in 1/a above a = 1
    assert all(np.isfinite(v) for v in overload.values()) and float(overload["throughput"]) == pytest.approx(1.0)


def test_percentiles_meet_their_limits() -> None:
    # K = 1: no one waits, the response is one exponential service; large K at a < 1 is M/M/1, whose
    # response is exponential at rate mu - lambda (the truncation at K = 400 is below 1e-60 here).
    got = response_percentiles([0.5, 0.0, 0.5], [2.0, 2.0, 1.0], [1, 5, 400], [50, 99])
    expected_99 = [np.log(100) / 2.0, np.log(100) / 2.0, np.log(100) / 0.5]
    np.testing.assert_allclose(got["response_p99"], expected_99, rtol=1e-9)
    np.testing.assert_allclose(got["response_p50"][2], np.log(2) / 0.5, rtol=1e-9)
    assert np.all(got["response_p50"] < got["response_p99"])
