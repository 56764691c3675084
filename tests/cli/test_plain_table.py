"""A piped table is drawn without importing rich (cli/output.py ``_plain_lines``): it must be, character
for character, what rich prints for it, and anything rich would print otherwise goes to rich."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iosizer.cli import output
from iosizer.cli.output import Report

WORDS = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=14)
NUMBERS = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=32), st.integers(-10**9, 10**9))


def _printed(report: Report, plain: bool) -> str:
    """What _print_table writes to a piped UTF-8 stdout, by the plain path or by rich."""
    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(stream):
        patch.delenv("COLUMNS", raising=False)
        if not plain:
            patch.setattr(output, "_plain_lines", lambda *args: None)
        output._print_table(report)
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]


@settings(max_examples=40, deadline=None)
@given(columns=st.lists(WORDS, min_size=1, max_size=4, unique=True),
       cells=st.lists(st.lists(st.one_of(WORDS, NUMBERS), min_size=4, max_size=4), min_size=1, max_size=5),
       title=st.one_of(st.just(""), WORDS), notes=st.lists(WORDS, max_size=2))
def test_plain_tables_are_richs(columns: list[str], cells: list[list[object]], title: str, notes: list[str]) -> None:
    rows = [dict(zip(columns, row)) for row in cells]
    report = Report(data=rows, rows=rows, title=title, notes=notes)
    assert _printed(report, True) == _printed(report, False)


def test_the_plain_path_is_taken() -> None:
    report = Report(data=[], rows=[{"metric": "utilization", "value": 0.8}], title="M/M/4", notes=["a note"])
    assert _printed(report, True).splitlines()[:3] == ["M/M/4", "┏━━━━━━━━━━━━━┳━━━━━━━┓",
                                                       "┃ metric      ┃ value ┃"]


@pytest.mark.parametrize("text", ["[bold]x[/bold]", "a :smile: b", "back\\slash", "µs", " edge", "tab\there"])
def test_text_rich_would_rewrite_goes_to_rich(text: str) -> None:
    report = Report(data=[], rows=[{"name": text}], title="t")
    assert output._plain_lines(report, ["name"], [[text]], [False], [len(text)]) is None


def test_a_what_if_answer_imports_no_rich() -> None:
    # Nor pydantic: every parameter given, the declared road builds no Profile (its import is a third of
    # this command's start-up).
    import json
    import os
    import subprocess
    import sys

    code = ("import sys; from iosizer.cli.app import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'scipy', 'pydantic'))),"
            " file=sys.stderr)")
    # os.environ given explicitly: a terminal library may have put COLUMNS into the process's C environment.
    run = subprocess.run([sys.executable, "-c", "import json\n" + code, "queue", "mmc", "--arrival-rate", "3.2",
                          "--service-rate", "1", "--servers", "4"], capture_output=True, text=True, check=True,
                         env={k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")})
    assert run.stdout.startswith("mmc queue mmc:") and json.loads(run.stderr.strip().splitlines()[-1]) == []
