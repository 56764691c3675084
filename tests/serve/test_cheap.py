"""Sub-millisecond what-ifs answered in a thread of the server (worker.Cheap): only kinds a worker answered
cheaply, with the worker's bytes; dearer or late ones go back to the workers. No timings asserted here."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from iosizer.serve import worker


def _question(outstanding: Any, **more: Any) -> dict[str, Any]:
    return {"kind": "question", "family": "device", "question": "curve", "values": {"outstanding": outstanding,
                                                                                    **more},
            "keys": ["outstanding", "band", "profile"], "view": False}


def test_a_kind_is_the_route_and_each_value_s_order_of_magnitude() -> None:
    kind = worker.cost_class
    assert kind(_question(5)) == kind(_question(7)) != kind(_question(9))  # 4-7 and 8-15: powers of 2
    assert kind(_question([1, 2])) == kind(_question([3, 2])) != kind(_question([1, 2, 3, 4]))  # list length too
    assert kind(_question(5, band="prediction")) != kind(_question(5))
    mmc = {"kind": "quick", "path": ("queue", "mmc"), "values": {"arrival_rate": "3.2", "servers": 4},
           "profiles": {}, "view": False}
    assert kind(mmc) != kind({**mmc, "values": {"arrival_rate": "3.3", "servers": 4}})  # text as given
    # Never in the server's thread: a plot or page view, an inline profile, a command run in a folder.
    assert kind({**_question(5), "view": True}) is None
    assert kind({**mmc, "profiles": {"profile": {"model": "mmc"}}}) is None
    assert kind(_question(5, profile={"model": "device"})) is None
    assert kind({"kind": "run", "argv": ["report"], "workdir": "/tmp", "view": False, "output": None}) is None


def test_a_kind_answered_cheaply_by_a_worker_is_answered_in_the_thread_with_its_bytes() -> None:
    cheap = worker.Cheap(cpu_s=0.002)
    task = _question(5)
    assert cheap.takes(task) is None  # never seen: a worker answers it
    cheap.learn(task, {"status": 200, "cpu_s": 0.05})
    assert cheap.takes(task) is None  # seen, but dear
    cheap.learn(task, {"status": 200, "cpu_s": 0.001})
    kind = cheap.takes(_question(6))
    assert kind is not None

    async def ask() -> dict[str, Any]:
        return await cheap.call(kind, _question(6), timeout_s=60)

    try:
        answer = asyncio.run(ask())
    finally:
        cheap.close()
    expected = worker.answer_question("device", "curve", {"outstanding": 6}, ["outstanding", "band", "profile"])
    assert answer["status"] == 200 and answer["json"] == expected["json"]
    assert answer["cpu_s"] >= 0


def test_a_dear_or_late_answer_sends_its_kind_back_to_the_workers(monkeypatch: Any) -> None:
    cheap = worker.Cheap(cpu_s=0.0)  # any CPU is over this limit
    task = _question(5)
    kind = worker.cost_class(task)
    cheap.known.add(kind)

    async def ask(timeout_s: float) -> dict[str, Any]:
        return await cheap.call(kind, task, timeout_s)

    try:
        assert asyncio.run(ask(60))["status"] == 200
        assert cheap.takes(task) is None
        cheap.known.add(kind)
        monkeypatch.setattr(worker, "_answer_here", lambda task: time.sleep(0.5) or {"status": 200, "cpu_s": 0.0})
        late = asyncio.run(ask(0.05))
        assert late["status"] == 504 and late["kind"] == "Timeout"
        assert cheap.takes(task) is None and cheap.in_flight == 0
    finally:
        cheap.close()


def test_a_full_line_goes_to_the_workers() -> None:
    cheap = worker.Cheap(waiting=1)
    task = _question(5)
    cheap.learn(task, {"status": 200, "cpu_s": 0.0})
    assert cheap.takes(task) is not None
    cheap.in_flight = 1
    assert cheap.takes(task) is None
