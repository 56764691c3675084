"""``iosizer queue ...`` through typer's CliRunner: output, JSON keys, exit codes."""

from __future__ import annotations

import csv
import io

import pytest

from iosizer.model.queueing import mmc

QUEUE_KEYS = {
    "utilization", "p_wait", "mean_wait", "mean_response", "mean_queue_length", "mean_in_system",
}


def test_mmc_json_is_the_model_result(cli) -> None:
    data = cli.json("queue", "mmc", "--arrival-rate", "3.2", "--service-rate", "1", "--servers", "4")
    assert set(data) == QUEUE_KEYS | {"arrival_rate"}  # the declared question's record names its input too
    assert data.pop("arrival_rate") == 3.2
    assert data == pytest.approx(mmc(3.2, 1.0, 4).to_dict(), rel=1e-15)


def test_mmc_table_shows_every_metric(cli) -> None:
    result = cli("queue", "mmc", "--arrival-rate", "3.2", "--service-rate", "1", "--servers", "4")
    assert result.exit_code == 0
    for key in QUEUE_KEYS:
        assert key in result.stdout
    assert "0.596432" in result.stdout  # Erlang C(4, 3.2), six figures


def test_sweep_gives_one_row_per_arrival_rate(cli) -> None:
    result = cli("queue", "mm1", "--arrival-rate", "0.1:0.9:0.2", "--service-rate", "1",
                 "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [float(r["arrival_rate"]) for r in rows] == pytest.approx([0.1, 0.3, 0.5, 0.7, 0.9])
    assert float(rows[-1]["mean_response"]) == pytest.approx(1 / (1 - 0.9))
    data = cli.json("queue", "mm1", "--arrival-rate", "0.2,0.4", "--service-rate", "1")
    assert [d["utilization"] for d in data] == pytest.approx([0.2, 0.4])


@pytest.mark.parametrize(
    ("command", "extra", "key", "expected"),
    [
        ("mg1", ["--service-scv", "0"], "mean_wait", 0.5 / (2 * 0.5)),  # M/D/1 at rho 0.5
        ("md1", [], "mean_wait", 0.5 / (2 * 0.5)),
        ("ggc", ["--servers", "1", "--arrival-scv", "1", "--service-scv", "1"], "mean_wait", 1.0),
    ],
)
def test_other_open_queues(cli, command, extra, key, expected) -> None:
    data = cli.json("queue", command, "--arrival-rate", "0.5", "--service-rate", "1", *extra)
    assert data[key] == pytest.approx(expected)


def test_erlang_command(cli) -> None:
    data = cli.json("queue", "erlang", "--servers", "4", "--offered-load", "3.2")
    # Definitions with exact fractions: B = (a^c/c!) / sum_k a^k/k!, C = B / (1 - rho (1 - B)).
    from fractions import Fraction
    from math import factorial

    a = Fraction(16, 5)
    b = (a**4 / factorial(4)) / sum(a**k / factorial(k) for k in range(5))
    c = b / (1 - a / 4 * (1 - b))
    assert data["erlang_b"] == pytest.approx(float(b), rel=1e-13)
    assert data["erlang_c"] == pytest.approx(float(c), rel=1e-13)


@pytest.mark.parametrize("rate", ["3.2", "-1", "nan"])
def test_erlang_arrival_rate_without_a_profile_is_refused(cli, rate) -> None:
    # It was silently ignored: the answer was the --offered-load one, whatever the rate said.
    line = cli.fails("queue", "erlang", "--servers", "4", "--offered-load", "3.2", "--arrival-rate", rate)
    assert "--arrival-rate goes with --profile" in line


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--arrival-rate", "5", "--service-rate", "1", "--servers", "4"], "utilization 1.25 >= 1"),
        (["--arrival-rate", "3", "--service-rate", "1"], "Missing option '--servers'"),
        (["--arrival-rate", "nan", "--service-rate", "1", "--servers", "4"], "must be finite"),
        (["--arrival-rate", "-3", "--service-rate", "1", "--servers", "4"], "--arrival-rate must lie in [0, inf]"),
            (["--arrival-rate", "0", "--service-rate", "1", "--servers", "4"], "arrival_rate must be > 0"),
        (["--arrival-rate", "3", "--service-rate", "0", "--servers", "4"], "service_rate must be > 0"),
        (["--arrival-rate", "3", "--service-rate", "x", "--servers", "4"], "--service-rate"),
        (["--arrival-rate", "3", "--service-rate", "1", "--servers", "0"], "--servers must lie in [1, 10000000]"),
        (["--arrival-rate", "3:1:1", "--service-rate", "1", "--servers", "4"], "stop >= start"),
        (["--arrival-rate", "1:2", "--service-rate", "1", "--servers", "4"], "expected a number"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, args, fragment) -> None:
    assert fragment in cli.fails("queue", "mmc", *args)


def test_unknown_command_and_help(cli) -> None:
    assert "No such command" in cli.fails("queue", "nope")
    result = cli("--help")
    assert result.exit_code == 0 and "queue" in result.stdout
    assert cli("--version").stdout.startswith("iosizer ")


MVA_ARGS = ["queue", "mva", "--demand", "0.005", "--demand", "0.003", "--demand", "0.002",
            "--think-time", "0.1", "--population", "100"]


def test_mva_json_keys_and_values(cli) -> None:
    from iosizer.model.mva import mva

    data = cli.json(*MVA_ARGS)
    assert {"throughput", "response_time", "stations"} <= set(data)
    assert set(data["stations"][0]) == {"utilization", "queue_length", "residence_time"}
    reference = mva([0.005, 0.003, 0.002], 0.1, 100)
    assert data["throughput"] == pytest.approx(reference.throughput, rel=1e-15)
    assert data["response_time"] == pytest.approx(reference.response_time, rel=1e-15)
    assert data["knee_population"] == pytest.approx(22.0)
    assert data["throughput"] <= data["throughput_upper_bound"] * (1 + 1e-12)
    # Little's law at the terminals: N = X (R + Z).
    assert data["throughput"] * (data["response_time"] + 0.1) == pytest.approx(100)


def test_mva_csv_is_the_whole_curve(cli) -> None:
    result = cli(*MVA_ARGS, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [int(r["population"]) for r in rows] == list(range(1, 101))
    assert float(rows[0]["response_time"]) == pytest.approx(0.01)  # one job: R = D
    assert {"utilization_3", "queue_length_3", "residence_time_3"} <= set(rows[0])


def test_mva_multi_server_and_delay_stations(cli) -> None:
    data = cli.json("queue", "mva", "--demand", "0.01", "--demand", "0.02", "--demand", "0.05",
                    "--servers", "1", "--servers", "4", "--servers", "delay", "--population", "30")
    assert data["stations"][2]["residence_time"] == pytest.approx(0.05)
    assert data["method"] != "exact"  # the 4-server station is load-dependent
    table = cli("queue", "mva", "--demand", "0.01", "--population", "3")
    assert table.exit_code == 0 and "knee N*" in table.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--demand", "0.01", "--population", "0"], "population"),
        (["--demand", "-0.01", "--population", "5"], "demand"),
        (["--demand", "0.01", "--population", "5", "--servers", "1.5"], "servers"),
        (["--demand", "0.01", "--population", "5", "--servers", "fast"], "--servers"),
        (["--demand", "nan", "--population", "5"], "demand"),
        (["--population", "5"], "Missing option '--demand'"),
    ],
)
def test_mva_bad_input(cli, args, fragment) -> None:
    assert fragment in cli.fails("queue", "mva", *args)


def test_single_server_queues_refuse_a_multi_server_profile(cli, tmp_path) -> None:
    from iosizer.calibration.profile import ParameterEstimate, Profile, save_profile

    profile = Profile(model="mmc", options={"servers": 4},
                      parameters={"service_rate_per_s": ParameterEstimate(value=1.0, stderr=0.01)})
    path = save_profile(profile, tmp_path / "p.json")
    assert "calibrated with 4 servers" in cli.fails("queue", "mm1", "--arrival-rate", "0.5", "--profile", str(path))
    data = cli.json("queue", "ggc", "--arrival-rate", "3", "--profile", str(path))
    assert data["mean_wait_ci_low"] < data["mean_wait"] < data["mean_wait_ci_high"]
