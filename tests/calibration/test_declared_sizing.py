"""Sizing and simulation generated from a question's declaration (iosizer.calibration.declared_sizing,
iosizer.simulate.declared, iosizer.cli.declared).

A toy family (tests/calibration/toy_sizing_family.py, registered here as a plugin would be) has
closed-form answers; the device family's generated ``size device`` keeps the keys it published.
"""

from __future__ import annotations

import json
import math

import pytest

import iosizer
from iosizer.errors import InputError
from iosizer.model import registry


@pytest.fixture()
def toy(monkeypatch):
    plugins = {**registry._plugins(), "toy-sizing": "tests.calibration.toy_sizing_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    return iosizer.api.ModelFamily(registry.declaration("toy-sizing"))


def test_a_real_input_is_bisected_to_its_closed_form(toy) -> None:
    answer = toy.size({"rate_per_s": 100.0}, target_delay_s=0.05, lanes=[1, 3])
    rows = answer.records()
    # largest load with 1 / (lanes x 100 - load) <= 0.05: lanes x 100 - 20
    assert [r["load_per_s"] for r in rows] == pytest.approx([80.0, 280.0], rel=1e-10)
    assert [r["lanes"] for r in rows] == [1, 3]
    assert all(r["delay_s"] <= 0.05 * (1 + 1e-9) for r in rows)


def test_a_whole_input_is_the_smallest_count(toy) -> None:
    for load in (10.0, 95.0, 150.0, 999.0):
        row = toy.size({"rate_per_s": 100.0}, target_lanes_delay_s=0.02, load_per_s=load).to_data()
        assert row["lanes"] == math.ceil((load + 50.0) / 100.0), load


def test_bad_targets_are_one_line_errors(toy) -> None:
    with pytest.raises(InputError, match="--target-delay-s and/or --target-lanes-delay-s"):
        toy.size({"rate_per_s": 100.0})
    with pytest.raises(InputError, match="search different inputs"):
        toy.size({"rate_per_s": 100.0}, target_delay_s=0.1, target_lanes_delay_s=0.1)
    with pytest.raises(InputError, match="what the sizing finds"):
        toy.size({"rate_per_s": 100.0}, target_delay_s=0.1, load_per_s=3)
    with pytest.raises(InputError, match="percentile"):
        toy.size({"rate_per_s": 100.0}, target_delay_s=0.1, percentile=99)
    with pytest.raises(InputError, match="out of reach|even"):  # below one service at no load
        toy.size({"rate_per_s": 100.0}, target_delay_s=0.001)


def test_the_toy_gets_a_size_command(toy, cli) -> None:
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    try:
        result = cli("size", "toy-sizing", "--target-lanes-delay-s", "0.02", "--load-per-s", "150",
                     "--rate-per-s", "100", "--format", "json")
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout)["lanes"] == 2
    finally:
        root_command.cache_clear()


def test_size_device_keeps_its_published_keys_and_is_served() -> None:
    answer = iosizer.family("device").size(target_iops=30000, target_latency_us=500).to_data()
    assert list(answer) == ["target_iops", "outstanding", "iops", "mean_latency_us", "ceiling_iops",
                            "outstanding_ci_low", "outstanding_ci_high", "target_latency_us", "latency_metric",
                            "max_iops_within_latency", "outstanding_at_max_iops", "latency_at_max_iops_us",
                            "max_iops_within_latency_ci_low", "max_iops_within_latency_ci_high"]
    values = iosizer.family("device").shipped().values()
    from iosizer.model.device import device_curve, device_percentile

    n = answer["outstanding"]
    assert device_curve(values, n)["iops"] >= 30000 > device_curve(values, n - 1)["iops"]
    p99 = iosizer.family("device").size(target_latency_us=300, percentile=99).to_data()
    m = p99["outstanding_at_max_iops"]
    assert p99["latency_metric"] == "p99"
    assert device_percentile(values, m, 99) <= 300 < device_percentile(values, m + 1, 99)
    assert p99["max_iops_within_latency"] == pytest.approx(float(device_curve(values, m)["iops"]), rel=1e-12)
    testclient = pytest.importorskip("fastapi.testclient")
    from iosizer.serve.app import create_app

    with testclient.TestClient(create_app(workers=1, heavy_workers=1), base_url="http://localhost") as client:
        response = client.post("/api/size/device", json={"target_latency_us": 300, "percentile": 99})
        assert response.status_code == 200, response.text
        assert response.json() == pytest.approx(p99)


def test_the_toy_gets_a_simulate_command(toy, cli) -> None:
    """The toy declares Question.simulate itself (a plugin may): 'iosizer simulate toy-sizing' runs it beside
    the exact M/M/1 delay 1 / (lanes x rate - load), the replication interval covering it."""
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    try:
        result = cli("simulate", "toy-sizing", "--load-per-s", "50", "--lanes", "1,2", "--rate-per-s", "100",
                     "--replications", "6", "--run-length", "20000", "--seed", "4", "--workers", "1",
                     "--format", "json")
        assert result.exit_code == 0, result.stderr
        rows = [r for r in json.loads(result.stdout) if r["metric"] == "delay_s"]
        assert [(r["load_per_s"], r["lanes"]) for r in rows] == [(50.0, 1), (50.0, 2)]
        for row, exact in zip(rows, (1 / 50, 1 / 150)):
            assert row["analytic"] == pytest.approx(exact, rel=1e-12)
            assert row["ci_low"] <= exact <= row["ci_high"], row
    finally:
        root_command.cache_clear()


# --- several sizings on one target, a searched parameter, reasons, sweeps (tests/calibration/toy_pool_family.py)


@pytest.fixture()
def pool(monkeypatch):
    plugins = {**registry._plugins(), "toy-pool": "tests.calibration.toy_pool_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    return iosizer.api.ModelFamily(registry.declaration("toy-pool"))


def _ports(load: float, target: float, cores: int, rate: float) -> int:
    from tests.calibration.toy_pool_family import OVERHEAD_S

    return math.ceil((load + 1 / (target - OVERHEAD_S)) / (cores * rate) - 1e-12)


def test_one_target_answers_every_sizing_that_shares_it(pool) -> None:
    answer = pool.size(target_delay_s=0.05, loads="30,20", cores=3)
    records = answer.to_data()
    assert [r["kind"] for r in records] == ["slow", "fast"]  # the swept setting, every choice by default
    slow = records[0]
    assert list(slow) == ["kind", "target_delay_s", "ports", "delay_s", "one_fewer_delay_s", "cores",
                          "capacity_per_s", "given_ports", "cores_needed", "why", "rate_per_s"]
    assert slow["capacity_per_s"] == slow["ports"] * 3 * 10.0  # computed once, at the answer
    assert slow["ports"] == _ports(50, 0.05, 3, 10.0) and slow["cores"] == 3  # ports at the given cores
    assert slow["cores_needed"] == _ports(50, 0.05, 1, 10.0) and slow["given_ports"] == 1  # cores at 1 port
    assert slow["why"] == "" and slow["rate_per_s"] == 10.0
    assert slow["one_fewer_delay_s"] == pytest.approx(0.01 + 1 / ((slow["ports"] - 1) * 30 - 50))
    fast = records[1]
    assert fast["ports"] == _ports(50, 0.05, 3, 20.0) and fast["cores_needed"] == _ports(50, 0.05, 1, 20.0)
    assert answer.title == "Pool for 2 tenant(s)" and answer.notes == ("rate 10/s", "rate 20/s")
    assert answer.columns == ("kind", "ports", "cores_needed", "capacity_per_s")


def test_the_measure_one_step_short_and_a_reason_instead_of_an_error(pool) -> None:
    record = pool.size(target_delay_s=0.011, loads="100", kind="slow", ports=2).to_data()[0]
    assert record["ports"] == _ports(100, 0.011, 2, 10.0)
    assert record["one_fewer_delay_s"] > 0.011 >= record["delay_s"]
    assert record["cores_needed"] is None and record["why"] == "2 port(s) of 8 cores carry too little"


def test_pool_errors_are_one_line(pool) -> None:
    with pytest.raises(iosizer.IosizerError, match=r"^target 0.005 s is below the overhead 0.01 s$"):
        pool.size(target_delay_s=0.005, loads="30")
    with pytest.raises(InputError, match="--loads needs a positive total"):
        pool.size(target_delay_s=0.05, loads="0")
    with pytest.raises(InputError, match="--kind must be one of slow, fast"):
        pool.size(target_delay_s=0.05, loads="30", kind="medium")
    with pytest.raises(InputError, match="give one value of ports"):
        pool.size(target_delay_s=0.05, loads="30", ports=[1, 2])


def test_the_pool_command_prints_its_own_table(pool, cli) -> None:
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    try:
        result = cli("size", "pools", "--target-delay-s", "0.05", "--loads", "30,20", "--kind", "slow",
                     "--format", "json")
        assert result.exit_code == 0, result.stderr
        assert [r["ports"] for r in json.loads(result.stdout)] == [_ports(50, 0.05, 2, 10.0)]  # a list of one
        table = cli("size", "pools", "--target-delay-s", "0.05", "--loads", "30,20", "--kind", "slow")
        assert table.exit_code == 0, table.stderr
        assert "Pool for 2 tenant(s)" in table.stdout and "cores_needed" in table.stdout
        assert f"{_ports(50, 0.05, 2, 10.0) * 20:g} per s" in table.stdout  # the declared words of a key
        assert "given_ports" not in table.stdout and "rate 10/s" in table.stdout
    finally:
        root_command.cache_clear()
