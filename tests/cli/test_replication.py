from __future__ import annotations

from pathlib import Path

import pytest


def test_single_point_is_a_list_of_one(cli) -> None:
    points = cli.json("replication", "--link", "10g", "--block-kib", "4", "--outstanding", "32")
    assert isinstance(points, list) and len(points) == 1
    point = points[0]
    assert {"link", "block_kib", "iops", "throughput_mbps", "latency_us", "bound"} <= point.keys()
    assert point["bound"] == "protocol"
    # Little's law on the printed numbers.
    assert point["iops"] * point["latency_us"] / 1e6 == pytest.approx(32)


def test_sweep_gives_one_point_per_block(cli) -> None:
    points = cli.json("replication", "--link", "1g", "--block-kib", "4:256:4")
    assert [p["block_kib"] for p in points] == [4.0 * i for i in range(1, 65)]
    assert points[0]["bound"] == "protocol" and points[-1]["bound"] == "bandwidth"
    assert all(p["throughput_mbps"] <= 125.0 for p in points)


def test_all_links_and_table(cli) -> None:
    points = cli.json("replication", "--link", "all", "--block-kib", "4,16")
    assert {p["link"] for p in points} == {"1g", "10g", "ipoib56", "local"}
    result = cli("replication", "--link", "ipoib56,local")
    assert result.exit_code == 0 and "ipoib56" in result.stdout and "concurrency" in result.stdout
    csv = cli("replication", "--format", "csv").stdout.splitlines()
    assert csv[0] == ("link,block_kib,outstanding,iops,throughput_mbps,latency_us,bound,unloaded_latency_us,"
                      "protocol_utilization,link_utilization")


def test_plot(cli, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "replication.png"
    result = cli("replication", "--block-kib", "4:64:4", "--plot", str(target))
    assert result.exit_code == 0, result.stderr
    assert target.stat().st_size > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--link", "token-ring"], "unknown link 'token-ring'"),
        (["--block-kib", "-4"], "--block-kib must lie in [0.000976562, 1048576] (KiB), got -4"),
        (["--block-kib", "0"], "--block-kib must lie in [0.000976562, 1048576] (KiB), got 0"),
        (["--block-kib", "4KB"], "--block-kib: expected a number"),
        (["--outstanding", "0"], "--outstanding must lie in [1, 65536] (I/Os), got 0"),
        (["--plot", "x.gif"], "unknown picture type"),
    ],
)
def test_bad_input(cli, args: list[str], message: str) -> None:
    assert message in cli.fails("replication", *args)


def test_issue_sweep_4_to_256_doubles(cli) -> None:
    # Issue 7: "Sweep block sizes 4-256 KB with --block-kib 4:256"; the seed ran 4K ... 256K.
    points = cli.json("replication", "--link", "1g,10g,ipoib56", "--block-kib", "4:256")
    assert sorted({p["block_kib"] for p in points}) == [4, 8, 16, 32, 64, 128, 256]
    one_g = [p for p in points if p["link"] == "1g" and p["block_kib"] >= 16]
    assert all(p["bound"] == "bandwidth" for p in one_g)
    cli.fails("replication", "--block-kib", "8:4")


def test_defaults_are_the_declared_values(cli) -> None:
    """--link, --block-kib and --outstanding default to the replication family's declared values."""
    from iosizer.model.registry import declaration

    family = declaration("replication")
    (point,) = cli.json("replication")
    assert point["link"] == family.default("link")
    assert point["block_kib"] == family.default("block_kib")
    assert point["outstanding"] == family.default("outstanding")
    help_text = " ".join(cli("replication", "--help").stdout.split())
    for shown in (f"[default: {family.default('link')}]", f"[default: {family.default('block_kib'):g}]",
                  f"[default: {family.default('outstanding')}]", "or all sweeps it"):
        assert shown in help_text
