"""``iosizer size servers`` and ``iosizer size load``: answers, keys, intervals, one-line errors."""

from __future__ import annotations

import pytest

from iosizer.model.mva import mva
from iosizer.model.percentiles import mmc_response_quantile
from iosizer.model.queueing import erlang_c, mmc


def test_size_servers_mean_response(cli) -> None:
    data = cli.json("size", "servers", "--arrival-rate", "3.2", "--service-rate", "1", "--target-response-s", "1.2")
    n = data["servers"]
    assert mmc(3.2, 1.0, n).mean_response <= 1.2 < mmc(3.2, 1.0, n - 1).mean_response
    assert data["mean_response"] == pytest.approx(mmc(3.2, 1.0, n).mean_response)
    assert data["mean_response_one_fewer"] == pytest.approx(mmc(3.2, 1.0, n - 1).mean_response)


def test_size_servers_percentile_and_wait_probability(cli) -> None:
    data = cli.json("size", "servers", "--arrival-rate", "3.2", "--service-rate", "1",
                    "--target-response-s", "5", "--percentile", "99")
    assert data["servers"] == 5 and data["percentile"] == 99
    assert data["response_p99"] == pytest.approx(mmc_response_quantile(3.2, 1.0, 5, 99))
    assert data["response_p99_one_fewer"] > 5 >= data["response_p99"]
    wait = cli.json("size", "servers", "--arrival-rate", "10", "--service-rate", "1",
                    "--target-wait-probability", "0.2")
    assert erlang_c(wait["servers"], 10) <= 0.2 < erlang_c(wait["servers"] - 1, 10)


def test_size_servers_sweep_is_one_row_per_rate(cli) -> None:
    data = cli.json("size", "servers", "--arrival-rate", "1,10,100", "--service-rate", "1",
                    "--target-response-s", "1.1")
    assert [d["arrival_rate"] for d in data] == [1, 10, 100]
    assert all(d["servers"] > d["arrival_rate"] for d in data)


def test_unstable_load_needs_more_than_one_server(cli) -> None:
    data = cli.json("size", "servers", "--arrival-rate", "2.5", "--service-rate", "1", "--target-response-s", "100")
    assert data["servers"] == 3 and data["minimum_stable_servers"] == 3
    assert data["mean_response_one_fewer"] is None  # one fewer is unstable


@pytest.mark.parametrize(("target", "extra"), [("0.9", []), ("1", []), ("4", ["--percentile", "99"])])
def test_unreachable_target_is_one_line_exit_2(cli, target, extra) -> None:
    line = cli.fails("size", "servers", "--arrival-rate", "3.2", "--service-rate", "1",
                     "--target-response-s", target, *extra)
    assert "unreachable" in line


def test_size_servers_with_a_profile_carries_the_interval(cli, tmp_path) -> None:
    import iosizer

    mmc_family = iosizer.family("mmc")
    path = tmp_path / "mmc.json"
    fit = mmc_family.calibrate(mmc_family.example(), servers=4)
    fit.save(path)
    data = cli.json("size", "servers", "--arrival-rate", "30000", "--profile", str(path),
                    "--target-response-s", "0.0011")
    low, high = fit.intervals["service_rate_per_s"]

    def smallest_servers(rate: float) -> int:
        return mmc_family.size({"service_rate_per_s": rate}, command="servers", arrival_rate=30000,
                               target_response_s=0.0011).to_data()["servers"]

    assert data["servers_ci_low"] == smallest_servers(high)
    assert data["servers_ci_high"] == smallest_servers(low)
    assert data["servers_ci_low"] <= data["servers"] <= data["servers_ci_high"]
    assert isinstance(data["servers_ci_low"], int)


def test_size_load_mmc_and_closed_network(cli) -> None:
    data = cli.json("size", "load", "--service-rate", "1", "--servers", "4", "--target-response-s", "2")
    assert mmc(data["arrival_rate"], 1.0, 4).mean_response == pytest.approx(2.0, rel=1e-9)
    closed = cli.json("size", "load", "--demand", "0.005", "--demand", "0.003", "--demand", "0.002",
                      "--think-time", "0.1", "--target-response-s", "0.05")
    curve = mva([0.005, 0.003, 0.002], 0.1, closed["population"] + 1).curve
    assert curve.response_time[-2] <= 0.05 < curve.response_time[-1]
    assert closed["throughput"] == pytest.approx(curve.throughput[-2])
    line = cli.fails("size", "load", "--demand", "0.005", "--target-response-s", "0.001")
    assert "unreachable" in line


def test_size_load_closed_network_profile_interval(cli, tmp_path) -> None:
    import iosizer

    closed = iosizer.family("closed-network")
    path = tmp_path / "net.json"
    closed.calibrate(closed.example(), stations=3).save(path)
    data = cli.json("size", "load", "--profile", str(path), "--target-response-s", "0.05")
    assert data["population_ci_low"] <= data["population"] <= data["population_ci_high"]
    assert data["throughput_ci_low"] <= data["throughput"] <= data["throughput_ci_high"]


@pytest.mark.parametrize(("extra", "message"), [
    (["--servers", "nan"], "--servers must be finite, got nan"),  # was an internal error (exit 1)
    (["--servers", "1e308"], "--servers must lie in [1, 10000000] (servers), got 1e+308"),  # answered 8.75e307
    # a closed network's option with an M/M/c queue's (was silently ignored)
    (["--servers", "4", "--think-time", "-1"], "--service-rate and --think-time belong to different systems"),
    (["--servers", "4", "--think-time", "nan"], "--service-rate and --think-time belong to different systems"),
])
def test_size_load_mmc_checks_what_it_is_given(cli, extra, message) -> None:
    assert message in cli.fails("size", "load", "--service-rate", "1", "--target-response-s", "2", *extra)


def test_size_load_with_an_mmc_profile_checks_its_server_count(cli, tmp_path) -> None:
    import iosizer

    mmc_family = iosizer.family("mmc")
    path = tmp_path / "mmc.json"
    mmc_family.calibrate(mmc_family.example(), servers=4).save(path)
    assert "--servers must be a number (servers), got 'x'" in cli.fails(
        "size", "load", "--profile", str(path), "--target-response-s", "0.01", "--servers", "x")
