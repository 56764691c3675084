"""``iosizer size latency | lanes | hba | cores | outstanding``: JSON keys, intervals, one-line errors."""

from __future__ import annotations

import pytest


def test_size_latency_reproduces_section_4_4_with_intervals(cli) -> None:
    data = cli.json("size", "latency", "--budget-pct", "5")
    assert [s["max_tiers"] for s in data["switches"]] == [4, 3, 1, 0]  # asi, infiniband, fc, fcoe
    low, high = data["max_added_latency_ns_ci_low"], data["max_added_latency_ns_ci_high"]
    assert low < data["max_added_latency_ns"] < high
    for switch in data["switches"]:
        assert switch["max_tiers_ci_low"] <= switch["max_tiers"] <= switch["max_tiers_ci_high"]
    tiers = cli.json("latency", "tiers", "--budget-pct", "5")
    assert [t["max_tiers"] for t in tiers] == [s["max_tiers"] for s in data["switches"]]


def test_size_latency_device_and_hop(cli) -> None:
    data = cli.json("size", "latency", "--device", "bcm5700", "--hop-ns", "50", "--budget-pct", "5")
    budget = cli.json("latency", "budget", "--device", "bcm5700", "--budget-pct", "5")
    assert data["max_added_latency_ns"] == pytest.approx(budget["max_added_latency_ns"])
    assert data["switches"][0]["max_tiers"] == int(budget["max_added_latency_ns"] // 100)


def test_size_lanes(cli) -> None:
    data = cli.json("size", "lanes", "--budget-pct", "38", "--pattern", "520")
    assert data["ports"] == 4 and data["lanes"] == 32 and data["next_loss_pct"] > 38
    aligned = cli.json("size", "lanes", "--budget-pct", "1", "--pattern", "512", "--max-lanes", "64")
    assert aligned["lanes"] == 64 and aligned["next_loss_pct"] is None
    gathered = cli.json("size", "lanes", "--budget-pct", "1", "--pattern", "520", "--mitigation", "gather-dif",
                        "--max-lanes", "64")
    assert gathered["lanes"] == 64


def test_size_hba_both_modes(cli) -> None:
    data = cli.json("size", "hba", "--tenant-iops", "250000,120000", "--target-response-us", "200")
    assert [d["mode"] for d in data] == ["shared", "occupancy"]
    shared, occupancy = data
    assert shared["ports"] == 2 and shared["cores_needed"] == 3
    assert occupancy["cores_needed"] is None and "one core" in occupancy["cores_reason"]


def test_size_hba_takes_service_variability_from_the_option_or_the_profile(cli, tmp_path) -> None:
    import iosizer

    args = ["size", "hba", "--tenant-iops", "250000,120000", "--target-response-us", "60", "--mode", "shared"]
    (exponential,) = cli.json(*args)
    (constant,) = cli.json(*args, "--service-scv", "0")
    assert exponential["service_scv"] == 1.0 and constant["service_scv"] == 0.0
    (library,) = iosizer.family("hba").size(tenant_iops="250000,120000", target_response_us=60.0, mode="shared",
                                            service_scv=0.0).to_data()
    assert constant == library and constant["ports"] < exponential["ports"]
    # A profile calibrated at constant service keeps it; the option still overrides it.
    profile = tmp_path / "hba0.json"
    cli("calibrate", "hba", str(iosizer.family("hba").example()), "--set", "service_scv=0", "-o", str(profile))
    profiled = [*args[:4], "--target-response-us", "400", "--mode", "shared", "--profile", str(profile)]
    (kept,) = cli.json(*profiled)
    (overridden,) = cli.json(*profiled, "--service-scv", "1")
    assert kept["service_scv"] == 0.0 and overridden["service_scv"] == 1.0
    assert "--service-scv" in cli.fails(*args, "--service-scv", "nan")


def test_size_cores_per_policy(cli) -> None:
    # 3 service times above the declared non-core part of a write hit (0.4, issue 15).
    data = cli.json("size", "cores", "--scenario", "skew", "--load-cores", "3", "--target-response", "3.4")
    by_policy = {d["policy"]: d for d in data}
    assert by_policy["shared"]["cores"] == 4 and by_policy["exclusive"]["cores"] is None
    assert by_policy["multi-stage"]["port_groups"][0]["cores_per_port"] == 4


def test_size_outstanding_and_profile_interval(cli, tmp_path) -> None:
    data = cli.json("size", "outstanding", "--link", "10g", "--target-iops", "15000", "--target-latency-us", "1000")
    assert data["outstanding"] == 13 and data["iops"] >= 15000 > data["one_fewer_iops"]
    assert data["largest_protocol_bound_block_kib"] is None  # protocol-bound over the whole range
    assert data["latency_at_max_iops_us"] <= 1000
    import iosizer

    path = tmp_path / "rep.json"
    from iosizer.calibration.profile import save_profile

    save_profile(iosizer.family("replication").shipped("1g"), path)
    banded = cli.json("size", "outstanding", "--profile", str(path), "--target-iops", "15000")
    # The fitted protocol cost's interval is wide ([0, 124] us): at its high end 15,000 IOPS is out of
    # reach, so the interval is unbounded above (null).
    assert banded["outstanding_ci_low"] <= banded["outstanding"] and banded["outstanding_ci_high"] is None
    assert 4 < banded["largest_protocol_bound_block_kib"] < 16


@pytest.mark.parametrize(
    "args",
    [
        ["size", "outstanding", "--target-iops", "30000"],
        ["size", "hba", "--tenant-iops", "1000", "--target-response-us", "10"],
        ["size", "cores", "--load-cores", "1", "--target-response", "0.9"],
    ],
)
def test_unreachable_family_targets_are_one_line_exit_2(cli, args) -> None:
    assert "unreachable" in cli.fails(*args)


@pytest.mark.parametrize(("extra", "message"), [
    # Each was answered (a negative storage delay shortened the response) or said something else.
    (["--block-kib", "-1"], "--block-kib must lie in [0.000976562, 16384] (KiB), got -1"),
    (["--block-kib", "1e308"], "--block-kib must lie in [0.000976562, 16384] (KiB), got 1e+308"),
    (["--storage-us", "-1"], "--storage-us must lie in [0, 1000000] (us), got -1"),
    (["--storage-us", "nan"], "--storage-us must be finite, got nan"),
    (["--cores", "0"], "--cores must lie in [1, 1024] (cores), got 0"),
    (["--target-response-us", "nan"], "--target-response-us must be a finite number > 0, got nan"),
    (["--ports", "999999999"], "--ports must lie in [1, 4096] (ports), got 999999999"),
    (["--tenant-iops", "1e308"], "--tenant-iops must lie in [0, 100000000] (IOPS), got 1e+308"),
])
def test_size_hba_checks_every_value_against_the_declaration(cli, extra, message) -> None:
    args = {"--tenant-iops": "100000,50000", "--target-response-us": "100"}
    args.update(dict(zip(extra[::2], extra[1::2])))
    assert message in cli.fails("size", "hba", *[w for pair in args.items() for w in pair])


@pytest.mark.parametrize(("extra", "message"), [
    (["--target-latency-us", "nan"], "--target-latency-us must be a finite number > 0, got nan"),  # was "no limit"
    (["--target-latency-us", "-1"], "--target-latency-us must be a finite number > 0, got -1"),
    (["--block-kib", "1e-300"], "--block-kib must lie in [0.000976562, 1048576] (KiB), got 1e-300"),  # answered
    (["--block-kib", "1e308"], "--block-kib must lie in [0.000976562, 1048576] (KiB), got 1e+308"),
    (["--outstanding", "0"], "--outstanding must lie in [1, 65536] (I/Os), got 0"),
])
def test_size_outstanding_checks_every_value_against_the_declaration(cli, extra, message) -> None:
    assert message in cli.fails("size", "outstanding", "--target-iops", "10000", *extra)


def test_replication_sizing_checks_its_block_and_latency_target() -> None:
    from iosizer.calibration import replication as family
    from iosizer.calibration.profile import profile_values
    from iosizer.errors import InputError
    from iosizer.model.replication import largest_replication_iops, outstanding_for_iops, replication_system

    system = replication_system(profile_values(family.shipped_profile("replication", None)))
    with pytest.raises(InputError, match="block_kib must lie in"):
        outstanding_for_iops(system, 0.0, 1000.0)
    with pytest.raises(InputError, match="--target-latency-us must be a finite number > 0, got nan"):
        largest_replication_iops(system, 4.0, float("nan"))


def test_size_lanes_search_is_bounded(cli) -> None:
    # --max-lanes 999999999 searched 2,558 ports for two minutes in 1.8 GB; the default (1024) is the end.
    assert "--max-lanes must lie in [8, 1024] (128 x8 ports), got 999999999" in cli.fails(
        "size", "lanes", "--budget-pct", "99.9", "--max-lanes", "999999999")
    assert cli.json("size", "lanes", "--budget-pct", "99.9", "--max-lanes", "1024")["max_ports_searched"] == 128


@pytest.mark.parametrize(("hop", "message"), [("1e308", "--hop-ns must lie in [0, 1000000] (ns), got 1e+308"),
                                              ("-1", "--hop-ns must lie in [0, 1000000] (ns), got -1")])
def test_size_latency_checks_the_hop_as_latency_tiers_does(cli, hop, message) -> None:
    # 'latency tiers --hop-ns 1e308' was refused and 'size latency --hop-ns 1e308' answered 0 tiers.
    assert message in cli.fails("size", "latency", "--budget-pct", "5", "--hop-ns", hop)
    assert message in cli.fails("latency", "tiers", "--hop-ns", hop)
