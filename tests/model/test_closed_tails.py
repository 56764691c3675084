"""The delay + c-server closed network of iosizer.model.closed_tails against independent references.

- queue lengths: the birth-death CTMC of the network solved numerically
  (a linear solve of pi Q = 0, no product form);
- throughput: load-dependent MVA (iosizer.model.mva.mva, Bruell-Balbo-Afshari);
- response percentiles: the tagged job's phase-type distribution (matrix
  exponential of its absorbing chain, started from the CTMC's arrival
  distribution), to 1e-9; and an event simulation with an exponential
  delay (the general, time-ordered loop) to its sampling error.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from iosizer.errors import InputError
from iosizer.model.closed_tails import (MAX_STATES, closed_tails, closed_throughput, queue_distribution,
                                       throughput_gradient)
from iosizer.model.mva import mva
from tests.model.test_device_sim import simulate

CASES = [(30.0, 20.0, 4, 16), (5.0, 100.0, 1, 9), (80.0, 10.0, 8, 40), (0.0, 10.0, 3, 7), (50.0, 40.0, 16, 12)]


def _ctmc_marginal(delay: float, service: float, servers: int, jobs: int) -> np.ndarray:
    """Stationary P(j at the c-server station) of the network holding ``jobs``, from its generator."""
    size = jobs + 1
    q = np.zeros((size, size))
    for j in range(size):
        if j < jobs and delay > 0:
            q[j, j + 1] = (jobs - j) / delay
        if j > 0:
            q[j, j - 1] = min(j, servers) / service
        q[j, j] = -q[j].sum()
    if delay == 0:  # every job is always at the station
        return np.eye(size)[jobs]
    a = np.vstack([q.T, np.ones(size)])
    b = np.zeros(size + 1)
    b[-1] = 1.0
    return np.linalg.lstsq(a, b, rcond=None)[0]


def _phase_type_survival(t: float, found: np.ndarray, service: float, servers: int) -> float:
    """P(wait + service > t) of a job finding j with probability found[j] (absorbing-chain expm)."""
    longest = max(found.size - servers, 0)  # k = 1..longest departures to wait for
    # phases: waiting with k departures to go (k = longest..1), then in service
    size = longest + 1
    sub = np.zeros((size, size))
    rate = servers / service
    for i in range(longest):
        sub[i, i] = -rate
        sub[i, i + 1] = rate
    sub[longest, longest] = -1.0 / service
    start = np.zeros(size)
    for j, p in enumerate(found):
        k = j - servers + 1
        start[longest - k if k >= 1 else longest] += p
    return float(start @ expm(sub * t) @ np.ones(size))


@pytest.mark.parametrize("delay, service, servers, population", CASES)
def test_queue_length_matches_the_ctmc(delay, service, servers, population) -> None:
    got = queue_distribution(delay, service, servers, population)
    assert got == pytest.approx(_ctmc_marginal(delay, service, servers, population), abs=1e-12)


@pytest.mark.parametrize("delay, service, servers, population", [c for c in CASES if c[0] > 0])
def test_throughput_matches_load_dependent_mva(delay, service, servers, population) -> None:
    curve = mva([delay, service], 0.0, population, [np.inf, servers]).curve
    n = np.arange(1, population + 1)
    solved = closed_tails(delay, service, servers, n)
    assert solved.throughput == pytest.approx(np.asarray(curve.throughput), rel=1e-12)
    assert solved.cycle_time == pytest.approx(np.asarray(curve.response_time), rel=1e-12)
    # the arrival theorem's mean station time is MVA's residence there
    assert solved.station_response == pytest.approx(np.asarray(curve.residence_time)[:, 1], rel=1e-12)


@pytest.mark.parametrize("delay, service, servers, population", CASES)
@pytest.mark.parametrize("percentile", [50.0, 90.0, 99.0, 99.9])
def test_quantile_matches_the_phase_type_reference(delay, service, servers, population, percentile) -> None:
    found = _ctmc_marginal(delay, service, servers, population - 1)
    x = float(closed_tails(delay, service, servers, population).station_quantile(percentile))
    assert _phase_type_survival(x, found, service, servers) == pytest.approx(1 - percentile / 100, rel=1e-9)


def test_quantiles_are_vectorised_and_monotone() -> None:
    n = np.array([1, 2, 4, 8, 16, 32, 64])
    solved = closed_tails(40.0, 25.0, 4, n)
    p99, p50 = solved.station_quantile(99.0), solved.station_quantile(50.0)
    assert p99.shape == n.shape and np.all(np.diff(p99) >= 0) and np.all(p99 > p50)
    # no wait below C jobs found: the service's own quantile, -S ln(1 - q)
    assert p99[:3] == pytest.approx(-25.0 * np.log(0.01), rel=1e-12)


def test_gradient_matches_central_differences() -> None:
    n = np.array([1, 3, 8, 20, 64])
    x, by_delay, by_service = throughput_gradient(30.0, 20.0, 4, n)
    step = 1e-6
    for slope, args in ((by_delay, ((30.0 * (1 + step), 20.0), (30.0 * (1 - step), 20.0), 30.0)),
                        (by_service, ((30.0, 20.0 * (1 + step)), (30.0, 20.0 * (1 - step)), 20.0))):
        up = throughput_gradient(*args[0], 4, n)[0]
        down = throughput_gradient(*args[1], 4, n)[0]
        assert slope == pytest.approx((np.log(up) - np.log(down)) / (2 * step * args[2]), rel=1e-5, abs=1e-9)


def test_throughput_alone_is_the_gradients_first_array() -> None:
    """The curve's cheaper solve (one queue-length distribution) gives X(N) bit for bit, any shape."""
    n = np.array([[1, 2, 7], [16, 40, 64]])
    delay = np.array([[0.0], [35.0]])
    expected = throughput_gradient(delay, 20.0, 4, n)[0]
    found = closed_throughput(delay, 20.0, 4, n)
    assert found.shape == expected.shape == (2, 3) and np.array_equal(found, expected)


def test_percentiles_match_an_event_simulation_with_exponential_delay() -> None:
    """The arrival theorem holds for any delay distribution: here exponential, time-ordered events.

    60,000 completions: the 99th percentile's sampling error is about 2 %; tolerance 5 %."""
    floor, service, units, n = 30.0, 40.0, 2, 6
    run = simulate(floor, service, units, n, 60_000, seed=11, exponential_floor=True)
    solved = closed_tails(floor, service, units, n)
    # the simulated latency includes the (exponential) delay: compare the station part's mean exactly
    assert run["mean_latency_us"] == pytest.approx(float(solved.cycle_time), rel=0.02)
    station = simulate(floor, service, units, n, 60_000, seed=12)  # constant floor: latency = floor + station
    for percentile in (50.0, 90.0, 99.0):
        model = floor + float(solved.station_quantile(percentile))
        assert np.percentile(station["latency_us"], percentile) == pytest.approx(model, rel=0.05)


def test_bad_input_is_one_line() -> None:
    with pytest.raises(InputError, match="servers must be a whole number"):
        closed_tails(1.0, 1.0, 2.5, 4)
    with pytest.raises(InputError, match="service must be > 0"):
        closed_tails(1.0, 0.0, 2, 4)
    with pytest.raises(InputError, match="queue-length states"):
        closed_tails(np.ones(1000), 1.0, 2, MAX_STATES // 1000 + 10)
