"""The declared ``replication`` family (seed 004): its declaration, its solve, its shipped form.

Every number of the replication model is declared once in
:mod:`iosizer.model.replication`; the link catalogue
(``data/profiles/interconnects.json``) and the seed's latencies
(``data/measurements/seed004_latency.csv``) hold some of the same facts as
hardware and measured data. These tests keep the two from drifting apart,
check that ``solve`` is the model, and that the shipped profile carries the
fitted protocol costs with their 95 % intervals.
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from iosizer.calibration import dataset
from iosizer.calibration import replication as calibrated
from iosizer.calibration.fit import Parameter, fit
from iosizer.calibration.shipped import hardware_profile, measurement_names, read_measurement
from iosizer.model import replication as model
from iosizer.model.family import STATUSES, CpuScaling
from iosizer.model.registry import declaration, family_names, module_of

FAMILY = declaration("replication")
REPLICA_LINKS = ("1g", "10g", "ipoib56")
#: Unit a name's suffix promises (STYLE: units in names).
SUFFIX_UNITS = {"_us": "us", "_bytes": "bytes", "_mbps": "MB/s", "_kib": "KiB", "_per_kib_us": "us/KiB"}


def _shipped_values(link: str) -> dict:
    profile = calibrated.shipped_profile("replication", link)
    return {**profile.options, **profile.values()}


# --- the declaration ------------------------------------------------------------------


def test_registered_after_pcie() -> None:
    names = family_names()
    assert "replication" in names and module_of("replication") == "replication"
    assert names.index("replication") > names.index("rmw")


@pytest.mark.parametrize("spec", FAMILY.parameters, ids=lambda s: s.name)
def test_every_number_says_its_unit_status_and_source(spec) -> None:
    assert spec.status in STATUSES
    assert spec.source.strip()
    assert spec.description.strip()
    if spec.choices and isinstance(spec.choices[0], str):
        assert spec.value in spec.choices  # a name, not a quantity: no unit
        return
    assert spec.unit
    suffix = max((s for s in SUFFIX_UNITS if spec.name.endswith(s)), key=len, default=None)
    if suffix is not None:
        assert spec.unit == SUFFIX_UNITS[suffix]
    # Only a fitted parameter lacks a value; a fitted one has none to duplicate.
    assert (spec.value is None) == (spec.status == "fitted")
    low, high = spec.bounds
    assert low < high
    if spec.value is not None:
        assert low <= spec.value <= high


def test_parameters_and_settings_are_the_ones_the_model_needs() -> None:
    parameters = {s.name for s in FAMILY.parameters if s.kind == "parameter"}
    assert parameters == {"local_flash_write_us", "remote_flash_write_us", "protocol_fixed_us",
                          "protocol_per_kib_us", "residual_delay_us"}
    fitted = {s.name for s in FAMILY.parameters if s.status == "fitted"}
    assert fitted == {"protocol_fixed_us", "residual_delay_us"}
    assert {s.name for s in FAMILY.settings} == {"link", "block_kib", "outstanding", "link_rate_mbps",
                                                 "mss_bytes", "packet_overhead_bytes", "switch_round_trip_us"}


def test_protocol_costs_are_cpu_bound() -> None:
    for name in ("protocol_fixed_us", "protocol_per_kib_us"):
        spec = FAMILY.spec(name)
        assert spec.cpu_scaling is CpuScaling.power and spec.exponent_bounds == (-1.0, 0.0)
    for name in ("local_flash_write_us", "remote_flash_write_us", "residual_delay_us"):
        assert FAMILY.spec(name).cpu_scaling is CpuScaling.fixed


def test_schema_questions_and_data_files() -> None:
    assert [c.name for c in FAMILY.columns.inputs] == ["block_kib", "outstanding"]
    assert FAMILY.columns.column("outstanding").integer
    assert [c.name for c in FAMILY.columns.observed] == ["iops", "latency_us"]
    assert not FAMILY.columns.column("latency_us").required
    (question,) = FAMILY.questions
    assert question.command == "replication" and question.path("replication") == ("replication",)
    assert question.sweeps == ("link",) and question.input_names == ("block_kib", "outstanding")
    assert "MVA" in FAMILY.service_time
    assert set(FAMILY.measurements) <= set(measurement_names())
    assert all(name.startswith("seed004_") for name in FAMILY.measurements)
    assert resources.files("iosizer.data").joinpath("examples", FAMILY.example).is_file()


# --- the declaration against the shipped data ----------------------------------------


def test_declared_flash_write_is_the_published_one() -> None:
    """Seed 004 intro: local flash ~77 us, in the measurement file and the catalogue's reference latencies."""
    rows = {r["path"]: float(r["latency_us"]) for r in read_measurement("seed004_latency")}
    catalogue = hardware_profile("interconnects")
    declared = FAMILY.default("local_flash_write_us")
    assert declared == rows["local_host_flash_access"] == catalogue["reference_latencies_us"]["local_flash_write"]
    assert FAMILY.default("remote_flash_write_us") == declared  # assumed: the same flash on both hosts
    assert rows["remote_host_flash_access"] == catalogue["reference_latencies_us"]["remote_flash_over_10gbe"]


def test_declared_link_settings_are_the_catalogues_baseline_link() -> None:
    """The declared link defaults are the 10GbE entry of interconnects.json, fact by fact."""
    baseline = FAMILY.default("link")
    assert baseline == calibrated.baseline_link() == "10g"
    from_catalogue = calibrated.link_settings(baseline)
    assert from_catalogue.keys() <= {s.name for s in FAMILY.settings}
    assert from_catalogue.pop("link") == baseline
    assert from_catalogue
    for name, value in from_catalogue.items():
        assert FAMILY.default(name) == pytest.approx(value, rel=1e-12), name


def test_link_choices_are_the_catalogues_links() -> None:
    assert list(FAMILY.spec("link").choices) == calibrated.link_names()


def test_catalogue_keeps_no_copy_of_a_declared_number() -> None:
    """interconnects.json keeps link facts and the calibration's reference block, not the family's numbers."""
    section = hardware_profile("interconnects")["replication_model"]
    declared = {s.name for s in FAMILY.parameters}
    assert not {key for key in section if key in declared or key.removesuffix("_status") in declared}


def test_every_link_satisfies_the_declared_bounds() -> None:
    for link in calibrated.link_names():
        FAMILY.check_settings(calibrated.link_settings(link))


# --- solve ------------------------------------------------------------------------------


@pytest.mark.parametrize("link", [*REPLICA_LINKS, model.LOCAL])
def test_solve_is_the_model_at_the_shipped_values(link: str) -> None:
    blocks = np.array([[4.0], [16.0], [256.0]])
    depths = np.array([1, 8, 32])
    out = FAMILY.solve(_shipped_values(link), {"block_kib": blocks, "outstanding": depths})
    reference = calibrated.evaluate(link, blocks, depths)
    assert out["iops"].shape == (3, 3)
    np.testing.assert_allclose(out["iops"], reference.iops, rtol=1e-12)
    np.testing.assert_allclose(out["latency_us"], reference.latency_us, rtol=1e-12)


def test_solve_defaults_missing_inputs_to_the_declared_workload() -> None:
    values = _shipped_values("10g")
    out = FAMILY.solve(values, {})
    reference = calibrated.evaluate("10g", FAMILY.default("block_kib"), FAMILY.default("outstanding"))
    assert float(out["iops"]) == pytest.approx(float(reference.iops), rel=1e-12)


def test_evaluate_defaults_to_the_declared_depth() -> None:
    declared = FAMILY.default("outstanding")
    assert float(calibrated.evaluate("10g", 4).iops) == float(calibrated.evaluate("10g", 4, declared).iops)


# --- the shipped profile -----------------------------------------------------------------


@pytest.mark.parametrize("link", REPLICA_LINKS)
def test_shipped_profile_has_intervals_on_the_fitted_protocol_cost(link: str) -> None:
    profile = calibrated.shipped_profile("replication", link)
    assert profile.model == "replication" and profile.options["link"] == link
    cost = profile.parameters["protocol_fixed_us"]
    assert cost.vary and cost.ci_low is not None and cost.ci_high is not None and cost.stderr is not None
    assert cost.ci_low <= cost.value <= cost.ci_high
    assert (cost.cpu_scaling, cost.unit) == ("power", "us")
    assert profile.covariance_parameters == ["protocol_fixed_us"]
    assert profile.statistics is not None and "95 %" in profile.statistics.confidence
    # Declared numbers are carried as fixed, with no interval.
    for name in ("local_flash_write_us", "remote_flash_write_us", "protocol_per_kib_us"):
        estimate = profile.parameters[name]
        assert not estimate.vary and estimate.ci_low is None
        assert estimate.value == FAMILY.default(name)
    assert sorted(profile.parameters) == sorted(s.name for s in FAMILY.parameters if s.kind == "parameter")


def test_shipped_profiles_follow_the_protocol_stacks() -> None:
    calibration = calibrated.protocol_calibration()
    cost = {link: calibrated.shipped_profile("replication", link).value("protocol_fixed_us") for link in REPLICA_LINKS}
    assert cost["1g"] == cost["10g"] == calibration.protocol_fixed_us["ethernet"]
    assert cost["ipoib56"] == calibration.protocol_fixed_us["ipoib"] < cost["10g"]
    residual = {calibrated.shipped_profile("replication", link).value("residual_delay_us") for link in REPLICA_LINKS}
    assert residual == {calibration.residual_delay_us}


def test_shipped_profile_defaults_to_the_baseline_link() -> None:
    assert calibrated.shipped_profile().options == calibrated.shipped_profile("replication", "10GbE").options
    assert calibrated.shipped_profile().options["link"] == FAMILY.default("link")


# --- the example measurement file ------------------------------------------------------


def _example() -> dataset.Dataset:
    schema = dataset.Schema(FAMILY.columns.name, tuple(
        dataset.Column(c.name, dataset.Role(c.role.value), c.unit, c.description, c.required, c.minimum,
                       c.minimum_inclusive, c.maximum, c.integer)
        for c in FAMILY.columns.columns))
    with resources.as_file(resources.files("iosizer.data").joinpath("examples", FAMILY.example)) as path:
        return dataset.load_dataset(path, schema)


def test_example_is_the_model_with_one_percent_noise() -> None:
    data = _example()
    settings = FAMILY.check_settings(FAMILY.example_settings)
    out = FAMILY.solve(_shipped_values(settings["link"]), data.inputs())
    for name, observed in data.observed().items():
        # 1 % noise: every point within 4 standard deviations.
        np.testing.assert_allclose(observed, out[name], rtol=0.04)


def test_fit_plan_recovers_the_shipped_values_from_the_example() -> None:
    """The family's fit plan, run through the fitter on the example, brackets the values it was made from."""
    data = _example()
    settings = FAMILY.check_settings(FAMILY.example_settings)
    start = FAMILY.fit.start({**data.inputs(), **data.observed()}, settings)
    assert set(start) == {"protocol_fixed_us", "residual_delay_us"}
    declared = FAMILY.values(settings)
    parameters = [
        Parameter(s.name, start[s.name], *s.bounds, unit=s.unit) if s.name in start
        else Parameter(s.name, declared[s.name], vary=False, unit=s.unit)
        for s in FAMILY.specs(settings) if s.kind == "parameter"
    ]
    result = fit(lambda p, x: FAMILY.solve({**settings, **p}, x), parameters, data.inputs(), data.observed(),
                 relative=FAMILY.fit.relative, model_name="replication")
    shipped = calibrated.shipped_profile("replication", settings["link"])
    for name in start:
        low, high = result.intervals[name]
        assert low <= shipped.value(name) <= high, (name, result.intervals[name], shipped.value(name))


def test_fit_plan_has_nothing_to_fit_without_a_replica() -> None:
    data = _example()
    assert FAMILY.fit.start({**data.inputs(), **data.observed()}, {"link": model.LOCAL}) == {}
