"""Scenario tables answered from the planner's profiles: the same numbers and 95 % bands as the
what-if commands given the same ``--profile`` (and ``--cpu-speed``), and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import iosizer
from iosizer.errors import ScenarioError
from iosizer.report import scenario as sc

FAMILIES = ("oltp", "dma", "rmw", "pcie-link", "hba", "loadshare", "replication")


@pytest.fixture(autouse=True)
def _every_profile_made(profiles) -> None:
    """Scenario files name profiles by file name in one folder: make them all first."""
    for name in FAMILIES:
        profiles[name]


def _run(folder: Path, text: str) -> dict[str, sc.Answer]:
    path = folder / "scenario.toml"
    path.write_text(text)
    return {a.question: a for a in sc.run_scenario(path).answers}


def _same(answer: sc.Answer, row: dict, key: str, banded: bool = True) -> None:
    """The scenario's answer is the CLI's number, with the CLI's band where the CLI gives one."""
    assert answer.value == pytest.approx(row[key], rel=1e-9, abs=1e-12)
    if banded:
        assert answer.ci_low == pytest.approx(row[f"{key}_ci_low"], rel=1e-9)
        assert answer.ci_high == pytest.approx(row[f"{key}_ci_high"], rel=1e-9)
    _ordered(answer)


def _ordered(answer: sc.Answer) -> None:
    assert answer.ci_low is not None and answer.ci_high is not None, answer
    assert answer.ci_low <= answer.value <= answer.ci_high, answer


@pytest.mark.parametrize("cpu_speed", [None, 1.3])
def test_latency_oltp_and_dma_profiles(cli, profiles, cpu_speed) -> None:
    folder = profiles["oltp"].parent
    speed = [] if cpu_speed is None else ["--cpu-speed", str(cpu_speed)]
    answers = _run(folder, f'[latency]\nhop_ns = 300\ntiers = 2\nprofile = ["oltp.json", "dma.json"]\n'
                           f'burst_bytes = 64\n' + ("" if cpu_speed is None else f"cpu_speed = {cpu_speed}\n"))
    oltp = cli.json("latency", "oltp", "--added-latency-ns", "1200", "--profile", str(profiles["oltp"]), *speed)
    loss = answers["OLTP throughput loss"]
    assert loss.value == pytest.approx(oltp["degradation_pct"], rel=1e-9)
    assert (loss.ci_low, loss.ci_high) == pytest.approx((oltp["degradation_pct_low"], oltp["degradation_pct_high"]))
    _ordered(loss)
    dma = cli.json("latency", "dma", "--added-latency-ns", "1200", "--burst-bytes", "64",
                   "--profile", str(profiles["dma"]), *speed)
    _same(answers["dma.json DMA loss"], dma, "degradation_pct", banded=False)
    _same(answers["dma.json DMA throughput"], dma, "throughput_mbps", banded=False)
    if cpu_speed is None:
        tiers = cli.json("latency", "tiers", "--hop-ns", "300", "--profile", str(profiles["oltp"]))
        plan = answers["most switch tiers within 5 % OLTP loss"]
        assert plan.value == tiers[0]["max_tiers"]
        assert plan.ci_low <= plan.value <= plan.ci_high


def test_pcie_rmw_and_link_profiles(cli, profiles) -> None:
    answers = _run(profiles["rmw"].parent, '[pcie]\nprofile = ["rmw.json", "pcie-link.json"]\nports = 2\n'
                                           'transfer_bytes = 520\n')
    link = iosizer.load_profile(profiles["pcie-link"]).options
    row = cli.json("pcie", "link", "--profile", str(profiles["pcie-link"]), "--transfer-bytes", "520")
    _same(answers["effective write bandwidth per port"], row, "effective_gbyte_s")
    lanes = 2 * int(link["lanes"])
    # The RMW network runs on the pcie-link profile's link (its fitted DLLPs, its header), which
    # `pcie rmw --profile` cannot take: the family's own solve at those values is the reference.
    fitted = {name: estimate.value for name, estimate in iosizer.load_profile(profiles["rmw"]).parameters.items()}
    link_values = {name: link[name] for name in ("generation", "mps_bytes", "header_dw", "ecrc") if name in link}
    link_values["dllps_per_tlp"] = iosizer.load_profile(profiles["pcie-link"]).parameters["dllps_per_tlp"].value
    expected = iosizer.family("rmw").predict({**fitted, **link_values, "lanes_per_port": int(link["lanes"])},
                                             lanes=[lanes], transfer_bytes=[520])
    assert answers["loss to read-modify-write contention"].value == pytest.approx(
        float(expected.outputs["loss_pct"][0]), rel=1e-9)
    assert link_values["dllps_per_tlp"] != iosizer.family("rmw").shipped().parameters["dllps_per_tlp"].value
    assert answers["64-byte-unaligned accesses"].ci_low is None  # the layout depends on no fitted number


HBA = ('[hba]\nprofile = "hba.json"\nmode = "occupancy"\noffered_iops = [250000, 120000]\nblock_kib = [4, 4]\n'
       'threads = 16\n')


@pytest.mark.parametrize("cpu_speed", [None, 1.3])
def test_hba_profile(cli, profiles, cpu_speed) -> None:
    speed = [] if cpu_speed is None else ["--cpu-speed", str(cpu_speed)]
    answers = _run(profiles["hba"].parent, HBA + ("" if cpu_speed is None else f"cpu_speed = {cpu_speed}\n"))
    response = cli.json("hba", "response", "--profile", str(profiles["hba"]), "--threads", "16",
                        "--mode", "occupancy", "--block-bytes", "4096", *speed)[0]
    _same(answers["virtual port 1 response at 16 threads"], response, "response_us")
    isolation = cli.json("hba", "isolation", "--profile", str(profiles["hba"]), "--mode", "occupancy",
                         "--lpar1-iops", "250000", "--lpar2-iops", "120000", "--block-kib", "4", *speed)[0]
    _same(answers["virtual port 1 IOPS (occupancy)"], isolation, "lpar1_iops")
    _same(answers["virtual port 2 IOPS (occupancy)"], isolation, "lpar2_iops")
    _ordered(answers["port throughput"])


def test_loadshare_profile(cli, profiles) -> None:
    answers = _run(profiles["loadshare"].parent, '[loadshare]\nprofile = "loadshare.json"\nscenario = "skew"\n')
    rows = {r["policy"]: r for r in cli.json("loadshare", "compare", "--scenario", "skew",
                                             "--profile", str(profiles["loadshare"]))}
    for policy, row in rows.items():
        _same(answers[f"{policy}: maximum throughput in IOPS"], row, "max_throughput_iops", banded=False)
        _ordered(answers[f"{policy}: mean response at 70% of its maximum in us"])


def test_replication_profile(cli, profiles) -> None:
    answers = _run(profiles["replication"].parent, '[replication]\nprofile = "replication.json"\n'
                                                   'block_kib = 4\noutstanding = 32\n')
    row = cli.json("replication", "--profile", str(profiles["replication"]), "--block-kib", "4",
                   "--outstanding", "32")[0]
    for question, key in (("write IOPS", "iops"), ("write throughput", "throughput_mbps"),
                          ("write latency", "latency_us")):
        _same(answers[f"{question} over {row['link']}"], row, key)


def test_cpu_speed_widens_bands(profiles) -> None:
    folder = profiles["hba"].parent
    here = _run(folder, HBA)["virtual port 1 response at 16 threads"]
    faster = _run(folder, HBA + "cpu_speed = 1.3\n")["virtual port 1 response at 16 threads"]
    assert faster.ci_high - faster.ci_low > 2 * (here.ci_high - here.ci_low)


def test_no_profile_keys_no_bands() -> None:
    result = sc.run_scenario("shared_fc_storage")
    assert not result.banded and not result.notes
    assert all(a.ci_low is None and a.ci_high is None for a in result.answers)


def test_shipped_example_uses_its_profile() -> None:
    result = sc.run_scenario("calibrated_fc_port")
    assert result.banded and "profile fc_port_hba.json, carried to CPU speed 1.3" in result.notes[0]
    for answer in result.answers:
        _ordered(answer)


def test_absolute_profile_path_and_cpu_speed_alone(cli, profiles, tmp_path: Path) -> None:
    answers = _run(tmp_path, HBA.replace('"hba.json"', json.dumps(str(profiles["hba"]))))
    _ordered(answers["virtual port 1 response at 16 threads"])
    # cpu_speed alone carries the shipped profile, as --cpu-speed without --profile does.
    shipped = _run(tmp_path, HBA.replace('profile = "hba.json"\n', "") + "cpu_speed = 2\n")
    row = cli.json("hba", "response", "--cpu-speed", "2", "--threads", "16", "--mode", "occupancy",
                   "--block-bytes", "4096")[0]
    _same(shipped["virtual port 1 response at 16 threads"], row, "response_us")
    # The shipped replication cost has a parameter with no interval: no band, as the CLI says (null).
    replicated = _run(tmp_path, "[replication]\ncpu_speed = 2\n")["write IOPS over 10g"]
    row = cli.json("replication", "--cpu-speed", "2")[0]
    assert replicated.value == pytest.approx(row["iops"], rel=1e-9)
    assert replicated.ci_low is None and row["iops_ci_low"] is None


def _bad(folder: Path, text: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        _run(folder, text)
    line = str(caught.value)
    assert "\n" not in line and line.startswith(str(folder / "scenario.toml") + ": ")
    return line


def test_profile_errors(profiles, tmp_path: Path) -> None:
    folder = profiles["hba"].parent
    line = _bad(folder, HBA.replace("hba.json", "absent.json"))
    assert "hba.profile" in line and "absent.json" in line and "cannot read" in line
    (folder / "broken.json").write_text("{not json")
    line = _bad(folder, HBA.replace("hba.json", "broken.json"))
    assert "hba.profile" in line and "broken.json" in line and "not a JSON profile" in line
    line = _bad(folder, HBA.replace("hba.json", "rmw.json"))
    assert line.endswith("hba.profile: rmw.json is a 'rmw' profile; [hba] answers from 'hba' profiles")
    line = _bad(folder, '[pcie]\nprofile = ["rmw.json", "oltp.json"]\n')
    assert "pcie.profile: oltp.json is a 'oltp' profile; [pcie] answers from 'rmw' and 'pcie-link'" in line
    line = _bad(folder, HBA + "cpu_speed = 100\n")
    assert "hba.cpu_speed: cpu_speed must lie in [0.015625, 64]" in line
    no_cpu = json.loads(profiles["hba"].read_text())
    no_cpu["cpu_speed"] = None
    (folder / "no_cpu.json").write_text(json.dumps(no_cpu))
    line = _bad(folder, HBA.replace("hba.json", "no_cpu.json") + "cpu_speed = 1.3\n")
    assert "hba.cpu_speed: no_cpu.json records no CPU speed" in line
    slow = {**no_cpu, "cpu_speed": 0.5}
    (folder / "slow.json").write_text(json.dumps(slow))
    line = _bad(folder, HBA.replace("hba.json", "slow.json") + "cpu_speed = 60\n")
    assert "hba.cpu_speed: cpu_speed 60 is 120 x the speed of the CPU the profile was measured on" in line
    assert "(slow.json)" in line
    line = _bad(folder, '[pcie]\nprofile = ["rmw.json", "rmw.json"]\n')
    assert "pcie.profile: a profile is named twice" in line
    (folder / "rmw2.json").write_text(profiles["rmw"].read_text())
    line = _bad(folder, '[pcie]\nprofile = ["rmw.json", "rmw2.json"]\n')
    assert "pcie.profile: rmw.json and rmw2.json are both 'rmw' profiles; give one per family" in line
    assert "hba: --port picks one of the shipped 'hba' profiles" in _bad(folder, HBA + 'port = "8GFC"\n')
    assert "latency: give either device" in _bad(folder, '[latency]\nhop_ns = 1\ndevice = "e1000"\n'
                                                         'profile = "dma.json"\n')
    assert "unknown key 'profiles' (did you mean profile?)" in _bad(folder, HBA.replace("profile =", "profiles ="))


def test_cli_errors_name_the_file_and_key(cli, profiles) -> None:
    folder = profiles["hba"].parent
    path = folder / "cli.toml"
    path.write_text(HBA.replace("hba.json", "dma.json"))
    line = cli.fails("run", str(path))
    assert "cli.toml: hba.profile: dma.json is a 'dma' profile" in line


def test_a_table_answers_unnamed_families_as_shipped(profiles) -> None:
    folder = profiles["dma"].parent
    shipped = _run(folder, "[latency]\nhop_ns = 300\n")
    answers = _run(folder, '[latency]\nhop_ns = 300\nprofile = "dma.json"\n')
    assert answers["OLTP throughput loss"] == shipped["OLTP throughput loss"]  # value and no band
    assert answers["dma.json DMA loss"].ci_low is not None
    pcie = _run(folder, '[pcie]\nprofile = "rmw.json"\ntransfer_bytes = 520\n')
    assert pcie["effective write bandwidth per port"].ci_low is None
    _ordered(pcie["loss to read-modify-write contention"])
    # Aligned transfers (512 B) lose nothing whatever the RMW parameters: no band, as every output none moves.
    aligned = _run(folder, '[pcie]\nprofile = "rmw.json"\n')["loss to read-modify-write contention"]
    assert (aligned.value, aligned.ci_low, aligned.ci_high) == (0.0, None, None)


def test_a_catalogue_device_is_carried_as_its_shipped_profile(cli, tmp_path: Path) -> None:
    from iosizer.calibration.latency import device, shipped_profile
    from iosizer.calibration.profile import save_profile

    path = save_profile(shipped_profile("dma", "e1000"), tmp_path / "e1000.json")
    answers = _run(tmp_path, '[latency]\nhop_ns = 300\ndevice = "e1000"\ncpu_speed = 1.3\n')
    row = cli.json("latency", "dma", "--profile", str(path), "--cpu-speed", "1.3", "--added-latency-ns", "600",
                   "--burst-bytes", str(device("e1000").burst_bytes))
    _same(answers["e1000 DMA loss"], row, "degradation_pct", banded=False)
    _same(answers["e1000 DMA throughput"], row, "throughput_mbps", banded=False)


def test_the_notes_promise_bands_only_where_answers_have_them(tmp_path: Path) -> None:
    scenario = tmp_path / "carried.toml"
    scenario.write_text("[pcie]\ncpu_speed = 1.5\ntransfer_bytes = 520\n")
    result = sc.run_scenario(scenario)
    notes = {note.split(":")[0]: note for note in result.notes}
    # The shipped rmw fit is exact (two points, two parameters): no bounded band anywhere.
    assert not any(a.ci_low is not None for a in result.answers if a.family == "pcie")
    assert "no bounded interval" in notes["pcie"] and "ci_low/ci_high" not in notes["pcie"]
