"""A setting of named choices swept as a leading text column (Question.sweeps), each choice on its own
values; a question at its family's own path; ``always_list``. On a toy plugin family
(tests/calibration/toy_sweep_family.py); replication's links, each with its own shipped values:
tests/model/test_replication_question.py."""

from __future__ import annotations

import json

import pytest

import iosizer
from iosizer.errors import InputError
from iosizer.model import registry
from iosizer.model.family import Input, Output, ParameterSpec, Question


@pytest.fixture()
def toy(monkeypatch):
    plugins = {**registry._plugins(), "toy-sweep": "tests.calibration.toy_sweep_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    return iosizer.api.ModelFamily(registry.declaration("toy-sweep"))


def test_choices_lead_the_records_in_the_order_given(toy) -> None:
    rows = toy.ask("toy-sweep", medium="fibre,cu").records()
    assert [(r["medium"], r["blocks"], r["rate_per_s"]) for r in rows] == [
        ("fibre", 1, 1000.0), ("fibre", 2, 2000.0), ("copper", 1, 30.0), ("copper", 2, 60.0)]
    assert [r["medium"] for r in toy.ask("toy-sweep", medium="all", blocks=1).records()] == ["copper", "fibre"]
    assert toy.ask("toy-sweep", medium=["fibre"], blocks=1).records() == [
        {"medium": "fibre", "blocks": 1, "rate_per_s": 1000.0}]
    # Left out: the profile's (here the declared) choice; one point is still a list (always_list).
    assert toy.ask("toy-sweep", blocks=3).to_data() == [{"medium": "copper", "blocks": 3, "rate_per_s": 90.0}]


@pytest.mark.parametrize(("given", "message"), [
    ("copper,", "--medium: 'copper,' has an empty item; give mediums separated by single commas"),
    ("copper,,fibre", "has an empty item"),
    ("copper,cu", "--medium: 'cu' is 'copper' again; list each once"),
    ("fibre,fibre", "--medium: 'fibre' is given twice; list each once"),
    ("", "--medium: expected one of copper, fibre, got ''"),
    ("glass", "--medium: unknown medium 'glass'"),
])
def test_bad_choices_name_the_option(toy, given: str, message: str) -> None:
    with pytest.raises(InputError) as error:
        toy.ask("toy-sweep", medium=given)
    assert message in str(error.value)


def test_a_choice_no_fitted_value_moves_has_no_band(toy) -> None:
    fit = toy.calibrate({"blocks": [1, 2, 3, 4], "rate_per_s": [19.0, 41.0, 60.0, 82.0]})
    rows = toy.ask("toy-sweep", fit.profile, medium="copper,fibre", blocks=2).records()
    copper, fibre = rows
    assert copper["rate_per_s_ci_low"] < copper["rate_per_s"] < copper["rate_per_s_ci_high"]
    assert fibre == {"medium": "fibre", "blocks": 2, "rate_per_s": 2000.0}


def test_own_path_on_every_surface(toy, cli) -> None:
    from iosizer.cli.catalogue import root_command
    from iosizer.serve.questions import question_paths

    assert toy.declaration.question("toy-sweep").path("toy-sweep") == ("toy-sweep",)
    assert question_paths()[("toy-sweep",)] == ("toy-sweep", "toy-sweep")  # POST /api/toy-sweep
    expected = [{"medium": "fibre", "blocks": 2, "rate_per_s": 2000.0}]
    assert iosizer.ask("toy-sweep", medium="fibre", blocks=2) == expected
    root_command.cache_clear()
    try:
        result = cli("toy-sweep", "--medium", "fibre", "--blocks", "2", "--format", "json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == expected
        assert "--medium" in cli("toy-sweep", "--help").stdout
    finally:
        root_command.cache_clear()


def test_declarations_refuse_what_cannot_be_swept() -> None:
    from iosizer.model.family import Column, Family, Role, Schema

    question = Question("q", "s", (Input("x", "1", (0, 1), default=0.5),), (Output("y", "1"),),
                        solve=lambda v, i: {"y": i["x"]}, sweeps=("n",))
    with pytest.raises(ValueError, match="sweeps \\['n'\\], not settings of named choices"):
        Family("f", "s", "t", (ParameterSpec("n", "1", 1.0, (0.0, 2.0), "assumed", "test", kind="setting"),),
               Schema("f", (Column("x", Role.input, "1"),)), lambda v, i: {}, "none", questions=(question,))
