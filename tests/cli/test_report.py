"""``iosizer report``: the folder, --check, --format, atomic writing, bad targets."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Callable, Iterator

import pytest

from iosizer.report import checks
from iosizer.report.checks import Collector, Provided
from iosizer.calibration.shipped import measurement_names
from iosizer.report import document


@pytest.fixture(scope="module", autouse=True)
def providers_run_once() -> Iterator[None]:
    """Each seed's provider is computed once for this module (about half of a report's time, and the
    report runs a dozen times here); every call returns a fresh deep copy, so a test that alters the
    records (the broken provider below) alters only its own. The providers' own results are checked
    in tests/report; this module tests the command around them."""
    cached: dict[str, Provided] = {}

    def once(seed: str, provider: Callable[[], Provided]) -> Callable[[], Provided]:
        def call() -> Provided:
            if seed not in cached:
                cached[seed] = provider()
            return copy.deepcopy(cached[seed])
        return call

    with pytest.MonkeyPatch.context() as patch:
        for seed, provider in list(checks.PROVIDERS.items()):
            patch.setitem(checks.PROVIDERS, seed, once(seed, provider))
        yield


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, dict]:
    from typer.testing import CliRunner

    from iosizer.cli.app import app

    folder = tmp_path_factory.mktemp("r") / "out"
    result = CliRunner().invoke(app, ["report", "--output-dir", str(folder), "--format", "json"])
    assert result.exit_code == 0, result.stderr
    return folder, json.loads(result.stdout)


def test_report_folder_has_tables_and_plots(written) -> None:
    folder, data = written
    for name in ("report.md", "report.html", "report.json"):
        assert (folder / name).is_file()
    pngs = sorted(p.name for p in folder.glob("*.png"))
    assert pngs == sorted(data["plots"]) and len(pngs) >= 5
    assert all((folder / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    page = (folder / "report.html").read_text(encoding="utf-8")
    for png in pngs:  # referenced relatively, so the folder can move
        assert f"]({png})" in markdown and f'src="{png}"' in page
    for name in measurement_names():  # every CSV: checked, not modelled or no provider yet
        assert name in markdown and name in page
    assert "no provider yet" in markdown.lower()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    # Nothing left beside the folder.
    assert sorted(p.name for p in folder.parent.iterdir()) == ["out"]


def test_json_contract(written) -> None:
    _, data = written
    assert {"seeds", "passed", "failed", "output_dir"} <= set(data)
    check_keys = {"figure", "quantity", "published", "model", "difference", "tolerance", "within", "source", "note"}
    for seed in data["seeds"]:
        assert {"seed", "checks", "passed", "total", "failures"} <= set(seed)
        for check in seed["checks"]:
            assert check_keys <= set(check)
    assert data["passed"] == sum(s["passed"] for s in data["seeds"]) > 0
    assert data["failed"] == 0


def test_check_passes_on_the_shipped_data_and_lists_the_expected_misses(cli, tmp_path) -> None:
    result = cli("report", "--output-dir", str(tmp_path / "r"), "--check")
    assert result.exit_code == 0, result.stderr
    assert "Published figures: predictions" in result.stdout
    assert "expected miss: seed004" in result.stdout


def test_a_broken_provider_or_tolerance_fails_check(cli, tmp_path, monkeypatch) -> None:
    name = "seed001_table2_patterns"
    original = checks.PROVIDERS["seed001"]

    def off_by_one() -> Provided:
        provided = original()
        for record in provided.checks:
            if record.file == name and record.quantity == "TLPs per transfer":
                record.status = checks.FAIL  # as if the model gave one TLP too many
        return provided

    # The plots are tested above; here only the checks matter, so none are drawn (4 runs, ~1.5 s each).
    monkeypatch.setattr(document, "have_matplotlib", lambda: False)
    monkeypatch.setitem(checks.PROVIDERS, "seed001", off_by_one)
    result = cli("report", "--output-dir", str(tmp_path / "r"), "--check")
    assert result.exit_code == 1
    assert "failure: seed001: table 2, case A (512 B): TLPs per transfer" in result.stdout
    # Without --check the same report is written and the run succeeds.
    assert cli("report", "--output-dir", str(tmp_path / "r")).exit_code == 0

    def tight() -> Provided:  # a tolerance nothing can meet
        out = Collector("seed001")
        for line, row in out.rows(name):
            out.check(name, line, row, figure="table 2", quantity="q", unit="", column="unaligned_per_kib",
                      model=float(row["unaligned_per_kib"]) + 0.01)
        return out.provided()

    monkeypatch.setitem(checks.PROVIDERS, "seed001", tight)
    data = cli.json("report", "--output-dir", str(tmp_path / "r"))
    assert data["failed"] > 0
    assert cli("report", "--output-dir", str(tmp_path / "r"), "--check").exit_code == 1


def test_bad_output_dir(cli, tmp_path) -> None:
    file = tmp_path / "plain.txt"
    file.write_text("keep me")
    assert "exists and is not a folder" in cli.fails("report", "--output-dir", str(file))
    assert file.read_text() == "keep me"
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert "not an iosizer report" in cli.fails("report", "--output-dir", str(other))
    assert (other / "notes.txt").read_text() == "mine"
    # One rule for every output (issue 13): the folder it goes into must exist.
    assert "does not exist" in cli.fails("report", "--output-dir", str(file / "sub" / "out"))


def test_a_failed_write_keeps_the_old_report(cli, tmp_path, monkeypatch) -> None:
    folder = tmp_path / "r"
    assert cli("report", "--output-dir", str(folder)).exit_code == 0
    before = (folder / "report.md").read_text(encoding="utf-8")

    def explode(blocks):
        raise OSError("disk full")

    monkeypatch.setattr(document, "to_html", explode)
    result = cli("report", "--output-dir", str(folder))
    assert result.exit_code != 0 and "Traceback" not in result.stderr
    assert (folder / "report.md").read_text(encoding="utf-8") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]
    monkeypatch.undo()

    def half_drawn(report, path):  # the folder is being written: a chart fails after others were drawn
        def draw(temporary):
            if "seed001" in temporary.name:
                raise OSError("disk full")
            temporary.write_bytes(b"drawn")
        return draw

    from iosizer.report import plots

    monkeypatch.setattr(plots, "plot_writer", half_drawn)
    result = cli("report", "--output-dir", str(folder))
    assert result.exit_code != 0 and "Traceback" not in result.stderr and "disk full" in result.stderr
    assert (folder / "report.md").read_text(encoding="utf-8") == before
    assert (folder / "seed000_dma.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_without_matplotlib_the_tables_are_still_written(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(document, "have_matplotlib", lambda: False)
    data = cli.json("report", "--output-dir", str(tmp_path / "r"))
    assert data["plots"] == [] and "matplotlib" in data["plots_skipped"]
    assert not list((tmp_path / "r").glob("*.png"))
    assert "Plots skipped: matplotlib is not installed" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


def test_table_and_csv_formats(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(document, "have_matplotlib", lambda: False)  # stdout's formats only: no plots needed
    result = cli("report", "--output-dir", str(tmp_path / "r"))
    assert result.exit_code == 0
    assert all(f"seed00{i}" in result.stdout for i in range(5)) and "no provider yet" not in result.stdout
    result = cli("report", "--output-dir", str(tmp_path / "r"), "--format", "csv")
    assert result.exit_code == 0
    header = result.stdout.splitlines()[0].split(",")
    assert header[:3] == ["seed", "figure", "quantity"]


def test_ask_answers_the_report_as_the_cli(cli, tmp_path, monkeypatch) -> None:
    """iosizer.ask("report") is iosizer.tools.report, as the command prints it; the folder is the same; a bad
    folder is the command line's one-line error."""
    import iosizer

    monkeypatch.setattr(document, "have_matplotlib", lambda: False)
    printed = cli.json("report", "--output-dir", str(tmp_path / "a"))
    asked = iosizer.ask("report", output_dir=str(tmp_path / "b"), check=True)
    assert (printed.pop("output_dir"), asked.pop("output_dir")) == (str(tmp_path / "a"), str(tmp_path / "b"))
    assert asked == printed
    for name in ("report.md", "report.html", document.MARKER):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    with pytest.raises(iosizer.IosizerError, match=r"^--output-dir: folder '.*' of 'no/such/r' does not exist") as e:
        iosizer.ask("report", output_dir="no/such/r")
    assert "\n" not in str(e.value)
