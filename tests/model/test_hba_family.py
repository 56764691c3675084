"""The ``hba`` family declaration (seed 002): one statement of every number, read everywhere else."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest

import iosizer

from iosizer.calibration.dataset import load_dataset
from iosizer.calibration.hba import MEASURED_BOARD, MEASURED_SPEED, port_parameters, shipped_profile
from iosizer.calibration.profile import Profile, save_profile
from iosizer.calibration.shipped import hardware_profile
from iosizer.errors import InputError
from iosizer.model import hba
from iosizer.model.family import STATUSES
from iosizer.model.registry import FAMILY_MODULES, declaration, family_names, module_of

SEED_FILE = "002_e63f96f17eb4d7e0.txt"


@pytest.fixture(scope="module")
def family():
    return declaration("hba")


def _named(kind: str, name: str) -> dict:
    return next(item for item in hardware_profile(kind)["items"] if item["name"] == name)


# --- the declaration itself -------------------------------------------------------


def test_hba_is_registered_after_pcie(family) -> None:
    assert FAMILY_MODULES[:5] == ("queueing", "mva", "latency", "pcie", "hba")
    assert "hba" in family_names() and module_of("hba") == "hba"
    assert hba.FAMILIES == (family,)


def test_every_number_has_unit_status_and_source(family) -> None:
    for spec in family.parameters:
        assert spec.status in STATUSES
        assert spec.source.strip()
        assert spec.description.strip()
        if not spec.choices:  # a named mode has no unit; every number has one
            assert spec.unit, spec.name
        if spec.status in ("published", "derived") and spec.name != "link_mbps":
            assert SEED_FILE in spec.source, spec.name
    kinds = {spec.name: spec.kind for spec in family.parameters}
    assert kinds == {"link_mbps": "parameter", "cores": "parameter", "core_iops": "parameter",
                     "storage_us": "parameter", "port": "setting", "mode": "setting", "block_kib": "setting",
                     "block_bytes": "setting", "service_scv": "parameter"}
    # link_mbps is derived from the FC standard's nominal rate and the seed's "1600MB/sec 弱".
    assert SEED_FILE in family.spec("link_mbps").source and "FC-FS" in family.spec("link_mbps").source


def test_storage_delay_is_an_assumption_with_its_reason(family) -> None:
    storage = family.spec("storage_us")
    assert storage.status == "assumed"
    assert "not published" in storage.source and "placeholder" in storage.source
    assert storage.value == hba.STORAGE_US.value


def test_core_capacity_scales_with_core_speed_the_rest_does_not(family) -> None:
    core = family.spec("core_iops")
    assert core.cpu_scaling.value == "power" and core.exponent_bounds == (0.0, 1.0)
    for name in ("link_mbps", "cores", "storage_us"):
        assert family.spec(name).cpu_scaling.value == "fixed"


def test_settings_check_against_their_declarations(family) -> None:
    assert family.check_settings({}) == {"port": "16gfc", "mode": "shared", "block_kib": 4.0, "block_bytes": 512.0}
    assert family.check_settings({"mode": "Occupancy"})["mode"] == "occupancy"
    with pytest.raises(InputError, match="--mode must be one of shared, occupancy"):
        family.check_settings({"mode": "both"})
    with pytest.raises(InputError, match="whole number"):
        family.values(overrides={"cores": 2.5})


def test_questions_name_the_cli_commands_and_their_json_keys(family, cli) -> None:
    questions = {q.command: q for q in family.questions}
    assert set(questions) == {"hba isolation", "hba response", "hba tenants"}
    assert all(q.answerable for q in questions.values())
    isolation = cli.json("hba", "isolation", "--mode", "shared")
    response = cli.json("hba", "response", "--mode", "shared")
    tenants = cli.json("hba", "tenants", "--mode", "shared", "--tenant-iops", "250000,120000", "--ports", "2")
    assert set(questions["hba isolation"].output_names) <= set(isolation[0])
    assert set(questions["hba response"].output_names) <= set(response[0])
    # The open model 'iosizer size hba' searches: the worst tenant at the answer's ports.
    sized, = iosizer.family("hba").size(target_response_us=200, tenant_iops="250000,120000", mode="shared").to_data()
    assert sized["ports"] == 2 and tenants[0]["worst_response_us"] == sized["ports_response_us"]
    assert family.measurements == ("seed002_env", "seed002_sec3_1_isolation", "seed002_sec3_2_response")


def test_the_port_speeds_are_the_shipped_fc_ports(family) -> None:
    # --port picks a shipped profile (ParameterSpec.variant); its choices are the shipped ports' names.
    assert family.variant is hba.PORT and hba.PORT.value == MEASURED_SPEED.lower()
    assert hba.PORT_SPEEDS == tuple(item["name"].lower() for item in hardware_profile("fc_ports")["items"])
    for speed in hba.PORT_SPEEDS:
        assert shipped_profile("hba", speed).options["port"] == speed


def test_lpar2_sweeps_to_the_shared_ceiling_and_lpar1_offers_its_limit(family) -> None:
    # Left out, LPAR2 runs 0 to one virtual port's shared ceiling in 12 steps (both cores: 300,000 IOPS at
    # 4 KiB; the link at 256 KiB), and LPAR1 offers its own ceiling in the mode (one core in occupancy).
    from iosizer.calibration.questions import answer

    for kib, top in ((4, 2 * hba.CORE_IOPS.value), (256, hba.LINK_MBPS.value * 1e6 / (256 * 1024))):
        rows = answer("hba", "hba isolation", mode="occupancy", block_kib=kib).to_data()
        assert len(rows) == 13 and rows[0]["lpar2_offered_iops"] == 0
        assert rows[-1]["lpar2_offered_iops"] == pytest.approx(top, rel=1e-12)
        ceiling = float(hba.port_ceiling_iops(hba.FcPort(), "occupancy", kib * 1024))
        assert all(r["lpar1_offered_iops"] == ceiling for r in rows)
    # A profile's band moves LPAR1's ceiling with the core capacity (the input stays at the centre's).
    from iosizer.calibration.frozen import shipped

    banded = answer("hba", "hba isolation", shipped("hba"), cpu_speed=1.3, mode="occupancy",
                    lpar2_offered_iops=0).to_data()[0]
    assert banded["lpar1_iops_ci_low"] < banded["lpar1_iops"] < banded["lpar1_iops_ci_high"]


# --- every other place reads it ---------------------------------------------------


def test_fc_port_defaults_are_the_declared_port(family) -> None:
    port = hba.FcPort()
    assert (port.link_mbps, port.cores, port.core_iops) == (
        family.default("link_mbps"), family.default("cores"), family.default("core_iops"))


def test_response_defaults_are_the_declared_block_and_storage_delay(family) -> None:
    port = hba.FcPort()
    implicit = hba.response(port, "occupancy", [1, 8, 16])
    explicit = hba.response(port, "occupancy", [1, 8, 16], family.default("block_bytes"),
                            family.default("storage_us"))
    assert implicit.block_bytes == family.default("block_bytes")
    assert implicit.storage_us == family.default("storage_us")
    np.testing.assert_array_equal(implicit.response_us, explicit.response_us)


def test_cli_help_does_not_repeat_declared_numbers(cli) -> None:
    for command in ("isolation", "response"):
        text = " ".join(cli("hba", command, "--help").stdout.split())
        assert "150,000" not in text and "150000" not in text and "[profile: 2]" not in text


def test_report_and_scenario_notes_come_from_the_declaration(monkeypatch) -> None:
    from iosizer.report.scenario import HbaSection, evaluate_hba

    section = HbaSection(offered_iops=[100_000.0], block_kib=[4.0])
    assert section.storage_us == hba.STORAGE_US.value and section.mode == hba.MODE.value
    assert section.port == MEASURED_SPEED.lower()
    note = evaluate_hba(section)[-1].note
    assert note == f"MVA, storage delay {hba.STORAGE_US.value:g} us (assumed)"


# --- solve, the shipped data and the profile ---------------------------------------


@pytest.mark.parametrize("mode", ["shared", "occupancy"])
def test_solve_is_the_response_model_at_the_declared_values(family, mode) -> None:
    values = family.values({"mode": mode})
    threads = np.array([[1, 8], [16, 32]])
    got = family.solve(values, {"threads": threads})
    want = hba.response(hba.FcPort(), mode, threads.ravel(), family.default("block_bytes"),
                        family.default("storage_us"))
    assert got["response_us"].shape == threads.shape
    np.testing.assert_allclose(got["response_us"].ravel(), want.response_us, rtol=1e-12)
    np.testing.assert_allclose(got["iops"].ravel(), want.iops, rtol=1e-12)
    # Little's law: N = X R, X in I/Os per us.
    np.testing.assert_allclose(got["iops"] * got["response_us"] / 1e6, threads, rtol=1e-9)


def test_declaration_equals_the_values_derived_from_the_shipped_profiles(family) -> None:
    # The 16GFC port from fc_ports.json and hbas.json (as every CLI answer builds it)
    # must be the declared port: the two cannot drift apart.
    derived = port_parameters(MEASURED_SPEED)["values"]
    for name in ("link_mbps", "cores", "core_iops"):
        assert derived[name] == family.default(name), name
    port, board = _named("fc_ports", MEASURED_SPEED), _named("hbas", MEASURED_BOARD)
    assert float(port["nominal_mbps"]) == hba.NOMINAL_16GFC_MBPS
    assert int(board["cores_per_port"]) == hba.CORES.value == int(port["hba_cores_per_port"])
    assert float(board["iops_4k_shared_both_cores"]) == hba.SHARED_4K_IOPS
    # Seed 002 sec 3.1.2: "1600MB/sec 弱", a little under 1600.
    assert family.default("link_mbps") == pytest.approx(1600 * 2048 / 2108)
    assert 1500 < family.default("link_mbps") < 1600


def test_example_file_is_the_declared_model_with_one_percent_noise(family) -> None:
    assert family.example == "hba.csv"
    path = resources.files("iosizer.data.examples").joinpath(family.example)
    data = load_dataset(str(path), family.columns)
    assert len(data) >= 5 and all(s.startswith("synthetic") for s in data.sources)
    exact = family.solve(family.values(family.example_settings), data.inputs())
    for name, observed in data.observed().items():
        assert np.all(np.abs(observed / exact[name] - 1) < 0.04), name  # 1 % noise, 4 sigma


def test_shipped_profile_round_trips(family, tmp_path) -> None:
    profile = shipped_profile()
    assert profile.model == "hba" and profile.options == family.check_settings({})
    assert profile.values() == {n: float(v) for n, v in family.values().items()
                                if family.spec(n).kind == "parameter"}
    assert all(not p.vary for p in profile.parameters.values())
    assert profile.parameters["core_iops"].cpu_scaling == "power"
    # Through JSON and back (load_profile needs calibration/models.py to know 'hba'; not yet).
    written = save_profile(profile, tmp_path / "hba.json")
    again = Profile.model_validate(json.loads(written.read_text()))
    assert again == profile
    # The profile answers as the declaration does.
    values = {**again.options, **again.values()}
    np.testing.assert_allclose(family.solve(values, {"threads": np.array([1, 16])})["response_us"],
                               family.solve(family.values(), {"threads": np.array([1, 16])})["response_us"])


def test_shipped_profile_variants_are_the_fc_speeds(family) -> None:
    assert shipped_profile("hba", MEASURED_SPEED).values() == shipped_profile().values()
    eight = shipped_profile("hba", "8GFC")
    assert eight.value("link_mbps") == pytest.approx(family.default("link_mbps") / 2)
    assert eight.value("core_iops") == family.default("core_iops")
    with pytest.raises(InputError, match="unknown fc port '4GFC'"):
        shipped_profile("hba", "4GFC")
    with pytest.raises(InputError, match="--port must be one of 8gfc, 16gfc, 32gfc"):
        family.check_settings({"port": "4GFC"})
