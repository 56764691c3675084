"""Issue 13: every input bounded, every failure a clean one-line error, nothing silently wrong.

One test per numbered case of the issue, run as the issue ran them.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from iosizer.cli.output import OUTPUT_RULE

EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "examples"
HAVE_PROC = Path("/proc").is_dir()


@pytest.fixture
def good_csv(tmp_path: Path) -> Path:
    path = tmp_path / "good.csv"
    shutil.copy(EXAMPLES / "hba_core_response.csv", path)
    return path


def _quick(cli, *args: str, limit_cpu_s: float = 20.0):
    """Run and check the work is bounded: CPU seconds of this process (a busy machine stretches wall time,
    not CPU time); the limit guards against unbounded work with a wide margin, it is not a speed test."""
    start = time.process_time()
    result = cli(*args)
    assert time.process_time() - start < limit_cpu_s, args
    return result


# --- 1. silently wrong: LPAR1's change against LPAR1 alone ----------------------------


@pytest.mark.parametrize("sweep", ["200000", "0,200000", "100000:200000:100000"])
def test_1_lpar1_change_is_against_lpar1_alone_whatever_the_sweep(cli, sweep: str) -> None:
    points = cli.json("hba", "isolation", "--lpar2-iops", sweep, "--mode", "shared")
    at = next(p for p in points if p["lpar2_offered_iops"] == 200_000)
    assert at["lpar1_iops"] == pytest.approx(180_000)
    assert at["lpar1_change_pct"] == pytest.approx(-40.0)


# --- 2. CPU speed bounded; a loss band never above 100 % --------------------------------


def test_2_cpu_speed_is_bounded_and_the_band_stays_within_0_100(cli) -> None:
    line = cli.fails("latency", "oltp", "--added-latency-ns", "0,2100", "--cpu-speed", "1e6", "--format", "csv")
    assert "--cpu-speed must lie in [0.015625, 64]" in line
    points = cli.json("latency", "oltp", "--added-latency-ns", "0,2100,10000000", "--cpu-speed", "64")
    for point in points:
        for key in ("degradation_pct", "degradation_pct_low", "degradation_pct_high"):
            assert 0.0 <= point[key] <= 100.0
    table = cli("latency", "oltp", "--added-latency-ns", "0,2100,10000000", "--cpu-speed", "64").stdout
    # The note appears exactly when an edge was clipped (the shipped constant-service profile's band stays
    # under 100 % here; the exponential one's did not).
    clipped = any(point["degradation_pct_high"] >= 100.0 for point in points)
    assert ("band clipped at 100 %" in table) == clipped


# --- 3. extrapolation: bounded factor, no duplicate CPUs ----------------------------------


@pytest.fixture
def profile(cli, good_csv: Path, tmp_path: Path) -> Path:
    path = tmp_path / "p.json"
    assert cli("calibrate", "mmc", str(good_csv), "--servers", "4", "--cpu-name", "old", "--cpu-speed", "1",
               "-o", str(path)).exit_code == 0
    return path


def test_3_extrapolation_is_bounded_and_refuses_the_same_cpu_twice(cli, profile: Path, tmp_path: Path) -> None:
    assert "--cpu-speed must lie in [0.015625, 64] (x), got 1e+300" in cli.fails(
        "extrapolate", str(profile), "--cpu-speed", "1e300")
    top = cli.json("extrapolate", str(profile), "--cpu-speed", "64")["parameters"]["service_rate_per_s"]
    assert top["ci_high"] < 64 * 2 * top["spread_low"]  # at most the declared factor, widened by the fit
    assert f"'{profile}' is given twice" in cli.fails("extrapolate", str(profile), str(profile), "--cpu-speed", "2")
    copy = tmp_path / "copy.json"
    shutil.copy(profile, copy)
    assert "are the same profile" in cli.fails("extrapolate", str(profile), str(copy), "--cpu-speed", "2")


@pytest.mark.parametrize("name", ["", "   "])
def test_3_an_empty_cpu_name_is_refused(cli, good_csv: Path, profile: Path, name: str) -> None:
    # An empty --cpu-name was recorded as the CPU's name: a profile that says nothing about its CPU.
    for args in (["calibrate", "mmc", str(good_csv), "--servers", "4", "--cpu-speed", "1"],
                 ["extrapolate", str(profile), "--cpu-speed", "2"]):
        assert "--cpu-name is empty" in cli.fails(*args, "--cpu-name", name)


def test_3_every_factor_between_two_cpus_is_bounded(cli, good_csv: Path, tmp_path: Path) -> None:
    slow = tmp_path / "slow.json"
    assert cli("calibrate", "mmc", str(good_csv), "--servers", "4", "--cpu-speed", "0.015625",
               "-o", str(slow)).exit_code == 0
    line = cli.fails("extrapolate", str(slow), "--cpu-speed", "2")
    assert "is 128 x the speed of the CPU the profile was measured on" in line


# --- 4. PCIe sizes: closed form, bounded ---------------------------------------------------


def test_4_huge_transfers_are_refused_at_once(cli) -> None:
    line = _quick(cli, "pcie", "link", "--transfer-bytes", "1000000000000").stderr
    assert "--transfer-bytes must lie in [1, 16777216] (bytes), got 1000000000000" in line
    assert "must lie in [1, 16777216]" in cli.fails("pcie", "pattern", "100000000000")
    # The largest transfer the declaration allows answers at once, in closed form.
    result = _quick(cli, "pcie", "pattern", "16777216", "--mps", "128", "--format", "json", limit_cpu_s=10)
    data = json.loads(result.stdout)
    assert len(data["tlp_bytes"]) == 131072 and data["unaligned_per_kib"] == 0
    assert "128 x 131072" in cli("pcie", "pattern", "16777216", "--mps", "128").stdout


# --- 5. loadshare sizes bounded --------------------------------------------------------------


def test_5_loadshare_cores_and_points_are_bounded(cli) -> None:
    assert "--cores must lie in [1, 256] (cores), got 100000" in _quick(
        cli, "loadshare", "compare", "--cores", "100000").stderr
    assert "--points must lie in [2, 2000] (points), got 10000000" in _quick(
        cli, "loadshare", "compare", "--points", "10000000").stderr
    # Within the bounds it answers; one-stage's maximum is its first saturation.
    rows = cli.json("loadshare", "compare", "--cores", "128", "--points", "1000")
    assert {r["policy"] for r in rows} == {"shared", "exclusive", "one-stage", "multi-stage"}


# --- 6. MVA population capped, and its work ----------------------------------------------------


def test_6_mva_population_is_capped_with_a_clear_message(cli) -> None:
    line = _quick(cli, "queue", "mva", "--population", "10000000", "--demand", "0.1", "--demand", "0.05").stderr
    assert "--population must lie in [1, 100000] (jobs), got 10000000" in line
    data = json.loads(_quick(cli, "queue", "mva", "--population", "100000", "--demand", "0.1", "--demand", "0.05",
                             "--format", "json").stdout)
    assert data["throughput"] == pytest.approx(10.0)
    line = _quick(cli, "queue", "mva", "--population", "100000", "--demand", "0.1", "--servers", "1000").stderr
    assert "lower the population or the servers" in line


# --- 7. output paths: one line, exit 2 ------------------------------------------------------------


@pytest.mark.parametrize("args", [
    pytest.param(["-o", "/proc/p.json"], marks=pytest.mark.skipif(not HAVE_PROC, reason="no /proc")),
    ["-o", "{folder}"],
    ["-o", ""],
    pytest.param(["--plot", "/proc/x.png"], marks=pytest.mark.skipif(not HAVE_PROC, reason="no /proc")),
])
def test_7_a_bad_output_path_is_a_one_line_error(cli, good_csv: Path, tmp_path: Path, args: list[str]) -> None:
    args = [a.replace("{folder}", str(tmp_path)) for a in args]
    line = cli.fails("calibrate", "mmc", str(good_csv), "--servers", "4", *args)
    assert f"'{args[1] or '.'}'" in line  # an empty name is the current folder
    assert "internal error" not in line


@pytest.mark.skipif(not HAVE_PROC, reason="no /proc")
def test_7_report_into_proc_is_a_one_line_error(cli) -> None:
    line = cli.fails("report", "--output-dir", "/proc/rep")
    assert "'/proc/rep'" in line and "does not accept new folders" in line


def test_7_every_plot_and_output_is_checked_before_computing(cli, tmp_path: Path) -> None:
    for args in (["queue", "mm1", "--arrival-rate", "1", "--service-rate", "2"], ["latency", "tiers"],
                 ["pcie", "rmw"], ["hba", "response"], ["replication"], ["loadshare", "curve"]):
        assert "is a folder" in cli.fails(*args, "--plot", str(tmp_path))
        assert "unknown picture type" in cli.fails(*args, "--plot", str(tmp_path / "x.gif"))


# --- 8. a failed command writes nothing ---------------------------------------------------------------


@pytest.mark.skipif(not HAVE_PROC, reason="no /proc")
def test_8_a_bad_plot_leaves_no_profile(cli, good_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    cli.fails("calibrate", "mmc", str(good_csv), "--servers", "4", "--plot", "/proc/x.png", "-o", str(out))
    assert not out.exists()


def test_8_a_plot_that_fails_while_drawing_leaves_no_profile(cli, good_csv: Path, tmp_path: Path,
                                                           monkeypatch) -> None:
    pytest.importorskip("matplotlib")
    from iosizer.report import plots

    def explode(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(plots, "draw_panel", explode)
    out, picture = tmp_path / "out.json", tmp_path / "fit.png"
    result = cli("calibrate", "mmc", str(good_csv), "--servers", "4", "--plot", str(picture), "-o", str(out))
    assert result.exit_code == 2 and "No space left on device" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.csv"]


# --- 9. absurd inputs refused with their bound ------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (["queue", "mmc", "--arrival-rate", "1", "--service-rate", "1", "--servers", "99999999999999999999"],
     "--servers must lie in [1, 10000000] (servers), got 1e+20"),
    (["queue", "mva", "--population", "10", "--demand", "0.1", "--servers", "99999999999999999999"],
     "--servers must list whole numbers of servers (1 to 100,000)"),
    (["replication", "--block-kib", "1e12"], "--block-kib must lie in [0.000976562, 1048576] (KiB)"),
    (["hba", "isolation", "--block-kib", "1e12"], "--block-kib must lie in [0.000976562, 16384] (KiB)"),
    (["hba", "response", "--threads", "100000"], "--threads must lie in [1, 65536] (I/Os)"),
    (["pcie", "rmw", "--lanes", "8000"], "--lanes must lie in [1, 128] (lanes), got 8000"),
    (["latency", "dma", "--device", "e1000", "--added-latency-ns", "1e300"], "--added-latency-ns must lie in"),
    (["replication", "--outstanding", "10000000"], "--outstanding must lie in [1, 65536]"),
    # The open queues' variability is declared once (iosizer.model.queueing.SCV): 1e308 once answered 1.7e306.
    (["queue", "ggc", "--arrival-rate", "1", "--service-rate", "2", "--servers", "2", "--service-scv", "1e308"],
     "--service-scv must lie in [0, 100] (1), got 1e+308"),
    (["queue", "ggc", "--arrival-rate", "1", "--service-rate", "2", "--servers", "2", "--arrival-scv", "101"],
     "--arrival-scv must lie in [0, 100] (1), got 101"),
    (["queue", "mg1", "--arrival-rate", "1", "--service-rate", "2", "--service-scv", "1e308"],
     "--service-scv must lie in [0, 100] (1), got 1e+308"),
    (["latency", "dma", "--profile", str(EXAMPLES / "dma.csv"), "--added-latency-ns", "1", "--burst-bytes", "0"],
     "--burst-bytes must lie in [1, 1048576] (bytes), got 0"),
])
def test_9_every_option_has_its_declared_bound(cli, args: list[str], message: str) -> None:
    assert message in cli.fails(*args)


# --- 10. what happened, in the user's words ---------------------------------------------------------------


def test_10_more_rows_than_points_is_explained(cli) -> None:
    table = cli("loadshare", "curve", "--points", "2").stdout
    assert "8 rows: 2 load points and both sides of 3 switching loads" in table


def test_10_a_repeated_link_is_refused(cli) -> None:
    assert "--link: '1g' is given twice" in cli.fails("replication", "--link", "1g,1g")


@pytest.mark.parametrize("links", ["1g,", ",1g", "1g,,10g", " , "])
def test_10_a_list_with_an_empty_item_is_refused(cli, links: str) -> None:
    # '1g,' once answered for 1g alone: a stray comma is a typo, said as such.
    line = cli.fails("replication", "--link", links)
    assert "--link" in line and ("empty item" in line or "expected one of" in line)


@pytest.mark.parametrize("args", [["pcie", "rmw", "--pattern", ""], ["size", "lanes", "--budget-pct", "10", "--pattern", ""],
                                  ["size", "hba", "--tenant-iops", "1000", "--target-response-us", "100",
                                   "--block-kib", ""]])
def test_10_an_empty_value_is_not_the_default(cli, args: list[str]) -> None:
    # An empty --pattern answered for the declared 520 B, an empty --block-kib for 4 KiB.
    line = cli.fails(*args)
    assert "got ''" in line


def test_10_servers_that_do_not_match_the_stations(cli) -> None:
    line = cli.fails("queue", "mva", "--population", "10", "--demand", "0.1", "--servers", "2", "--servers", "3")
    assert "servers lists 2 stations (2,3) but the network has 1" in line
    assert "shape" not in line


# --- 11. one rule for every output: its folder must exist ----------------------------------------------------


def test_11_no_output_creates_folders(cli, good_csv: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    for args in (["report", "--output-dir", str(missing / "a" / "b")],
                 ["calibrate", "mmc", str(good_csv), "--servers", "4", "-o", str(missing / "p.json")],
                 ["calibrate", "mmc", str(good_csv), "--servers", "4", "--plot", str(missing / "x.png")]):
        line = cli.fails(*args)
        assert "does not exist" in line and OUTPUT_RULE in line
    assert not missing.exists()


def test_11_an_output_under_a_file_says_the_file_is_in_the_way(cli, good_csv: Path, tmp_path: Path) -> None:
    # '/tmp/afile/p.json' said "folder '/tmp/afile' does not exist": it does, as a file.
    blocker = tmp_path / "afile"
    blocker.write_text("")
    for args in (["report", "--output-dir", str(blocker / "sub")],
                 ["calibrate", "mmc", str(good_csv), "--servers", "4", "-o", str(blocker / "p.json")],
                 ["queue", "mm1", "--arrival-rate", "1", "--service-rate", "2", "--plot", str(blocker / "a" / "x.png")]):
        line = cli.fails(*args)
        assert f"'{blocker}' is a file, not a folder" in line or f"'{blocker}' of " in line
        assert "is a file, not a folder" in line
    assert blocker.read_text() == ""


@pytest.mark.parametrize("args", [["queue", "mmc", "--arrival-rate", "1", "--profile", ""],
                                  ["calibrate", "mmc", "", "--servers", "4"]])
def test_11_an_empty_input_path_says_it_is_empty(cli, args: list[str]) -> None:
    # The command line reads '' as '.', and the error said ".: cannot read ... (Is a directory)".
    assert "path is empty (or the current folder)" in cli.fails(*args)


# --- 12. errors as data ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "kind"), [
    (["queue", "mmc", "--arrival-rate", "5", "--service-rate", "1", "--servers", "4", "--format", "json"],
     "UnstableQueueError"),
    (["queue", "mmc", "--arrival-rate", "1", "--service-rate", "1", "--servers", "0", "-f", "json"], "InputError"),
    (["queue", "mmc", "--arrival-rate", "1", "--service-rate", "x", "--servers", "4", "--format=json"],
     "InputError"),
    (["queue", "ggc", "--arrival-rate", "1", "--service-rate", "x", "--servers", "4", "--format=json"],
     "InputError"),
    (["simulate", "ggc", "--arrival-rate", "1", "--service-rate", "2", "--servers", "x", "--format=json"],
     "BadParameter"),
    (["queue", "mmc", "--arrival-rate", "1", "--bogus", "-f", "json"], "NoSuchOption"),
    (["pcie", "pattern", "-fjson", "Z"], "InputError"),
])
def test_12_with_format_json_an_error_is_a_json_object_too(cli, args: list[str], kind: str) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    error = json.loads(result.stdout)
    assert error == {"error": error["error"], "kind": kind, "exit": 2}
    assert result.stderr.strip() == "iosizer: error: " + error["error"]


@pytest.mark.parametrize(("option", "value"), [("--servers", "2.5"), ("--servers", "many"), ("--service-rate", "abc")])
def test_12_a_value_the_option_cannot_read_is_quoted(cli, option: str, value: str) -> None:
    # "Input should be a valid integer, unable to parse string as an integer" did not say what was typed.
    if option == "--servers":  # a hand-written command: typer reads the value
        line = cli.fails("simulate", "ggc", "--arrival-rate", "1", "--service-rate", "2", option, value)
        assert f"Invalid value for '{option}'" in line and f"got '{value}'" in line
    # A declared question checks the value by its declaration, and says what was typed too.
    args = {"--arrival-rate": "1", "--service-rate": "2", "--servers": "2", option: value}
    for question in ("mmc", "ggc"):
        declared = cli.fails("queue", question, *[w for pair in args.items() for w in pair])
        assert option in declared and (f"got '{value}'" in declared or f"got {value}" in declared)


def test_12_without_json_stdout_stays_empty(cli) -> None:
    result = cli("queue", "mmc", "--arrival-rate", "5", "--service-rate", "1", "--servers", "4", "-f", "csv")
    assert result.exit_code == 2 and result.stdout == ""
