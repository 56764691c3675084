"""A worker that dies on its own while answering (not killed by the server's timeout or a cancel).

Under a memory limit a failed allocation in C code (OpenBLAS, the allocator, a thread's stack) aborts the
process instead of raising MemoryError: the request asked for too much, 413, as when Python sees it. With
no limit in force the death is the server's failure, 500. Each case runs one real worker process.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from iosizer.serve.worker import Lane

#: A simulation of minutes in one process: it is still running when the test kills its worker.
LONG = {"kind": "quick", "path": ("simulate", "mmc"), "values": {
    "arrival_rate": 3.0, "service_rate": 1.0, "servers": 4, "replications": 400, "run_length": 20000,
    "workers": 1, "engine": "ciw"}}


def _answer_of_a_worker_that_aborts(tmp_path: Path, memory_bytes: int | None) -> dict[str, Any]:
    async def scenario() -> dict[str, Any]:
        lane = Lane("jobs", 1, 1, memory_bytes, str(tmp_path))
        await asyncio.wait_for(asyncio.gather(*lane.start()), 120)

        def abort_soon(worker: Any) -> None:
            asyncio.get_running_loop().call_later(1.0, os.kill, worker.pid, signal.SIGABRT)

        try:
            return await lane.call(dict(LONG), 120, on_start=abort_soon)
        finally:
            lane.close()

    return asyncio.run(scenario())


@pytest.mark.parametrize("memory_bytes, status, kind", [(2**31, 413, "MemoryLimit"), (None, 500, "WorkerError")])
def test_a_worker_dying_on_its_own_is_the_limit_or_the_servers_failure(
        tmp_path: Path, memory_bytes: int | None, status: int, kind: str) -> None:
    answer = _answer_of_a_worker_that_aborts(tmp_path, memory_bytes)
    assert (answer["status"], answer["kind"]) == (status, kind), answer


def test_the_long_task_is_a_simulation_a_worker_runs() -> None:
    """The task above is a valid one (shortened, it answers 200): the worker dies of the abort, not of it."""
    from iosizer.serve.worker import answer_quick

    short = {**LONG["values"], "replications": 2, "run_length": 300}
    assert answer_quick(LONG["path"], short)["status"] == 200
