"""The loadshare family's declaration (seed 003): complete, read by its users, solvable."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest

from iosizer.calibration.dataset import load_dataset
from iosizer.calibration.loadshare import policy_params, scenarios, shipped_profile, solve_values
from iosizer.errors import InputError
from iosizer.model import loadshare
from iosizer.model.family import STATUSES
from iosizer.model.loadshare import (
    POINTS,
    SHARES,
    COMM_OVERHEAD,
    CORES,
    IO_SERVICE_US,
    NON_CORE,
    POLICIES,
    POLICY,
    SCENARIO,
    SWITCH_RULE,
    SWITCH_RULES,
    THRESHOLD,
    PolicyParams,
    evaluate,
    max_throughput,
)
from iosizer.model.registry import declaration, family_names, module_of

SEED = "003_50b3b541aaf1e973.txt"


@pytest.fixture
def family():
    return declaration("loadshare")


def test_registered_after_pcie(family) -> None:
    names = family_names()
    assert module_of("loadshare") == "loadshare"
    assert names.index("loadshare") > names.index("rmw")
    assert family.parameters == loadshare.FAMILIES[0].parameters


def test_every_parameter_is_declared_completely(family) -> None:
    for spec in family.parameters:
        assert spec.unit, spec.name
        assert spec.status in STATUSES, spec.name
        assert spec.source.strip(), spec.name
        assert spec.value is not None, spec.name  # nothing here is fitted: every default is declared
        spec.check(spec.value)
    # Published numbers cite the seed file and where in it.
    for spec in (CORES, POLICY, SCENARIO):
        assert spec.status == "published" and SEED in spec.source and ("table" in spec.source or "sec" in spec.source)
    assert {s.name for s in family.settings} == {"cores", "policy", "scenario", "shares", "switch_rule", "points"}


def test_overhead_and_threshold_are_assumed_with_a_reason() -> None:
    # Seed 003 gives neither number (table 1 note 2; sec 3.1 '負荷が一定以上'), nor a write hit's time.
    for spec in (COMM_OVERHEAD, THRESHOLD, NON_CORE, SWITCH_RULE):
        assert spec.status == "assumed"
        assert spec.source.startswith("assumed: ") and len(spec.source) > 80
        assert SEED in spec.source
    assert COMM_OVERHEAD.unit == "%" and COMM_OVERHEAD.name.endswith("_pct")
    # Inter-core communication is CPU work and cache-line latency: its share of an I/O may grow with core speed.
    assert COMM_OVERHEAD.cpu_scaling.value == "power" and COMM_OVERHEAD.exponent_bounds == (0.0, 1.0)
    assert THRESHOLD.cpu_scaling.value == "fixed"
    low, high = THRESHOLD.bounds
    assert 0 < low and high < 1  # PolicyParams needs the open interval (0, 1)


def test_defaults_are_read_from_the_declaration() -> None:
    params = PolicyParams()
    assert (params.cores, params.comm_overhead_pct, params.threshold, params.non_core_pct, params.switch_rule) == (
        CORES.value, COMM_OVERHEAD.value, THRESHOLD.value, NON_CORE.value, SWITCH_RULE.value)
    assert SWITCH_RULE.choices == SWITCH_RULES and SWITCH_RULE.value == "system-response"
    assert policy_params() == params
    assert policy_params(8).cores == 8 and policy_params(8).threshold == THRESHOLD.value
    assert POLICY.choices == POLICIES and POLICY.value in POLICIES


def test_scenario_choices_and_cores_match_tables_2_to_4() -> None:
    # The setting's choices and the shipped scenario table must name the same scenarios.
    known = scenarios()
    assert set(SCENARIO.choices) == set(known) and SCENARIO.value in known
    assert {s.cores for s in known.values()} == {CORES.value}


def test_schema_and_questions(family) -> None:
    assert [c.name for c in family.columns.inputs] == ["iops"]
    assert [c.name for c in family.columns.observed] == ["response_us"]
    assert {" ".join(q.path(family.name)) for q in family.questions} == {"loadshare curve", "loadshare compare",
                                                                           "loadshare point", "loadshare load"}
    assert "M/M/K" in family.service_time and "approximate" in family.service_time
    assert family.measurements and all(m.startswith("seed003_") for m in family.measurements)


@pytest.mark.parametrize("name", ["one-port", "system", "skew"])
@pytest.mark.parametrize("policy", POLICIES)
def test_solve_matches_the_model_at_declared_values(family, name, policy) -> None:
    values = solve_values({"scenario": name, "policy": policy})
    chosen = scenarios()[name]
    top = max_throughput(policy, chosen.port_shares, PolicyParams())
    loads = top * np.array([[0.1, 0.4], [0.7, 0.95]])  # a 2-D grid: solve keeps any shape
    service_us = values["io_service_us"]
    got = family.solve(values, {"iops": loads / (service_us * 1e-6)})["response_us"]
    want = evaluate(policy, loads.ravel(), chosen.port_shares, PolicyParams()).response.reshape(loads.shape)
    assert got.shape == loads.shape
    np.testing.assert_allclose(got, want * service_us, rtol=1e-12)


def test_solve_needs_port_shares_except_for_one_port(family) -> None:
    values = family.values({"scenario": "one-port"})
    cores = np.array([0.5, 1.0])
    loads = {"iops": cores / (values["io_service_us"] * 1e-6)}
    one = family.solve(values, loads)["response_us"]
    np.testing.assert_allclose(one, evaluate(POLICY.value, cores, [1.0]).response * values["io_service_us"],
                               rtol=1e-12)
    with pytest.raises(InputError, match="port_shares"):
        family.solve(family.values({"scenario": "skew"}), loads)


def test_overrides_are_checked_against_the_declared_bounds(family) -> None:
    with pytest.raises(InputError):
        family.values(overrides={"threshold": 1.0})
    values = solve_values(overrides={"comm_overhead_pct": 0.0})
    iops = 0.01 / (values["io_service_us"] * 1e-6)
    flat = family.solve(values, {"iops": np.array([iops])})["response_us"]
    # No overhead, near-empty: one service time plus the non-core part of a write hit.
    assert flat[0] == pytest.approx(values["io_service_us"] * (1 + NON_CORE.value / 100), rel=0.02)


def test_example_reproduces_the_declared_model(family) -> None:
    from importlib import resources

    path = resources.files("iosizer.data").joinpath("examples", family.example)
    data = load_dataset(str(path), family.columns)
    values = family.values(family.example_settings)
    model = family.solve(values, data.values)["response_us"]
    relative = data.values["response_us"] / model - 1
    assert len(relative) >= 10
    assert np.max(np.abs(relative)) < 0.04  # 1 % noise, below four sigma


def test_shipped_profile() -> None:
    profile = shipped_profile()
    assert profile.model == "loadshare"
    assert profile.options == {"cores": CORES.value, "policy": POLICY.value, "scenario": SCENARIO.value,
                               "switch_rule": SWITCH_RULE.value, "shares": SHARES.value, "points": POINTS.value}
    assert set(profile.parameters) == {"comm_overhead_pct", "threshold", "non_core_pct", "io_service_us"}
    assert profile.value("non_core_pct") == NON_CORE.value
    overhead = profile.parameters["comm_overhead_pct"]
    assert (overhead.value, overhead.unit, overhead.vary) == (COMM_OVERHEAD.value, "%", False)
    assert overhead.cpu_scaling == "power" and overhead.exponent_bounds == COMM_OVERHEAD.exponent_bounds
    assert profile.value("threshold") == THRESHOLD.value
    assert shipped_profile("loadshare", "system").options["scenario"] == "system"
    with pytest.raises(InputError):
        shipped_profile("loadshare", "two-port")
    assert all(math.isfinite(v) for v in profile.values().values())


def test_non_core_part_is_declared_with_its_arithmetic() -> None:
    # Issue 15: a write hit's fixed non-core time (link transfer, adapter DMA), sized from seed 002's
    # 16G FC port: 2 cores at ~300,000 IOPS -> 6.67 us of core time per I/O; 4,096 B at 1554 MB/s -> 2.64 us.
    from iosizer.model.hba import LINK_MBPS

    assert NON_CORE.name == "non_core_pct" and NON_CORE.unit == "%" and NON_CORE.kind == "parameter"
    core_us = 2 / 300_000 * 1e6
    transfer_us = 4096 / LINK_MBPS.value
    assert NON_CORE.value == pytest.approx(100 * transfer_us / core_us, abs=1.0)
    assert "002_e63f96f17eb4d7e0.txt" in NON_CORE.source and "300,000" in NON_CORE.source
    assert "1554" in NON_CORE.source and "2.64 us" in NON_CORE.source and "6.67 us" in NON_CORE.source
    # Link and DMA time does not speed up with the controller's CPU; the I/O's core time does
    # (exponent -1..0), so the share's exponent mirrors it (0..1).
    assert NON_CORE.cpu_scaling.value == "power" and NON_CORE.exponent_bounds == (0.0, 1.0)
    assert IO_SERVICE_US.exponent_bounds == (-1.0, 0.0)
    low, high = NON_CORE.bounds
    assert low == 0 and high >= 2500  # a 256 KiB write is ~25 service times of link time
    for bad in (-1.0, float("nan"), high * 2):
        with pytest.raises(InputError):
            NON_CORE.check(bad)
    with pytest.raises(InputError):
        PolicyParams(non_core_pct=-1.0)


def test_non_core_part_adds_to_every_response_through_the_api() -> None:
    import iosizer

    family = iosizer.family("loadshare")
    iops = np.array([50_000.0, 200_000.0])
    base = family.predict({"scenario": "one-port", "non_core_pct": 0.0}, iops=iops).outputs["response_us"]
    more = family.predict({"scenario": "one-port", "non_core_pct": 100.0}, iops=iops).outputs["response_us"]
    service_us = family.shipped().value("io_service_us")
    np.testing.assert_allclose(more - base, service_us, rtol=1e-9)  # c = 1 service time, at every load
    declared = family.predict({"scenario": "one-port"}, iops=iops).outputs["response_us"]
    np.testing.assert_allclose(declared - base, service_us * NON_CORE.value / 100, rtol=1e-9)
    with pytest.raises(InputError):
        family.predict({"scenario": "one-port", "non_core_pct": -5.0}, iops=iops)


def test_a_profile_carried_to_a_faster_cpu_keeps_the_absolute_non_core_time() -> None:
    import iosizer
    from iosizer.calibration.whatif import what_if

    fitted = iosizer.family("loadshare").calibrate(iosizer.family("loadshare").example(), cpu_speed=1.0)
    with tempfile.TemporaryDirectory() as folder:
        path = fitted.save(Path(folder) / "loadshare.json")
        here, there = what_if("loadshare", path).values, what_if("loadshare", path, cpu_speed=2.0).values
    absolute_us = {k: v["non_core_pct"] / 100 * v["io_service_us"] for k, v in (("here", here), ("there", there))}
    assert absolute_us["there"] == pytest.approx(absolute_us["here"], rel=1e-12)
    assert there["io_service_us"] < here["io_service_us"]  # the core part did speed up


def test_operating_point_is_the_curve_at_a_share_of_its_maximum() -> None:
    import iosizer

    # `loadshare point` (the [loadshare] scenario table): each policy's maximum and its response at utilization x it.
    from iosizer.model.loadshare import PolicyParams, evaluate, policy_curve

    rows = iosizer.family("loadshare").ask("point", shares="3,1,1", policy="exclusive,one-stage",
                                            utilization=0.5).records()
    for row in rows:
        curve = policy_curve(row["policy"], (3, 1, 1), PolicyParams())
        assert row["max_throughput_cores"] == pytest.approx(curve.max_throughput, rel=1e-12)
        assert row["jump_pct"] == pytest.approx(100 * curve.singularity, abs=1e-9)
        at = evaluate(row["policy"], [0.5 * curve.max_throughput], (3, 1, 1), PolicyParams()).response[0]
        assert row["response_service_times"] == pytest.approx(at, rel=1e-12)
        assert "max_throughput_iops" not in row  # io_service_us is a placeholder until a profile gives it
