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
    assert set(data) == QUEUE_KEYS
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
    assert data["erlang_c"] == pytest.approx(mmc(3.2, 1, 4).p_wait)
    assert 0 < data["erlang_b"] < data["erlang_c"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--arrival-rate", "5", "--service-rate", "1", "--servers", "4"], "utilization 1.25 >= 1"),
        (["--arrival-rate", "3", "--service-rate", "1"], "Missing option '--servers'"),
        (["--arrival-rate", "nan", "--service-rate", "1", "--servers", "4"], "must be finite"),
        (["--arrival-rate", "-3", "--service-rate", "1", "--servers", "4"], "arrival_rate must be > 0"),
        (["--arrival-rate", "3", "--service-rate", "0", "--servers", "4"], "service_rate must be > 0"),
        (["--arrival-rate", "3", "--service-rate", "x", "--servers", "4"], "--service-rate"),
        (["--arrival-rate", "3", "--service-rate", "1", "--servers", "0"], "servers must be > 0"),
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
