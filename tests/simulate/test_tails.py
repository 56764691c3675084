"""The percentile simulators behind ``--simulate`` and the error grids (iosizer.simulate.tails).

Each is held to an exact answer of its own system: the open queue to M/M/1's
closed form (Lindley path) and Crommelin's M/D/2 (Kiefer-Wolfowitz path), the
closed cycle to the Schassberger-Daduna distribution of a single-server cycle
and to issue 27's exact delay + c-server network. Fixed seeds; the exact value
must lie within the 95 % interval widened by 1 % of the value (the replications'
percentiles carry a small bias of order 1 / n, and the runs here are short).
"""

from __future__ import annotations

import pytest

from iosizer.errors import InputError
from iosizer.model.closed_tails import closed_tails
from iosizer.model.percentiles import closed_network_percentiles, ggc_percentiles, mm1_percentiles
from iosizer.simulate.tails import closed_percentiles, open_percentiles


def _inside(value: float, estimate) -> bool:
    slack = 0.01 * abs(value)
    return estimate.low - slack <= value <= estimate.high + slack


def test_open_single_server_against_mm1() -> None:
    found = open_percentiles(0.7, 1.0, 1, 1.0, 1.0, [90.0, 99.0], seed=3, replications=4, customers=200_000)
    exact = mm1_percentiles(0.7, 1.0, [90.0, 99.0])
    for p, key in ((90.0, "p90"), (99.0, "p99")):
        assert _inside(float(exact[f"response_{key}"]), found["response"][p])
        assert _inside(float(exact[f"wait_{key}"]), found["wait"][p])
        assert found["response"][p].replications == 4 and found["response"][p].low < found["response"][p].high


def test_open_multi_server_against_crommelin() -> None:
    """Constant service, Poisson arrivals, 2 servers: M/D/2, exact by Crommelin (iosizer.model.mdc)."""
    found = open_percentiles(1.2, 1.0, 2, 1.0, 0.0, [99.0], seed=5, replications=4, customers=60_000)
    exact = ggc_percentiles(1.2, 1.0, 2, 1.0, 0.0, [99.0])
    assert _inside(float(exact["response_p99"]), found["response"][99.0])


def test_closed_single_server_cycle_against_exact() -> None:
    demands, think = [1.0, 0.6], 2.0
    found = closed_percentiles(demands, [1, 1], 6, [90.0, 99.0], think_time=think, seed=1, replications=4,
                               cycles=20_000)
    exact = closed_network_percentiles(demands, think, 6, [90.0, 99.0]).response
    assert _inside(exact["response_p90"], found[90.0]) and _inside(exact["response_p99"], found[99.0])


def test_closed_multi_server_station_against_issue_27() -> None:
    """A constant delay and one 3-server station (exact: iosizer.model.closed_tails)."""
    found = closed_percentiles([3.0], [3], 8, [99.0], constant_delay=2.0, seed=2, replications=4, cycles=20_000)
    response = 2.0 + float(closed_tails(2.0, 3.0, 3, 8).station_quantile(99.0))
    assert _inside(response, found[99.0])


def test_bad_runs_are_refused() -> None:
    with pytest.raises(InputError, match="replications"):
        open_percentiles(0.5, 1.0, 1, 1.0, 1.0, [99.0], replications=1)
    with pytest.raises(InputError, match="unstable"):
        open_percentiles(2.0, 1.0, 2, 1.0, 1.0, [99.0])
    with pytest.raises(InputError, match="events"):
        closed_percentiles([1.0], [1], 4, [99.0], replications=1000, cycles=10**6)
