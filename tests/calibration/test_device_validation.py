"""The device family on simulated devices of known truth: calibrate on some depths, predict the others.

Each truth is simulated by the test's own event loop (tests/model/test_device_sim.py:
a constant floor, then FCFS over C units, exponential service; fixed seeds),
written as fio 3.x JSON at queue depths 1, 4, 16 and 64 and calibrated by the default
``iosizer calibrate device FILES`` (the files carry fio's completion percentiles: p50 and p99 are
fitted beside the means, service_scv held at 1); depths 2, 8 and 32 are held out. Required, per
issue 27:

- parallel_units recovered exactly (and inside its plausible set);
- floor and unit service within 5 %;
- held-out IOPS and mean latency within 3 %;
- held-out p99 within 10 %.

30,000 completions per depth: the simulated means carry about 0.6 % sampling
error and the p99 about 2 %, well inside the tolerances, so a pass measures
the model and the fit, not luck.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import iosizer
from iosizer.model.device import device_curve, device_percentile
from tests.model.test_device_sim import simulate, write_fio

TRAIN = (1, 4, 16, 64)
HELD_OUT = (2, 8, 32)
IOS = 30_000

TRUTHS = {
    "4 units, floor 30 us": {"latency_floor_us": 30.0, "parallel_units": 4, "unit_service_us": 80.0},
    "16 units, floor 60 us": {"latency_floor_us": 60.0, "parallel_units": 16, "unit_service_us": 150.0},
    "1 unit, floor 20 us": {"latency_floor_us": 20.0, "parallel_units": 1, "unit_service_us": 50.0},
    # A floor much below the unit service is pinned only to the summaries' sampling error: at 10 us
    # against 200 us the fit's floor was 11.6 us (the count and unit service right), so 5 % on the floor
    # is asked of a floor the percentiles can resolve.
    "32 units, floor 60 us": {"latency_floor_us": 60.0, "parallel_units": 32, "unit_service_us": 200.0},
    # the knee past QD 16 (F = 100 us hides 16 units of 40 us): the means alone give 3 units here
    "16 units, floor 100 us": {"latency_floor_us": 100.0, "parallel_units": 16, "unit_service_us": 40.0},
}


def _runs(truth: dict, seed: int) -> dict[int, dict]:
    return {n: simulate(truth["latency_floor_us"], truth["unit_service_us"], truth["parallel_units"], n, IOS,
                        seed=seed + n) for n in TRAIN + HELD_OUT}


@pytest.mark.parametrize("label", list(TRUTHS))
def test_held_out_depths_of_a_simulated_device(tmp_path: Path, label: str) -> None:
    truth = TRUTHS[label]
    runs = _runs(truth, seed=1000 * list(TRUTHS).index(label))
    files = [str(write_fio(tmp_path / f"qd{n:02d}.json", n, runs[n])) for n in TRAIN]
    report = iosizer.family("device").calibrate(files)  # the default: the files' percentiles are fitted
    assert any("fitted with the means, by default" in n for n in report.calibration.notes)
    fitted = report.params

    assert fitted["parallel_units"] == truth["parallel_units"]
    low, high = report.intervals["parallel_units"]
    assert low <= truth["parallel_units"] <= high
    for name in ("latency_floor_us", "unit_service_us"):
        assert fitted[name] == pytest.approx(truth[name], rel=0.05), name

    held = np.array(HELD_OUT)
    curve = device_curve(fitted, held)
    p99 = device_percentile(fitted, held, 99.0)
    for i, n in enumerate(HELD_OUT):
        assert curve["iops"][i] == pytest.approx(runs[n]["iops"], rel=0.03), n
        assert curve["mean_latency_us"][i] == pytest.approx(runs[n]["mean_latency_us"], rel=0.03), n
        assert p99[i] == pytest.approx(np.percentile(runs[n]["latency_us"], 99), rel=0.10), n


def test_means_alone_bound_the_count(tmp_path: Path) -> None:
    """Without percentiles only the knee's shape speaks for the count: here the best count may miss 4 by
    one (this seed gives 5), but the plausible set covers it and the report says the means leave it open."""
    truth = TRUTHS["4 units, floor 30 us"]
    runs = _runs(truth, seed=0)
    files = [str(write_fio(tmp_path / f"qd{n:02d}.json", n, runs[n])) for n in TRAIN + HELD_OUT]
    report = iosizer.family("device").calibrate(files, fit_percentiles=False)
    low, high = report.intervals["parallel_units"]
    assert low <= 4 <= high and high - low <= 3
    assert abs(report.params["parallel_units"] - 4) <= 1
    assert any("plausible counts" in w for w in report.warnings)
    assert any("not identified by the means alone" in w for w in report.warnings)


def test_files_at_several_block_sizes_fit_the_unit_services_line(tmp_path: Path) -> None:
    """Three block sizes, the unit service 48 + 3 x KiB (60 us at 4 KiB, slope 3 us/KiB), 8 units: the
    default calibration fits the line (unit_service_per_kib_us) beside the count, floor within 5 %."""
    files = []
    for kib, service in ((4, 60.0), (16, 96.0), (64, 240.0)):
        for n in (1, 8, 64):
            run = simulate(30.0, service, 8, n, 10_000, seed=7 * kib + n)
            files.append(str(write_fio(tmp_path / f"bs{kib}_qd{n:02d}.json", n, run, block=f"{kib}k")))
    report = iosizer.family("device").calibrate(files)
    fitted = report.params
    assert fitted["parallel_units"] == 8
    assert fitted["unit_service_us"] == pytest.approx(60.0, rel=0.05)
    assert fitted["unit_service_per_kib_us"] == pytest.approx(3.0, rel=0.05)
    assert fitted["latency_floor_us"] == pytest.approx(30.0, rel=0.05)
    assert "several block sizes" in {p.name: p for p in iosizer.family("device").parameters}["unit_service_us"].source
