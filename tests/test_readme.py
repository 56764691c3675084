"""Every command output pasted into the README is what the command prints today, to the printed digit.

A README block is a ```text fence whose first line is ``$ iosizer ...``: each
``$`` line is a command, the lines up to the next ``$`` its output. Each
command runs in-process (typer's CliRunner: no subprocess, no shell), in one
scratch folder for the whole README, so a profile one block writes feeds a
later block as it does for a reader following along (``data/`` is a link to
the repository's). The shell around a command is read, not run: file patterns (``qd*.json``) are expanded, ``| grep
[-E] PATTERN``, ``| head -N``, ``| cut -d, -fA-B``, ``2>/dev/null`` and
``; echo "exit status $?"``.

Every pasted line must be a line of the real run, in order; the README may
leave lines out (an excerpt; ``...`` tells the reader where). Normalised, and
only this: trailing spaces and trailing blank lines; the terminal width (the
run gets the width the paste was made at: its longest line, 200 at least
when a line reaches it, as iosizer prints to a pipe); and a float printed in
full (JSON, CSV: 15 or more significant digits) is compared to 10
significant digits, because its last digits follow the BLAS, libm, the
order of operations and where a fit's optimiser stopped (its tolerance is
1e-12 on the parameters, amplified by the model), not the model. A block that cannot be run here is
preceded by ``<!-- readme-test: skip REASON -->``; the reason is required. A block that needs a module
iosizer does not install (the example plugin) is preceded by ``<!-- readme-test: needs MODULE REASON -->``
and runs where the module is importable (the README's test line installs it), skips elsewhere.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from iosizer.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SKIP = re.compile(r"<!--\s*readme-test:\s*skip\b\s*(.*?)\s*-->")
NEEDS = re.compile(r"<!--\s*readme-test:\s*needs\s+([\w.]+)\s*(.*?)\s*-->")
ELISION = "..."


@dataclass(frozen=True)
class Command:
    line: int  # README line of the '$' line
    text: str
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    line: int
    commands: tuple[Command, ...]
    skip: str | None
    needs: tuple[str, str] | None = None


def readme_blocks(text: str) -> list[Block]:
    """The README's ```text blocks that start with ``$ iosizer``, with their skip markers."""
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```text":
            i += 1
            continue
        start = i
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        body = lines[i + 1:end]
        i = end + 1
        if not body or not body[0].startswith("$ iosizer"):
            continue
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = SKIP.search(before)
        commands: list[Command] = []
        for offset, line in enumerate(body):
            if line.startswith("$ "):
                commands.append(Command(start + 2 + offset, line[2:], ()))
            else:
                last = commands[-1]
                commands[-1] = Command(last.line, last.text, last.expected + (line,))
        needs = NEEDS.search(before)
        blocks.append(Block(start + 1, tuple(commands), marker.group(1) if marker else None,
                            (needs.group(1), needs.group(2)) if needs else None))
    return blocks


BLOCKS = readme_blocks(README.read_text(encoding="utf-8"))


def _filter(lines: list[str], stage: str) -> list[str]:
    """One pipeline stage after the command: grep, head or cut, as the README uses them."""
    words = shlex.split(stage)
    if words[0] == "grep":
        pattern = words[-1]
        regex = re.compile(pattern if "-E" in words else re.escape(pattern))
        after = next((int(w[2:]) for w in words if re.fullmatch(r"-A\d+", w)), 0)
        kept: list[str] = []
        last = -1  # index of the last line kept: grep -A separates groups with '--'
        for i, line in enumerate(lines):
            if regex.search(line):
                for j in range(max(i, last + 1), min(i + after + 1, len(lines))):
                    if kept and j > last + 1:
                        kept.append("--")
                    kept.append(lines[j])
                    last = j
        return kept
    if words[0] == "head":
        count = int(words[1].lstrip("-n").lstrip("-")) if len(words) > 1 else 10
        return lines[:count]
    if words[0] == "cut":
        delimiter = next(w[2:] for w in words if w.startswith("-d"))
        first, _, last = next(w[2:] for w in words if w.startswith("-f")).partition("-")
        return [delimiter.join(line.split(delimiter)[int(first) - 1:int(last or first)]) for line in lines]
    raise AssertionError(f"the README test cannot read the shell stage {stage!r}: add it to _filter or skip the block")


def _glob(word: str) -> list[str]:
    """A word as the shell expands it: a pattern that matches names the files, sorted."""
    import glob

    if not any(c in word for c in "*?["):
        return [word]
    return sorted(glob.glob(word)) or [word]


def run(command: str, runner: CliRunner, columns: int = 200) -> list[str]:
    """The lines a reader's terminal ``columns`` wide shows for one README command."""
    status_echo = '; echo "exit status $?"'
    echo = command.endswith(status_echo)
    command = command.removesuffix(status_echo)
    quiet = "2>/dev/null" in command
    command = command.replace("2>/dev/null", "")
    stages = [s.strip() for s in re.split(r" \| ", command)]
    words = [expanded for word in shlex.split(stages[0]) for expanded in _glob(word)]
    if words[0] == "grep":  # a look at a shipped data file beside the commands
        lines = _filter(Path(words[-1]).read_text(encoding="utf-8").splitlines(), shlex.join(words[:-1]))
        for stage in stages[1:]:
            lines = _filter(lines, stage)
        return lines
    assert words[0] == "iosizer", command
    import rich.console

    class Terminal(rich.console.Console):  # the width the README's paste was made at
        def __init__(self, *args: object, **options: object) -> None:
            options["width"] = columns
            super().__init__(*args, **options)  # type: ignore[arg-type]

    plain = rich.console.Console
    rich.console.Console = Terminal  # type: ignore[misc]
    try:
        result = runner.invoke(app, words[1:])
    finally:
        rich.console.Console = plain  # type: ignore[misc]
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    lines = result.stdout.splitlines() + ([] if quiet else result.stderr.splitlines())
    for stage in stages[1:]:
        lines = _filter(lines, stage)
    if echo:
        lines.append(f"exit status {result.exit_code}")
    return lines


#: A float printed in full: 15 or more significant digits (repr in JSON and CSV).
FULL_FLOAT = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _short_float(match: re.Match[str]) -> str:
    text = match.group(0)
    digits = len(re.sub(r"[^0-9]", "", text.split("e")[0]).lstrip("0"))
    return f"{float(text):.10g}" if digits >= 15 else text


def _normal(line: str) -> str:
    return FULL_FLOAT.sub(_short_float, line.rstrip())


def matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """Every expected line (but ``...``) is an actual line, in order."""
    wanted = [_normal(e) for e in expected if e.strip() != ELISION]
    while wanted and not wanted[-1]:
        wanted.pop()
    lines = iter(_normal(a) for a in actual)
    return all(any(line == want for line in lines) for want in wanted)


def width(expected: tuple[str, ...]) -> int:
    """The terminal width a paste was made at (see the module docstring)."""
    longest = max((len(line.rstrip()) for line in expected), default=0)
    return 200 if longest >= 190 else max(longest, 80)


def _written_file(command: str) -> str | None:
    """The file a command writes with ``-o``/``--output`` (a profile a later block reads), if any."""
    words = shlex.split(command.split(" | ")[0].replace("2>/dev/null", ""))
    for flag, value in zip(words, words[1:]):
        if flag in ("-o", "--output"):
            return value
    return None


def _replay_earlier_outputs(block: Block, runner: CliRunner, scratch: Path) -> None:
    """Write the files earlier blocks write, where this worker has not run those blocks.

    The blocks read as one session (a profile written by one is read by the next), but
    pytest-xdist spreads them over workers, each with its own scratch folder; the writing
    commands are run here unchecked (their own block checks them).
    """
    for earlier in BLOCKS:
        if earlier.line >= block.line:
            return
        if earlier.skip is not None:
            continue
        for command in earlier.commands:
            target = _written_file(command.text)
            if target is not None and not (scratch / target).exists():
                run(command.text, runner)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("readme")
    (folder / "data").symlink_to(ROOT / "data")
    return folder


def test_the_readme_has_command_blocks() -> None:
    assert len(BLOCKS) >= 15
    for block in BLOCKS:
        assert block.skip is None or block.skip, f"README line {block.line}: a skip marker needs its reason"
        assert block.needs is None or block.needs[1], f"README line {block.line}: a needs marker needs its reason"


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b.line}" for b in BLOCKS])
def test_a_pasted_output_is_a_real_run(block: Block, scratch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if block.skip is not None:
        pytest.skip(f"README line {block.line}: {block.skip}")
    if block.needs is not None:
        pytest.importorskip(block.needs[0], reason=f"README line {block.line}: {block.needs[1]}")
    monkeypatch.chdir(scratch)
    runner = CliRunner()
    _replay_earlier_outputs(block, runner, scratch)
    for command in block.commands:
        actual = run(command.text, runner, width(command.expected))
        assert matches(command.expected, actual), (
            f"README line {command.line}: $ {command.text}\n--- pasted ---\n" + "\n".join(command.expected)
            + "\n--- real run ---\n" + "\n".join(actual))
