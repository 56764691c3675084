"""The real server for the serve tests: ``iosizer serve`` on a free loopback port, spoken to over HTTP."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("fastapi", reason="the serve tests need the serve extra: pip install '.[serve,test]'")
httpx = pytest.importorskip("httpx", reason="the serve tests need httpx: pip install '.[test]'")

#: Where the browser tests keep their screenshots (gitignored).
ARTEFACTS = Path(os.environ.get("IOSIZER_TEST_ARTEFACTS", Path(__file__).resolve().parents[2] / "test-artefacts"))

#: Filled by the load test, printed in pytest's closing summary (an xdist worker hands its lines to the controller).
LOAD_SUMMARY: list[str] = []
#: Timeouts guard against a hung server only: far above any answer's time on a loaded 2-core machine
#: (a request that legitimately runs long is bounded by the server's own limits, not by the test).
HANG_S = 600.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """A running ``iosizer serve``: its base URL, a client, and its log."""

    def __init__(self, url: str, log: Path, process: subprocess.Popen[bytes]) -> None:
        self.url = url
        self.log = log
        self.process = process
        self.client = httpx.Client(base_url=url, timeout=HANG_S)

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.client.post(path, **kwargs)

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.client.get(path, **kwargs)


def _start(log: Path, *options: str) -> tuple[subprocess.Popen[bytes], str]:
    last_error = ""
    for _ in range(3):  # a port picked free may be taken before the server binds it
        port = _free_port()
        with log.open("ab") as sink:
            process = subprocess.Popen(
                [sys.executable, "-m", "iosizer.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                 "--log-level", "warning", *options],
                stdout=sink, stderr=subprocess.STDOUT,
            )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + HANG_S
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if httpx.get(url + "/api/health", timeout=1).status_code == 200:
                    return process, url
            except httpx.HTTPError as error:
                last_error = str(error)
            time.sleep(0.1)
        _stop(process)
    raise RuntimeError(f"iosizer serve did not start ({last_error}); log:\n{log.read_text()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def serving(log: Path, *options: str) -> Iterator[Server]:
    """``iosizer serve OPTIONS`` for the block; afterwards its log must hold no traceback."""
    process, url = _start(log, *options)
    running = Server(url, log, process)
    try:
        yield running
    finally:
        running.client.close()
        _stop(process)
    text = log.read_text()
    assert "Traceback" not in text, text


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("serve") / "server.log", "--workers", "2") as running:
        yield running


def pytest_sessionfinish(session: pytest.Session) -> None:
    # On an xdist worker: hand the lines to the controller, which prints them (tests/conftest.py).
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["iosizer_load_summary"] = list(LOAD_SUMMARY)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in LOAD_SUMMARY:
        terminalreporter.write_line(line)
