"""The declaration's answer shapes (iosizer.model.family.Question): keys that appear only sometimes,
object outputs, answers that are always a list, the question's own settings and flags, a published
shape, several profiles and a question's own CPU assumption; one toy family
(tests/calibration/toy_shapes_family.py), registered as a plugin would be, on every surface."""

from __future__ import annotations

import json

import pytest

import iosizer
from iosizer.errors import InputError
from iosizer.model import registry


@pytest.fixture()
def toy(monkeypatch):
    plugins = {**registry._plugins(), "toy-shapes": "tests.calibration.toy_shapes_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    return iosizer.api.ModelFamily(registry.declaration("toy-shapes"))


def test_an_optional_key_appears_only_where_it_has_a_value(toy) -> None:
    rows = toy.ask("plain", x=[1, 2]).to_data()
    assert rows[0] == {"x": 1.0, "y": 2.0, "published": 7.0}
    assert rows[1] == {"x": 2.0, "y": 4.0}  # no published figure at 2: no key (not null)


def test_an_object_output_and_a_flag(toy) -> None:
    row = toy.ask("plain", x=3, show_formula=True).to_data()
    assert row == {"x": 3.0, "y": 6.0, "formula": {"text": "a*x", "symbols": {"a": "slope"}}}
    assert "formula" not in toy.ask("plain", x=3).to_data()
    with pytest.raises(InputError, match="show_formula"):
        toy.ask("plain", x=3, show_formula=2)


def test_the_published_shape_is_always_a_list_and_reads_the_settings(toy) -> None:
    answer = toy.ask("line", x=1, label="second")
    assert answer.to_data() == [{"label": "second", "x": 1.0, "y_scaled": 2.0, "published": 7.0}]
    assert answer.records() == [{"x": 1.0, "y": 2.0, "published": 7.0}]  # the generic records stay
    with pytest.raises(InputError, match="label must be one of first, second"):
        toy.ask("line", x=1, label="third")


def test_the_questions_own_cpu_assumption(toy) -> None:
    # power given: --cpu-speed is the question's own assumption, x felt as x s^power, nothing carried:
    # y = 2 x 2 x 4^0.5.
    assert toy.ask("line", x=2, cpu_speed=4, power=0.5).to_data()[0]["y_scaled"] == pytest.approx(8.0)
    with pytest.raises(InputError, match="need --cpu-speed and one profile"):
        toy.ask("line", x=2, power=0.5)


def test_the_generated_command_and_route(toy, cli) -> None:
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    try:
        result = cli("toy-shapes", "line", "--x", "1,2", "--label", "second", "--show-formula", "--format", "json")
        assert result.exit_code == 0, result.stderr
        rows = json.loads(result.stdout)
        assert [r["y_scaled"] for r in rows] == [2.0, 4.0] and rows[0]["formula"]["text"] == "a*x"
        assert "published" in rows[0] and "published" not in rows[1]
        bad = cli("toy-shapes", "line", "--x", "1", "--label", "nope")
        assert bad.exit_code == 2 and "label" in bad.stderr
    finally:
        root_command.cache_clear()
    from iosizer.serve.questions import answer_json, request_model

    model = request_model(registry.declaration("toy-shapes"), registry.declaration("toy-shapes").question("line"))
    assert model.model_fields["show_formula"].annotation == bool | None
    body = {"x": "1,2", "label": "second", "show_formula": True}
    assert json.loads(answer_json("toy-shapes", "line", body)) == rows


def test_several_profiles_are_extrapolated(toy) -> None:
    from iosizer.calibration.profile import declared_profile

    slow = declared_profile("toy-shapes", cpu_speed=1.0, cpu_name="slow")
    with pytest.raises(InputError, match="several profiles need --cpu-speed"):
        toy.ask("plain", [slow, slow.model_copy(update={"cpu_speed": 2.0})], x=1)
    row = toy.ask("plain", [slow, slow.model_copy(update={"cpu_speed": 2.0})], cpu_speed=3, x=1).to_data()
    assert row["y"] == pytest.approx(2.0)  # a fixed parameter carries unchanged
