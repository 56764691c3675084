"""Output analysis: the t interval, and that it covers at its stated 95 %."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from iosizer.simulate.stats import estimate, within


def test_plain_interval_is_students_t() -> None:
    values = [1.0, 2.0, 4.0, 3.0, 5.0]
    found = estimate(values)
    half = stats.t.ppf(0.975, 4) * np.std(values, ddof=1) / math.sqrt(5)
    assert found.mean == pytest.approx(3.0)
    assert (found.low, found.high) == pytest.approx((3.0 - half, 3.0 + half))
    assert found.method == "t" and found.replications == 5


def test_a_deterministic_output_has_a_point_interval_that_matches_to_rounding() -> None:
    found = estimate([6768.0] * 10)
    assert found.half_width == 0.0 and found.method == "deterministic"
    assert found.contains(6768.0 * (1 + 1e-12))
    assert not found.contains(6768.1)
    assert within(1.0, 1.0, 1.0)


def test_the_95_percent_interval_covers_95_percent_of_the_time() -> None:
    """Coverage over 2,000 synthetic experiments of 12 replications stays within a binomial band of 95 %.

    This is why 'inside the interval' at a checked point means something: the
    interval is calibrated, so a miss is a 5 % event, not a wide net.
    """
    rng = np.random.default_rng(17)
    trials, replications = 2000, 12
    hits = 0
    for _ in range(trials):
        hits += estimate(1.0 + rng.normal(size=replications)).contains(1.0)
    low, high = stats.binom.ppf([0.0005, 0.9995], trials, 0.95) / trials
    assert low <= hits / trials <= high


def test_antithetic_twins_mirror_their_uniforms() -> None:
    from iosizer.simulate.streams import Streams, seed_sequence

    streams = Streams(seed_sequence(4, 0))
    for scv in (1.0, 0.25):
        first, twin = streams.draws(0, 2.0, scv), streams.mirrored().draws(0, 2.0, scv)
        pairs = [(first(), twin()) for _ in range(20_000)]
        assert np.corrcoef(np.array(pairs).T)[0, 1] < -0.5  # long where the twin is short
        assert np.mean([a for a, _ in pairs]) == pytest.approx(2.0, rel=0.03)
        assert np.mean([b for _, b in pairs]) == pytest.approx(2.0, rel=0.03)


def test_the_package_docstring_runs_as_written() -> None:
    import doctest

    import iosizer.simulate

    assert doctest.testmod(iosizer.simulate).failed == 0
