"""The time budget holds within a replication: chunked checks, dropped replications, one-line errors.

Wall-time assertions use wide margins: the claim is an overshoot of one
check chunk (tens of milliseconds) plus, with worker processes, their start
and shutdown, but these tests share a loaded 2-core machine with the rest
of the suite running beside them. Each bound stays at half or less of the
time the same run took before the budget was held within a replication
(quoted per test), so a budget that did not hold still fails.
"""

from __future__ import annotations

import math
import time

import pytest

from iosizer.errors import InputError, IosizerError, TimeBudgetError
from iosizer.simulate.budget import ABANDON_FACTOR, CHECK_CYCLES, PACE_MIN_S, Allowance, OutOfTime
from iosizer.simulate.closed import ClosedNetwork, JobClass, Station
from iosizer.simulate.engine import Dropped, _drive, replicate, run_replications
from iosizer.simulate.open_queues import AntitheticPair, OpenQueue
from iosizer.simulate.stats import Sample
from iosizer.simulate.streams import Streams, seed_sequence
from iosizer.simulate.systems import MAX_RUN_LENGTH, DmaIssue

#: A closed network of 4 jobs; 1,000 cycles take a few tens of milliseconds.
SMALL = ClosedNetwork((Station("cpu", 1.0), Station("disk", math.inf, 0.0)),
                      (JobClass("job", 4, ((0, 1.0), (1, 2.0)), 1.0),), completions=1000)
#: The longest replications allowed: a minute or more each on this machine (a pair of Ciw runs, two minutes).
LONG_OPEN = AntitheticPair(OpenQueue(3.2, 1.0, 4, customers=MAX_RUN_LENGTH))
LONG_CLOSED = ClosedNetwork(SMALL.stations, SMALL.classes, completions=MAX_RUN_LENGTH)


def _streams(seconds: float | None) -> Streams:
    return Streams(seed_sequence(1, 0), allowance=Allowance(seconds))


@pytest.mark.parametrize("model", [
    AntitheticPair(OpenQueue(3.2, 1.0, 4, customers=5000)),
    ClosedNetwork(SMALL.stations, SMALL.classes, completions=5000),
    DmaIssue(100.0, 500.0, 1500.0, 250.0, scv=0.5, bursts=5000),
], ids=["ciw", "simpy", "dma"])
def test_checks_that_do_not_bind_change_no_number(model) -> None:
    # Several check chunks (5,000 customers or cycles > CHECK_CYCLES) on a generous allowance.
    assert 5000 > 4 * CHECK_CYCLES
    assert model.run(_streams(600.0)).metrics == model.run(_streams(None)).metrics


@pytest.mark.parametrize("model", [LONG_OPEN, LONG_CLOSED], ids=["ciw", "simpy"])
def test_an_allowance_stops_a_long_replication_within_a_chunk(model) -> None:
    started = time.perf_counter()
    with pytest.raises(OutOfTime) as stopped:
        model.run(_streams(0.5))
    took = time.perf_counter() - started
    # A chunk is ~0.1 s here; the margin is for a loaded machine. Unbounded, this takes over a minute.
    assert took < 15.0, took
    assert 0 < stopped.value.fraction < 0.5 and stopped.value.projected_s > 5.0


class _Clock:
    """A perf_counter that moves only when told (no test waits on the wall clock)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now


def test_a_replication_whose_pace_cannot_meet_its_allowance_gives_up_early(monkeypatch) -> None:
    import iosizer.simulate.budget as budget

    clock = _Clock()
    monkeypatch.setattr(budget, "time", clock)
    allowance = Allowance(10.0)
    allowance.check(0.0)            # the pace is measured from the first check
    clock.now += PACE_MIN_S + 0.1
    with pytest.raises(OutOfTime) as gave_up:
        allowance.check(0.03)       # 3 % in 1.1 s: about 37 s in all, over 2 x 10 s
    assert gave_up.value.abandoned and gave_up.value.projected_s > ABANDON_FACTOR * 10.0
    on_pace = Allowance(10.0)
    on_pace.check(0.0)
    clock.now += PACE_MIN_S + 0.1
    on_pace.check(0.2)              # 20 % in 1.1 s: about 5.5 s, within
    clock.now += 10.0
    with pytest.raises(OutOfTime) as spent:
        on_pace.check(0.9)          # past its 10 s: out of time, not a pace verdict
    assert not spent.value.abandoned and spent.value.elapsed_s >= 10.0


def test_a_dropped_replication_is_reported_not_raised() -> None:
    index, result = replicate(LONG_CLOSED, 1, 7, allowance_s=0.2)
    assert index == 7 and isinstance(result, Dropped)
    assert result.index == 7 and 0 < result.fraction < 1 and result.elapsed_s >= 0.2


def test_a_tiny_budget_on_long_replications_ends_within_it() -> None:
    # Before: the budget was checked between replications only, so this run took one whole
    # replication of a million customers (two Ciw runs of 1e6 customers each: over two minutes).
    started = time.perf_counter()
    run = run_replications(LONG_OPEN, ["mean_response"], seed=1, replications=2, max_seconds=2.0, workers=1)
    took = time.perf_counter() - started
    assert took < 20.0, took
    assert run.stopped == "max-seconds" and run.replications == 0 and run.computed == 0
    assert run.dropped is not None and run.dropped.index == 0


def test_local_processes_keep_the_budget_too() -> None:
    pytest.importorskip("joblib")
    # Before: about two minutes (a whole replication per worker). The margin covers starting
    # and stopping two loky processes on a loaded machine.
    started = time.perf_counter()
    run = run_replications(LONG_CLOSED, ["throughput_job"], seed=1, replications=4, max_seconds=2.0, workers=2)
    took = time.perf_counter() - started
    assert took < 30.0, took
    assert run.stopped == "max-seconds" and run.replications == 0 and run.dropped is not None


class _SlowAfter:
    """``quick`` for the first ``count`` replications run, then ``slow`` (in-process: a plain counter)."""

    def __init__(self, quick, slow, count: int) -> None:
        self.quick, self.slow, self.count, self.calls = quick, slow, count, 0

    def run(self, streams: Streams):
        self.calls += 1
        return (self.quick if self.calls <= self.count else self.slow).run(streams)


def test_a_binding_budget_drops_the_truncated_replication_and_keeps_the_prefix() -> None:
    # Three quick replications, then one of a million cycles against what is left of 2 s: the run is
    # cut inside replication 3, which is dropped; the three kept are whole and the seed's own.
    quick = ClosedNetwork(SMALL.stations, SMALL.classes, completions=2000)
    model = _SlowAfter(quick, LONG_CLOSED, 3)
    started = time.perf_counter()
    run = run_replications(model, ["throughput_job"], seed=4, replications=10, max_seconds=2.0, workers=1)
    assert time.perf_counter() - started < 20.0  # before: the slow replication ran to its end, about a minute
    assert run.stopped == "max-seconds" and run.replications == run.computed == 3
    assert run.dropped is not None and run.dropped.index == 3 and run.dropped.fraction < 0.5
    assert all(s.measured == 2000 for s in run.samples)
    unbounded = run_replications(quick, ["throughput_job"], seed=4, replications=3, workers=1)
    assert [s.metrics for s in run.samples] == [s.metrics for s in unbounded.samples]


class _Arrivals:
    """An executor that hands back given results in a given order (as workers finishing out of order)."""

    name = "scripted"
    workers = 2

    def __init__(self, results) -> None:
        self.results = results
        self.granted: list[float] = []

    def stream(self, model, seed, limit, remaining):
        for result in self.results:
            self.granted.append(remaining())
            yield result


def test_a_dropped_replication_waits_for_the_ones_before_it_and_grants_the_ones_after_none() -> None:
    sample = Sample({"x": 1.0}, 0.1, 100)
    cut = Dropped(1, 0.5, 0.2, 2.5, True)
    # Replication 1 gives up while 0 still runs; 2 then finishes (unused), then 0 (used).
    executor = _Arrivals([(1, cut), (2, sample), (0, sample)])
    used, computed, stopped, dropped = _drive(executor, None, 0, ["x"], 5, None, time.perf_counter(), 60.0, None)
    assert used == [sample] and computed == 2 and stopped == "max-seconds" and dropped == cut
    assert executor.granted[0] > 50 and executor.granted[1:] == [0.0, 0.0]


def test_a_dask_cluster_keeps_the_budget() -> None:
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None)
    with cluster:
        started = time.perf_counter()
        run = run_replications(LONG_CLOSED, ["throughput_job"], seed=1, replications=4, max_seconds=2.0,
                               scheduler=cluster.scheduler_address)
        took = time.perf_counter() - started
    # Before: two threads of one process each ran a whole replication (a minute or more).
    assert took < 30.0, took
    assert run.stopped == "max-seconds" and run.replications == 0 and run.dropped is not None


def test_a_budget_too_small_for_two_replications_is_a_typed_error_that_says_what_to_change() -> None:
    from iosizer.simulate import simulate

    started = time.perf_counter()
    with pytest.raises(TimeBudgetError) as error:
        simulate("hba", "response", threads=16, replications=2, max_seconds=1.0, workers=1, run_length=MAX_RUN_LENGTH)
    assert time.perf_counter() - started < 20.0  # includes building the experiment (imports); before: ~40 s
    message = str(error.value)
    assert isinstance(error.value, InputError) and isinstance(error.value, IosizerError)
    assert "\n" not in message and "needs at least 2" in message
    assert "one replication takes about" in message and "--max-seconds" in message and "--run-length" in message


def test_the_cli_fails_fast_with_one_line_and_exit_2(cli) -> None:
    started = time.perf_counter()
    # The library engine's pace (the numpy engine runs this replication inside the second).
    line = cli.fails("simulate", "closed-network", "--population", "4", "--demand", "1", "--workers", "1",
                     "--replications", "2", "--max-seconds", "1", "--run-length", str(MAX_RUN_LENGTH),
                     "--engine", "simpy")
    assert time.perf_counter() - started < 15.0  # before: one whole replication, over 30 s
    assert "one replication takes about" in line and "--run-length about" in line
