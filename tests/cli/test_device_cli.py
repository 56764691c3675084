"""``iosizer calibrate device``, ``iosizer device curve`` and ``iosizer size device`` end to end.

fio inputs are written by the simulation of tests/model/test_device_sim.py (a known device) or
are the shipped real sweep; bad inputs must give one line and exit status 2.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

import iosizer
from tests.model.test_device_sim import simulate, write_fio

TRUTH = {"latency_floor_us": 30.0, "parallel_units": 4, "unit_service_us": 80.0}
DEPTHS = (1, 2, 4, 8, 16, 32, 64)


@pytest.fixture(scope="module")
def runs() -> dict[int, dict]:
    return {n: simulate(30.0, 80.0, 4, n, 8000, seed=500 + n) for n in DEPTHS}


def _one_line_error(result, *needles: str) -> None:
    assert result.exit_code == 2, result.stdout
    message = result.stderr.strip()
    assert "\n" not in message and "Traceback" not in message, message
    for needle in needles:
        assert needle in message, message


def test_calibrate_fio_files_numjobs_times_iodepth(cli, tmp_path: Path, runs) -> None:
    """outstanding = iodepth x numjobs: depth 16 written as 4 jobs of iodepth 4 reads as 16."""
    files = [str(write_fio(tmp_path / f"qd{n}.json", n, runs[n], numjobs=4 if n == 16 else 1)) for n in DEPTHS]
    profile = tmp_path / "device.json"
    result = cli("calibrate", "device", *files, "--format", "json", "-o", str(profile))
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    units = document["parameters"]["parallel_units"]
    assert not units["fixed"] and units["ci_low"] <= 4 <= units["ci_high"]
    assert any("plausible counts" in w for w in document["warnings"])
    curve = cli("device", "curve", "--outstanding", "2,8", "--profile", str(profile), "--percentile", "99",
                "--format", "json")
    assert curve.exit_code == 0, curve.stderr
    rows = json.loads(curve.stdout)
    assert [r["outstanding"] for r in rows] == [2, 8]
    for row in rows:
        assert row["iops_ci_low"] <= row["iops"] <= row["iops_ci_high"]
        assert row["latency_p99_us"] > row["mean_latency_us"]
        assert row["iops"] * row["mean_latency_us"] * 1e-6 == pytest.approx(row["outstanding"], rel=1e-9)


def test_calibrate_csv_in_the_family_columns_with_percentiles(cli, tmp_path: Path, runs) -> None:
    path = tmp_path / "sweep.csv"
    lines = ["outstanding,iops,mean_latency_us,latency_p99_us"]
    lines += [f"{n},{runs[n]['iops']:.6g},{runs[n]['mean_latency_us']:.6g},"
              f"{np.percentile(runs[n]['latency_us'], 99):.6g}" for n in DEPTHS]
    path.write_text("\n".join(lines) + "\n")
    result = cli("calibrate", "device", str(path), "--fit-percentiles", "--set", "service_scv=1", "--format", "json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["parameters"]["parallel_units"]["value"] == 4
    assert "latency_p99_us" in document["columns"]


def test_size_device(cli) -> None:
    result = cli("size", "device", "--target-iops", "30000", "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    values = iosizer.family("device").shipped().values()
    from iosizer.model.device import device_curve

    n = data["outstanding"]
    assert device_curve(values, n)["iops"] >= 30000 > device_curve(values, n - 1)["iops"]
    assert data["outstanding_ci_low"] <= n
    # the shipped fit is loose (S up to 109 us at 1 unit): at that corner 30k IOPS is out of reach (None)
    assert data["outstanding_ci_high"] is None or data["outstanding_ci_high"] >= n
    result = cli("size", "device", "--target-latency-us", "400", "--percentile", "99", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["latency_at_max_iops_us"] <= 400
    _one_line_error(cli("size", "device", "--target-iops", "1e9"), "ceiling")
    _one_line_error(cli("size", "device", "--percentile", "99"), "--target")


def _edited(tmp_path: Path, run: dict, name: str, edit) -> str:
    path = write_fio(tmp_path / name, 4, run)
    document = json.loads(path.read_text())
    edit(document["jobs"][0])
    path.write_text(json.dumps(document))
    return str(path)


def test_bad_fio_input_is_one_line(cli, tmp_path: Path, runs) -> None:
    good = [str(write_fio(tmp_path / f"qd{n}.json", n, runs[n])) for n in (1, 16, 64)]
    writes = str(write_fio(tmp_path / "writes.json", 4, runs[4], rw="randwrite"))
    _one_line_error(cli("calibrate", "device", *good, writes, "--set", "direction=read"),
                    "writes.json", "no reads, only writes", "direction=write")

    def mixed(job):
        job["write"] = copy.deepcopy(job["read"])
    _one_line_error(cli("calibrate", "device", *good, _edited(tmp_path, runs[4], "mixed.json", mixed)),
                    "mixed.json", "mixes reads and writes", "--set direction=read")

    def no_depth(job):
        job["job options"]["iodepth"] = "deep"
    _one_line_error(cli("calibrate", "device", *good, _edited(tmp_path, runs[4], "depth.json", no_depth)),
                    "depth.json", "iodepth")

    def idle(job):
        job["read"]["iops"] = 0.0
    _one_line_error(cli("calibrate", "device", *good, _edited(tmp_path, runs[4], "idle.json", idle)),
                    "idle.json", "completed no reads or writes")
    _one_line_error(cli("device", "curve", "--outstanding", "0"), "--outstanding")


def test_the_shipped_real_sweep_calibrates(cli) -> None:
    """The README walk-through's command on the shipped files: a fit that states how far to trust it."""
    folder = Path(str(iosizer.family("device").example())).parent
    files = sorted(str(p) for p in folder.glob("qd*.json"))
    assert len(files) == 14
    result = cli("calibrate", "device", *files, "--format", "json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert any("plausible counts" in w for w in document["warnings"])
    assert {"iops", "mean_latency_us"} <= set(document["columns"])


def test_curve_is_one_declaration_on_every_surface(cli, tmp_path: Path) -> None:
    """CLI, Python and HTTP answer the declared question 'curve' alike, from the same profile."""
    args = ("device", "curve", "--outstanding", "1,64", "--percentile", "99", "--unit-service-us", "80",
            "--latency-floor-us", "30", "--parallel-units", "4")
    printed = cli(*args, "--format", "json")
    assert printed.exit_code == 0, printed.stderr
    rows = json.loads(printed.stdout)
    from iosizer.model.device import device_curve, device_percentile

    exact = device_curve(TRUTH, np.array([1, 64]))
    assert [r["iops"] for r in rows] == pytest.approx(exact["iops"], rel=1e-12)
    assert [r["latency_p99_us"] for r in rows] == pytest.approx(device_percentile(TRUTH, np.array([1, 64]), 99.0))
    asked = iosizer.ask("device curve", outstanding=[1, 64], percentile=[99], unit_service_us=80,
                        latency_floor_us=30, parallel_units=4)
    assert asked == rows
    testclient = pytest.importorskip("fastapi.testclient")
    from iosizer.serve.app import create_app

    with testclient.TestClient(create_app(workers=1, heavy_workers=1), base_url="http://localhost") as client:
        response = client.post("/api/device/curve", json={"outstanding": [1, 64], "percentile": [99],
                                                          "unit_service_us": 80, "latency_floor_us": 30,
                                                          "parallel_units": 4})
        assert response.status_code == 200, response.text
        assert response.text == printed.stdout
        assert client.post("/api/device/curve", json={"outstanding": 0}).status_code == 422
