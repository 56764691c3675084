"""Every benchmark output a planner brings feeds the device family: fio variants, elbencho, vdbench.

The points are the family's own exact curve at a known device (no noise), so each reader must give
back the truth: the count exactly, floor and unit service to 1e-4.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from iosizer.calibration.calibrate import calibrate
from iosizer.errors import DatasetError
from iosizer.model.device import device_curve, device_percentile

TRUTH = {"latency_floor_us": 30.0, "parallel_units": 4, "unit_service_us": 80.0, "service_scv": 1.0}
DEPTHS = (1, 2, 4, 8, 16, 32, 64)


def _exact(n: int) -> tuple[float, float]:
    curve = device_curve(TRUTH, np.array([n]))
    return float(curve["iops"][0]), float(curve["mean_latency_us"][0])


def _job(name: str, depth: int, numjobs: int = 1, engine: str = "libaio", share: float = 1.0,
         plus: bool = False) -> dict:
    iops, latency_us = _exact(depth * numjobs)
    pct = {f"{p:.6f}": float(device_percentile(TRUTH, np.array([depth * numjobs]), p)[0]) * 1e3
           for p in (50.0, 99.0)}
    clat = {"mean": latency_us * 1e3, "percentile": pct}
    if plus:  # json+: the histogram bins beside the percentiles
        clat["bins"] = {"50000": 10, "90000": 5}
    read = {"iops": iops * share, "total_ios": 1000, "lat_ns": {"mean": latency_us * 1e3}, "clat_ns": clat}
    return {"jobname": name, "groupid": 0, "error": 0, "job_runtime": 5000, "usr_cpu": 1, "sys_cpu": 1,
            "job options": {"rw": "randread", "bs": "4k", "ioengine": engine, "iodepth": str(depth),
                            "numjobs": str(numjobs)},
            "read": read, "write": {"iops": 0.0, "total_ios": 0}}


def _write(path: Path, jobs: list[dict]) -> str:
    path.write_text(json.dumps({"fio version": "fio-3.33", "jobs": jobs}))
    return str(path)


def _check(result) -> None:
    assert result.fit.params["parallel_units"] == 4
    for name in ("latency_floor_us", "unit_service_us"):
        assert result.fit.params[name] == pytest.approx(TRUTH[name], rel=1e-4), name


def test_stonewalled_jobs_of_different_depths_in_one_json_plus_file(tmp_path: Path) -> None:
    jobs = [_job(f"qd{n}", n, plus=True) for n in DEPTHS]
    for i, job in enumerate(jobs):
        job["groupid"] = i
    _check(calibrate("device", _write(tmp_path / "sweep.json", jobs)))


def test_numjobs_clones_without_group_reporting_are_summed(tmp_path: Path) -> None:
    """numjobs=4 x iodepth=8 reported as four clones of a quarter of the IOPS each: one point at N = 32."""
    files = [_write(tmp_path / f"qd{n}.json", [_job("r", n)]) for n in DEPTHS if n != 32]
    clones = [_job("r", 8, numjobs=4, share=0.25) for _ in range(4)]
    files.append(_write(tmp_path / "clones.json", clones))
    _check(calibrate("device", files))


def test_sync_engine_runs_at_depth_one_per_job(tmp_path: Path) -> None:
    """psync ignores iodepth: 16 jobs of psync at 'iodepth=32' are 16 outstanding I/Os."""
    files = [_write(tmp_path / f"qd{n}.json", [_job("r", n, engine="io_uring")]) for n in DEPTHS if n != 16]
    job = _job("r", 1, numjobs=16)
    job["job options"].update({"ioengine": "psync", "iodepth": "32"})
    files.append(_write(tmp_path / "psync.json", [job]))
    _check(calibrate("device", files))


def _lines(path: Path, head: list[str], line) -> Path:
    """A tool's text output: ``head``, then ``line(n, iops, latency_us)`` at every depth."""
    path.write_text("\n".join(head + [line(n, *_exact(n)) for n in DEPTHS]) + "\n")
    return path


def test_elbencho_and_vdbench(tmp_path: Path) -> None:
    header = ("ISO date,label,path type,paths,hosts,threads,dirs,files,file size,block size,direct IO,random,"
              "IO depth,operation,IOPS [last],MiB/s [last],IO lat us [min],IO lat us [avg],IO lat us [max]")
    _check(calibrate("device", _lines(tmp_path / "results.csv", [header], lambda n, x, r: (
        f"2026-11-25,,file,1,1,1,0,1,1073741824,4096,1,1,{n},READ,{x:.9g},0,1,{r:.9g},100"))))
    head = ["* vdbench flatfile", "tod Run Interval reqrate rate MB/sec bytes/io read% resp resp_std threads"]
    _check(calibrate("device", _lines(tmp_path / "flatfile.html", head, lambda n, x, r: (
        f"10:00:59 run{n} avg_2-10 max {x:.9g} 1 4096 100 {r / 1e3:.9g} 0.1 {n}"))))


def test_several_block_sizes_are_rows_of_one_fit(tmp_path: Path) -> None:
    """A 64 KiB file among 4 KiB ones: the block size is a per-row input of the fit (the unit service's line
    in block size, unit_service_per_kib_us, varies), not a setting that must be one value per fit."""
    files = [_write(tmp_path / f"qd{n}.json", [_job("r", n)]) for n in DEPTHS]
    job = _job("r", 8)
    job["job options"]["bs"] = "64k"
    files.append(_write(tmp_path / "big.json", [job]))
    result = calibrate("device", files)
    assert list(result.dataset.values["block_kib"]) == [4.0] * len(DEPTHS) + [64.0]
    assert result.profile.parameters["unit_service_per_kib_us"].vary
    # a CSV setting column that varies and is no input of the family is still refused, one value per fit
    csv = tmp_path / "mixed.csv"
    csv.write_text("outstanding,iops,mean_latency_us,direction\n1,10000,100,read\n4,30000,133,write\n")
    with pytest.raises(DatasetError, match="direction.*calibrate each configuration separately"):
        calibrate("device", csv)


def test_a_write_sweep_is_read_with_its_direction(tmp_path: Path) -> None:
    jobs = []
    for n in DEPTHS:
        job = _job("w", n)
        job["write"], job["read"] = job["read"], copy.deepcopy(job["write"])
        job["job options"]["rw"] = "randwrite"
        jobs.append(_write(tmp_path / f"w{n}.json", [job]))
    _check(calibrate("device", jobs))  # auto: each job's one direction
    _check(calibrate("device", jobs, {"direction": "write"}))
    with pytest.raises(DatasetError, match="no reads, only writes"):
        calibrate("device", jobs, {"direction": "read"})


def test_shipped_sweep_csv_is_the_fio_files_as_read() -> None:
    """data/examples/device/sweep.csv (the family's example) holds what the fio reader reads from the JSON."""
    import csv

    import iosizer
    from iosizer.calibration.sources import read_fio

    example = Path(str(iosizer.family("device").example()))
    with open(example, newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert len(rows) == 14
    for row in rows:
        (point,) = read_fio(example.parent / row["source"], "auto")
        assert float(row["outstanding"]) == point.concurrency
        assert float(row["iops"]) == pytest.approx(point.iops, rel=1e-5)
        assert float(row["mean_latency_us"]) == pytest.approx(point.mean_latency_s * 1e6, rel=1e-5)
        assert float(row["latency_p99_us"]) == pytest.approx(point.percentiles_s[99.0] * 1e6, rel=1e-5)


def test_closed_network_takes_per_station_servers(tmp_path: Path, cli) -> None:
    """closed-network --set servers=delay,4 is the device's network: the same exact fit, and its what-if
    (queue mva --profile) solves with the servers the profile was calibrated with."""
    files = [_write(tmp_path / f"qd{n}.json", [_job("r", n)]) for n in DEPTHS]
    result = calibrate("closed-network", files, {"stations": 2, "servers": "delay,4"})
    assert result.fit.params["demand_1_s"] == pytest.approx(30e-6, rel=1e-4)  # the floor
    assert result.fit.params["demand_2_s"] == pytest.approx(80e-6, rel=1e-4)  # one unit's service
    assert result.profile.options["servers"] == "delay,4"
    profile = tmp_path / "network.json"
    assert cli("calibrate", "closed-network", *files, "--stations", "2", "--set", "servers=delay,4",
               "-o", str(profile)).exit_code == 0
    answer = cli.json("queue", "mva", "--profile", str(profile), "--population", "16")
    assert answer["throughput"] == pytest.approx(_exact(16)[0], rel=1e-4)
    for bad, message in (("1,x", "servers must list whole numbers"), ("1,2,3", "servers lists 3 stations")):
        failed = cli("calibrate", "closed-network", *files, "--stations", "2", "--set", f"servers={bad}")
        assert failed.exit_code == 2 and message in failed.stderr
