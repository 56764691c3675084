"""Sub-millisecond what-ifs answered on the server's event loop (worker.Cheap): only kinds a worker answered
cheaply, with the worker's bytes; dearer ones go back to the workers. No timings asserted here."""

from __future__ import annotations

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
    assert kind({"kind": "declared", "path": ("report",), "values": {}, "names": {}, "workdir": "/tmp",
                 "view": False, "output": None}) is None


def test_a_kind_answered_cheaply_by_a_worker_is_answered_here_with_its_bytes() -> None:
    cheap = worker.Cheap(cpu_s=0.002)
    task = _question(5)
    assert cheap.takes(task) is None  # never seen: a worker answers it
    cheap.learn(task, {"status": 200, "cpu_s": 0.05})
    assert cheap.takes(task) is None  # seen, but dear
    cheap.learn(task, {"status": 200, "cpu_s": 0.001})
    kind = cheap.takes(_question(6))
    assert kind is not None
    answer = cheap.call(kind, _question(6))
    expected = worker.answer_question("device", "curve", {"outstanding": 6}, ["outstanding", "band", "profile"])
    assert answer["status"] == 200 and answer["json"] == expected["json"]
    assert answer["cpu_s"] >= 0


def test_a_dear_answer_sends_its_kind_back_to_the_workers() -> None:
    cheap = worker.Cheap(cpu_s=0.0)  # any CPU is over this limit
    task = _question(5)
    kind = worker.cost_class(task)
    cheap.known.add(kind)
    assert cheap.call(kind, task)["status"] == 200
    assert cheap.takes(task) is None


def test_only_so_many_kinds_are_remembered() -> None:
    cheap = worker.Cheap(remembered=2)
    for outstanding in (1, 2, 4, 8):  # four orders of magnitude: four kinds
        cheap.learn(_question(outstanding), {"status": 200, "cpu_s": 0.0})
    assert len(cheap.known) == 2 and cheap.takes(_question(8)) is None
