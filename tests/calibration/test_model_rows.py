"""Questions whose rows the model picks (Question.rows) and the declarations they need (a toy M/M/1 curve,
tests/calibration/toy_rows_family.py, registered as a plugin would be): integer, vector, optional and
``only_with`` outputs, unbanded outputs, percentiles placed before the columns that come and go,
``ParameterSpec.excludes`` and ``from_profile``."""

from __future__ import annotations

import json

import pytest

import iosizer
from iosizer.errors import InputError
from iosizer.model import registry


@pytest.fixture()
def toy(monkeypatch):
    plugins = {**registry._plugins(), "toy-rows": "tests.calibration.toy_rows_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    return iosizer.api.ModelFamily(registry.declaration("toy-rows"))


def test_the_model_picks_the_rows_and_their_shapes(toy) -> None:
    rows = toy.ask("curve").to_data()
    assert [r["arrival_rate_per_s"] for r in rows] == pytest.approx([2.25, 4.5, 6.75, 9.0])
    assert [r["response_s"] for r in rows] == pytest.approx([1 / 7.75, 1 / 5.5, 1 / 3.25, 1.0])
    assert [r["in_system"] for r in rows] == [0, 0, 2, 9] and all(type(r["in_system"]) is int for r in rows)
    assert rows[2]["loads_below"] == pytest.approx([0.225, 0.45]) and rows[0]["loads_below"] == []
    assert rows[3]["busy_warning_pct"] == pytest.approx(90.0)  # optional: the solve gave it
    assert "capacity_per_s" not in rows[0]  # only with the planner's service rate
    assert len(toy.ask("curve", points=6).to_data()) == 6
    assert list(toy.ask("curve", points=2).to_data()[0]) == ["preset", "arrival_rate_per_s", "response_s",
                                                           "in_system", "loads_below", "busy_warning_pct"]
    assert json.loads(toy.ask("curve", points=2).to_json())[0]["in_system"] == 0


def test_optional_and_only_with_outputs(toy) -> None:
    given = toy.ask("curve", service_rate_per_s=20.0, points=3).to_data()
    assert [r["capacity_per_s"] for r in given] == [20.0] * 3
    # 0.9 of the rate always passes 80 %: the warning is there; a solve that leaves it out has no key
    assert all("busy_warning_pct" in r for r in given)


def test_percentiles_sit_before_the_columns_that_come_and_go(toy) -> None:
    row = toy.ask("curve", points=2, service_rate_per_s=10.0, percentiles=[90]).to_data()[0]
    keys = list(row)
    assert keys.index("response_p90_s") < keys.index("busy_warning_pct") < keys.index("capacity_per_s")
    assert row["response_p90_s"] == pytest.approx(-__import__("math").log(0.1) / (10 - 4.5))


def test_bands_at_the_same_rows_on_the_banded_outputs_only(toy) -> None:
    fit = toy.calibrate({"arrival_rate_per_s": [1.0, 3.0, 5.0, 7.0, 9.0],
                         "response_s": [0.091, 0.111, 0.143, 0.2, 0.32]})
    assert fit.profile.parameters["service_rate_per_s"].vary
    rows = toy.ask("curve", fit.profile, percentiles=[90]).to_data()
    centre = fit.profile.value("service_rate_per_s")
    assert rows[0]["arrival_rate_per_s"] == pytest.approx(0.9 * centre / 4)
    assert all(r["response_s_ci_low"] < r["response_s"] < r["response_s_ci_high"] for r in rows)
    assert not any(k.endswith("_ci_low") and k != "response_s_ci_low" for r in rows for k in r)
    assert rows[0]["capacity_per_s"] == pytest.approx(centre)  # the planner's profile: answered


def test_a_setting_that_replaces_another_and_one_a_profile_never_sets(toy) -> None:
    assert toy.ask("curve", mix="1,2", points=2).to_data()[0]["preset"] == "1,2"
    with pytest.raises(InputError, match="give preset or mix, not both"):
        toy.ask("curve", mix="1,2", preset="large")
    with pytest.raises(InputError, match="mix must be whole numbers"):
        toy.ask("curve", mix="1,x")
    from iosizer.calibration.profile import declared_profile

    profile = declared_profile("toy-rows", {"preset": "large", "points": 3})
    rows = toy.ask("curve", profile).to_data()
    assert len(rows) == 4 and rows[0]["preset"] == "small"  # the question's own choices: declared unless given
