"""The generated commands (iosizer.generated, iosizer.catalogue): one spec per command, read from the
declarations alone, from which the CLI, the server and iosizer.ask all take their fields and their work.

A toy family (tests/calibration/toy_sizing_family.py, registered as a plugin would be) declares a sizing and
a simulation; its commands must appear on every surface with the same fields and the same answer.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import iosizer
from iosizer.catalogue import command_spec, command_specs
from iosizer.errors import InputError
from iosizer.model import registry


@pytest.fixture()
def toy(monkeypatch):
    plugins = {**registry._plugins(), "toy-sizing": "tests.calibration.toy_sizing_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    yield
    root_command.cache_clear()


def test_the_catalogue_reads_no_cli() -> None:
    """Every served command's spec is built from the declarations: no iosizer.cli module is imported."""
    code = ("import sys; from iosizer.catalogue import command_specs; specs, _ = command_specs(); "
            "assert len(specs) > 20, len(specs); "
            "print(sorted(m for m in sys.modules if m.startswith('iosizer.cli')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_toys_commands_are_generated_with_declared_units(toy) -> None:
    paths = {spec.path for spec in command_specs()[0]}
    assert {("size", "toy-sizing"), ("simulate", "toy-sizing")} <= paths
    fields = {f.key: f for f in command_spec("size toy-sizing").fields}
    assert fields["target_delay_s"].unit == "s"  # a target: the unit of its name
    assert fields["rate_per_s"].unit == "1/s" and fields["rate_per_s"].bounds == (1e-6, 1e9)  # declared
    assert fields["rate_per_s"].declared == 100.0
    schema = command_spec("simulate toy-sizing").model.model_json_schema(by_alias=True)
    assert {"load_per_s", "replications", "seed"} <= set(schema["properties"])


def _cli_options(words: list[str]) -> list[tuple]:
    from iosizer.cli.catalogue import root_command

    command = root_command()
    for word in words:
        command = command.commands[word] if hasattr(command, "commands") and word in command.commands \
            else command.get_command(None, word)
    return [(p.name, tuple(p.opts), p.required, bool(getattr(p, "multiple", False)), (p.help or "").strip())
            for p in command.params if p.expose_value and not p.hidden]


@pytest.mark.parametrize("words", [["size", "toy-sizing"], ["simulate", "toy-sizing"], ["size", "servers"],
                                   ["size", "hba"], ["simulate", "hba", "response"], ["simulate", "loadshare"]])
def test_the_cli_takes_the_specs_fields(toy, words) -> None:
    """The typer command is built from the spec (iosizer.cli.generated): flags, help, required and
    repeatable options are the spec's, in its order."""
    spec = command_spec(words)
    expected = []
    for f in spec.fields:
        flags = (f.flag, *f.aliases) if f.flag else (f.name,)
        expected.append((f.name, flags, f.required, f.many, f.help if f.key != "format" else None))
    found = _cli_options(words)
    assert [e[:4] for e in expected] == [o[:4] for o in found]
    assert [e[4] for e in expected if e[4] is not None] == [o[4] for o, e in zip(found, expected) if e[4] is not None]


def test_the_toys_size_answers_alike_on_the_cli_and_from_python(toy, cli) -> None:
    printed = cli("size", "toy-sizing", "--target-lanes-delay-s", "0.02", "--load-per-s", "150", "--rate-per-s",
                  "100", "--format", "json")
    assert printed.exit_code == 0, printed.stderr
    asked = iosizer.ask("size toy-sizing", target_lanes_delay_s=0.02, load_per_s=150, rate_per_s=100)
    assert asked == json.loads(printed.stdout)
    assert asked["lanes"] == 2


def test_a_plugins_size_answers_alike_everywhere(cli) -> None:
    """The installed example plugin (mm1k) declares a sizing: its served route answers the CLI's bytes."""
    printed = cli("size", "mm1k", "--target-blocking-probability", "0.01", "--arrival-rate", "0.5,0.9",
                  "--service-rate", "1", "--format", "json")
    assert printed.exit_code == 0, printed.stderr
    asked = iosizer.ask("size mm1k", target_blocking_probability=0.01, arrival_rate=[0.5, 0.9], service_rate=1)
    assert asked == json.loads(printed.stdout)
    testclient = pytest.importorskip("fastapi.testclient")
    from iosizer.serve.app import create_app

    with testclient.TestClient(create_app(workers=1, heavy_workers=1), base_url="http://localhost") as client:
        response = client.post("/api/size/mm1k", json={"target_blocking_probability": 0.01,
                                                       "arrival_rate": "0.5,0.9", "service_rate": "1"})
        assert response.status_code == 200, response.text
        assert response.text == printed.stdout
        refused = client.post("/api/size/mm1k", json={"target_blocking_probability": 0.01, "service_rate": "-1"})
        assert refused.status_code == 422 and refused.json()["field"] == "service_rate", refused.text


def test_ask_names_the_commands_it_could_be() -> None:
    with pytest.raises(InputError, match=r"^no command 'iosizer size nope'; did you mean one of: .*size servers"):
        iosizer.ask("size nope")
    with pytest.raises(InputError, match=r"^no command 'iosizer simulate'; did you mean one of: .*simulate mmc"):
        command_spec("simulate")
    with pytest.raises(InputError, match=r"iosizer size servers takes no 'servers_count'"):
        iosizer.ask("size servers", servers_count=3)


def test_a_plugin_that_does_not_import_is_left_out(monkeypatch, cli) -> None:
    """An installed plugin whose module fails to import costs only itself: every other command, the catalogue
    (so the server starts) and the family list work; naming it is one line, exit 2."""
    from iosizer.errors import PluginError

    plugins = {**registry._plugins(), "broken-plugin": "iosizer_no_such_plugin_module"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    with pytest.warns(UserWarning, match="family 'broken-plugin' left out: plugin module"):
        names = registry.family_names()
    assert "broken-plugin" not in names and "mmc" in names
    with pytest.raises(PluginError, match=r"^plugin module 'iosizer_no_such_plugin_module' does not import: "
                                          r"ModuleNotFoundError"):
        registry.declaration("broken-plugin")
    assert ("size", "servers") in {spec.path for spec in command_specs()[0]}
    assert iosizer.ask("size servers", arrival_rate=3.2, service_rate=1, target_response_s=1.5)["servers"] == 5
    with pytest.raises(InputError, match="no command 'iosizer size broken-plugin'"):
        iosizer.ask("size broken-plugin")
    listed = cli("families", "--format", "json")
    assert listed.exit_code == 0, listed.stderr
    assert "broken-plugin" not in {f["family"] for f in json.loads(listed.stdout)}
    named = cli("broken-plugin", "queue")
    assert named.exit_code == 2 and "does not import" in named.stderr and "Traceback" not in named.stderr


def test_a_shared_size_command_counts_a_zero_as_given() -> None:
    """size load (mmc's and closed-network's): a target of 0 is an option given, so options of both systems
    are refused together, never one of them dropped."""
    with pytest.raises(InputError, match="belong to different systems of 'size load'"):
        iosizer.ask("size load", demand=[0.005], servers=["4"], target_response_s=1, target_wait_probability=0)
    assert "'mmc' or 'closed-network'" in {f.key: f for f in command_spec("size load").fields}["profile"].help


def test_a_generated_command_exits_with_its_answers_status() -> None:
    """A spec whose answer is also a verdict (Report.exit_code, as report --check's) prints the answer, then
    exits with that status."""
    import typer
    from typer.testing import CliRunner

    from iosizer.cli.generated import typer_function
    from iosizer.commands import FORMAT, CommandSpec
    from iosizer.frames import Report

    spec = CommandSpec(("verdict",), [FORMAT], text="A verdict.",
                       run=lambda: Report(data={"failed": 1}, rows=[{"failed": 1}], exit_code=1))
    app = typer.Typer()
    app.command("verdict")(typer_function(spec))
    app.command("other")(lambda: None)  # two commands: typer keeps 'verdict' a subcommand
    printed = CliRunner().invoke(app, ["verdict", "--format", "json"])
    assert printed.exit_code == 1 and json.loads(printed.stdout) == {"failed": 1}
