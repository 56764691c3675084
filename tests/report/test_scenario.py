from __future__ import annotations

from pathlib import Path

import pytest

from iosizer.report import scenario as sc
from iosizer.calibration.replication import evaluate
from iosizer.errors import InputError, ScenarioError


@pytest.mark.parametrize("name", ["oltp_pcie_fabric", "replicated_flash_cache", "shared_fc_storage"])
def test_shipped_examples_run(name: str) -> None:
    assert name in sc.example_names()
    result = sc.run_scenario(name)
    assert result.answers
    families = {a.family for a in result.answers}
    scenario = sc.load_scenario(name)
    assert families == {f.key for f in sc.FAMILIES if getattr(scenario, f.key) is not None}


def test_answers_come_from_the_family_models() -> None:
    answers = {a.question: a.value for a in sc.run_scenario("replicated_flash_cache").answers}
    assert answers["write IOPS over 10g"] == pytest.approx(float(evaluate("10g", 4, 32).iops))
    assert answers["binding cap over 10g"] == "protocol"
    assert 10 <= answers["IOPS gain of ipoib56 over 10g"] <= 20
    shared_fc = {a.question: a.value for a in sc.run_scenario("shared_fc_storage").answers}
    # Occupancy mode: LPAR1 is capped at one core (150,000), LPAR2 gets its demand (seed 002).
    assert shared_fc["virtual port 1 IOPS (occupancy)"] == pytest.approx(150_000)
    assert shared_fc["virtual port 2 IOPS (occupancy)"] == pytest.approx(120_000)
    assert shared_fc["policy with the highest throughput"] == "multi-stage"
    latency = {a.question: a.value for a in sc.run_scenario("oltp_pcie_fabric").answers}
    assert latency["added round-trip latency"] == pytest.approx(2 * 2 * 150)


def test_every_family_is_one_section_and_one_evaluator() -> None:
    text = "\n".join(f"[{f.key}]" for f in sc.FAMILIES)
    # Every section has defaults except latency's hop; give it one.
    text = text.replace("[latency]", "[latency]\nhop_ns = 200")
    text = text.replace("[hba]", "[hba]\noffered_iops = [1000]\nblock_kib = [4]")
    text = text.replace("[loadshare]", '[loadshare]\nscenario = "system"')
    # An M/M/c queue is the planner's own: no shipped rate (Question.shipped is False).
    text = text.replace("[mmc]", "[mmc]\narrival_rate = 3\nservice_rate_per_s = 1\nservers = 4")
    text = text.replace("[closed-network]", "[closed-network]\npopulation = 10\ndemand_s = [0.005, 0.003]")
    scenario = sc.parse_scenario(text)
    assert {a.family for a in sc.evaluate_scenario(scenario)} == {f.key for f in sc.FAMILIES}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[replication]\nblok_kib = 4", "replication: unknown key 'blok_kib' (did you mean block_kib?)"),
        ('[replication]\nblock_kib = "4KB"', "replication.block_kib: expected a number or a list of numbers (KiB), "
                                             "got '4KB'"),
        ("[replication]\nblock_kib = -4", "replication.block_kib: block_kib must lie in [0.000976562, 1048576] "
                                          "(KiB), got -4"),
        ("[replication]\noutstanding = 0", "replication.outstanding: outstanding must lie in [1, 65536] (I/Os), got 0"),
        ('[latency]\nswitch = "asi"\nadded_latency_us = 5', "the schema says added_latency_ns"),
        ("[replicaton]\nblock_kib = 4", "unknown key 'replicaton' (did you mean replication?)"),
        ('[replication]\nlinks = ["token-ring"]', "replication.links: link: unknown link 'token-ring'"),
        ('[replication]\nlink = "1g,token-ring"', "replication.link: link: unknown link 'token-ring'"),
        ("[replication]\nlinks = []", "replication.links: give a link or a list of them, not an empty list"),
        ("[latency]\nhop_ns = -1", "latency.hop_ns: must be >= 0"),
        ("[pcie]\nlanes_per_port = 3", "pcie: lanes_per_port must be one of 1, 2, 4, 8"),
        ("[pcie]\ngeneration = true", "pcie.generation: expected a whole number"),
        ('name = "empty"', "no family table"),
        ('[hba]\nmode = "pinned"\noffered_iops = [1]\nblock_kib = [4]', "hba.mode: mode must be one of shared, occupancy"),
        ("[hba]\noffered_iops = [1, 2]\nblock_kib = [4]", "one of each per virtual port"),
        ("[hba]\noffered_iops = [-1]\nblock_kib = [4]", "hba.offered_iops.0: offered_iops must lie in [0, 100000000] (IOPS), got -1"),
        ('[hba]\noffered_iops = [1]\nblock_kib = [4]\nport = "4GFC"', "hba.port: port must be one of 8gfc, 16gfc, 32gfc, got '4GFC'"),
        ('[loadshare]\nscenario = "skew"\nthreshold = 1.5', "loadshare.threshold: threshold must lie in [0.01, 0.99] (1), got 1.5"),
        ('[loadshare]\nscenario = "skew"\npolicies = ["random"]', "loadshare.policies: policy must be one of shared, exclusive, one-stage, multi-stage, got 'random'"),
        ('[loadshare]\nscenario = "two-port"', "loadshare.scenario: scenario must be one of one-port, system, skew, "
                                            "got 'two-port'"),
        ('[loadshare]\nscenario = "skew"\nutilization = 1', "loadshare.utilization: utilization must lie in"),
        ('[loadshare]\nscenario = "skew"\nnon_core_pct = -1', "loadshare.non_core_pct: non_core_pct must lie in [0, 10000] (%), got -1"),
        ('[loadshare]\nscenario = "skew"\nnon_core_pct = 1e6', "non_core_pct must lie in [0, 10000] (%), got 1000000"),
        ('[loadshare]\nport_shares = [1, -2]', "loadshare.port_shares: shares must be non-negative loads"),
        ('[loadshare]\nscenario = "skew"\ncores = 1000', "loadshare.cores: cores must lie in [1, 256] (cores), got 1000"),
        ('[loadshare]\nscenario = "skew"\nswitch_rule = "sometimes"', "switch_rule must be one of system-response, equal-response, threshold, got 'sometimes'"),
        # Each key within its family's declaration (these were answered: 1e308 ns, 10^11-byte transfers).
        ('[latency]\nswitch = "asi"\nadded_latency_ns = 1e308', "latency.added_latency_ns: must be <= 1e+07"),
        ("[latency]\nhop_ns = 1e9", "latency.hop_ns: must be <= 1e+06"),
        ("[pcie]\ntransfer_bytes = 99999999999", "pcie.transfer_bytes: must be <= 1.67772e+07"),
        ("[replication]\nblock_kib = 99999999999", "replication.block_kib: block_kib must lie in [0.000976562, 1048576]"),
        ("[replication]\nblock_kib = 1e-300", "replication.block_kib: block_kib must lie in [0.000976562, 1048576]"),
        ("[replication]\noutstanding = 100000", "replication.outstanding: outstanding must lie in [1, 65536]"),
        ("[hba]\noffered_iops = [1e12]\nblock_kib = [4]", "hba.offered_iops.0: offered_iops must lie in [0, 100000000]"),
        ("[hba]\noffered_iops = [1]\nblock_kib = [1e9]", "hba.block_kib.0: block_kib must lie in [0.000976562, 16384]"),
        ("[hba]\noffered_iops = [1]\nblock_kib = [4]\nthreads = 70000", "hba.threads: threads must lie in [1, 65536]"),
        ("[hba]\noffered_iops = [1]\nblock_kib = [4]\nstorage_us = 1e300", "hba.storage_us: storage_us must lie in [0, 1000000]"),
        ("[replication\nblock_kib = 4", "malformed TOML"),
        ("[replication]\nblock_kib = \n", "line 2"),
    ],
)
def test_bad_scenarios(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        sc.parse_scenario(text, "scenario.toml")
    assert str(caught.value).startswith("scenario.toml: ")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, InputError)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such file"):
        sc.run_scenario(tmp_path / "absent.toml")
    with pytest.raises(ScenarioError, match="not a file"):
        sc.run_scenario(tmp_path)


def test_file_path(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\n[replication]\nlinks = ["1g"]\nblock_kib = 16\n')
    result = sc.run_scenario(path)
    assert result.name == "mine" and result.source == str(path)
    assert {a.question: a.value for a in result.answers}["binding cap over 1g"] == "bandwidth"


def test_replication_defaults_are_the_declared_values() -> None:
    from iosizer.model.registry import declaration

    family = declaration("replication")
    answers = sc.evaluate_scenario(sc.parse_scenario("[replication]\n"))
    link, block, outstanding = family.default("link"), family.default("block_kib"), family.default("outstanding")
    assert answers[0].question == f"write IOPS over {link}"
    assert answers[0].note == f"{link}, {block:g} KiB, {outstanding} outstanding"
    assert answers[-1].question == f"IOPS gain of ipoib56 over {link}"


def test_replication_keys_are_the_commands_with_links_kept() -> None:
    # The table takes the CLI's names (link: one, a list or "1g,10g"); 'links', its older key, still works.
    def table(text: str) -> list[tuple[str, object]]:
        return [(a.question, a.value) for a in sc.evaluate_scenario(sc.parse_scenario("[replication]\n" + text))]

    assert table('links = ["10g", "1g"]\nblock_kib = 16') == table('link = "10g,1g"\nblock_kib = 16') == \
        table('link = ["10gbe", "1g", "10g"]\nblock_kib = 16')  # another name of a link, and a repeat, count once
    answers = dict(table('link = "1g"\nblock_kib = [4, 16]'))
    assert answers["binding cap over 1g"] == "bandwidth"  # the last of the two sizes: 16 KiB


def test_loadshare_section_takes_the_non_core_part_and_switch_rule() -> None:
    # Issue 15: the non-core part adds to every response; the switch rule decides multi-stage's jumps.
    base = '[loadshare]\nscenario = "skew"\npolicies = ["exclusive", "multi-stage"]\n'

    def answers(extra: str) -> dict[str, float]:
        parsed = sc.parse_scenario(base + extra, "s.toml")
        return {a.question: a.value for a in sc.evaluate_scenario(parsed)}

    plain, more = answers("non_core_pct = 0"), answers("non_core_pct = 100")
    key = "exclusive: mean response at 70% of its maximum"
    assert more[key] == pytest.approx(plain[key] + 1.0)
    jump = "multi-stage: largest response jump at a switch"
    assert answers('switch_rule = "threshold"')[jump] > 50 and answers("")[jump] < 1e-6


def test_loadshare_keys_are_the_commands_with_the_older_ones_kept() -> None:
    # [loadshare] is `iosizer loadshare point`: its names (shares, policy), the older port_shares and policies
    # kept; left out, the scenario is the declared one, as the command answers; a mix and a scenario: refused.
    def table(text: str) -> list[tuple[str, object]]:
        return [(a.question, a.value) for a in sc.evaluate_scenario(sc.parse_scenario("[loadshare]\n" + text))]

    assert table('port_shares = [3, 1, 1]\npolicies = ["exclusive"]') == table('shares = "3,1,1"\npolicy = "exclusive"')
    assert table("cores = 4") == table('scenario = "skew"')
    with pytest.raises(ScenarioError, match="loadshare: give scenario or shares, not both"):
        sc.evaluate_scenario(sc.parse_scenario('[loadshare]\nscenario = "skew"\nport_shares = [1, 2]\n'))


def test_a_list_key_takes_as_many_entries_as_a_command_line_list() -> None:
    # 10^5 virtual ports in [hba] were all solved (seconds each 10^5; a million ran a minute).
    from iosizer.cli.params import MAX_GRID_POINTS

    assert sc._MAX_ENTRIES == MAX_GRID_POINTS
    ports = MAX_GRID_POINTS + 1
    text = f"[hba]\noffered_iops = [{', '.join(['1'] * ports)}]\nblock_kib = [{', '.join(['4'] * ports)}]"
    with pytest.raises(ScenarioError, match="hba.offered_iops: List should have at most 10000 items"):
        sc.parse_scenario(text, "scenario.toml")


def test_a_file_far_larger_than_a_scenario_is_not_read(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sc, "MAX_SCENARIO_BYTES", 1024)
    path = tmp_path / "big.toml"
    path.write_text("# " + "x" * 2048 + "\n[replication]\n")
    with pytest.raises(ScenarioError, match="more than a scenario file"):
        sc.resolve_source(path)
