"""Shared fixtures, and the property tests' example budget (bounded by default, deeper on request).

The suite runs on every core (pytest-xdist, ``-n auto`` in the README's
test command); nothing here or in a fixture depends on a fixed port, a
shared file or another test having run first.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from iosizer.cli.app import app


@pytest.fixture(autouse=True)
def _no_inherited_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees output as a pipe with no COLUMNS, as a serial run does.

    pytest-xdist's workers set COLUMNS=80, which the CLI honours (it fits tables
    and notes to it); tests that want a width pass COLUMNS themselves.
    """
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


class Cli:
    """Runs ``iosizer ARGS`` in-process and returns (exit code, stdout, stderr)."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str) -> Any:
        return self.runner.invoke(app, list(args))

    def json(self, *args: str) -> Any:
        result = self(*args, "--format", "json")
        assert result.exit_code == 0, result.stderr
        return json.loads(result.stdout)

    def fails(self, *args: str) -> str:
        """The one stderr line of a run that must fail with exit status 2."""
        result = self(*args)
        assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert "Traceback" not in result.stderr
        assert lines[0].startswith("iosizer: error: ")
        return lines[0]


#: IOSIZER_DEEP_TESTS=1 (a run before a release): every property test searches DEEP_FACTOR times its examples.
DEEP = os.environ.get("IOSIZER_DEEP_TESTS", "").strip() not in ("", "0")
#: The default run (the one CI runs) caps each property test at this many examples.
DEFAULT_MAX_EXAMPLES = 60
DEEP_FACTOR = 10


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Bound (or deepen) every hypothesis test's examples, including those its own ``@settings`` names."""
    from hypothesis import settings

    seen: set[int] = set()
    for item in items:
        test = getattr(item, "obj", None)
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        if current is None or id(test) in seen:  # parametrized copies share one function
            continue
        seen.add(id(test))
        examples = current.max_examples * DEEP_FACTOR if DEEP else min(current.max_examples, DEFAULT_MAX_EXAMPLES)
        test._hypothesis_internal_use_settings = settings(current, max_examples=examples)


#: Closing-summary lines the xdist workers handed back (tests/serve/conftest.py's LOAD_SUMMARY).
_WORKER_SUMMARY: list[str] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    for line in getattr(node, "workeroutput", {}).get("iosizer_load_summary", []):
        if line not in _WORKER_SUMMARY:
            _WORKER_SUMMARY.append(line)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in _WORKER_SUMMARY:
        terminalreporter.write_line(line)


@pytest.fixture
def cli() -> Cli:
    return Cli()


class ExampleProfiles:
    """Profiles made by ``iosizer calibrate FAMILY EXAMPLE --cpu-speed 1``, one per family, on first use."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.made: dict[str, Path] = {}

    def __getitem__(self, family: str) -> Path:
        if family not in self.made:
            import iosizer

            path = self.folder / f"{family}.json"
            result = CliRunner().invoke(app, ["calibrate", family, str(iosizer.family(family).example()),
                                              "--cpu-speed", "1", "-o", str(path)])
            assert result.exit_code == 0, result.stderr
            self.made[family] = path
        return self.made[family]


@pytest.fixture(scope="session")
def profiles(tmp_path_factory: pytest.TempPathFactory) -> ExampleProfiles:
    """Each calibratable family fitted by the CLI to its shipped example data (profile paths by family)."""
    return ExampleProfiles(tmp_path_factory.mktemp("profiles"))
