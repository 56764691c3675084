from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from iosizer.cli.app import app


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
