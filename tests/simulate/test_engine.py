"""The replication runner: independent streams, determinism whatever the workers, stopping rules, Dask."""

from __future__ import annotations

import math

import pytest

from iosizer.errors import InputError
from iosizer.simulate.closed import ClosedNetwork, JobClass, Station
from iosizer.simulate.engine import run_replications
from iosizer.simulate.streams import Draws, Streams, seed_sequence

#: A small closed network: a single server and a delay, 4 jobs; a replication takes milliseconds.
SMALL = ClosedNetwork((Station("cpu", 1.0), Station("disk", math.inf, 0.0)),
                      (JobClass("job", 4, ((0, 1.0), (1, 2.0)), 1.0),), completions=400)
METRIC = "throughput_job"


def values(run) -> list[float]:
    return [s.metrics[METRIC] for s in run.samples]


def test_streams_are_reproducible_and_independent() -> None:
    first = Streams(seed_sequence(7, 3)).draws(0, 1.0, 1.0)
    again = Streams(seed_sequence(7, 3)).draws(0, 1.0, 1.0)
    other = Streams(seed_sequence(7, 4)).draws(0, 1.0, 1.0)
    a, b, c = ([d() for _ in range(300)] for d in (first, again, other))
    assert a == b and a != c
    assert Draws(None, 2.5, 0.0)() == 2.5  # scv 0: a constant, no generator needed


def test_gamma_draws_have_the_asked_mean_and_scv() -> None:
    draws = Streams(seed_sequence(1, 0)).draws(0, 2.0, 0.25)
    sample = [draws() for _ in range(40_000)]
    mean = sum(sample) / len(sample)
    scv = sum((x - mean) ** 2 for x in sample) / len(sample) / mean**2
    assert mean == pytest.approx(2.0, rel=0.01) and scv == pytest.approx(0.25, rel=0.05)


def test_same_seed_same_answer_and_the_seed_matters() -> None:
    one = run_replications(SMALL, [METRIC], seed=11, replications=4, workers=1)
    two = run_replications(SMALL, [METRIC], seed=11, replications=4, workers=1)
    other = run_replications(SMALL, [METRIC], seed=12, replications=4, workers=1)
    assert values(one) == values(two) != values(other)
    assert one.stopped == "replications" and one.replications == 4


def test_local_processes_give_the_in_process_answer() -> None:
    here = run_replications(SMALL, [METRIC], seed=3, replications=6, workers=1)
    there = run_replications(SMALL, [METRIC], seed=3, replications=6, workers=2)
    assert values(there) == values(here)
    assert there.executor == "joblib, 2 local processes"


def test_a_target_stops_at_the_smallest_qualifying_prefix_whatever_the_workers() -> None:
    here = run_replications(SMALL, [METRIC], seed=5, target_ci_pct=2.0, workers=1)
    there = run_replications(SMALL, [METRIC], seed=5, target_ci_pct=2.0, workers=2)
    assert here.stopped == there.stopped == "target"
    assert values(here) == values(there)
    assert here.replications >= 10


def test_a_time_budget_stops_the_run_and_says_so() -> None:
    run = run_replications(SMALL, [METRIC], seed=5, target_ci_pct=0.001, max_seconds=0.3, workers=1)
    assert run.stopped == "max-seconds"
    assert 1 <= run.replications


@pytest.mark.parametrize("options, message", [
    ({"replications": 5, "target_ci_pct": 1.0}, "not both"),
    ({"replications": 1}, "--replications"),
    ({"target_ci_pct": 0.0}, "--target-ci-pct"),
    ({"max_seconds": -1.0}, "--max-seconds"),
    ({"workers": 0}, "--workers"),
    ({"seed": -1}, "--seed"),
    ({"workers": 2, "scheduler": "tcp://127.0.0.1:1"}, "exclude"),
])
def test_bad_run_options_are_one_line_input_errors(options, message) -> None:
    with pytest.raises(InputError, match=message):
        run_replications(SMALL, [METRIC], **options)


def test_a_dask_local_cluster_gives_the_local_answer() -> None:
    distributed = pytest.importorskip("distributed")
    here = run_replications(SMALL, [METRIC], seed=9, replications=5, workers=1)
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as cluster:
        there = run_replications(SMALL, [METRIC], seed=9, replications=5, scheduler=cluster.scheduler_address)
        target = run_replications(SMALL, [METRIC], seed=9, target_ci_pct=2.0, scheduler=cluster.scheduler_address)
    assert values(there) == values(here)
    assert there.executor.startswith("Dask cluster") and "2 threads" in there.executor
    assert values(target) == values(run_replications(SMALL, [METRIC], seed=9, target_ci_pct=2.0, workers=1))
