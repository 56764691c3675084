"""``iosizer params FAMILY`` and ``iosizer families``: views of the family registry."""

from __future__ import annotations

import pytest

import iosizer


@pytest.mark.parametrize("name", iosizer.families())
def test_params_lists_every_declared_parameter(cli, name: str) -> None:
    rows = cli.json("params", name)
    declared = iosizer.family(name).parameters
    assert [r["name"] for r in rows] == [p.name for p in declared]
    for row, spec in zip(rows, declared):
        assert {"name", "unit", "value", "status", "source"} <= set(row)
        assert row["status"] == spec.status and row["source"] == spec.source


def test_params_hba_shows_the_assumed_storage_delay_with_its_reason(cli) -> None:
    rows = {r["name"]: r for r in cli.json("params", "hba")}
    storage = rows["storage_us"]
    assert (storage["value"], storage["unit"], storage["status"]) == (50.0, "us", "assumed")
    assert "not published" in storage["source"]
    assert rows["core_iops"]["status"] == "derived" and rows["cores"]["status"] == "published"


def test_params_shows_fitted_values_from_the_shipped_calibration(cli) -> None:
    rows = {r["name"]: r for r in cli.json("params", "oltp")}
    shipped = iosizer.family("oltp").shipped()
    assert rows["knee_latency_ns"]["status"] == "fitted"
    assert rows["knee_latency_ns"]["value"] == pytest.approx(shipped.parameters["knee_latency_ns"].value)


def test_params_table_and_unknown_family(cli) -> None:
    result = cli("params", "loadshare")
    assert result.exit_code == 0 and "comm_overhead_pct" in result.stdout and "assumed" in result.stdout
    assert "unknown family 'nope'" in cli.fails("params", "nope")


def test_families_lists_the_registry(cli) -> None:
    rows = cli.json("families")
    assert [r["family"] for r in rows] == iosizer.families()
    closed = next(r for r in rows if r["family"] == "closed-network")
    assert closed["inputs"] == ["population"] and closed["calibratable"] is True


def test_params_says_when_the_shipped_profile_departs_from_the_declaration(cli) -> None:
    # Issue 24: one default for one number. oltp's service_scv is declared 0 once; params, the shipped
    # profile and calibrate all hold it there (they used to say 0, 0 and 1).
    row = next(r for r in cli.json("params", "oltp") if r["name"] == "service_scv")
    assert row["value"] == 0.0 == iosizer.family("oltp").declaration.default("service_scv")
    assert row["status"] == "assumed" and not row["source"].startswith("the shipped profile holds it")
    assert iosizer.family("oltp").shipped().parameters["service_scv"].value == 0.0
    fitted = iosizer.family("oltp").calibrate(iosizer.family("oltp").example()).profile
    assert fitted.parameters["service_scv"].value == 0.0 and not fitted.parameters["service_scv"].vary
    # The example was made at the declared values, so its fit lands on its truth (knee 1400 ns, share 0.6).
    assert abs(fitted.parameters["knee_latency_ns"].value - 1400) < 15
    assert abs(fitted.parameters["serial_share"].value - 0.6) < 0.02
    for name in iosizer.families():  # a value the shipped fit moved says 'fitted'
        shipped = iosizer.family(name).shipped()
        for spec in iosizer.family(name).parameters:
            estimate = shipped.parameters.get(spec.name)
            if estimate is not None and estimate.vary:
                assert spec.status == "fitted", (name, spec.name)
