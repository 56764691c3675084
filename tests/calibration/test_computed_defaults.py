"""Two generic declarations (issue 24): an input's default computed from the values (``Input.default`` a
function: hba's LPAR2 sweep up to the port's ceiling) and a setting that picks a shipped profile's variant
(``ParameterSpec.variant``: hba's ``--port 8GFC`` sets the link rate), on a toy family registered as a
plugin would be (tests/calibration/toy_port_family.py)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

import iosizer
from iosizer.errors import InputError
from iosizer.model import registry
from iosizer.model.family import Input, ParameterSpec


@pytest.fixture()
def toy(monkeypatch):
    from iosizer.calibration import family_modules, frozen

    from tests.calibration import toy_port_family

    plugins = {**registry._plugins(), "toy-port": "tests.calibration.toy_port_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    # A built-in family's calibration module builds its variants; the toy's hook stands in for one.
    real = family_modules.calibration_module
    monkeypatch.setattr(family_modules, "calibration_module", lambda name: SimpleNamespace(
        shipped_profile=toy_port_family.shipped_profile) if name == "toy-port" else real(name))
    monkeypatch.setenv(frozen.CACHE_ENV, "off")
    frozen.shipped.cache_clear()
    yield iosizer.api.ModelFamily(registry.declaration("toy-port"))
    frozen.shipped.cache_clear()


def test_a_computed_default_sweeps_up_to_the_values_link(toy) -> None:
    rows = toy.ask("carry").records()
    assert [r["load_per_s"] for r in rows] == [0.0, 7.5, 15.0, 22.5, 30.0]
    assert toy.ask("carry", link_per_s=40.0).records()[-1]["load_per_s"] == 40.0
    assert toy.ask("carry", load_per_s=[5, 50]).records()[1]["carried_per_s"] == 30.0


def test_a_variant_setting_picks_the_shipped_profile_of_that_choice(toy, tmp_path) -> None:
    fast = toy.ask("carry", speed="Fast").records()
    assert [r["load_per_s"] for r in fast][-1] == 120.0
    assert "shipped 'toy-port' profile; given speed = fast" in "".join(toy.ask("carry", speed="fast").notes)
    # a value given beside it still wins
    assert toy.ask("carry", speed="fast", link_per_s=60.0).records()[-1]["carried_per_s"] == 60.0
    with pytest.raises(InputError, match="--speed must be one of slow, fast"):
        toy.ask("carry", speed="medium")
    from iosizer.calibration.frozen import shipped

    with pytest.raises(InputError, match="--speed picks one of the shipped 'toy-port' profiles"):
        toy.ask("carry", shipped("toy-port", "fast"), speed="slow")


def test_cli_help_and_api_schema_state_the_rule(toy, cli) -> None:
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    try:
        result = cli("toy-port", "carry", "--speed", "fast", "--format", "json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)[-1] == {"load_per_s": 120.0, "carried_per_s": 120.0}
        assert "[default: 0 to the link rate in 4 steps]" in " ".join(cli("toy-port", "carry", "--help").stdout.split())
    finally:
        root_command.cache_clear()
    spec = toy.declaration.question("carry").input("load_per_s")
    assert not spec.required and spec.sweep() == () and spec.to_dict()["default_rule"] == "0 to the link rate in 4 steps"


def test_a_variant_is_a_setting_with_named_choices() -> None:
    with pytest.raises(ValueError, match="a variant is a setting with named choices"):
        ParameterSpec("speed", "", 1.0, (0, 2), "assumed", "a test value", variant=True)
    assert Input("x", "1", default=lambda values, given: 3.0).sweep({}, {}) == (3.0,)
