"""The mmc and closed-network sizing declarations (size servers, size load) against brute force.

Answered through the one road, :func:`iosizer.calibration.declared_sizing.size`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iosizer
from iosizer.errors import InputError
from iosizer.model.mva import mva
from iosizer.model.percentiles import mmc_response_quantile
from iosizer.model.queueing import erlang_c, mmc
from iosizer.model.sizing import UnreachableTargetError, smallest_integer

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def servers(lam, mu: float, **targets):
    """The ``size servers`` answer (one record, or a list for several rates)."""
    return iosizer.family("mmc").size({"service_rate_per_s": mu}, command="servers", arrival_rate=lam,
                                      **targets).to_data()


def largest_rate(mu: float, count: int, **targets) -> dict:
    return iosizer.family("mmc").size({"service_rate_per_s": mu, "servers": count}, command="load",
                                      **targets).to_data()


def brute_servers(lam: float, mu: float, meets) -> int:
    count = math.floor(lam / mu) + 1
    while not meets(count):
        count += 1
    return count


def assert_same_or_tie(got: int, expected: int, measure, target: float) -> None:
    """Equal to the brute force, or the two differ at a count whose measure equals the target to
    rounding (an exact tie, where the last bit of Erlang C decides)."""
    if got != expected:
        assert abs(got - expected) == 1
        assert measure(min(got, expected)) == pytest.approx(target, rel=1e-12)


@SETTINGS
@given(load=st.floats(0.01, 300.0), mu=st.floats(0.1, 10.0), excess=st.floats(1e-3, 3.0))
def test_smallest_servers_for_a_mean_response_is_the_brute_force_answer(load, mu, excess) -> None:
    lam, target = load * mu, (1.0 + excess) / mu
    expected = brute_servers(lam, mu, lambda c: mmc(lam, mu, c).mean_response <= target)
    got = servers(lam, mu, target_response_s=target)["servers"]
    assert_same_or_tie(got, expected, lambda c: mmc(lam, mu, c).mean_response, target)


@SETTINGS
@given(load=st.floats(0.01, 200.0), mu=st.floats(0.1, 10.0), p=st.sampled_from([50, 90, 95, 99, 99.9]),
       excess=st.floats(0.01, 3.0))
def test_smallest_servers_for_a_percentile_is_the_brute_force_answer(load, mu, p, excess) -> None:
    lam = load * mu
    target = (-math.log1p(-p / 100) + excess) / mu  # above the service time's own percentile
    expected = brute_servers(lam, mu, lambda c: mmc_response_quantile(lam, mu, c, p) <= target)
    got = servers(lam, mu, target_response_s=target, percentile=p)["servers"]
    assert_same_or_tie(got, expected, lambda c: mmc_response_quantile(lam, mu, c, p), target)


@SETTINGS
@given(load=st.floats(0.01, 300.0), probability=st.floats(1e-6, 1.0))
def test_smallest_servers_for_a_wait_probability_is_the_brute_force_answer(load, probability) -> None:
    expected = brute_servers(load, 1.0, lambda c: erlang_c(c, load) <= probability)
    got = servers(load, 1.0, target_wait_probability=probability)["servers"]
    assert_same_or_tie(got, expected, lambda c: erlang_c(c, load), probability)


def test_a_sweep_equals_one_rate_at_a_time_to_the_last_digit() -> None:
    lam = list(np.random.default_rng(3).uniform(0.1, 500.0, 40))
    many = servers(lam, 1.0, target_response_s=1.2)
    assert many == [servers(rate, 1.0, target_response_s=1.2) for rate in lam]
    # Huge counts stay exact: 10,000 erlangs.
    assert servers(1e4, 1.0, target_response_s=1.001)["servers"] == brute_servers(
        1e4, 1.0, lambda c: mmc(1e4, 1.0, c).mean_response <= 1.001)


def test_an_unstable_load_needs_more_than_one_server() -> None:
    """lambda = 2.5 mu: one or two servers cannot carry it, whatever the target."""
    answer = servers(2.5, 1.0, target_response_s=100.0)
    assert answer["servers"] == 3 and answer["minimum_stable_servers"] == 3
    assert answer["mean_response_one_fewer"] is None  # one fewer is unstable: null
    assert servers(2.5, 1.0, target_wait_probability=1.0)["servers"] == 3


@pytest.mark.parametrize(("target", "percentile"), [(1.0, None), (0.5, None), (4.6, 99), (-math.log1p(-0.99), 99)])
def test_a_target_at_or_below_the_service_time_is_unreachable(target, percentile) -> None:
    with pytest.raises(UnreachableTargetError, match="unreachable") as error:
        servers(3.2, 1.0, target_response_s=target, percentile=percentile)
    assert isinstance(error.value, InputError) and "\n" not in str(error.value)
    with pytest.raises(UnreachableTargetError):
        largest_rate(1.0, 4, target_response_s=target, percentile=percentile)


def test_size_servers_reports_the_count_and_one_fewer() -> None:
    answer = servers(3.2, 1.0, target_response_s=5.0, percentile=99)
    assert answer["servers"] == 5 and answer["response_p99"] <= 5.0 < answer["response_p99_one_fewer"]
    assert answer["response_p99"] == pytest.approx(mmc_response_quantile(3.2, 1.0, 5, 99))
    wait = servers(3.2, 1.0, target_wait_probability=0.1)
    assert wait["p_wait"] == pytest.approx(erlang_c(wait["servers"], 3.2))
    assert wait["p_wait_one_fewer"] > 0.1


@SETTINGS
@given(count=st.integers(1, 200), mu=st.floats(0.1, 10.0), excess=st.floats(1e-3, 3.0),
       p=st.sampled_from([None, 90, 99]))
def test_largest_arrival_rate_is_where_the_target_is_met(count, mu, excess, p) -> None:
    base = 1.0 if p is None else -math.log1p(-p / 100)
    target = (base + excess) / mu
    rate = largest_rate(mu, count, target_response_s=target, percentile=p)["arrival_rate"]

    def measure(lam: float) -> float:
        return mmc(lam, mu, count).mean_response if p is None else mmc_response_quantile(lam, mu, count, p)

    assert 0 < rate < count * mu
    assert measure(rate) <= target * (1 + 1e-9)
    above = rate * (1 + 1e-6)
    assert above >= count * mu or measure(above) > target
    # The inverse questions agree: at the largest rate, `count` is the smallest count.
    assert servers(rate * (1 - 1e-9), mu, target_response_s=target, percentile=p)["servers"] <= count


def test_size_load_reports_the_state_at_the_answer() -> None:
    answer = largest_rate(1.0, 4, target_response_s=2.0)
    assert answer["mean_response"] == pytest.approx(2.0, rel=1e-9)
    assert answer["utilization"] == pytest.approx(answer["arrival_rate"] / 4)


def population(demands, think: float, target: float, percentile: float | None = None) -> dict:
    values = {"think_time_s": think, **{f"demand_{k}_s": d for k, d in enumerate(demands, 1)}}
    return iosizer.family("closed-network").size({**values, "stations": len(demands)}, command="load",
                                                 target_response_s=target, percentile=percentile).to_data()


@SETTINGS
@given(demands=st.lists(st.floats(0.001, 0.05), min_size=1, max_size=4), think=st.floats(0.0, 0.5),
       slack=st.floats(1.0, 40.0))
def test_largest_population_is_the_brute_force_answer(demands, think, slack) -> None:
    target = sum(demands) * slack
    answer = population(demands, think, target)
    curve = mva(demands, think, answer["population"] + 1).curve
    assert curve.response_time[answer["population"] - 1] <= target
    assert curve.response_time[answer["population"]] > target
    assert answer["throughput"] == pytest.approx(curve.throughput[answer["population"] - 1])


def test_largest_population_percentile_and_unreachable() -> None:
    demands = [0.005, 0.003, 0.002]
    answer = population(demands, 0.1, 0.05, percentile=99)
    from iosizer.model.percentiles import closed_network_percentiles

    def p99(n: int) -> float:
        return closed_network_percentiles(demands, 0.1, n, [99]).response["response_p99"]

    assert p99(answer["population"]) <= 0.05 < p99(answer["population"] + 1)
    with pytest.raises(UnreachableTargetError, match="one job alone"):
        population(demands, 0.1, 0.009)


def test_smallest_integer_is_a_monotone_search() -> None:
    calls = []

    def meets(n: int) -> bool:
        calls.append(n)
        return n >= 1000

    assert smallest_integer(meets, 1, 10**6) == 1000
    assert len(calls) < 30
    assert smallest_integer(lambda n: False, 1, 100) is None
    assert smallest_integer(lambda n: True, 5, 100) == 5


def test_errors_are_typed() -> None:
    with pytest.raises(InputError, match="one target"):
        servers(1.0, 1.0)
    with pytest.raises(InputError, match="one target"):
        servers(1.0, 1.0, target_response_s=2.0, target_wait_probability=0.5)
    with pytest.raises(InputError, match=r"lie in \(0, 1\]"):
        servers(1.0, 1.0, target_wait_probability=1.5)
    with pytest.raises(InputError):
        servers(-1.0, 1.0, target_response_s=2.0)
