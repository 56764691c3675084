from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.parametrize("name", ["oltp_pcie_fabric", "replicated_flash_cache", "replicated_flash_cache.toml",
                                  "shared_fc_storage", "calibrated_fc_port"])
def test_shipped_examples(cli, name: str) -> None:
    data = cli.json("run", name)
    assert data["answers"] and {"family", "question", "value", "ci_low", "ci_high", "unit", "note"} == set(
        data["answers"][0])
    assert cli("run", name).exit_code == 0


def test_csv_and_list(cli) -> None:
    lines = cli("run", "replicated_flash_cache", "--format", "csv").stdout.splitlines()
    assert lines[0] == "family,question,value,unit,note" and len(lines) > 1
    listing = cli.json("run", "--list")
    assert {row["example"] for row in listing} == {"oltp_pcie_fabric", "replicated_flash_cache", "shared_fc_storage",
                                                   "calibrated_fc_port"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[replication]\nblok_kib = 4", "unknown key 'blok_kib' (did you mean block_kib?)"),
        ('[replication]\nblock_kib = "4KB"', "expected a number"),
        ("[replication]\nblock_kib = -4", "block_kib must lie in [0.000976562, 1048576] (KiB), got -4"),
        ("[replication\n", "malformed TOML"),
    ],
)
def test_bad_files(cli, tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    line = cli.fails("run", str(path))
    assert message in line and "scenario.toml" in line


def test_missing(cli, tmp_path: Path) -> None:
    assert "no such file" in cli.fails("run", str(tmp_path / "absent.toml"))
    assert "give a scenario file" in cli.fails("run")


def test_bands_show_only_when_some_answer_has_one(cli) -> None:
    lines = cli("run", "calibrated_fc_port", "--format", "csv").stdout.splitlines()
    assert lines[0] == "family,question,value,ci_low,ci_high,unit,note"
    data = cli.json("run", "calibrated_fc_port")
    assert data["notes"] == ["hba: profile fc_port_hba.json, carried to CPU speed 1.3; "
                             "ci_low/ci_high: 95 % bands from the profiles' intervals"]
    assert all(a["ci_low"] <= a["value"] <= a["ci_high"] for a in data["answers"])
    table = cli("run", "calibrated_fc_port").stdout
    assert "ci_low" in table and "carried to CPU speed 1.3" in table
    plain = cli.json("run", "shared_fc_storage")
    assert "notes" not in plain and all(a["ci_low"] is None for a in plain["answers"])
    assert "ci_low" not in cli("run", "shared_fc_storage").stdout
