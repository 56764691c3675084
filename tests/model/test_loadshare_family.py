"""The loadshare family's declaration (seed 003): complete, read by its users, solvable."""

from __future__ import annotations

import math

import numpy as np
import pytest

from iosizer.calibration.dataset import load_dataset
from iosizer.calibration.loadshare import policy_params, scenarios, shipped_profile, solve_values
from iosizer.errors import InputError
from iosizer.model import loadshare
from iosizer.model.family import STATUSES
from iosizer.model.loadshare import (
    COMM_OVERHEAD,
    CORES,
    POLICIES,
    POLICY,
    SCENARIO,
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
    assert {s.name for s in family.settings} == {"cores", "policy", "scenario"}


def test_overhead_and_threshold_are_assumed_with_a_reason() -> None:
    # Seed 003 gives neither number (table 1 note 2; sec 3.1 '負荷が一定以上').
    for spec in (COMM_OVERHEAD, THRESHOLD):
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
    assert (params.cores, params.comm_overhead_pct, params.threshold) == (
        CORES.value, COMM_OVERHEAD.value, THRESHOLD.value)
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
    assert {q.command for q in family.questions} == {"loadshare curve", "loadshare compare"}
    assert "M/M/k" in family.service_time and "approximate" in family.service_time
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
    assert flat[0] == pytest.approx(values["io_service_us"], rel=0.02)  # no overhead, near-empty: one service time


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
    assert profile.options == {"cores": CORES.value, "policy": POLICY.value, "scenario": SCENARIO.value}
    assert set(profile.parameters) == {"comm_overhead_pct", "threshold", "io_service_us"}
    overhead = profile.parameters["comm_overhead_pct"]
    assert (overhead.value, overhead.unit, overhead.vary) == (COMM_OVERHEAD.value, "%", False)
    assert overhead.cpu_scaling == "power" and overhead.exponent_bounds == COMM_OVERHEAD.exponent_bounds
    assert profile.value("threshold") == THRESHOLD.value
    assert shipped_profile("loadshare", "system").options["scenario"] == "system"
    with pytest.raises(InputError):
        shipped_profile("loadshare", "two-port")
    assert all(math.isfinite(v) for v in profile.values().values())
