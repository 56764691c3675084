"""Progress on long work (issue 30): a bar on stderr when it is a terminal, nothing otherwise."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import time

import pytest

import iosizer
from iosizer.cli.output import progress_bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_is_drawn_on_a_terminal_and_only_there(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress_bar(counts=True) as progress:
        task = progress.add_task("simulating mmc", total=4)
        progress.update(task, completed=2)
    assert "simulating mmc" in terminal.getvalue() and "2/4" in terminal.getvalue()
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    with progress_bar() as progress:
        progress.add_task("calibrating", total=None)
    assert piped.getvalue() == ""


def test_commands_stay_quiet_when_stderr_is_not_a_terminal(cli) -> None:
    example = str(iosizer.family("mmc").example())
    fitted = cli("calibrate", "mmc", example, "--set", "servers=4", "--format", "json")
    assert fitted.exit_code == 0 and fitted.stderr == ""
    assert json.loads(fitted.stdout)["model"] == "mmc"  # stdout holds the answer alone
    pytest.importorskip("ciw")
    simulated = cli("simulate", "mmc", "--arrival-rate", "2", "--service-rate", "1", "--servers", "4",
                    "--replications", "2", "--run-length", "200", "--workers", "1", "--format", "json")
    assert simulated.exit_code == 0 and simulated.stderr == ""
    assert isinstance(json.loads(simulated.stdout), list)


def test_calibration_shows_its_bar_on_a_terminal() -> None:
    """The real command with stderr on a pseudo-terminal (CliRunner always captures stderr)."""
    pty = pytest.importorskip("pty")
    example = iosizer.family("mmc").example()
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "iosizer.cli", "calibrate", "mmc", str(example), "--set",
                                "servers=4", "--format", "json"], stdout=subprocess.PIPE, stderr=follower,
                               env={**os.environ, "TERM": "xterm"})
    os.close(follower)
    drawn = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # read while it draws: a full terminal buffer would block it
        if select.select([leader], [], [], 0.2)[0]:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: everything was read
                break
            if not chunk:
                break
            drawn += chunk
        elif process.poll() is not None:
            break
    os.close(leader)
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 0 and json.loads(out)["model"] == "mmc"
    assert f"calibrating mmc on {example.name}".encode() in drawn
