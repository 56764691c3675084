"""The report's tables: every row valid and live, typos refused, the predicates and templates as documented."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from iosizer.calibration.shipped import read_measurement
from iosizer.report import answers, checks, table


def _rules(spec: dict) -> list[tuple[str, dict]]:
    return [(block["name"], {**block.get("defaults", {}), **rule}) for block in spec["file"]
            for rule in block.get("check", ())]


@pytest.mark.parametrize("seed", table.seeds())
def test_every_row_of_every_table_applies_to_a_published_row(seed) -> None:
    # A `where` that matches no CSV row would be a check that silently never runs.
    for name, rule in _rules(table.table(seed)):
        rows = read_measurement(name)
        assert any(table._matches(rule, row) for row in rows), (seed, name, rule.get("where"))


def test_every_evaluator_predicate_and_band_rule_is_used() -> None:
    rules = [rule for seed in table.seeds() for _, rule in _rules(table.table(seed))]
    asked = {q for rule in rules for q in ([rule["question"]] if isinstance(rule["question"], str)
                                          else rule["question"])}
    assert asked == set(answers.QUESTIONS)
    assert {call[0] for rule in rules for call in rule.get("holds", ())} == set(table.PREDICATES)
    assert {rule["band"]["rule"] for rule in rules if "rule" in rule.get("band", {})} == set(table.BAND_RULES)
    assert set(checks.PROVIDERS) == set(table.seeds())


@pytest.mark.parametrize(("change", "message"), [
    (lambda rule: rule.update(expectd_miss="typo"), "unknown keys"),
    (lambda rule: rule.update(question="latency nothing"), "unknown question"),
    (lambda rule: rule.update(kind="guess"), "kind must be one of"),
    (lambda rule: rule.pop("column"), "missing"),
    (lambda rule: rule.update(band={"rule": "wishful"}), "unknown band rule"),
    (lambda rule: rule.update(holds=[["somehow", "model"]], claim="c", criterion="c"), "unknown"),
])
def test_a_typo_in_a_table_is_refused_with_its_place(change, message) -> None:
    spec = copy.deepcopy(table.table("seed001"))
    change(spec["file"][0]["check"][0])
    with pytest.raises(ValueError, match=message) as error:
        table.validate("seed001", spec)
    assert "seed001_table2_patterns, check 1" in str(error.value)


def test_a_table_whose_output_is_wrong_fails_and_its_uncovered_rows_fail(monkeypatch) -> None:
    # The table's own data decide the verdict: pointing the TLP check at the unaligned column fails it.
    spec = copy.deepcopy(table.table("seed001"))
    spec["file"] = spec["file"][:1]
    spec["file"][0]["check"][0]["column"] = "unaligned_per_kib"
    monkeypatch.setattr(table, "table", lambda seed: spec)
    seed = checks.run_seed("seed001", {"seed001": lambda: table.provide("seed001")})
    tlps = [c for c in seed.checks if c.quantity == "TLPs per transfer"]
    assert len(tlps) == 6 and all(c.status == checks.FAIL for c in tlps)
    assert {c.file for c in seed.checks if c.status == checks.NOT_COVERED} == \
        set(checks.seed_files("seed001")) - {"seed001_table2_patterns"}


def test_predicates() -> None:
    p = table.PREDICATES
    assert p["strictly_rising"]([[1, 2, 3], [0, 5, 6]]) and not p["strictly_rising"]([[1, 2, 3], [0, 5, 5]])
    assert p["strictly_falling"]([3.0, 2.0, 1.0]) and not p["strictly_falling"]([3.0, 3.0])
    assert p["at_most"](1.0 + 1e-13, 1.0, 1e-12) and not p["at_most"](1.1, 1.0)
    assert p["at_least"](np.array([2, 3]), np.array([2, 1])) and not p["above"](np.array([2, 3]), 2)
    assert p["within"](1.04, 1.0, 0.05) and p["apart"](15.0, 20.0, 1.5) and not p["apart"](15.0, 15.5, 1.5)
    assert p["equal"]([1, 4], [1, 4]) and p["equal"]("protocol", "protocol") and not p["equal"]("a", "b")


def test_templates_read_the_row_and_format_lists() -> None:
    assert table.fill("{x:.1f} % at {lanes:d} lanes; model {v}", {"x": [1.0, 2.25], "lanes": [8, 16],
                                                                    "v": [1, 4]}) == "1.0, 2.2 % at 8, 16 lanes; model [1, 4]"
    names = table._Names({"both": "{a} and {b}"}, {"a": "x", "b": "y"})
    assert table.fill("say {both}", names) == "say x and y"
    with pytest.raises(KeyError):
        table.fill("{nothing}", names)
