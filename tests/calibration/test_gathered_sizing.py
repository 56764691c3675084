"""A sizing command of by-products alone, its answers gathered into one published record (``Sizing.always``,
``Sizing.once``, ``Sizing.unbounded``, ``SizingCommand.gather``), resolved on a catalogue entry as the
question road resolves it (:func:`iosizer.calibration.questions.resolved`), on a toy family
(tests/calibration/toy_gather_family.py, registered as a plugin would be). ``size latency`` is the built-in
user."""

from __future__ import annotations

import json
import types

import pytest

import iosizer
from iosizer.calibration import family_modules
from iosizer.errors import InputError
from iosizer.model import registry

from tests.calibration import toy_gather_family


@pytest.fixture()
def toy(monkeypatch):
    plugins = {**registry._plugins(), "toy-gather": "tests.calibration.toy_gather_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    found = family_modules.calibration_module
    catalogue = types.SimpleNamespace(catalogue_entry=toy_gather_family.catalogue_entry)
    monkeypatch.setattr(family_modules, "calibration_module",
                        lambda name: catalogue if name == "toy-gather" else found(name))
    return iosizer.api.ModelFamily(registry.declaration("toy-gather"))


def test_a_command_of_by_products_needs_no_target_and_answers_one_record(toy) -> None:
    answer = toy.size(command="route")
    slack = 0.05 - 1 / 100
    assert answer.to_data() == {"budget_s": 0.05, "slack_s": slack,
                                "hops": [{"hop_s": 0.001, "max_hops": int(slack // 0.001)},
                                         {"hop_s": 0.004, "max_hops": int(slack // 0.004)}]}
    assert answer.title == "Hops within 0.05 s"
    assert answer.notes == (f"slack {slack} s for 0.001 s hops",)  # the once-answer and the first point's
    assert answer.shown() == answer.to_data()["hops"]  # the table and CSV: a row per point
    assert toy.size(command="route", budget_s=0.2, hop_s=[0.05]).to_data()["hops"] == [
        {"hop_s": 0.05, "max_hops": 3}]


def test_a_catalogue_entry_is_resolved_as_the_question_road_resolves_it(toy) -> None:
    slow = toy.size(command="route", link="slow", hop_s=[0.001]).to_data()
    assert slow["slack_s"] == pytest.approx(0.05 - 0.02 - 0.01)
    free = toy.size(command="route", link="free", hop_s=[0.001]).to_data()
    assert free["slack_s"] is None and free["hops"] == [{"hop_s": 0.001, "max_hops": None}]  # unbounded: null
    with pytest.raises(InputError, match="give either --link NAME or --profile FILE"):
        toy.size(toy.shipped(), command="route", link="slow")


def test_a_profile_bands_each_answer_and_an_exact_fit_leaves_what_declares_it_unbounded(toy) -> None:
    shipped = toy.shipped()
    rate = shipped.parameters["rate_per_s"].model_copy(update={"vary": True, "ci_low": 50.0, "ci_high": 200.0})
    banded = toy.size(shipped.model_copy(update={"parameters": {"rate_per_s": rate}}), command="route",
                      hop_s=[0.001]).to_data()
    assert banded["slack_s_ci_low"] == pytest.approx(0.05 - 1 / 50)
    assert banded["slack_s_ci_high"] == pytest.approx(0.05 - 1 / 200)
    assert banded["hops"][0]["max_hops_ci_low"] == int((0.05 - 1 / 50) // 0.001)
    exact = shipped.parameters["rate_per_s"].model_copy(update={"vary": True})  # no interval: an exact fit
    unbounded = toy.size(shipped.model_copy(update={"parameters": {"rate_per_s": exact}}), command="route",
                         hop_s=[0.001]).to_data()
    assert unbounded["slack_s_ci_low"] is None and unbounded["slack_s_ci_high"] is None
    assert "max_hops_ci_low" not in unbounded["hops"][0]  # Sizing.unbounded=False: no keys


def test_the_command_prints_the_gathered_rows(toy, cli) -> None:
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    try:
        result = cli("size", "route", "--hop-s", "0.001", "--hop-s", "0.004", "--format", "json")
        assert result.exit_code == 0, result.stderr
        assert [h["hop_s"] for h in json.loads(result.stdout)["hops"]] == [0.001, 0.004]
        csv = cli("size", "route", "--format", "csv")
        assert csv.stdout.splitlines()[0] == "hop_s,max_hops"
        table = cli("size", "route", "--budget-s", "0.2")
        assert "Hops within 0.2 s" in table.stdout and "slack" in table.stdout
    finally:
        root_command.cache_clear()
