"""Every source package ships: pyproject lists packages by hand (the folders are not named iosizer/), so a new
subpackage left out of the list installs without its modules (model/mva did, and the installed CLI failed)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_source_package_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {folder: name for name, folder in config["package-dir"].items()}
    missing = []
    for folder, name in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            package = ".".join([name, *parts])
            if package not in listed:
                missing.append(package)
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"
