"""Text outputs (Output.text): words a question answers beside its numbers (a layout, a bound).

A toy family (tests/calibration/toy_text_family.py, registered as a plugin would be) caps a rate by
the slower of a CPU and a link and names which one: the words reach JSON, CSV and tables as they are,
and never get a band, a plot or a sizing.
"""

from __future__ import annotations

import json

import pytest

import iosizer
from iosizer.model import registry
from iosizer.model.family import Input, Output, Plot, Question, Sizing


@pytest.fixture()
def toy(monkeypatch):
    plugins = {**registry._plugins(), "toy-text": "tests.calibration.toy_text_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    return iosizer.api.ModelFamily(registry.declaration("toy-text"))


def test_words_come_out_as_they_are(toy) -> None:
    rows = toy.ask("cap").records()
    # cpu 100/s against a link of 30/s per block: the link caps 1 to 3 blocks, the CPU 4 (120 > 100)
    assert [(r["blocks"], r["rate_per_s"], r["bound"]) for r in rows] == [
        (1, 30.0, "link"), (2, 60.0, "link"), (3, 90.0, "link"), (4, 100.0, "cpu")]
    assert toy.ask("cap", blocks=4).to_data() == {"blocks": 4, "rate_per_s": 100.0, "bound": "cpu"}


def test_a_profile_bands_the_numbers_and_never_the_words(toy, tmp_path) -> None:
    data = {"blocks": [1, 2, 3, 4, 5], "rate_per_s": [19.0, 41.0, 60.0, 82.0, 99.0]}
    fit = toy.calibrate(data)
    assert fit.profile.parameters["link_per_s"].vary
    row = toy.ask("cap", fit.profile, blocks=2).to_data()
    assert row["bound"] == "link" and "bound_ci_low" not in row and "bound_ci_high" not in row
    assert row["rate_per_s_ci_low"] < row["rate_per_s"] < row["rate_per_s_ci_high"]


def test_cli_json_csv_and_table_carry_the_words(toy, cli) -> None:
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    try:
        result = cli("toy-text", "cap", "--blocks", "2,4", "--format", "json")
        assert result.exit_code == 0, result.output
        assert [r["bound"] for r in json.loads(result.stdout)] == ["link", "cpu"]
        csv = cli("toy-text", "cap", "--blocks", "2,4", "--format", "csv").stdout.splitlines()
        assert csv[0].split(",")[-1] == "bound" and csv[1].endswith(",link") and csv[2].endswith(",cpu")
        table = cli("toy-text", "cap", "--blocks", "4").stdout
        assert "cpu" in table
    finally:
        root_command.cache_clear()


def test_a_text_output_cannot_be_plotted_or_sized() -> None:
    inputs = (Input("blocks", "1", (1, 100), default=1),)
    outputs = (Output("rate_per_s", "1/s"), Output("bound", "", text=True))
    with pytest.raises(ValueError, match="bound is a text output"):
        Question("q", "s", inputs, outputs, solve=lambda v, i: {}, plot=Plot("blocks", ("bound",)))
    with pytest.raises(ValueError, match="bound is a text output"):
        Question("q", "s", inputs, outputs, solve=lambda v, i: {}, sizing=(Sizing("blocks", "bound"),))
    assert Question("q", "s", inputs, outputs, solve=lambda v, i: {}).text_outputs == ("bound",)
    assert outputs[1].to_dict()["text"] is True and "text" not in outputs[0].to_dict()


def test_a_published_form_its_switch_and_its_named_positional_input(toy, cli) -> None:
    """Generic pieces of a hand-written command's form: Input(named=..., argument=True), an on/off setting
    (ParameterSpec.switch: --doubled/--no-doubled), Question.shape with shape_table and an output alias."""
    from iosizer.cli.catalogue import root_command

    assert toy.ask("published", blocks="FOUR").to_data() == {"blocks": 4, "doubled": 0, "rate_per_s": 100.0,
                                                              "rate": 100.0, "bound": "cpu"}
    root_command.cache_clear()
    try:
        data = json.loads(cli("toy-text", "published", "four", "--doubled", "--format", "json").stdout)
        # twice the link, 60/s per block: 1 block is link-bound, 4 blocks are capped by the CPU's 100/s
        assert (data["doubled"], data["rate_per_s"], data["bound"]) == (1, 100.0, "cpu")
        sweep = json.loads(cli("toy-text", "published", "1,4", "--no-doubled", "--format", "json").stdout)
        assert [(r["rate_per_s"], r["bound"]) for r in sweep] == [(30.0, "link"), (100.0, "cpu")]
        csv = cli("toy-text", "published", "1,4", "--format", "csv").stdout.splitlines()
        assert csv[0] == "blocks,doubled,rate_per_s,bound"  # the shaped records, the deprecated 'rate' left out
        table = cli("toy-text", "published", "1").stdout  # one point: a metric per row
        assert "metric" in table and "rate_per_s" in table and "│ rate " not in table
        assert "or one of four, got 'five'" in cli.fails("toy-text", "published", "five")
    finally:
        root_command.cache_clear()
