"""The commands :mod:`iosizer.commands` declares: the CLI takes the same fields and prints the same answer.

The typer commands of families, params, datasets, run and extrapolate are
generated from their declarations (iosizer.cli.generated); calibrate's and
report's are written by hand (a progress bar, a folder written under it). Each
typer command's click parameters are read back (tests/reflected.py) and
compared with its declaration, field by field: a flag or a help text changed
on one side only fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import iosizer
from iosizer import commands


def _click_leaf(path: tuple[str, ...]):
    from iosizer.cli.catalogue import root_command
    from tests.reflected import _leaves

    return dict(_leaves(root_command()))[path]


#: Roles the reflection cannot read from a parameter's type: calibrate's family is in the URL, its data uploaded.
ROLES = {("calibrate",): {"model": commands.Role.route, "data": commands.Role.upload}}


def _reflected(path: tuple[str, ...]) -> list[commands.FieldSpec]:
    """The typer command's click parameters read back as FieldSpecs (tests/reflected.py)."""
    from dataclasses import replace

    from tests.reflected import _field

    roles = ROLES.get(path, {})
    fields = [f for p in _click_leaf(path).params if (f := _field(p, {})) is not None]
    return [replace(f, role=roles.get(f.name, f.role)) for f in fields]


@pytest.mark.parametrize("path", sorted(commands.DECLARED))
def test_the_declaration_is_the_cli_commands_fields(path: tuple[str, ...]) -> None:
    spec = commands.declared_command(path)
    leaf = _click_leaf(path)
    reflected = _reflected(path)
    keys = ("key", "name", "role", "flag", "many", "required", "help", "metavar", "unit", "bounds", "is_flag")
    assert [[getattr(f, k) for k in keys] for f in spec.fields] == [[getattr(f, k) for k in keys] for f in reflected]
    for mine, theirs in zip(spec.body_fields, [f for f in reflected if f.in_body]):
        assert (mine.annotation, mine.default) == (theirs.annotation, theirs.default)
    assert spec.help == (leaf.help or "").strip()


@pytest.mark.parametrize("path", [("calibrate",), ("report",)])
def test_calibrate_and_report_are_declared_as_the_cli_reads(path: tuple[str, ...]) -> None:
    """Every attribute of every field, the file fields' too (the roles the server fills them by: calibrate's
    family from the URL, its data uploaded, --output and --plot the server's names, report's folder its own)."""
    from dataclasses import asdict

    spec = commands.declared_command(path)
    assert spec is not None and spec.run is not None
    declared = [asdict(f) for f in spec.fields]
    reflected = [asdict(f) for f in _reflected(path)]
    for fields in (declared, reflected):  # --format: text here, typer's enum there (the same words)
        for f in fields:
            if f["key"] == "format":
                f["annotation"], f["default"] = str, str(getattr(f["default"], "value", f["default"]))
    assert declared == reflected
    assert spec.help == (_click_leaf(path).help or "").strip()
    from iosizer.catalogue import command_spec

    assert command_spec(path) is spec  # the catalogue takes it from the declaration


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
    from tests.reflected import through_the_cli

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


def test_calibrate_answers_as_the_cli(tmp_path, monkeypatch) -> None:
    """ask("calibrate") with a path answers through iosizer.tools as the typer command prints; errors are the
    command line's, in one line."""
    from iosizer.cli.app import app
    from tests.reflected import through_the_cli

    monkeypatch.chdir(tmp_path)
    data = str(Path(iosizer.family("mmc").example()))
    asked = iosizer.ask("calibrate", "mmc", data, servers="4", cpu_speed=1, output="a.json")
    assert asked == through_the_cli("calibrate", "mmc", data, servers=4, cpu_speed=1, output="a.json")
    assert asked["profile"] == "a.json" and json.loads((tmp_path / "a.json").read_text())["model"] == "mmc"
    printed = CliRunner().invoke(app, ["calibrate", "mmc", data, "--servers", "4", "--format", "json"])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout) == iosizer.ask("calibrate", model="mmc", data=[data], servers=4)
    assert iosizer.ask("calibrate", "hba", columns=True) == through_the_cli("calibrate", "hba", columns=True)
    for wrong, message in ((dict(servers="four"), "Invalid value for '--servers': Input should be a valid integer"),
                           (dict(servers=0), "--servers must lie in [1, 10000000] (servers), got 0"),
                           (dict(servers=4, set="servers=4"), "--set servers repeats --servers"),
                           (dict(set=["servers"]), "--set expects NAME=VALUE, got 'servers'"),
                           (dict(servers=4, output="no/such/x.json"), "--output: folder 'no/such' of"),
                           (dict(servers=4, plot="fit.gif"), "--plot: unknown picture type '.gif'")):
        for ask in (iosizer.ask, through_the_cli):
            with pytest.raises(iosizer.IosizerError, match="^" + re.escape(message)) as raised:
                ask("calibrate", "mmc", data, **wrong)
            assert "\n" not in str(raised.value)
    for ask in (iosizer.ask, through_the_cli):
        with pytest.raises(iosizer.IosizerError, match="^give the measured data"):
            ask("calibrate", "mmc")
        with pytest.raises(iosizer.IosizerError, match=r"^Missing argument 'model'\.$"):
            ask("calibrate")
        with pytest.raises(iosizer.IosizerError, match="cannot read file"):
            ask("calibrate", "mmc", "missing.csv", servers=4)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
