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
    """The section's layout; the simulations themselves are the test above (here, two canned tables)."""
    import iosizer.simulate.comparison as comparison

    row = {"load": "N = 1", "metric": "throughput_per_s", "analytic": 1.0, "simulated": 1.01, "ci_low": 0.99,
           "ci_high": 1.03, "within_ci": True, "gap_pct": -1.0, "replications": 2}
    levels = [{"level": level, **row} for level in LEVELS]
    canned = [comparison.Comparison("closed-network", "SimPy", "MVA (exact)", levels),
              comparison.Comparison("loadshare", "Ciw", "pooled M/M/K per core group (approximation)",
                                    [{"level": "low", **row, "within_ci": False}])]
    monkeypatch.setattr(comparison, "compare", lambda progress=None: canned)
    result = cli("report", "--output-dir", str(tmp_path / "r"), "--simulate", "--format", "json")
    assert result.exit_code == 0, result.stderr
    written = json.loads((tmp_path / "r" / "report.json").read_text())
    assert [t["family"] for t in written["simulation"]] == ["closed-network", "loadshare"]
    text = (tmp_path / "r" / "report.md").read_text()
    assert "## Analytic vs simulation" in text and "### loadshare: pooled M/M/K per core group" in text
    assert "| low | N = 1 | throughput_per_s | 1 | 1.01 | [0.99, 1.03] | **no** | -1.00 |" in text
