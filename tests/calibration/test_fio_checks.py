"""What the fio reader must refuse, correct or hold (issue 25: N2, N3, think time)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iosizer.calibration.calibrate import calibrate, load_measurements
from iosizer.calibration.sources import read_fio
from iosizer.errors import CalibrationError, DatasetError
from iosizer.model.registry import declaration
from tests.calibration.test_sources import DEPTHS, fio_document


def _write(tmp_path: Path, document: dict, name: str = "run.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def test_a_failed_fio_job_is_refused_by_name(tmp_path: Path) -> None:
    document = fio_document()
    document["jobs"][2]["error"] = 5  # fio's EIO: the job's numbers are not a measurement of the device
    path = _write(tmp_path, document)
    with pytest.raises(DatasetError) as caught:
        read_fio(path)
    message = str(caught.value)
    assert "'qd4'" in message and "error 5" in message and "--force" in message and "\n" not in message
    with pytest.raises(DatasetError, match="'qd4'"):
        calibrate("closed-network", path, {"stations": 2})


def test_force_keeps_the_other_jobs_with_a_warning(tmp_path: Path) -> None:
    document = fio_document()
    document["jobs"][2]["error"] = 5
    path = _write(tmp_path, document)
    result = calibrate("closed-network", path, {"stations": 2}, force=True)
    assert result.fit.n_points == 2 * (len(DEPTHS) - 1)  # throughput and response of the five good jobs
    assert any("run.json:qd4" in w and "error 5" in w and "left out" in w for w in result.fit.warnings)
    # Every job failed: nothing is left to keep, --force or not.
    for job in document["jobs"]:
        job["error"] = 5
    with pytest.raises(DatasetError, match="every job failed"):
        calibrate("closed-network", _write(tmp_path, document, "all.json"), {"stations": 2}, force=True)


@pytest.mark.parametrize("engine", ["sync", "psync", "vsync", "pvsync", "pvsync2", "mmap", "splice"])
def test_a_synchronous_engine_keeps_one_io_per_job(tmp_path: Path, engine: str) -> None:
    # fio caps a synchronous engine's depth at 1 ("queue depth will be capped at 1"): N = numjobs.
    document = fio_document((1, 8), numjobs=2)
    document["global options"]["ioengine"] = engine
    assert [p.concurrency for p in read_fio(_write(tmp_path, document))] == [2, 2]


@pytest.mark.parametrize("engine", ["libaio", "io_uring", "posixaio", "windowsaio", "solarisaio"])
def test_an_asynchronous_engine_keeps_its_depth(tmp_path: Path, engine: str) -> None:
    document = fio_document((1, 8), numjobs=2)
    document["global options"]["ioengine"] = engine
    assert [p.concurrency for p in read_fio(_write(tmp_path, document))] == [2, 16]


def test_engine_options_per_job_and_the_default(tmp_path: Path) -> None:
    document = fio_document((4, 8))
    del document["global options"]["ioengine"]  # fio's default engine is psync: synchronous
    document["jobs"][1]["job options"]["ioengine"] = "libaio"
    assert [p.concurrency for p in read_fio(_write(tmp_path, document))] == [1, 8]
    # io_submit_mode=offload queues a synchronous engine's I/O from a thread pool: the depth holds.
    document["jobs"][0]["job options"]["io_submit_mode"] = "offload"
    assert [p.concurrency for p in read_fio(_write(tmp_path, document, "offload.json"))] == [4, 8]


def test_a_sync_job_read_at_its_true_depth_calibrates(tmp_path: Path) -> None:
    # The example: psync jobs run with --iodepth=8 behave as depth 1 per job (X R = N = numjobs).
    document = fio_document((1, 2, 4, 8), numjobs=1)
    for job, jobs in zip(document["jobs"], (1, 2, 4, 8)):
        job["job options"] = {"iodepth": "8", "numjobs": str(jobs)}
    document["global options"]["ioengine"] = "psync"
    data = load_measurements(_write(tmp_path, document), declaration("closed-network").columns)
    assert data.values["population"].tolist() == [1, 2, 4, 8]
    assert not any("Little" in w for w in data.warnings)


def test_every_refusal_shows_the_data_checks(tmp_path: Path) -> None:
    # Depth read wrong on purpose (the jobs say 64, behave as 1..32): the points break Little's law and the
    # fit is worse than a constant; the refusal must carry the Little's-law lines that explain it.
    document = fio_document()
    for job in document["jobs"]:
        job["job options"]["iodepth"] = "64"
    path = _write(tmp_path, document)
    with pytest.raises(CalibrationError) as caught:
        calibrate("closed-network", path, {"stations": 2})
    message = str(caught.value)
    assert "worse than a constant" in message and "Little's law" in message and "N = 64" in message


def test_fio_think_time_is_held_at_zero_and_said(tmp_path: Path) -> None:
    # A fio job is a closed loop with no think time (unless it sets 'thinktime'): Z is held at 0, not fitted.
    result = calibrate("closed-network", _write(tmp_path, fio_document()), {"stations": 2})
    estimate = result.profile.parameters["think_time_s"]
    assert estimate.value == 0.0 and not estimate.vary
    assert any("think_time_s held at 0" in note and "fio" in note for note in result.notes)
    # The planner's own value wins.
    given = calibrate("closed-network", _write(tmp_path, fio_document(), "z.json"),
                      {"stations": 2, "think_time_s": 1e-6})
    assert given.profile.parameters["think_time_s"].value == 1e-6
    assert not any("held at 0" in note for note in given.notes)


def test_a_fio_thinktime_leaves_think_time_to_the_fit(tmp_path: Path) -> None:
    document = fio_document()
    document["global options"]["thinktime"] = "50"  # microseconds: not a closed loop with Z = 0
    data = load_measurements(_write(tmp_path, document), declaration("closed-network").columns)
    assert data.think_time_s is None
    assert load_measurements(_write(tmp_path, fio_document(), "plain.json"),
                             declaration("closed-network").columns).think_time_s == 0.0
