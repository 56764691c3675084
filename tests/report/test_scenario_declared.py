"""A family's scenario table generated from its declared question: the rows it declares (Question.table),
a key's older name (table_keys), a table's own default (table_defaults), a swept setting as a list, every
value checked by its declaration and named by its key, and a derived row's joint band (TableRow.derive).
On a toy plugin family (tests/report/toy_table_family.py); replication's table: tests/report/test_scenario.py."""

from __future__ import annotations

import json

import pytest

import iosizer
from iosizer.calibration.uncertainty import propagate
from iosizer.errors import ScenarioError
from iosizer.model import registry
from iosizer.report import scenario as sc


@pytest.fixture()
def toy(monkeypatch):
    plugins = {**registry._plugins(), "toy-table": "tests.report.toy_table_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    declared = registry.declaration("toy-table")
    questions = list(declared.questions)
    table = sc.Family("toy-table", sc._declared_section(declared, questions),
                      sc._declared_evaluator("toy-table", questions), declared.summary, ("toy-table",))
    monkeypatch.setattr(sc, "FAMILIES", [table])
    return iosizer.api.ModelFamily(declared)


def _answers(text: str, folder=None) -> list[sc.Answer]:
    return sc.evaluate_scenario(sc.parse_scenario(text), folder=folder)


def test_declared_rows_with_the_tables_default_and_a_keys_older_name(toy) -> None:
    rows = [(a.question, a.value, a.unit, a.note) for a in _answers("[toy-table]\nblocks = 2\n")]
    # Left out, the medium is the table's default (both), not the command's (the profile's one).
    assert rows == [("rate over copper", 60.0, "1/s", "2 blocks"), ("rate over fibre", 2000.0, "1/s", "2 blocks"),
                    ("gain of fibre", pytest.approx(100 * (2000 / 60 - 1)), "%", "over the first")]
    older = _answers('[toy-table]\nmediums = ["fibre", "cu", "copper"]\nblocks = 1\n')  # "cu" is copper: once
    assert [a.question for a in older] == ["rate over fibre", "rate over copper", "gain of copper"]
    assert [a.question for a in _answers('[toy-table]\nmedium = "fibre"\nblocks = [1, 3]\n')] == [
        "rate over fibre", "rate over fibre"]


@pytest.mark.parametrize(("text", "message"), [
    ("blocks = 1000", "toy-table.blocks: blocks must lie in [1, 100] (1), got 1000"),
    ("blocks = [2, 0.5]", "toy-table.blocks: blocks must lie in [1, 100]"),
    ('mediums = ["glass"]', "toy-table.mediums: medium: unknown medium 'glass'"),
    ("medium = []", "toy-table.medium: give a medium or a list of them, not an empty list"),
    ("copper_per_s = -1", "toy-table.copper_per_s: copper_per_s must lie in [1e-06, 1000000000]"),
    ("blocks = \"2\"", "toy-table.blocks: expected a number or a list of numbers (1), got '2'"),
])
def test_each_value_is_checked_by_its_declaration_named_by_its_key(toy, text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as error:
        sc.parse_scenario(f"[toy-table]\n{text}\n", "s.toml")
    assert f"s.toml: {message}" in str(error.value)


def test_a_derived_row_is_banded_jointly_with_a_profile(toy, tmp_path) -> None:
    fit = toy.calibrate({"blocks": [1, 2, 3, 4], "rate_per_s": [19.0, 41.0, 60.0, 82.0]})
    (tmp_path / "toy.json").write_text(json.dumps(fit.profile.model_dump(mode="json")))
    text = '[toy-table]\nprofile = "toy.json"\nblocks = 2\n'
    # A profile answers as the command does: its own medium unless the table names some.
    assert [a.question for a in _answers(text, tmp_path)] == ["rate over copper"]
    copper, fibre, gain = _answers(text + 'medium = ["copper", "fibre"]\n', tmp_path)
    assert copper.ci_low < copper.value < copper.ci_high and "profile toy.json" in copper.note
    assert (fibre.ci_low, fibre.ci_high) == (None, None)  # nothing fitted moves fibre
    expected = propagate(fit.profile, lambda p: {"gain": 100 * (2000 / (2 * p["copper_per_s"]) - 1)})["gain"]
    assert (gain.ci_low, gain.ci_high) == pytest.approx(tuple(float(e) for e in expected), rel=1e-9)
    assert gain.ci_low < gain.value < gain.ci_high
