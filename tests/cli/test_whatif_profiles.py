"""Every family's profile drives its what-ifs: bands from the fit, settings still changeable, other CPUs."""

from __future__ import annotations

from pathlib import Path

import pytest

import iosizer

EXAMPLES = Path(iosizer.family("mmc").example()).parent


def _inside(row: dict, key: str) -> None:
    assert row[f"{key}_ci_low"] <= row[key] <= row[f"{key}_ci_high"], (key, row)


def test_hba_response_from_a_profile_has_bands_and_takes_more_cores(cli, profiles) -> None:
    rows = cli.json("hba", "response", "--profile", str(profiles["hba"]), "--threads", "1,16,64", "--mode", "shared")
    fitted = iosizer.load_profile(profiles["hba"]).parameters
    # One thread: the bare demands; the storage delay is the profile's, not the declared 50 us.
    core_us = 1e6 / fitted["core_iops"].value
    assert rows[0]["response_us"] > fitted["storage_us"].value + core_us
    for row in rows:
        _inside(row, "response_us")
        _inside(row, "iops")
    more = cli.json("hba", "response", "--profile", str(profiles["hba"]), "--threads", "64", "--mode", "shared",
                    "--cores", "4")
    assert more[0]["iops"] > 1.9 * rows[-1]["iops"]  # what if the port had 4 cores: twice the ceiling
    assert "--port" in cli.fails("hba", "response", "--profile", str(profiles["hba"]), "--port", "8GFC")


def test_hba_on_a_faster_cpu_spans_the_declared_exponents(cli) -> None:
    base = cli.json("hba", "isolation", "--mode", "shared", "--lpar2-iops", "0")
    fast = cli.json("hba", "isolation", "--mode", "shared", "--lpar2-iops", "0", "--cpu-speed", "2")
    # core_iops ~ s^e with e in [0, 1]: LPAR1 alone runs between 1x and 2x its cores' rate, and a
    # faster core cannot push 4 KiB I/Os past the link (1554 MB/s / 4096 B): the band says so.
    link_iops = iosizer.family("hba").declaration.default("link_mbps") * 1e6 / 4096
    assert fast[0]["lpar1_iops_ci_low"] == pytest.approx(base[0]["lpar1_iops"], rel=1e-9)
    assert fast[0]["lpar1_iops_ci_high"] == pytest.approx(min(2 * base[0]["lpar1_iops"], link_iops), rel=1e-6)
    assert base[0]["lpar1_iops"] < link_iops < 2 * base[0]["lpar1_iops"]
    assert "--cpu-speed must lie in" in cli.fails("hba", "isolation", "--cpu-speed", "1e6")


def test_loadshare_answers_in_iops_and_microseconds_with_a_profile(cli, profiles) -> None:
    rows = cli.json("loadshare", "compare", "--profile", str(profiles["loadshare"]), "--scenario", "one-port")
    service_us = iosizer.load_profile(profiles["loadshare"]).parameters["io_service_us"].value
    exclusive = next(r for r in rows if r["policy"] == "exclusive")
    # One core serves the one port: its ceiling is one core's worth of I/Os.
    assert exclusive["max_throughput_iops"] == pytest.approx(1e6 / service_us, rel=1e-3)
    curve = cli.json("loadshare", "curve", "--profile", str(profiles["loadshare"]), "--scenario", "one-port",
                     "--points", "5")
    banded = [r for r in curve if r.get("response_us_ci_low") is not None]
    assert banded and all(r["response_us_ci_low"] <= r["response_us"] <= r["response_us_ci_high"] for r in banded)
    assert all(r["response_us"] == pytest.approx(r["response_service_times"] * service_us) for r in curve)


def test_replication_profile_keeps_its_protocol_stack(cli, profiles) -> None:
    rows = cli.json("replication", "--profile", str(profiles["replication"]), "--block-kib", "4,16")
    assert [r["link"] for r in rows] == ["10g", "10g"]
    for row in rows:
        _inside(row, "iops")
        _inside(row, "latency_us")
    same_stack = cli.json("replication", "--profile", str(profiles["replication"]), "--link", "1g")
    assert same_stack[0]["iops"] > 0
    assert "ethernet stack" in cli.fails("replication", "--profile", str(profiles["replication"]),
                                         "--link", "ipoib56")


def test_profile_of_another_family_is_refused(cli, profiles) -> None:
    assert "profile is for model 'hba'" in cli.fails("replication", "--profile", str(profiles["hba"]))


def test_queue_mmc_profile_takes_more_servers_and_another_cpu(cli, tmp_path: Path) -> None:
    from iosizer.model.queueing import mmc

    path = tmp_path / "m.json"
    assert cli("calibrate", "mmc", str(iosizer.family("mmc").example()), "--cpu-speed", "1", "-o",
               str(path)).exit_code == 0
    mu = iosizer.load_profile(path).parameters["service_rate_per_s"].value
    more = cli.json("queue", "mmc", "--profile", str(path), "--arrival-rate", "3500", "--servers", "5")
    assert more["mean_response"] == pytest.approx(float(mmc(3500.0, mu, 5).mean_response), rel=1e-12)
    _inside(more, "mean_response")
    here = cli.json("queue", "mmc", "--profile", str(path), "--arrival-rate", "3500")
    faster = cli.json("queue", "mmc", "--profile", str(path), "--arrival-rate", "3500", "--cpu-speed", "1.5")
    # One CPU measured: the rate spans s^0..s^1, so the band widens around the mid exponent.
    assert (faster["mean_response_ci_high"] - faster["mean_response_ci_low"]
            > 10 * (here["mean_response_ci_high"] - here["mean_response_ci_low"]))
    assert "give --profile" in cli.fails("queue", "mmc", "--arrival-rate", "1", "--service-rate", "2",
                                         "--servers", "1", "--cpu-speed", "2")


def test_pcie_link_profile_and_rmw_on_another_cpu(cli, tmp_path: Path) -> None:
    path = tmp_path / "link.json"
    assert cli("calibrate", "pcie-link", str(iosizer.family("pcie-link").example()), "-o", str(path)).exit_code == 0
    x8 = cli.json("pcie", "link", "--profile", str(path), "--transfer-bytes", "520")
    _inside(x8, "effective_gbyte_s")
    x16 = cli.json("pcie", "link", "--profile", str(path), "--transfer-bytes", "520", "--lanes", "16")
    assert x16["lanes"] == 16 and x16["effective_gbyte_s"] == pytest.approx(2 * x8["effective_gbyte_s"], rel=1e-9)
    here = cli.json("pcie", "rmw", "--lanes", "32")
    faster = cli.json("pcie", "rmw", "--lanes", "32", "--cpu-speed", "2")
    # The RMW time per access shrinks on a faster root complex (exponent in [-1, 0]): less loss.
    assert faster[0]["loss_pct"] < here[0]["loss_pct"]


def test_a_loadshare_profiles_switch_rule_is_kept_unless_an_option_changes_it(cli, profiles, tmp_path) -> None:
    threshold = tmp_path / "threshold.json"
    fitted = cli("calibrate", "loadshare", str(iosizer.family("loadshare").example()), "--set",
                 "switch_rule=threshold", "--cpu-speed", "1", "-o", str(threshold))
    assert fitted.exit_code == 0, fitted.stderr
    assert iosizer.load_profile(threshold).options["switch_rule"] == "threshold"
    rows = {r["policy"]: r for r in cli.json("loadshare", "compare", "--scenario", "skew", "--profile", str(threshold))}
    # Under the threshold rule multi-stage jumps at its switches; under system-response it does not.
    assert rows["multi-stage"]["singularity"] > 0.05
    rows = {r["policy"]: r for r in cli.json("loadshare", "compare", "--scenario", "skew", "--profile", str(threshold),
                                             "--switch-rule", "system-response")}
    assert rows["multi-stage"]["singularity"] == 0
    scenario = tmp_path / "kept.toml"
    scenario.write_text('[loadshare]\nprofile = "threshold.json"\nscenario = "skew"\npolicies = ["multi-stage"]\n')
    from iosizer.report.scenario import run_scenario

    jump = next(a for a in run_scenario(scenario).answers if "jump" in a.question)
    assert jump.value > 5 and "threshold" in jump.note
    sized = cli("size", "cores", "--load-cores", "2", "--target-response", "3", "--profile", str(threshold))
    assert sized.exit_code == 0 and "switch rule threshold" in sized.stdout
    sized = cli("size", "cores", "--load-cores", "2", "--target-response", "3", "--profile", str(threshold),
                "--switch-rule", "equal-response", "--cpu-speed", "2")
    assert sized.exit_code == 0 and "switch rule equal-response" in sized.stdout


def test_a_loadshare_profile_without_the_non_core_part_says_so(cli, profiles, tmp_path) -> None:
    import json

    document = json.loads(profiles["loadshare"].read_text())
    document["parameters"].pop("non_core_pct", None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(document))
    result = cli("loadshare", "compare", "--scenario", "skew", "--profile", str(old))
    assert result.exit_code == 0, result.stderr
    assert "records none" in result.stdout and "--non-core-pct" in result.stdout
    given = cli("loadshare", "compare", "--scenario", "skew", "--profile", str(old), "--non-core-pct", "10")
    assert given.exit_code == 0 and "non_core_pct = 10" in given.stdout.replace("\n", " ")
    assert "records none" not in given.stdout
