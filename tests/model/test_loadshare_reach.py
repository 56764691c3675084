"""Issue 28's held-out mixes: the balanced split of work over cores, and a port pooling with the cores it reaches."""

from __future__ import annotations

import numpy as np
import pytest

from iosizer.model.loadshare import PolicyParams, _configuration, balanced_utilisation, evaluate, max_throughput

SIX_ON_SEVEN = np.full(6, 1.0 / 6.0)


def test_the_balanced_split_drains_work_to_the_cores_the_even_spread_leaves_half_idle() -> None:
    # Six equal ports on 2 of 7 cores each, placed heaviest first on the least-loaded cores: the even spread
    # leaves two cores with one port (half the others' work); FCFS lets the work reach them, so every core
    # carries 6/7 of a port's work.
    work = np.full((1, 6), 1.0)
    membership = np.zeros((1, 6, 7), dtype=bool)
    for port, cores in enumerate([(0, 1), (2, 3), (4, 5), (6, 0), (1, 2), (3, 4)]):
        membership[0, port, list(cores)] = True
    np.testing.assert_allclose(balanced_utilisation(work, membership), 6.0 / 7.0, rtol=1e-4)  # 40 sweeps
    # Where the even spread is already balanced it is the answer, unchanged (the seed's scenarios).
    alone = np.eye(3, dtype=bool)[None, :, :]
    np.testing.assert_array_equal(balanced_utilisation(np.array([[0.2, 0.5, 0.7]]), alone), [[0.2, 0.5, 0.7]])


def test_stages_whose_even_spread_saturates_a_core_are_kept() -> None:
    # At 5.4 cores of load (0.9 of the maximum the even spread allowed, 6) stages 3-6 simulate at 2.74-2.78
    # against stage 2's 3.54 (issue 28); the even spread called them saturated. The maximum is now stage 2's
    # balanced one, 7 cores / 1.1.
    params = PolicyParams(cores=7)
    load = 5.4 * SIX_ON_SEVEN[None, :]
    for stage in range(3, 7):
        mean = _configuration(load, np.full((1, 6), stage), SIX_ON_SEVEN, params)[0]
        assert np.isfinite(mean[0])
    # Within 1e-5: the water-filling stops after 40 sweeps (a split it stops at is feasible, so the maximum
    # it gives is at most the balanced one).
    assert max_throughput("multi-stage", SIX_ON_SEVEN, params) == pytest.approx(7.0 / 1.1, rel=1e-5)
    assert evaluate("multi-stage", 5.4, SIX_ON_SEVEN, params).cores_per_port[0].min() >= 3


@pytest.mark.parametrize("stage, simulated", [(2, 3.542), (3, 2.826), (4, 2.751)])
def test_a_chain_of_narrow_ports_pools_only_with_the_cores_it_reaches(stage: int, simulated: float) -> None:
    # Six equal ports on 7 cores at 5.4 cores of load, each stage simulated (benchmarks' event simulation,
    # 4 replications of 80,000 I/Os, seed 1; half-widths 1.2, 1.8, 2.4 %): 3.542, 2.826, 2.751. Pooled over
    # the whole component, stage 2 (a chain of 2-core groups) read 2.79 (-21 %); pooled over the cores each
    # port reaches, -4.8 / -4.9 / -3.5 %. Tolerance: that error and the interval, 7 %.
    params = PolicyParams(cores=7)
    mean = _configuration(5.4 * SIX_ON_SEVEN[None, :], np.full((1, 6), stage), SIX_ON_SEVEN, params)[0]
    assert mean[0] == pytest.approx(simulated, rel=0.07)


def test_the_issue_held_out_mixes_against_the_grid() -> None:
    # data/error_grids/loadshare_response.csv's rows of issue 28's mixes, at the loads the issue read them:
    # the model now within 2 % of the simulated mean for the two multi-stage mixes (-21 % and -12.4 % before)
    # and 4.7 % under for [1, 2, 3, 4] one-stage, as the grid states.
    import csv
    from importlib.resources import files

    with files("iosizer.data.error_grids").joinpath("loadshare_response.csv").open() as handle:
        rows = {(r["mix"], r["total_load_cores"]): r for r in csv.DictReader(handle)}
    for mix, total, shares, cores, policy, bound in (
            ("six-equal-7-cores", "5.4", [1.0] * 6, 7, "multi-stage", 2.0),
            ("0.2-1-1-1-1-on-5", "3.78", [0.2, 1, 1, 1, 1], 5, "multi-stage", 2.0),
            ("1-2-3-4-on-4", "2.243", [1, 2, 3, 4], 4, "one-stage", 6.0)):
        row = rows[(mix, total)]
        model = float(evaluate(policy, float(total), shares, PolicyParams(cores=cores)).response[0])
        assert model == pytest.approx(float(row["model"]), rel=1e-5)
        assert abs(100 * (model / float(row["simulated"]) - 1)) < bound
