"""The README's "In a notebook" section runs as written (issue 30).

Its ``pycon`` blocks are doctests: each expression is executed and what it
prints or returns is compared with the text shown (``...`` stands for a
path that depends on where iosizer is installed and for the long
confidence sentence).
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _section() -> str:
    if not README.exists():
        pytest.skip("tests run outside the checkout")
    text = README.read_text(encoding="utf-8")
    assert "\n## In a notebook\n" in text, "README lost its 'In a notebook' section"
    return text.split("\n## In a notebook\n", 1)[1].split("\n## ", 1)[0]


def test_in_a_notebook_runs_as_written() -> None:
    pytest.importorskip("pandas")
    section = _section()
    blocks = re.findall(r"```pycon\n(.*?)```", section, re.S)
    assert blocks, "the section shows no Python session"
    parser = doctest.DocTestParser()
    examples = parser.get_doctest("\n".join(blocks), {}, "README: In a notebook", str(README), 0)
    assert len(examples.examples) >= 10
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(examples)
    assert runner.summarize(verbose=False).failed == 0
