"""``iosizer pcie ...``: the issue's commands, keys and errors."""

from __future__ import annotations

import pytest


def test_link_command(cli) -> None:
    data = cli.json("pcie", "link", "--gen", "3", "--lanes", "8", "--mps", "256", "--transfer-bytes", "520")
    assert cli.json("pcie", "link", "--generation", "3", "--mps-bytes", "256", "--transfer-bytes", "520") == data
    assert cli.json("pcie", "link", "--ecrc")["tlp_overhead_bytes"] == data["tlp_overhead_bytes"] + 4
    assert set(data) >= {"raw_gbyte_s", "effective_gbyte_s", "tlps_per_transfer", "efficiency_pct"}
    assert data["raw_gbyte_s"] == pytest.approx(7.8769, abs=1e-4)
    assert data["tlps_per_transfer"] == 3
    assert data["effective_gbyte_s"] < data["raw_gbyte_s"]
    # Issue 24: the names that hid bit against byte stay as deprecated aliases of the same numbers.
    assert (data["raw_gbps"], data["effective_gbps"]) == (data["raw_gbyte_s"], data["effective_gbyte_s"])


def test_pattern_command(cli) -> None:
    data = cli.json("pcie", "pattern", "520", "--mps", "256")
    assert data["tlp_bytes"] == [256, 256, 8]
    assert round(data["unaligned_per_kib"], 2) == 8.86
    assert cli.json("pcie", "pattern", "F")["unaligned_per_kib"] == 0


def test_rmw_command(cli) -> None:
    points = cli.json("pcie", "rmw", "--pattern", "520", "--lanes", "8,16,24,32")
    assert [p["lanes"] for p in points] == [8, 16, 24, 32]
    assert set(points[0]) >= {"throughput_gbyte_s", "aligned_throughput_gbyte_s", "loss_pct"}
    assert points[0]["loss_pct"] <= 7.5 and 33 <= points[-1]["loss_pct"] <= 43
    (fixed,) = cli.json("pcie", "rmw", "--pattern", "520", "--lanes", "32", "--mitigation", "gather-dif")
    assert fixed["mitigated_throughput_gbyte_s"] > fixed["throughput_gbyte_s"]
    assert fixed["recovered_gbyte_s"] > 5
    # Issue 24: the published *_gbps keys stay in the JSON as deprecated aliases, not in the table or CSV.
    for old, new in (("throughput_gbps", "throughput_gbyte_s"), ("aligned_throughput_gbps", "aligned_throughput_gbyte_s"),
                     ("mitigated_throughput_gbps", "mitigated_throughput_gbyte_s"), ("recovered_gbps", "recovered_gbyte_s")):
        assert fixed[old] == fixed[new]
    header = cli("pcie", "rmw", "--pattern", "520", "--lanes", "32", "--format", "csv").stdout.splitlines()[0]
    assert "gbps" not in header and "throughput_gbyte_s" in header


def test_rmw_plot(cli, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "fig4.png"
    assert cli("pcie", "rmw", "--plot", str(target)).exit_code == 0
    assert target.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(("args", "fragment"), [
    (["link", "--gen", "7"], "--generation must be one of 1, 2, 3, 4, 5, 6, got 7"),
    (["link", "--lanes", "3"], "--lanes must be one of 1, 2, 4, 8, 12, 16, 32, got 3"),
    (["link", "--mps", "300"], "--mps-bytes must be one of 128, 256, 512, 1024, 2048, 4096, got 300"),
    (["link", "--direction", "up"], "--direction must be one of write, read, both, got 'up'"),
    (["pattern", "0"], "transfer-bytes must lie in [1, 16777216] (bytes), got 0"),
    (["pattern", "Z"], "or one of A, B, C, D, E, F, got 'Z'"),
    (["rmw", "--pattern", "Z"], "or one of A, B, C, D, E, F, got 'Z'"),
    (["rmw", "--lanes", "12"], "whole multiples of 8"),
    (["rmw", "--mitigation", "magic"], "--mitigation must be one of none, gather-dif, split-at-64, got 'magic'"),
])
def test_bad_input(cli, args, fragment) -> None:
    assert fragment in cli.fails("pcie", *args)


def test_rmw_from_a_calibrated_profile(cli, tmp_path) -> None:
    # Calibrate the rmw model on synthetic losses from known parameters, then
    # ask the what-if of that profile.
    from iosizer.model.pcie import RmwPlatform, access_pattern, rmw_throughput

    truth = RmwPlatform(rmw_service_ns=5.0, posted_credits=4.0)
    rows = []
    for lanes in (8, 16, 24, 32):
        for size in (520, 1040, 4104):
            loss = rmw_throughput(truth, access_pattern(size), [lanes]).loss_pct[0]
            rows.append(f"{lanes},{size},{loss}")
    data = tmp_path / "losses.csv"
    data.write_text("lanes,transfer_bytes,loss_pct\n" + "\n".join(rows) + "\n")
    profile = tmp_path / "rmw.json"
    fitted = cli.json("calibrate", "rmw", str(data), "-o", str(profile))
    assert fitted["parameters"]["rmw_service_ns"]["value"] == pytest.approx(5.0, rel=0.02)
    (point,) = cli.json("pcie", "rmw", "--pattern", "520", "--lanes", "32", "--profile", str(profile))
    expected = rmw_throughput(truth, access_pattern(520), [32]).loss_pct[0]
    assert point["loss_pct"] == pytest.approx(expected, rel=0.02)


def test_link_reads_and_units(cli) -> None:
    """Issue 15: reads, both directions, the unit-named keys and the deprecated alias."""
    data = cli.json("pcie", "link", "--transfer-bytes", "4096", "--direction", "read", "--mrrs", "512")
    assert data["effective_gbps"] == data["effective_gbyte_s"]
    assert data["effective_gbit_s"] == pytest.approx(8 * data["effective_gbyte_s"])
    assert (data["read_requests_per_transfer"], data["completions_per_transfer"]) == (8, 16)
    rcb = cli.json("pcie", "link", "--transfer-bytes", "4096", "--direction", "read", "--completions", "rcb",
                   "--rcb", "128")
    assert rcb["completions_per_transfer"] == 32 and rcb["effective_gbyte_s"] < data["effective_gbyte_s"]
    both = cli.json("pcie", "link", "--transfer-bytes", "4096", "--direction", "both")
    assert both["effective_gbyte_s"] > data["effective_gbyte_s"]
    assert both["tx_dllp_share_pct"] > 0 and both["rx_dllp_share_pct"] > 0
    write = cli.json("pcie", "link", "--transfer-bytes", "4096")
    assert write["tx_dllp_share_pct"] == 0 and write["rx_dllp_share_pct"] > 0
    assert cli.json("pcie", "link", "--gen", "6", "--lanes", "16")["tlp_overhead_bytes"] == 16


def test_rmw_service_scv(cli) -> None:
    """--service-scv 0: the shipped fit with constant service loses nothing at 8 and 16 lanes."""
    from tests.model.test_pcie import saturated_rmw_loss_pct

    points = cli.json("pcie", "rmw", "--lanes", "8,16,32", "--service-scv", "0")
    assert [p["loss_pct"] for p in points] == pytest.approx([0.0, 0.0, saturated_rmw_loss_pct(4)], abs=1e-6)
    exponential = cli.json("pcie", "rmw", "--lanes", "8,16,32", "--service-scv", "1")
    assert exponential == cli.json("pcie", "rmw", "--lanes", "8,16,32")
    assert "residual-service correction" in cli("pcie", "rmw", "--service-scv", "0.5").stdout


@pytest.mark.parametrize("value", ["-1", "2", "nan", "inf", "x"])
def test_rmw_service_scv_errors(cli, value) -> None:
    assert "--service-scv" in cli.fails("pcie", "rmw", "--service-scv", value)


def test_rmw_profile_keeps_its_service_scv(cli, tmp_path) -> None:
    """A profile calibrated with --set service_scv=0 answers at cv^2 = 0 (reproducing its data);
    --service-scv overrides it; the what-if API and the Python API read it the same way."""
    import iosizer
    from iosizer.calibration.whatif import what_if

    data = tmp_path / "seed001.csv"
    data.write_text("lanes,transfer_bytes,loss_pct\n8,520,7\n32,520,38\n")
    profile = tmp_path / "rmw0.json"
    fitted = cli.json("calibrate", "rmw", str(data), "--set", "service_scv=0", "-o", str(profile))
    assert fitted["parameters"]["service_scv"]["value"] == 0
    points = cli.json("pcie", "rmw", "--lanes", "8,32", "--profile", str(profile))
    assert [p["loss_pct"] for p in points] == pytest.approx([7.0, 38.0], abs=1e-4)
    exponential = cli.json("pcie", "rmw", "--lanes", "8,32", "--profile", str(profile), "--service-scv", "1")
    assert exponential[0]["loss_pct"] > 15  # the cv^2 = 0 fit's few credits, queueing exponentially
    values = what_if("rmw", profile).values
    assert values["service_scv"] == 0
    assert what_if("rmw", profile, changes={"service_scv": 1.0}).values["service_scv"] == 1.0
    loaded = iosizer.load_profile(profile)
    assert iosizer.family("rmw").predict(loaded, lanes=[8], transfer_bytes=[520]).outputs["loss_pct"] == \
        pytest.approx([7.0], abs=1e-4)
