"""``iosizer simulate device``: the device curve by the numpy engine against the exact product form.

With exponential unit service the analytic curve is exact (a closed network of a delay and a C-server
station, product form), so a 95 % interval from independent replications must cover it; seed fixed, the
run small (6 replications of 4,000 I/Os per depth).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from iosizer.cli.app import app

GIVEN = ["--latency-floor-us", "20", "--parallel-units", "4", "--unit-service-us", "100", "--service-scv", "1"]
RUN = ["--replications", "6", "--run-length", "4000", "--seed", "3", "--workers", "1", "--max-seconds", "60"]


def _run(*args: str):
    return CliRunner().invoke(app, ["simulate", "device", *args])


def test_interval_covers_the_exact_curve_at_several_depths() -> None:
    """Below, at and past the knee (C = 4, floor 0.2 S): every 95 % interval holds the exact value."""
    result = _run(*GIVEN, "--outstanding", "1,4,16", *RUN, "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["outstanding"], r["metric"]) for r in rows] == [
        (n, m) for n in (1, 4, 16) for m in ("iops", "mean_latency_us")]
    for row in rows:
        assert row["ci_low"] <= row["analytic"] <= row["ci_high"], row
        assert row["within_ci"] and row["replications"] == 6
        assert abs(row["gap_pct"]) < 2.0  # a half-width of about 1 % at this length
    exact = {r["outstanding"]: r["analytic"] for r in rows if r["metric"] == "iops"}
    assert exact[16] == pytest.approx(4 / 100e-6, rel=1e-6)  # past the knee: all 4 units busy, C / S
    assert exact[1] == pytest.approx(1e6 / 120.0, rel=1e-12)  # one I/O: F + S


def test_simulate_hook_builds_the_curve_with_percentiles() -> None:
    """The curve question's simulate hook (registered in iosizer.simulate.hooks) builds one closed loop per
    point; the generic run (iosizer simulate device --percentile 99) gives each replication's empirical p99
    with a replication interval that covers the exact p99 (arrival theorem)."""
    from iosizer.model.device import device_percentile
    from iosizer.simulate.hooks import SIMULATED

    values = {"latency_floor_us": 20.0, "parallel_units": 4, "unit_service_us": 100.0, "service_scv": 1.0}
    sweep = SIMULATED[("device", "curve")](values, {"outstanding": np.array([2.0, 8.0])}, run_length=2000,
                                           percentiles=(99.0,))
    assert [n.population for n in sweep.networks] == [2, 8] and sweep.percentiles == (99.0,)
    result = _run(*GIVEN, "--outstanding", "2,8", "--percentile", "99", *RUN, "--format", "json")
    assert result.exit_code == 0, result.output
    rows = [r for r in json.loads(result.stdout) if r["metric"] == "latency_p99_us"]
    assert [r["outstanding"] for r in rows] == [2, 8]
    exact = device_percentile(values, np.array([2.0, 8.0]), 99.0)
    for row, p99 in zip(rows, exact):
        assert row["analytic"] == pytest.approx(p99, rel=1e-12)
        assert row["ci_low"] <= p99 <= row["ci_high"], row


def test_gamma_service_is_simulated_and_says_the_analytic_is_approximate() -> None:
    """service_scv 0.5: the units' service is gamma (shape 2); the notes say the curve is exact at scv 1 only."""
    from iosizer.simulate.declared import declared_experiment

    built = declared_experiment("device", outstanding=[8], latency_floor_us=20.0, parallel_units=4,
                                unit_service_us=100.0, service_scv=0.5, run_length=200)
    units = built.model.networks[0].stations[1]
    assert units.servers == 4 and units.scv == 0.5
    assert built.model.networks[0].stations[0].scv == 0.0  # the floor: a constant delay
    assert any("exact at scv 1 only" in note for note in built.notes)


@pytest.mark.parametrize("args, says", [
    (["--outstanding", "0"], "--outstanding must lie in"),
    (["--outstanding", "x"], "--outstanding: expected a number"),
    (["--outstanding", "4,4"], "each depth once"),
    (["--outstanding", "1:17:1"], "more than the 16"),
    (["--unit-service-us", "-1"], "--unit-service-us must lie in"),
    (["--engine", "ciw"], "--engine"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], says: str) -> None:
    given = list(GIVEN)
    if "--unit-service-us" in args:
        given = given[:4] + given[6:]
    result = _run(*given, *args, "--replications", "2", "--run-length", "200", "--workers", "1")
    assert result.exit_code == 2, result.output
    assert says in result.output and len(result.output.strip().splitlines()) == 1, result.output


def test_a_profile_with_the_simpy_engine(tmp_path) -> None:
    """--profile takes the calibrated values (the notes say so); SimPy, the second engine, also covers them."""
    from pathlib import Path

    sweep = Path(__file__).resolve().parents[2] / "data" / "examples" / "device" / "sweep.csv"
    profile = tmp_path / "device.json"
    assert CliRunner().invoke(app, ["calibrate", "device", str(sweep), "--no-fit-percentiles", "-o",
                                    str(profile)]).exit_code == 0
    result = _run("--profile", str(profile), "--outstanding", "2,16", "--engine", "simpy", "--replications", "4",
                  "--run-length", "2000", "--seed", "2", "--workers", "1", "--max-seconds", "60", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == 4 and all(r["within_ci"] for r in rows), rows  # 2 depths x (iops, mean latency)

    from iosizer.calibration.profile import load_profile
    from iosizer.simulate.declared import declared_experiment

    built = declared_experiment("device", None, load_profile(profile, "device"), outstanding=[2], run_length=200)
    assert built.notes[0].startswith("values: ") and built.notes[0].endswith("from the planner's profile")
