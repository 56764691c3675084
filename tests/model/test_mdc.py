"""M/D/c waits (Crommelin's chain) against Erlang's M/D/1 series in 50 digits and a simulation for c > 1."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from iosizer.errors import InputError
from iosizer.model.mdc import mdc_wait_cdf, mdc_wait_quantile
from iosizer.model.percentiles import ggc_percentiles, md1_percentiles


def _erlang_md1_cdf(rho: float, x: float) -> mp.mpf:
    """Erlang (1909): P(W <= x) = (1 - rho) sum_{k <= x} (rho (k - x))^k / k! e^(-rho (k - x)), D = 1.
    An alternating sum that cancels badly in double precision; exact at 60 digits for x < 40."""
    mp.mp.dps = 60
    r, t = mp.mpf(rho), mp.mpf(x)
    return (1 - r) * mp.fsum((r * (k - t)) ** k / mp.factorial(k) * mp.exp(-r * (k - t))
                             for k in range(int(mp.floor(t)) + 1))


@pytest.mark.parametrize("rho", [0.1, 0.4, 0.8, 0.95])
def test_md1_cdf_matches_erlang_series(rho: float) -> None:
    """Absolute error below 1e-12 (the sparse solve's rounding), at and between multiples of D."""
    x = np.array([0.0, 0.25, 1.0, 1.5, 2.0, 3.7, 9.0, 17.2])
    got = mdc_wait_cdf(x, rho, 1)
    ref = np.array([float(_erlang_md1_cdf(rho, v)) for v in x])
    assert np.max(np.abs(got - ref)) < 1e-12


@pytest.mark.parametrize("rho,q", [(0.2, 0.99), (0.5, 0.999), (0.9, 0.9), (0.9, 0.9999)])
def test_md1_quantiles_match_a_root_of_erlang_series(rho: float, q: float) -> None:
    got = float(mdc_wait_quantile(rho, 1, [q])[0])
    root = mp.findroot(lambda x: _erlang_md1_cdf(rho, x) - mp.mpf(q), mp.mpf(got))
    assert got == pytest.approx(float(root), rel=1e-9)


def _simulate_mdc(a: float, c: int, n: int, seed: int) -> np.ndarray:
    """Waits of n Poisson arrivals with constant service 1 and c FCFS servers: S_n = max(A_n, S_(n-c) + 1)."""
    rng = np.random.default_rng(seed)
    arrivals = np.cumsum(rng.exponential(1.0 / a, n))
    start = np.empty(n)
    start[:c] = arrivals[:c]
    for i in range(c, n):
        start[i] = max(arrivals[i], start[i - c] + 1.0)
    return start - arrivals


@pytest.mark.parametrize("c,rho", [(2, 0.7), (4, 0.85)])
def test_mdc_against_simulation(c: int, rho: float) -> None:
    """3 x 10^5 customers, fixed seed: P(W <= x) within 0.006 at and between multiples of D (two
    2 x 10^6-customer runs differ by up to 0.0025 at c = 4, 0.85; a quantile so far out is noisier
    than the CDF, so the CDF is what is compared), and the simulated 99th lies where the exact CDF
    is 0.99 +- 0.004."""
    waits = _simulate_mdc(rho * c, c, 300_000, seed=7)[10_000:]
    x = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0])
    measured = np.array([np.mean(waits <= v) for v in x])
    assert np.max(np.abs(mdc_wait_cdf(x, rho * c, c) - measured)) < 0.006
    assert float(mdc_wait_cdf(np.quantile(waits, 0.99), rho * c, c)[0]) == pytest.approx(0.99, abs=0.004)


def test_mdc_reaches_the_percentile_keys() -> None:
    """M/D/1 and G/G/c with Poisson arrivals and constant service answer from the exact chain."""
    md1 = md1_percentiles(0.6, 2.0, [99])
    assert md1["wait_p99"] == pytest.approx(float(mdc_wait_quantile(0.3, 1, [0.99])[0]) / 2.0, rel=1e-12)
    mdc = ggc_percentiles(3.0, 1.0, 4, 1.0, 0.0, [90])
    assert mdc["wait_p90"] == pytest.approx(float(mdc_wait_quantile(3.0, 4, [0.9])[0]), rel=1e-12)
    assert mdc["response_p90"] == pytest.approx(mdc["wait_p90"] + 1.0, rel=1e-12)


def test_mdc_continuity_and_bounds() -> None:
    """The CDF is continuous at multiples of D and rises; an unstable load is refused."""
    x = np.array([1.0 - 1e-9, 1.0, 2.0 - 1e-9, 2.0])
    cdf = mdc_wait_cdf(x, 2.4, 3)
    assert cdf[0] == pytest.approx(cdf[1], abs=1e-7) and cdf[2] == pytest.approx(cdf[3], abs=1e-7)
    assert np.all(np.diff(mdc_wait_cdf(np.linspace(0, 6, 50), 2.4, 3)) >= -1e-14)
    with pytest.raises(InputError):
        mdc_wait_cdf(1.0, 3.0, 3)
