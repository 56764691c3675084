"""iosizer.simulate.loadshare: the controller simulated point by point."""

from __future__ import annotations

import pytest

from iosizer.model.loadshare import PolicyParams, evaluate
from iosizer.simulate.loadshare import simulate_points


def test_exclusive_lands_on_its_exact_mm1() -> None:
    # Exclusive is one M/M/1 per core (exact): 4 replications of 20,000 I/Os at 0.5 of a core each hold it.
    params = PolicyParams(cores=2)
    done = simulate_points("exclusive", [1.0], [1.0, 1.0], params, replications=4, customers=20_000, seed=3)
    exact = float(evaluate("exclusive", 1.0, [1.0, 1.0], params).response[0])  # 1 / (1 - 0.5) + 0.4
    assert done.ci_low[0] - 0.03 * exact <= exact <= done.ci_high[0] + 0.03 * exact
    assert done.runs.shape == (1, 4)


def test_same_seed_same_answer() -> None:
    params = PolicyParams(cores=3)
    first = simulate_points("multi-stage", [1.5], [1, 2], params, replications=2, customers=2_000, seed=5)
    again = simulate_points("multi-stage", [1.5], [1, 2], params, replications=2, customers=2_000, seed=5)
    assert first.response[0] == again.response[0]
