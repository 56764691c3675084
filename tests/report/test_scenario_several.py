"""A scenario table of several questions of several families (ScenarioTable): its declared keys (types, bounds,
defaults), the keys checked together, the asks in order with one answer feeding the next question's input, an
ask left out by its condition, each family's profile and band. On two toy plugin families
(tests/report/toy_several_family.py); [latency] and [pcie]: tests/report/test_scenario.py."""

from __future__ import annotations

import json

import pytest

import iosizer
from iosizer.errors import ScenarioError
from iosizer.model import registry
from iosizer.report import scenario as sc


@pytest.fixture()
def chain(monkeypatch):
    module = "tests.report.toy_several_family"
    plugins = {**registry._plugins(), "toy-wire": module, "toy-queue": module}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    several = sc._several_tables()
    monkeypatch.setattr(sc, "FAMILIES", several + sc._declared_tables(several))
    return iosizer.api.ModelFamily(registry.declaration("toy-queue"))


def _answers(text: str, folder=None) -> list[sc.Answer]:
    return sc.evaluate_scenario(sc.parse_scenario(text), folder=folder)


def test_one_questions_answer_is_the_next_ones_input(chain) -> None:
    rows = [(a.family, a.question, a.value, a.unit, a.note) for a in _answers("[toy-chain]\nhops = 3\nextra_us = 4\n")]
    # The wire's delay (2 x 3 hops x 10 us) plus the table's extra is the queue's input; its service adds 10.
    assert rows == [("toy-chain", "wire delay", 60.0, "us", "3 hops"),
                    ("toy-chain", "response behind the wire", 74.0, "us", "shipped")]
    assert [a.question for a in _answers("[toy-chain]\nqueue = false\n")] == ["wire delay"]  # its condition


def test_the_families_a_table_answers_get_no_table_of_their_own(chain) -> None:
    keys = [f.key for f in sc.FAMILIES]
    assert "toy-chain" in keys and "toy-wire" not in keys and "toy-queue" not in keys
    assert keys.index("toy-chain") < keys.index("mmc")  # the tables of several questions come first


@pytest.mark.parametrize(("text", "message"), [
    ("hops = 0", "toy-chain: nothing between the server and its queue: give hops or extra_us"),
    ("hops = -1", "toy-chain.hops: must be >= 0, got -1"),
    ("hops = 11", "toy-chain.hops: must be <= 10, got 11"),
    ("hops = 1.5", "toy-chain.hops: expected a whole number, got 1.5"),
    ("extra_us = \"4us\"", "toy-chain.extra_us: expected a number, got '4us' (the unit, us, is in the key's name)"),
    ("queue = 1", "toy-chain.queue: expected true or false, got 1"),
    ("extra_ns = 4", "toy-chain: unknown key 'extra_ns' (wrong unit? the schema says extra_us, in us)"),
])
def test_each_key_is_checked_and_named(chain, text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as error:
        sc.parse_scenario(f"[toy-chain]\n{text}\n", "s.toml")
    assert str(error.value) == f"s.toml: {message}"


def test_each_family_answers_from_its_own_profile_with_its_band(chain, tmp_path) -> None:
    fit = chain.calibrate({"delay_us": [0.0, 10.0, 20.0, 30.0], "response_us": [5.2, 14.9, 25.1, 34.8]})
    (tmp_path / "queue.json").write_text(json.dumps(fit.profile.model_dump(mode="json")))
    wire, queue = _answers('[toy-chain]\nprofile = "queue.json"\nhops = 2\n', tmp_path)
    assert (wire.value, wire.ci_low, wire.ci_high) == (40.0, None, None)  # the wire's shipped profile: no band
    assert queue.value == pytest.approx(40.0 + fit.profile.parameters["service_us"].value)
    assert queue.ci_low < queue.value < queue.ci_high and queue.note == "profile queue.json"
    (tmp_path / "q2.json").write_text((tmp_path / "queue.json").read_text())
    with pytest.raises(ScenarioError, match="queue.json and q2.json are both 'toy-queue' profiles; give one per"):
        _answers('[toy-chain]\nprofile = ["queue.json", "q2.json"]\n', tmp_path)


def test_an_ask_carried_to_the_cpu_only_with_its_own_profile(chain, monkeypatch) -> None:
    from iosizer.calibration import questions

    asked, road = [], questions.answer

    def spy(family, question, params=None, **given):
        asked.append((family, given["cpu_speed"]))
        return road(family, question, params, **given)

    monkeypatch.setattr(questions, "answer", spy)
    # The wire (Ask.profile "profile") stays on its shipped values; the queue (the table's sources) is carried.
    _answers("[toy-chain]\ncpu_speed = 2\n")
    assert asked == [("toy-wire", None), ("toy-queue", 2.0)]


def test_latency_and_pcie_are_declared_tables_with_their_keys() -> None:
    latency, pcie = sc.FAMILIES[:2]
    assert (latency.key, latency.profiles, pcie.key, pcie.profiles) == ("latency", ("oltp", "dma"), "pcie",
                                                                        ("rmw", "pcie-link"))
    assert list(latency.section.model_fields) == ["profile", "cpu_speed", "switch", "hop_ns", "tiers",
                                                  "added_latency_ns", "budget_pct", "device", "burst_bytes"]
    assert list(pcie.section.model_fields) == ["profile", "cpu_speed", "generation", "lanes_per_port", "ports",
                                               "mps_bytes", "transfer_bytes", "split_at_64"]
    assert not {"oltp", "dma", "rmw", "pcie-link"} & {f.key for f in sc.FAMILIES}
