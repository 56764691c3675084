"""The public API is typed: it ships py.typed and passes ``mypy --strict`` (issue 30).

The source folders map to ``iosizer.*`` through ``[tool.setuptools.package-dir]``
and the editable install resolves them with an import hook that mypy does
not follow, so the check builds the installed layout from symbolic links in
a temporary folder. Imported modules outside the public API are read for
their types (``--follow-imports=silent``) but not themselves held to strict.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The modules a notebook or an embedding program imports.
PUBLIC = ("iosizer", "iosizer.api", "iosizer.frames")


def _package_dirs() -> dict[str, str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]


def test_the_package_ships_py_typed() -> None:
    assert (ROOT / "common" / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in data["iosizer"]


def test_public_api_passes_mypy_strict(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("tests run outside the checkout")
    package = tmp_path / "iosizer"
    package.mkdir()
    dirs = _package_dirs()
    for item in (ROOT / dirs["iosizer"]).iterdir():
        (package / item.name).symlink_to(item)
    for name, folder in dirs.items():
        if name.count(".") == 1:  # iosizer.model -> model/
            (package / name.split(".")[1]).symlink_to(ROOT / folder)
    command = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-error-summary",
               "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / ".mypy_cache")]
    for module in PUBLIC:
        command += ["-m", module]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
