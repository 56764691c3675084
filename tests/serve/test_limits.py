"""The server's own limits: a request's time limit and cross-origin calls (``iosizer serve`` options)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.serve.conftest import Server, httpx, serving

PLANNER_PAGE = "http://planner.example:8080"


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with a 2 s request limit that lets one other origin call it."""
    log = tmp_path_factory.mktemp("serve-limits") / "server.log"
    with serving(log, "--workers", "1", "--request-timeout-s", "2", "--cors-origin", PLANNER_PAGE) as running:
        yield running


def _loky_processes() -> list[str]:
    """Live joblib (loky) worker processes on this machine, by their command lines."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and b"LokyProcess" in (entry / "cmdline").read_bytes():
                found.append(entry.name)
    return found


def _mmc(server: Server, **headers: str) -> Any:
    return server.post("/api/queue/mmc", json={"arrival_rate": 3.2, "service_rate": 1, "servers": 4},
                       headers=headers)


def test_a_request_past_the_time_limit_is_503_and_the_server_recovers(limited: Server) -> None:
    # About a minute of simulation in two joblib processes: far past the 2 s limit.
    long_run = {"arrival_rate": 3.0, "service_rate": 1, "servers": 4, "replications": 400,
                "run_length": 200000, "workers": 2}
    idle = set(_loky_processes())  # another server's joblib pool may be alive, waiting for work
    answer = limited.post("/api/simulate/mmc", json=long_run)
    assert answer.status_code == 503, answer.text
    body = answer.json()
    assert body["kind"] == "Timeout" and "2 s limit" in body["error"] and "--request-timeout-s" in body["error"]
    # The killed worker's joblib processes die with it (they ran on as orphans, burning both CPUs).
    deadline = time.monotonic() + 10
    while set(_loky_processes()) - idle and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not set(_loky_processes()) - idle
    # The killed pool is replaced: the next heavy and quick requests are answered.
    short_run = {**long_run, "replications": 2, "run_length": 2000, "workers": 1}
    assert limited.post("/api/simulate/mmc", json=short_run).status_code == 200
    assert _mmc(limited).status_code == 200


def test_a_listed_origin_may_call_the_api_and_others_may_not(limited: Server, server: Server) -> None:
    preflight = limited.client.options("/api/queue/mmc", headers={
        "Origin": PLANNER_PAGE, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"})
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == PLANNER_PAGE
    answer = _mmc(limited, Origin=PLANNER_PAGE)
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == PLANNER_PAGE
    assert "x-iosizer-exit" in answer.headers["access-control-expose-headers"].lower()
    assert "access-control-allow-origin" not in _mmc(limited, Origin="http://elsewhere.example").headers
    # Without --cors-origin the server answers no cross-origin header at all.
    assert "access-control-allow-origin" not in _mmc(server, Origin=PLANNER_PAGE).headers


def test_a_bad_origin_is_refused_at_start(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "iosizer.cli", "serve", "--cors-origin", "planner.example/x"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "iosizer: error: --cors-origin: expected * or scheme://host[:port] with no path, got 'planner.example/x'"]
    assert httpx is not None
