"""The numpy engine: the same customers as Ciw, the same systems as SimPy, calibrated intervals, target stopping."""

from __future__ import annotations

import math

import numpy as np
import pytest

from iosizer.simulate import simulate
from iosizer.simulate.closed import ClosedNetwork, JobClass, Station
from iosizer.simulate.engine import MIN_TARGET_REPLICATIONS, estimates_of, run_replications
from iosizer.simulate.open_queues import AntitheticPair, OpenQueue
from iosizer.simulate.stats import estimate
from iosizer.simulate.streams import Streams, seed_sequence


def _batch(seed: int, indices: range) -> list[Streams]:
    return [Streams(seed_sequence(seed, i)) for i in indices]


@pytest.mark.parametrize("queue", [
    OpenQueue(3.2, 1.0, 4, customers=1500),
    OpenQueue(0.7, 1.0, 1, customers=1500),
    OpenQueue(1.5, 1.0, 2, arrival_scv=0.5, service_scv=2.0, customers=800),
    OpenQueue(0.8, 1.0, 1, service_scv=0.0, customers=800),
], ids=["M/M/4", "M/M/1", "G/G/2", "M/D/1"])
def test_open_queues_are_ciws_customers_one_for_one(queue) -> None:
    """Same streams, same inversion, same window: every metric equals Ciw's to rounding (1e-12), twins too."""
    batch = _batch(3, range(2))
    batch += [s.mirrored() for s in batch]
    for vectorised, library in zip(queue.run_batch(batch), (queue.run(s) for s in batch)):
        assert vectorised.measured == library.measured
        for name, value in library.metrics.items():
            assert vectorised.metrics[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name


def test_a_replication_is_the_same_in_any_batch(monkeypatch) -> None:
    """Alone, among others, or in a batch split into parts with a small variate pool (the memory bounds)."""
    import iosizer.simulate.vectorised as vectorised

    network = ClosedNetwork((Station("cpu", 2.0), Station("disk", 1.0, 0.5), Station("wire", math.inf, 0.0)),
                            (JobClass("job", 5, ((0, 1.0), (1, 0.4), (2, 2.0)), 1.0),), completions=2500)
    alone = network.run_batch(_batch(8, range(3, 4)))[0].metrics
    among = network.run_batch(_batch(8, range(6)))[3].metrics
    monkeypatch.setattr(vectorised, "JOB_CELLS", 12)      # one replication (2 pieces of 5 jobs) per part
    monkeypatch.setattr(vectorised, "POOL_VALUES", 100)   # 64 variates per row and source
    squeezed = network.run_batch(_batch(8, range(6)))[3].metrics
    assert alone == among == squeezed


CROSS = [
    pytest.param("closed-network", None, {"population": 6, "demands": [1.0, 0.5, 2.0], "servers": [2, 1, math.inf],
                                          "think_time": 1.0}, id="closed-network: 2 servers, queue, delay, think"),
    pytest.param("hba", "response", {"threads": 12, "mode": "shared", "service_scv": 0.5}, id="hba shared, scv 0.5"),
    pytest.param("oltp", None, {"added_latency_ns": 1500}, id="oltp at +1500 ns"),
    pytest.param("rmw", None, {"lanes": 16}, id="rmw, 2 ports"),
    pytest.param("replication", None, {"link": "10g", "outstanding": 8}, id="replication 10g"),
    pytest.param("loadshare", None, {"scenario": "skew", "policy": "multi-stage", "load_fraction": 0.7},
                 id="loadshare skew, multi-stage"),
    pytest.param("mmc", "ggc", {"arrival_rate": 1.5, "service_rate": 1.0, "servers": 2, "arrival_scv": 0.5,
                                "service_scv": 1.5}, id="G/G/2"),
]


@pytest.mark.parametrize("family, question, options", CROSS)
def test_the_engines_agree_on_every_system_both_run(family, question, options) -> None:
    """numpy against the library engine (other streams for closed networks): every metric's difference
    within 4 standard errors of the difference (a 6e-5 chance per metric for engines that agree)."""
    ours_run, library = (simulate(family, question, replications=8, seed=5, workers=1, run_length=1500,
                                  engine=engine, **options)
                         for engine in ("numpy", "ciw" if family in ("mmc", "loadshare") else "simpy"))
    assert "numpy" in ours_run.experiment.simulator and "numpy" not in library.experiment.simulator
    for name, ours in ours_run.estimates.items():
        theirs = library.estimates[name]
        spread = math.hypot(ours.half_width, theirs.half_width) / 2.36 * 4  # t(0.975, 7) = 2.36
        assert abs(ours.mean - theirs.mean) <= spread + 1e-9 * abs(theirs.mean), (name, ours, theirs)


def test_dma_bursts_are_the_simpy_bursts() -> None:
    numpy_rows = simulate("dma", None, replications=3, seed=2, device="bcm5700", added_latency_ns=900,
                          service_scv=0.5, run_length=2000).rows()
    simpy_rows = simulate("dma", None, replications=3, seed=2, workers=1, device="bcm5700", added_latency_ns=900,
                          service_scv=0.5, run_length=2000, engine="simpy").rows()
    for ours, theirs in zip(numpy_rows, simpy_rows):
        assert ours["simulated"] == pytest.approx(theirs["simulated"], rel=1e-9)


def test_the_95_percent_interval_covers_the_exact_mmc_answer_in_91_to_98_percent_of_200_runs() -> None:
    """200 runs (seeds 0-199) of 10 replications, each a run of 500 customers and its antithetic twin, of
    M/M/3 at 70 %: the exact Erlang C mean response must lie inside 91-98 % of the 95 % intervals (a
    binomial(200, 0.95) count falls in 182-196 with probability 0.99; the seeds are fixed)."""
    from iosizer.model.queueing import mmc

    exact = float(mmc(2.1, 1.0, 3).mean_response)
    pair = AntitheticPair(OpenQueue(2.1, 1.0, 3, customers=500))
    covered = 0
    for first in range(0, 200, 20):  # 20 runs per batch: 400 rows side by side
        batch = [Streams(seed_sequence(seed, i)) for seed in range(first, first + 20) for i in range(10)]
        means = np.array([s.metrics["mean_response"] for s in pair.run_batch(batch)]).reshape(20, 10)
        covered += sum(estimate(run).contains(exact) for run in means)
    assert 182 <= covered <= 196, covered


def test_a_target_stops_at_the_first_qualifying_count_as_the_library_engine_does() -> None:
    """The vectorised batches stop at the smallest prefix meeting the target: the same replications, values and
    count as Ciw run one replication at a time (the numpy engine reproduces Ciw's customers)."""
    model = AntitheticPair(OpenQueue(3.2, 1.0, 4, customers=500))
    batched = run_replications(model, ["mean_response"], seed=4, target_ci_pct=8.0, vectorised=True)
    one_by_one = run_replications(model, ["mean_response"], seed=4, target_ci_pct=8.0, workers=1)
    assert batched.stopped == one_by_one.stopped == "target"
    assert batched.replications == one_by_one.replications >= MIN_TARGET_REPLICATIONS
    assert [s.metrics["mean_response"] for s in batched.samples] == pytest.approx(
        [s.metrics["mean_response"] for s in one_by_one.samples], rel=1e-12)
    widths = [estimates_of(batched.samples[:n], ["mean_response"])["mean_response"].relative_half_width
              for n in range(MIN_TARGET_REPLICATIONS, batched.replications + 1)]
    assert widths[-1] <= 0.08 and all(w > 0.08 for w in widths[:-1])


def test_an_engine_that_cannot_run_the_system_is_a_one_line_error(cli) -> None:
    assert "use --engine ciw" in cli.fails("simulate", "loadshare", "--load-fraction", "0.5", "--engine", "simpy")
    assert "--scheduler runs the library engine" in cli.fails("simulate", "loadshare", "--load-fraction", "0.5",
                                                              "--engine", "numpy", "--scheduler", "tcp://x:1")
    assert "use --engine simpy" in cli.fails("simulate", "hba", "response", "--engine", "ciw")
    assert "--engine must be one of" in cli.fails("simulate", "hba", "response", "--engine", "fast")
