"""The vectorised sizing functions of the Python API (:mod:`iosizer.model.sizing`: issue 16's million-row
road) against brute-force search over candidates (hypothesis, derandomised); the declared commands' road
is tests/model/test_sizing.py, and the last test holds the two to the same counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iosizer.errors import InputError, IosizerError
from iosizer.model.mva import mva
from iosizer.model.percentiles import mmc_response_quantile
from iosizer.model.queueing import erlang_c, mmc
from iosizer.model.sizing import (
    UnreachableTargetError,
    largest_arrival_rate,
    largest_population,
    size_load,
    size_servers,
    smallest_servers,
)

from tests.model.test_sizing import assert_same_or_tie, brute_servers  # the brute force both roads are held to

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


@SETTINGS
@given(load=st.floats(0.01, 300.0), mu=st.floats(0.1, 10.0), excess=st.floats(1e-3, 3.0))
def test_smallest_servers_for_a_mean_response_is_the_brute_force_answer(load, mu, excess) -> None:
    lam, target = load * mu, (1.0 + excess) / mu
    expected = brute_servers(lam, mu, lambda c: mmc(lam, mu, c).mean_response <= target)
    got = smallest_servers(lam, mu, target)
    assert_same_or_tie(got, expected, lambda c: mmc(lam, mu, c).mean_response, target)


@SETTINGS
@given(load=st.floats(0.01, 200.0), mu=st.floats(0.1, 10.0), p=st.sampled_from([50, 90, 95, 99, 99.9]),
       excess=st.floats(0.01, 3.0))
def test_smallest_servers_for_a_percentile_is_the_brute_force_answer(load, mu, p, excess) -> None:
    lam = load * mu
    target = (-math.log1p(-p / 100) + excess) / mu  # above the service time's own percentile
    expected = brute_servers(lam, mu, lambda c: mmc_response_quantile(lam, mu, c, p) <= target)
    got = smallest_servers(lam, mu, target, percentile=p)
    assert_same_or_tie(got, expected, lambda c: mmc_response_quantile(lam, mu, c, p), target)


@SETTINGS
@given(load=st.floats(0.01, 300.0), probability=st.floats(1e-6, 1.0))
def test_smallest_servers_for_a_wait_probability_is_the_brute_force_answer(load, probability) -> None:
    expected = brute_servers(load, 1.0, lambda c: erlang_c(c, load) <= probability)
    got = smallest_servers(load, 1.0, target_wait_probability=probability)
    assert_same_or_tie(got, expected, lambda c: erlang_c(c, load), probability)


def test_vectorised_rows_equal_one_at_a_time() -> None:
    rng = np.random.default_rng(3)
    mu = rng.uniform(0.5, 2.0, 400)
    lam = rng.uniform(0.1, 500.0, 400) * mu
    target = (1.0 + rng.uniform(0.001, 1.0, 400)) / mu
    many = smallest_servers(lam, mu, target)
    assert many.shape == (400,) and many.dtype == np.int64
    assert many.tolist() == [smallest_servers(l, m, t) for l, m, t in zip(lam, mu, target)]
    # Huge counts stay exact: 10,000 erlangs.
    assert smallest_servers(1e4, 1.0, 1.001) == brute_servers(
        1e4, 1.0, lambda c: mmc(1e4, 1.0, c).mean_response <= 1.001)


def test_an_unstable_load_needs_more_than_one_server() -> None:
    """lambda = 2.5 mu: one or two servers cannot carry it, whatever the target."""
    assert smallest_servers(2.5, 1.0, 100.0) == 3
    assert smallest_servers(2.5, 1.0, target_wait_probability=1.0) == 3
    answer = size_servers(2.5, 1.0, 100.0)
    assert answer.minimum_stable_servers == 3 and answer.achieved_one_fewer == math.inf


@pytest.mark.parametrize(("target", "percentile"), [(1.0, None), (0.5, None), (4.6, 99), (-math.log1p(-0.99), 99)])
def test_a_target_at_or_below_the_service_time_is_unreachable(target, percentile) -> None:
    with pytest.raises(UnreachableTargetError, match="unreachable") as error:
        smallest_servers(3.2, 1.0, target, percentile=percentile)
    assert isinstance(error.value, InputError) and "\n" not in str(error.value)
    with pytest.raises(UnreachableTargetError):
        largest_arrival_rate(1.0, 4, target, percentile=percentile)
    # Without strict, the row is marked 0 and the others are answered.
    assert smallest_servers([3.2, 3.2], 1.0, [target, 2.0], percentile=percentile, strict=False)[0] == 0


def test_size_servers_reports_the_count_and_one_fewer() -> None:
    answer = size_servers(3.2, 1.0, 5.0, percentile=99)
    assert answer.servers == 5 and answer.measure == "response_p99"
    assert answer.achieved <= 5.0 < answer.achieved_one_fewer
    assert answer.achieved == pytest.approx(mmc_response_quantile(3.2, 1.0, 5, 99))
    wait = size_servers(3.2, 1.0, target_wait_probability=0.1)
    assert wait.achieved == pytest.approx(erlang_c(wait.servers, 3.2))
    assert wait.achieved_one_fewer > 0.1


@SETTINGS
@given(servers=st.integers(1, 200), mu=st.floats(0.1, 10.0), excess=st.floats(1e-3, 3.0),
       p=st.sampled_from([None, 90, 99]))
def test_largest_arrival_rate_is_where_the_target_is_met(servers, mu, excess, p) -> None:
    base = 1.0 if p is None else -math.log1p(-p / 100)
    target = (base + excess) / mu
    rate = largest_arrival_rate(mu, servers, target, percentile=p)

    def measure(lam: float) -> float:
        return mmc(lam, mu, servers).mean_response if p is None else mmc_response_quantile(lam, mu, servers, p)

    assert 0 < rate < servers * mu
    assert measure(rate) <= target * (1 + 1e-9)
    above = rate * (1 + 1e-6)
    assert above >= servers * mu or measure(above) > target
    # The inverse questions agree: at the largest rate, `servers` is the smallest count.
    assert smallest_servers(rate * (1 - 1e-9), mu, target, percentile=p) <= servers


def test_size_load_reports_the_state_at_the_answer() -> None:
    answer = size_load(1.0, 4, 2.0)
    assert answer.achieved == pytest.approx(2.0, rel=1e-9)
    assert answer.utilization == pytest.approx(answer.arrival_rate / 4)


@SETTINGS
@given(demands=st.lists(st.floats(0.001, 0.05), min_size=1, max_size=4), think=st.floats(0.0, 0.5),
       slack=st.floats(1.0, 40.0))
def test_largest_population_is_the_brute_force_answer(demands, think, slack) -> None:
    target = sum(demands) * slack
    answer = largest_population(demands, think, target)
    curve = mva(demands, think, answer.population + 1).curve
    assert curve.response_time[answer.population - 1] <= target * (1 + 1e-12)
    assert curve.response_time[answer.population] > target
    assert answer.throughput == pytest.approx(curve.throughput[answer.population - 1])


def test_largest_population_percentile_and_unreachable() -> None:
    demands = [0.005, 0.003, 0.002]
    answer = largest_population(demands, 0.1, 0.05, percentile=99)
    from iosizer.model.percentiles import closed_network_percentiles

    def p99(n: int) -> float:
        return closed_network_percentiles(demands, 0.1, n, [99]).response["response_p99"]

    assert p99(answer.population) <= 0.05 < p99(answer.population + 1)
    with pytest.raises(UnreachableTargetError, match="one job alone"):
        largest_population(demands, 0.1, 0.009)


def test_errors_are_typed() -> None:
    with pytest.raises(InputError, match="one target"):
        smallest_servers(1.0, 1.0)
    with pytest.raises(IosizerError):
        smallest_servers(1.0, 1.0, target_wait_probability=1.5)
    with pytest.raises(InputError):
        smallest_servers(-1.0, 1.0, 2.0)


@pytest.mark.parametrize("targets", [{"target_response_s": 1.5}, {"target_response_s": 6.0, "percentile": 99.0},
                                     {"target_wait_probability": 0.2}])
def test_the_vectorised_api_and_the_declared_command_give_the_same_counts(targets: dict) -> None:
    """model.sizing.smallest_servers (the Python API's million-row road) and `iosizer size servers`
    (the registry's declared sizing) are two roads to one answer: the same server count on every row."""
    import iosizer

    lam = np.random.default_rng(7).uniform(0.1, 200.0, 60)
    declared = iosizer.family("mmc").size({"service_rate_per_s": 1.0}, command="servers", arrival_rate=list(lam),
                                          **targets)
    vectorised = smallest_servers(lam, 1.0, targets.get("target_response_s"), targets.get("percentile"),
                                  targets.get("target_wait_probability"))
    assert [r["servers"] for r in declared.records()] == list(np.asarray(vectorised))
