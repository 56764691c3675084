"""``iosizer pcie ...``: the issue's commands, keys and errors."""

from __future__ import annotations

import pytest


def test_link_command(cli) -> None:
    data = cli.json("pcie", "link", "--gen", "3", "--lanes", "8", "--mps", "256", "--transfer-bytes", "520")
    assert set(data) >= {"raw_gbps", "effective_gbps", "tlps_per_transfer", "efficiency_pct"}
    assert data["raw_gbps"] == pytest.approx(7.8769, abs=1e-4)
    assert data["tlps_per_transfer"] == 3
    assert data["effective_gbps"] < data["raw_gbps"]


def test_pattern_command(cli) -> None:
    data = cli.json("pcie", "pattern", "520", "--mps", "256")
    assert data["tlp_bytes"] == [256, 256, 8]
    assert round(data["unaligned_per_kib"], 2) == 8.86
    assert cli.json("pcie", "pattern", "F")["unaligned_per_kib"] == 0


def test_rmw_command(cli) -> None:
    points = cli.json("pcie", "rmw", "--pattern", "520", "--lanes", "8,16,24,32")
    assert [p["lanes"] for p in points] == [8, 16, 24, 32]
    assert set(points[0]) >= {"throughput_gbps", "aligned_throughput_gbps", "loss_pct"}
    assert points[0]["loss_pct"] <= 7.5 and 33 <= points[-1]["loss_pct"] <= 43
    (fixed,) = cli.json("pcie", "rmw", "--pattern", "520", "--lanes", "32", "--mitigation", "gather-dif")
    assert fixed["mitigated_throughput_gbps"] > fixed["throughput_gbps"]
    assert fixed["recovered_gbps"] > 5


def test_rmw_plot(cli, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "fig4.png"
    assert cli("pcie", "rmw", "--plot", str(target)).exit_code == 0
    assert target.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(("args", "fragment"), [
    (["link", "--gen", "7"], "generation must be one of 1..5"),
    (["link", "--lanes", "3"], "lanes must be 1, 2, 4, 8, 12, 16 or 32"),
    (["link", "--mps", "300"], "Max Payload Size must be one of"),
    (["pattern", "0"], "must be >= 1"),
    (["pattern", "Z"], "table 2 case A-F"),
    (["rmw", "--lanes", "12"], "whole multiples of 8"),
    (["rmw", "--mitigation", "magic"], "gather-dif or split-at-64"),
])
def test_bad_input(cli, args, fragment) -> None:
    assert fragment in cli.fails("pcie", *args)
