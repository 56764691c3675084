"""``iosizer simulate``: JSON rows, one-line errors, nothing but the answer on stdout, a fast --help."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

KEYS = {"metric", "analytic", "simulated", "ci_low", "ci_high", "within_ci", "replications"}
QUICK = ("--replications", "4", "--workers", "1", "--seed", "3")


def test_json_is_a_list_of_rows_with_the_issue_keys(cli) -> None:
    rows = cli.json("simulate", "hba", "response", "--threads", "8", "--mode", "occupancy", *QUICK,
                    "--run-length", "1000")
    assert [r["metric"] for r in rows] == ["response_us", "iops"]
    for row in rows:
        assert KEYS <= set(row)
        assert row["ci_low"] <= row["simulated"] <= row["ci_high"]
        assert isinstance(row["within_ci"], bool) and row["replications"] == 4
        assert row["stopped"] == "replications"


def test_every_family_has_a_simulation(cli) -> None:
    runs = {
        "mmc": ["mmc", "--arrival-rate", "0.5", "--service-rate", "1", "--servers", "1"],
        "md1": ["md1", "--arrival-rate", "0.5", "--service-rate", "1"],
        "mm1": ["mm1", "--arrival-rate", "0.5", "--service-rate", "1"],
        "mg1": ["mg1", "--arrival-rate", "0.5", "--service-rate", "1", "--service-scv", "0.5"],
        "ggc": ["ggc", "--arrival-rate", "1.5", "--service-rate", "1", "--servers", "2", "--arrival-scv", "0.5"],
        "closed-network": ["closed-network", "--population", "4"],
        "oltp": ["oltp", "--added-latency-ns", "1500"],
        "dma": ["dma", "--device", "e1000", "--added-latency-ns", "2100"],
        "rmw": ["rmw", "--lanes", "16"],
        "hba": ["hba", "response", "--threads", "4"],
        "loadshare": ["loadshare", "--scenario", "system", "--policy", "exclusive", "--load-fraction", "0.5"],
        "replication": ["replication", "--link", "1g", "--outstanding", "8"],
    }
    for name, args in runs.items():
        rows = cli.json("simulate", *args, *QUICK, "--run-length", "500")
        assert rows and all(KEYS <= set(r) for r in rows), name


def test_the_table_names_the_system_the_method_and_why_it_stopped(cli) -> None:
    result = cli("simulate", "closed-network", "--population", "3", "--demand", "1", "--demand", "0.5",
                 "--method", "schweitzer", *QUICK, "--run-length", "500")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Simulation vs analytic: Closed network, 2 stations, N=3" in out
    assert "Bard-Schweitzer" in out and "SimPy" in out and "stopped: the 4 replications asked for" in out


def test_a_target_says_whether_it_was_reached(cli) -> None:
    reached = cli("simulate", "hba", "response", "--threads", "1", "--target-ci-pct", "1", "--workers", "1",
                  "--run-length", "500")
    assert reached.exit_code == 0 and "stopped: target reached" in reached.stdout
    # The numpy engine's first batch (32 replications) fits the budget on a loaded machine; 0.001 % never does.
    timed_out = cli.json("simulate", "hba", "response", "--threads", "16", "--target-ci-pct", "0.001",
                         "--max-seconds", "10", "--run-length", "300")
    assert {r["stopped"] for r in timed_out} == {"max-seconds"}


def test_same_seed_same_answer(cli) -> None:
    args = ("simulate", "oltp", "--added-latency-ns", "2100", *QUICK, "--run-length", "500")
    assert cli.json(*args) == cli.json(*args)


@pytest.mark.parametrize("args, message", [
    (["hba", "isolation"], "fluid allocation"),
    (["mmc", "--arrival-rate", "5", "--service-rate", "1", "--servers", "4"], "unstable"),
    (["mmc", "--arrival-rate", "1", "--replications", "5", "--target-ci-pct", "1"], "not both"),
    (["mmc", "--arrival-rate", "1", "--replications", "0"], "--replications"),
    (["mg1", "--arrival-rate", "0.5", "--service-rate", "1"], "--service-scv"),
    (["loadshare", "--policy", "greedy", "--load-fraction", "0.5"], "--policy"),
    (["loadshare", "--load-fraction", "1.5"], "--load-fraction"),
    (["loadshare"], "--load-cores or --load-fraction"),
    (["loadshare", "--port-share", "0", "--load-fraction", "0.5"], "port shares must be"),
    (["loadshare", "--port-share", "-1", "--load-fraction", "0.5"], "port share"),
    (["rmw", "--lanes", "12"], "--lanes"),
    (["dma", "--device", "hba-write", "--added-latency-ns", "100"], "posted"),
    (["closed-network", "--population", "3", "--method", "bard"], "--method"),
    (["hba", "response", "--service-scv", "-1"], "--service-scv"),
    (["hba", "response", "--scheduler", "notaprotocol://nowhere"], "--scheduler"),
    (["hba", "response", "--workers", "1", "--max-seconds", "0.000001"], "needs at least 2"),
    # Every option within its family's declaration, as the analytic command checks it (issue: a 10^7 population
    # ran for minutes in gigabytes, 2^20 lanes asked numpy for 128 GiB, 1e308 bytes answered 1e306 us).
    (["closed-network", "--population", "10000000", "--demand", "0.1"], "--population must lie in [1, 100000] (jobs)"),
    (["rmw", "--lanes", "1048576"], "--lanes must lie in [1, 128] (lanes), got 1048576"),
    (["rmw", "--transfer-bytes", "2000000000"], "--transfer-bytes must lie in [1, 16777216] (bytes)"),
    (["oltp", "--added-latency-ns", "1e308"], "--added-latency-ns must lie in [0, 10000000] (ns), got 1e+308"),
    (["dma", "--device", "e1000", "--added-latency-ns", "1e308"], "--added-latency-ns must lie in [0, 10000000]"),
    (["hba", "response", "--block-bytes", "1e308"], "--block-bytes must lie in [1, 16777216] (bytes), got 1e+308"),
    (["hba", "response", "--storage-us", "1e308"], "--storage-us must lie in [0, 1000000] (us), got 1e+308"),
    (["hba", "response", "--core-iops", "1e308"], "--core-iops must lie in [1, 100000000] (IOPS), got 1e+308"),
    (["hba", "response", "--link-mbps", "1e308"], "--link-mbps must lie in [1, 100000] (MB/s), got 1e+308"),
    (["hba", "response", "--threads", "100000"], "--threads must lie in [1, 65536] (I/Os), got 100000"),
    (["replication", "--block-kib", "1e-300"], "--block-kib must lie in [0.000976562, 1048576] (KiB), got 1e-300"),
    (["replication", "--outstanding", "10000000"], "--outstanding must lie in [1, 65536] (I/Os), got 10000000"),
])
def test_bad_input_is_one_line_and_exit_2(cli, args, message) -> None:
    assert message in cli.fails("simulate", *args)


def test_help_stays_fast_and_imports_no_simulation_library() -> None:
    code = ("import sys, iosizer.cli.app; "
            "print(sorted(m for m in ('ciw', 'simpy', 'joblib', 'distributed', 'numpy') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(loaded.stdout.replace("'", '"')) == []
    shown = subprocess.run([sys.executable, "-m", "iosizer.cli", "simulate", "--help"], capture_output=True, text=True)
    assert shown.returncode == 0 and "hba" in shown.stdout and "closed-network" in shown.stdout


def test_stdout_holds_only_the_answer_when_run_as_a_program() -> None:
    done = subprocess.run([sys.executable, "-m", "iosizer.cli", "simulate", "hba", "response", "--threads", "2",
                           *QUICK, "--run-length", "300", "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert [r["metric"] for r in json.loads(done.stdout)] == ["response_us", "iops"]


def test_simulate_loadshare_takes_the_non_core_part_and_the_switch_rule(cli) -> None:
    from iosizer.calibration.loadshare import policy_params, scenario
    from iosizer.model.loadshare import evaluate, max_throughput

    rows = cli.json("simulate", "loadshare", "--scenario", "skew", "--load-fraction", "0.6", "--non-core-pct", "0",
                    "--switch-rule", "threshold", *QUICK, "--run-length", "500")
    params = policy_params(4, non_core_pct=0.0, switch_rule="threshold")
    skew = scenario("skew")
    load = 0.6 * max_throughput("multi-stage", skew.port_shares, params)
    assert rows[0]["analytic"] == pytest.approx(evaluate("multi-stage", [load], skew.port_shares, params).response[0])
    assert "--switch-rule" in cli.fails("simulate", "loadshare", "--scenario", "skew", "--load-fraction", "0.6",
                                        "--switch-rule", "sometimes")
