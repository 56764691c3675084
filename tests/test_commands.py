"""The commands :mod:`iosizer.commands` declares: the CLI takes the same fields and prints the same answer.

Until the CLI's commands are generated from these declarations, each typer
command's click parameters are read back (:mod:`iosizer.cli.catalogue`) and
compared with its declaration, field by field: a flag or a help text changed
on one side only fails here.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

import iosizer
from iosizer import commands


def _click_leaf(path: tuple[str, ...]):
    from iosizer.cli.catalogue import _leaves, root_command

    return dict(_leaves(root_command()))[path]


@pytest.mark.parametrize("path", sorted(commands.DECLARED))
def test_the_declaration_is_the_cli_commands_fields(path: tuple[str, ...]) -> None:
    from iosizer.cli.catalogue import ROLE_OVERRIDES, _field

    spec = commands.declared_command(path)
    leaf = _click_leaf(path)
    reflected = [f for p in leaf.params if (f := _field(p, ROLE_OVERRIDES.get(path, {}), {})) is not None]
    keys = ("key", "name", "role", "flag", "many", "required", "help", "metavar", "unit", "bounds", "is_flag")
    assert [[getattr(f, k) for k in keys] for f in spec.fields] == [[getattr(f, k) for k in keys] for f in reflected]
    for mine, theirs in zip(spec.body_fields, [f for f in reflected if f.in_body]):
        assert (mine.annotation, mine.default) == (theirs.annotation, theirs.default)
    assert spec.help == (leaf.help or "").strip()


@pytest.mark.parametrize(("words", "values"), [
    (["families"], {}), (["datasets"], {}), (["params", "hba"], {"family": "hba"}),
    (["run", "shared_fc_storage"], {"scenario": "shared_fc_storage"}), (["run", "--list"], {"list": True}),
])
def test_the_cli_prints_the_declared_answer(words: list[str], values: dict[str, object]) -> None:
    from iosizer.cli.app import app

    printed = CliRunner().invoke(app, [*words, "--format", "json"])
    assert printed.exit_code == 0, printed.output
    spec = commands.declared_command((words[0],))
    assert printed.stdout == iosizer.frames.to_json(commands.call(spec, values).data) + "\n"
    assert iosizer.ask(words[0], **values) == json.loads(printed.stdout)


def test_ask_refuses_in_the_clis_words() -> None:
    with pytest.raises(iosizer.IosizerError, match=r"^Missing argument 'family'\.$"):
        iosizer.ask("params")
    with pytest.raises(iosizer.IosizerError, match=r"^iosizer families takes no 'x'; it takes: nothing$"):
        iosizer.ask("families", x=1)
    with pytest.raises(iosizer.IosizerError, match=r"takes 1 argument\(s\) by position \(family\), got 2"):
        iosizer.ask("params", "hba", "mmc")
    with pytest.raises(iosizer.IosizerError, match=r"^give a scenario file or a shipped example name"):
        iosizer.ask("run")


def test_extrapolate_answers_as_the_cli(tmp_path, monkeypatch) -> None:
    from iosizer.calibration.profile import save_profile
    from iosizer.cli.ask import ask as through_the_cli

    monkeypatch.chdir(tmp_path)
    profile = iosizer.family("mmc").shipped()
    save_profile(profile, "a.json")
    asked = iosizer.ask("extrapolate", "a.json", cpu_speed="1.5", output="out.json")
    written = (tmp_path / "out.json").read_text()
    assert asked == through_the_cli("extrapolate", profile, cpu_speed=1.5, output="out.json")
    assert json.loads(written)["cpu_speed"] == 1.5
    for wrong, message in ((dict(cpu_speed="x"), "Invalid value for '--cpu-speed': Input should be a valid number"),
                           (dict(cpu_speed=2, output="no/such/x.json"), "--output: folder 'no/such' of"),
                           (dict(), "Missing option '--cpu-speed'.")):
        for ask in (iosizer.ask, through_the_cli):
            with pytest.raises(iosizer.IosizerError, match="^" + re.escape(message)):
                ask("extrapolate", "a.json", **wrong)
