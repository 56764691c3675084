"""``--percentile`` on the queue commands: JSON keys, exactness, profile bands, errors."""

from __future__ import annotations

import math

import pytest

from iosizer.model.percentiles import (
    closed_network_percentiles,
    ggc_percentiles,
    md1_percentiles,
    mg1_percentiles,
    mmc_percentiles,
)

MMC = ("queue", "mmc", "--arrival-rate", "3.2", "--service-rate", "1", "--servers", "4")


def test_mmc_percentile_keys_are_the_model_values(cli) -> None:
    data = cli.json(*MMC, "--percentile", "99", "--percentile", "99.9", "--percentile", "50")
    expected = mmc_percentiles(3.2, 1.0, 4, [99, 99.9, 50])
    for key in ("wait_p99", "response_p99", "wait_p99_9", "response_p99_9", "wait_p50", "response_p50"):
        assert data[key] == pytest.approx(expected[key], rel=1e-15)
    assert data["mean_response"] == pytest.approx(1.7455405897342557)  # the means are unchanged


def test_without_percentile_the_keys_are_unchanged(cli) -> None:
    assert not any(k.startswith(("wait_p", "response_p")) for k in cli.json(*MMC))


def test_sweep_carries_percentiles_per_point(cli) -> None:
    data = cli.json("queue", "mm1", "--arrival-rate", "0.2,0.5", "--service-rate", "1", "--percentile", "90")
    assert [d["response_p90"] for d in data] == pytest.approx([math.log(10) / 0.8, math.log(10) / 0.5])


@pytest.mark.parametrize(
    ("args", "expected", "word"),
    [
        (["mg1", "--service-scv", "0.5"], mg1_percentiles(0.7, 1.0, 0.5, [99]), "exact"),
        (["md1"], md1_percentiles(0.7, 1.0, [99]), "exact"),
        (["ggc", "--servers", "2", "--arrival-scv", "2", "--service-scv", "0.5"],
         ggc_percentiles(0.7, 1.0, 2, 2.0, 0.5, [99]), "approximation"),
        (["ggc", "--servers", "3", "--service-scv", "0"], ggc_percentiles(0.7, 1.0, 3, 1.0, 0.0, [99]), "exact"),
    ],
)
def test_open_queues_report_percentiles_and_say_whether_exact(cli, args, expected, word) -> None:
    base = ["queue", args[0], "--arrival-rate", "0.7", "--service-rate", "1", *args[1:], "--percentile", "99"]
    data = cli.json(*base)
    assert data["response_p99"] == pytest.approx(expected["response_p99"], rel=1e-14)
    table = cli(*base)
    assert word in table.stdout
    assert "--percentile" in cli("queue", args[0], "--help").stdout


def test_mmc_percentile_carries_profile_bands(cli, tmp_path) -> None:
    import iosizer

    mmc = iosizer.family("mmc")
    path = tmp_path / "mmc.json"
    mmc.calibrate(mmc.example(), servers=4).save(path)
    data = cli.json("queue", "mmc", "--arrival-rate", "3600", "--profile", str(path), "--percentile", "99")
    assert data["response_p99_ci_low"] < data["response_p99"] < data["response_p99_ci_high"]
    assert data["wait_p99_ci_low"] < data["wait_p99"] < data["wait_p99_ci_high"]


def test_mva_percentiles_per_station_and_end_to_end(cli) -> None:
    args = ["queue", "mva", "--demand", "0.005", "--demand", "0.003", "--think-time", "0.1",
            "--population", "20", "--percentile", "99"]
    data = cli.json(*args)
    expected = closed_network_percentiles([0.005, 0.003], 0.1, 20, [99])
    assert data["response_p99"] == pytest.approx(expected.response["response_p99"])
    assert [s["response_p99"] for s in data["stations"]] == pytest.approx(list(expected.station["response_p99"]))
    table = cli(*args).stdout
    assert "response_p99" in table and "arrival theorem's mixture" in table


@pytest.mark.parametrize("bad", ["0", "100", "150", "-5"])
def test_bad_percentile_is_one_line_exit_2(cli, bad) -> None:
    line = cli.fails(*MMC, "--percentile", bad)
    assert "percentile" in line


def test_hba_response_percentile(cli) -> None:
    data = cli.json("hba", "response", "--threads", "1,16", "--mode", "shared", "--percentile", "99")
    assert all(d["response_p99_us"] > d["response_us"] for d in data)
    plain = cli.json("hba", "response", "--threads", "1,16", "--mode", "shared")
    assert [d["response_us"] for d in plain] == [d["response_us"] for d in data]
    assert not any("response_p99_us" in d for d in plain)


def test_replication_percentile(cli) -> None:
    data = cli.json("replication", "--link", "1g,local", "--percentile", "99", "--percentile", "50")
    remote, local = data
    assert remote["latency_p50_us"] < remote["latency_us"] < remote["latency_p99_us"]
    assert local["latency_p99_us"] == local["latency_us"] == 77.0  # a pure, constant flash latency
    table = cli("replication", "--link", "10g", "--percentile", "99")
    assert "latency_p99_us" in table.stdout and "arrival theorem" in table.stdout


def test_loadshare_curve_percentile(cli) -> None:
    data = cli.json("loadshare", "curve", "--scenario", "skew", "--points", "4", "--percentile", "99")
    assert all(d["response_p99_service_times"] > d["response_service_times"] for d in data)
    assert all(d["response_p99_norm"] > d["response_norm"] for d in data)


def test_near_constant_service_says_the_inversion_is_not_exact(cli) -> None:
    """cv^2 in (0, 0.01): the note states the measured error (docs/validation/tails.md)."""
    args = ("queue", "mg1", "--arrival-rate", "0.1", "--service-rate", "1", "--percentile", "90")
    assert "resolves only approximately" in cli(*args, "--service-scv", "0.000001").stdout
    assert "resolves only approximately" not in cli(*args, "--service-scv", "0.5").stdout


def test_simulate_answers_the_percentiles_with_intervals(cli) -> None:
    """--simulate: response_pP is the simulation's mean, its 95 % interval and the analytic value beside it;
    an approximation's grid error goes (the answer is no longer the approximation's)."""
    args = ["queue", "ggc", "--arrival-rate", "0.6", "--service-rate", "1", "--servers", "1", "--arrival-scv", "2",
            "--service-scv", "0", "--percentile", "99"]
    model = cli.json(*args)
    assert "response_p99_error_pct" in model
    data = cli.json(*args, "--simulate")
    assert data["response_p99_model"] == model["response_p99"]
    assert data["response_p99_sim_low"] < data["response_p99"] < data["response_p99_sim_high"]
    assert data["wait_p99_sim_low"] < data["wait_p99"] < data["wait_p99_sim_high"]
    assert "response_p99_error_pct" not in data and data["mean_response"] == model["mean_response"]
    assert "simulated" in cli(*args, "--simulate").stdout


def test_simulate_closed_networks(cli) -> None:
    mva = cli.json("queue", "mva", "--demand", "2", "--demand", "0.5", "--servers", "2", "--servers", "1",
                   "--think-time", "2.5", "--population", "8", "--percentile", "99", "--simulate")
    assert mva["response_p99_sim_low"] < mva["response_p99"] < mva["response_p99_sim_high"]
    assert abs(mva["response_p99"] / mva["response_p99_model"] - 1) < 0.05
    hba = cli.json("hba", "response", "--threads", "16", "--mode", "shared", "--percentile", "99", "--simulate")
    assert hba[0]["response_p99_us_sim_low"] < hba[0]["response_p99_us"] < hba[0]["response_p99_us_sim_high"]
    assert "response_p99_us_model" in hba[0]


def test_simulate_needs_a_percentile_and_few_points(cli) -> None:
    assert "--percentile" in cli.fails(*MMC, "--simulate")
    assert "at most" in cli.fails("queue", "mm1", "--arrival-rate", "0.1:0.95:0.05", "--service-rate", "1",
                                  "--percentile", "99", "--simulate")
