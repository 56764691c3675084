"""``iosizer report --simulate``: three load levels per family, analytic beside simulated."""

from __future__ import annotations

import json

from iosizer.simulate.comparison import LEVELS, compare, points


def test_every_family_has_three_load_levels() -> None:
    found = {}
    for point in points():
        found.setdefault(point.family, []).append(point.level)
    assert set(found) == {"mmc", "closed-network", "oltp", "dma", "rmw", "hba", "loadshare", "replication"}
    assert all(levels == list(LEVELS) for levels in found.values())


def test_a_quick_comparison_has_a_row_per_level_and_metric() -> None:
    tables = compare(replications=2, run_length=200, workers=1)
    assert [t.family for t in tables] == ["mmc", "closed-network", "oltp", "dma", "rmw", "hba", "loadshare",
                                          "replication"]
    for table in tables:
        assert {r["level"] for r in table.rows} == set(LEVELS)
        assert all({"metric", "analytic", "simulated", "ci_low", "ci_high", "within_ci", "gap_pct"} <= set(r)
                   for r in table.rows)
    dma = next(t for t in tables if t.family == "dma")
    assert all(r["within_ci"] and abs(r["gap_pct"]) < 1e-9 for r in dma.rows)  # deterministic: exact agreement


def test_report_simulate_adds_the_section(cli, tmp_path, monkeypatch) -> None:
    import iosizer.simulate.comparison as comparison

    quick = comparison.compare
    monkeypatch.setattr(comparison, "compare",
                        lambda progress=None: quick(replications=2, run_length=200, workers=1, progress=progress))
    result = cli("report", "--output-dir", str(tmp_path / "r"), "--simulate", "--format", "json")
    assert result.exit_code == 0, result.stderr
    written = json.loads((tmp_path / "r" / "report.json").read_text())
    assert [t["family"] for t in written["simulation"]][:2] == ["mmc", "closed-network"]
    text = (tmp_path / "r" / "report.md").read_text()
    assert "## Analytic vs simulation" in text and "### loadshare: M/M/k per port group" in text
