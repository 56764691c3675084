"""The things a new user meets first: the README quick start and the entry points."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_readme_quick_start_is_exactly_two_commands() -> None:
    readme = ROOT / "README.md"
    if not readme.exists():
        pytest.skip("tests run outside the checkout")
    block = re.search(r"<!-- quickstart -->(.*?)<!-- /quickstart -->", readme.read_text(), re.S)
    assert block, "README lost its quick-start markers (.ci/run reads them)"
    commands = [line for line in block.group(1).splitlines() if line and not line.startswith("```")]
    assert len(commands) == 2
    assert commands[0].startswith("pip install '.[plot]' && iosizer report")
    assert "pytest" in commands[1] and commands[1].startswith("pip install '.[serve,test]'")


def test_python_dash_m_entry_point() -> None:
    result = subprocess.run([sys.executable, "-m", "iosizer.cli", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("iosizer ")
    bad = subprocess.run([sys.executable, "-m", "iosizer.cli", "queue", "mm1", "--arrival-rate", "2",
                          "--service-rate", "1"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "iosizer: error: unstable M/M/1 queue: utilization 2 >= 1 "
        "(arrival rate must stay below servers x service rate)"
    )


def test_readme_use_from_python_runs_as_written() -> None:
    """The README's Python section is a doctest: its printed answers are what the API returns."""
    import doctest

    readme = ROOT / "README.md"
    if not readme.exists():
        pytest.skip("tests run outside the checkout")
    section = readme.read_text(encoding="utf-8").split("## Use from Python", 1)[1].split("\n## ", 1)[0]
    examples = doctest.DocTestParser().get_doctest(section, {}, "README", str(readme), 0)
    assert len(examples.examples) >= 10
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(examples)
    assert runner.summarize(verbose=False).failed == 0


def test_api_module_doctests() -> None:
    import doctest

    import iosizer.api

    assert doctest.testmod(iosizer.api).failed == 0
