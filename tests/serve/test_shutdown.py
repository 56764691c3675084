"""One Ctrl-C (SIGINT) or SIGTERM stops ``iosizer serve`` and every process it started, a simulation running.

uvicorn alone waited for the request in flight ("Waiting for background tasks
to complete"); a second Ctrl-C left the workers and their joblib processes
running until their group was killed by hand.
"""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest

from tests.serve.conftest import _start
from tests.serve.test_limits import LONG_RUN, _alive, _descendants, _until

#: A hang guard, far above the few seconds the stop takes.
STOP_WITHIN_S = 30.0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_one_signal_stops_the_server_and_every_child(tmp_path: Path, sig: signal.Signals) -> None:
    import httpx

    process, url = _start(tmp_path / "server.log", "--workers", "1", "--simulation-workers", "2")
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            job = client.post("/api/simulate/mmc?wait=false", json=LONG_RUN).json()
            _until(lambda: client.get(job["url"]).json()["status"] == "running")
            # A synchronous request in flight too (it waits for the running one): uvicorn used to wait for it.
            waiting = threading.Thread(target=_quietly, args=(url, {**LONG_RUN, "seed": 1}), daemon=True)
            waiting.start()
            children = _until(lambda: (lambda found: found if any(
                b"LokyProcess" in _cmdline(pid) for pid in found) else None)(_descendants(process.pid)))
        started = time.monotonic()
        process.send_signal(sig)
        process.wait(timeout=STOP_WITHIN_S)
        _until(lambda: not _alive(children), seconds=STOP_WITHIN_S)
        print(f"{sig.name}: the server and its {len(children)} processes stopped within "
              f"{time.monotonic() - started:.2f} s, a simulation running")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log


def _quietly(url: str, body: dict[str, object]) -> None:
    import httpx

    try:
        httpx.post(url + "/api/simulate/mmc?wait=true", json=body, timeout=STOP_WITHIN_S * 2)
    except httpx.HTTPError:
        pass  # the server stopped under it: what the test wants


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
