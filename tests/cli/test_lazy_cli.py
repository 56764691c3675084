"""The lazy command tree (cli/lazy.py): a call builds the command it names, and every listing and help
page reads the same as from a tree built at once."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Iterator

import pytest
import typer.main
import typer.testing
from typer.testing import CliRunner

from iosizer.cli.app import app
from iosizer.cli.lazy import LazyCommands

MMC = ["queue", "mmc", "--arrival-rate", "3.2", "--service-rate", "1", "--servers", "4"]


def _fresh() -> Any:
    return typer.main.get_command(app)


def _groups(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every group of the tree, each command built through the group (questions attached, plugins found)."""
    yield path, group
    for name in group.list_commands(None):
        command = group.get_command(None, name)
        if hasattr(command, "commands"):
            yield from _groups(command, path + (name,))


def test_every_listing_line_before_building_is_the_built_commands() -> None:
    """``iosizer --help`` (and a group's --help) shows an unbuilt command from its help text: the line
    must be what the built command shows, at any width."""
    checked = 0
    for path, group in _groups(_fresh()):
        commands = group.commands
        for name in group.list_commands(None):
            stub = commands.stub(name) if isinstance(commands, LazyCommands) else None
            built = group.get_command(None, name)
            if stub is None:
                continue
            for limit in (20, 38, 45, 60, 74):
                assert stub.get_short_help_str(limit) == built.get_short_help_str(limit), (path, name, limit)
            assert (stub.hidden, stub.deprecated) == (built.hidden, built.deprecated), (path, name)
            checked += 1
    # The root's table and every lazy group's commands; generated ones (size and simulate FAMILY, every
    # simulate command declared by its question) are built when listed, never stubbed.
    assert checked > 30


def test_help_pages_are_those_of_a_tree_built_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    built = _fresh()
    paths = [path for path, _ in _groups(built)]  # builds every command of the tree
    assert ("queue",) in paths and ("size",) in paths and ("simulate", "hba") in paths
    runner = CliRunner()
    lazy_pages = {path: runner.invoke(app, [*path, "--help"]).stdout for path in paths}
    build = typer.testing._get_command
    monkeypatch.setattr(typer.testing, "_get_command", lambda given: built if given is app else build(given))
    for path in paths:
        assert runner.invoke(app, [*path, "--help"]).stdout == lazy_pages[path], path


def test_a_command_builds_only_itself(capsys: pytest.CaptureFixture[str]) -> None:
    root = _fresh()
    assert root.main([*MMC, "--format", "json"], standalone_mode=False) == 0
    assert json.loads(capsys.readouterr().out)["utilization"] == pytest.approx(0.8, rel=1e-12)
    made = [name for name in root.commands if not root.commands.pending(name)]
    assert made == ["queue"]
    queue = root.commands["queue"]
    assert [name for name in queue.commands if not queue.commands.pending(name)] == ["mmc"]


def test_the_table_names_every_root_command_once() -> None:
    from iosizer.cli.app import COMMANDS

    listed = _fresh().list_commands(None)
    assert listed[: len(COMMANDS)] == list(COMMANDS)
    assert len(set(listed)) == len(listed)


def _imported(*args: str) -> set[str]:
    code = ("import sys; from iosizer.cli.app import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print(sorted(sys.modules), file=sys.stderr)")
    run = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return set(json.loads(run.stderr.strip().splitlines()[-1].replace("'", '"')))


def test_help_imports_no_command_module_and_mmc_only_its_own() -> None:
    commands = {f"iosizer.cli.{m}" for m in ("queue", "latency", "pcie", "hba", "loadshare", "size", "device",
                                             "simulate", "calibration", "report", "serve", "families")}
    assert _imported("--help") & commands == set()
    assert _imported(*MMC) & commands == {"iosizer.cli.queue"}


#: Values typed on a command line: plain numbers, edge cases of both number readers, words, choices.
TYPED = ["0", "-0", "+1", "007", "1.", ".5", "-.5", "3.2", "1e3", "1E-3", "1e400", "-1e400", "1e-400", "nan",
         "inf", "-inf", "1_000", " 3", "3 ", "2.5", "99999999999999999999", "1" + "0" * 400, "", "abc", "json",
         "JSON", "table", "csv", "parameter", "true", "1,2", "0:10:1"]


def _outcome(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[str, str]:
    try:
        found = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as error:  # noqa: BLE001  (the refusal itself is compared)
        return "error " + type(error).__name__, str(getattr(error, "message", error))
    return type(found).__name__, repr(found)


def test_plain_values_convert_as_typers_pydantic_path_does() -> None:
    """The conversion without pydantic (cli/lazy.py) gives typer's value or typer's refusal, on every
    option of every command, for plain and awkward values alike."""
    from typer import _click
    from typer._coercion import build_runtime_param

    from iosizer.cli.lazy import _PlainFirst

    compared = 0
    for _, group in _groups(_fresh()):
        for name in group.list_commands(None):
            command = group.get_command(None, name)
            for param in command.params:
                runtime = getattr(param, "_runtime_param", None)
                if not isinstance(runtime, _PlainFirst):
                    continue
                ctx = _click.Context(command, info_name=name)
                typers = build_runtime_param(param.type_descriptor)
                multi = param.multiple or param.nargs == -1
                values = [None, param.default, *TYPED] if not multi else \
                    [None, (), *[(v,) for v in TYPED], ("1", "2.5"), ("1", "abc")]
                for value in values:
                    assert _outcome(runtime, value, param, ctx) == _outcome(typers, value, param, ctx), \
                        (name, param.name, value)
                    compared += 1
    assert compared > 10_000
