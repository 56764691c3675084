"""Speed of ``iosizer serve`` against a bare FastAPI endpoint under the same uvicorn, in the same run.

Run: ``python benchmarks/bench_serve.py [--workers 2] [--clients 1,8,32] [--requests 2000]``
(needs the serve and test extras). Not part of the test run: timings depend
on the machine and its load, so only ratios measured in one run mean much.

1. The commands alone, in this process: the floor for a what-if.
2. A bare FastAPI endpoint (a JSON body in, a small JSON object out) under the
   same uvicorn settings, then the real server with ``--workers``: requests
   per second, p50 and p99 from 1, 8 and 32 concurrent clients, and the ratios
   the goal is stated in (issue 26: at least half the bare requests/s; p50 at
   8 and 32 clients within 2x).
3. A what-if asked during a long calibration (the fits have their own workers).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

WHAT_IFS = [
    ("/api/queue/mmc", {"arrival_rate": 3.2, "service_rate": 1, "servers": 4}),
    ("/api/latency/dma", {"device": "bcm5700", "added_latency_ns": 2100}),
    ("/api/hba/isolation", {"block_kib": 4, "lpar2_iops": "0:300000:50000"}),
    ("/api/replication", {"link": "10g", "block_kib": "4,16"}),
]


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bare_app() -> Any:
    """The framework's own cost: a FastAPI endpoint that validates a JSON object and answers a small one."""
    from fastapi import FastAPI

    app = FastAPI()

    @app.post("/api/{path:path}")
    async def answer(path: str, body: dict[str, Any]) -> dict[str, Any]:
        return {"utilization": 0.8, "p_wait": 0.5964324717874046, "fields": len(body)}

    @app.get("/api/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    return app


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_up(process: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(url + "/api/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server at {url} did not start")


def start(*command: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    process = subprocess.Popen([*command, "--port", str(port)])
    url = f"http://127.0.0.1:{port}"
    _wait_up(process, url)
    return process, url


def load(url: str, clients: int, requests: int) -> tuple[float, list[float]]:
    """``requests`` what-ifs from ``clients`` threads, each with its own connection."""
    latencies: list[float] = []
    jobs = iter(range(requests))
    lock = threading.Lock()

    def one() -> None:
        with httpx.Client(base_url=url, timeout=60) as client:
            while True:
                with lock:
                    i = next(jobs, None)
                if i is None:
                    return
                path, body = WHAT_IFS[i % len(WHAT_IFS)]
                t = time.perf_counter()
                client.post(path, json=body).raise_for_status()
                latencies.append(time.perf_counter() - t)

    threads = [threading.Thread(target=one) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, latencies


def measure(urls: dict[str, str], clients: list[int], requests: int, rounds: int) -> dict[str, dict[int, Any]]:
    """Each server in turn, ``rounds`` times per client count: the medians, so a shared machine's load
    drifting during the run weighs on both sides alike."""
    for url in urls.values():
        load(url, 4, 200)  # warm: connections, first answers
    found: dict[str, dict[int, Any]] = {name: {} for name in urls}
    for count in clients:
        samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in urls}
        for _ in range(rounds):
            for name, url in urls.items():
                seconds, latencies = load(url, count, requests)
                samples[name].append((requests / seconds, quantile(latencies, 0.5), quantile(latencies, 0.99)))
        for name in urls:
            rate, p50, p99 = (quantile([s[i] for s in samples[name]], 0.5) for i in range(3))
            found[name][count] = (rate, p50, p99)
            print(f"{name:>12}, clients {count:2d}: {rate:6.0f}/s, p50 {p50 * 1e3:6.2f} ms, p99 {p99 * 1e3:6.1f} ms "
                  f"(median of {rounds})", flush=True)
    return found


def in_process(requests: int) -> None:
    from iosizer.cli.catalogue import command_specs
    from iosizer.serve import worker

    specs = {spec.url: spec for spec in command_specs()[0]}
    calls = [(specs[path], body) for path, body in WHAT_IFS]
    for spec, body in calls:
        worker.answer_quick(spec.path, spec.model.model_validate(body).model_dump(by_alias=True, exclude_unset=True))
    started = time.perf_counter()
    for i in range(requests):
        spec, body = calls[i % len(calls)]
        worker.answer_quick(spec.path, spec.model.model_validate(body).model_dump(by_alias=True, exclude_unset=True))
    seconds = time.perf_counter() - started
    print(f"in process, no HTTP: {seconds / requests * 1e3:.3f} ms per what-if ({requests / seconds:.0f}/s)")


def predict_overhead() -> None:
    """``iosizer.family("mmc").predict`` for one point against the raw model function (issue 26's Python point)."""
    import iosizer
    from iosizer.model.queueing import mmc

    family = iosizer.family("mmc")
    family.predict(arrival_rate_per_s=3200.0)
    rounds = 2000
    started = time.perf_counter()
    for _ in range(rounds):
        family.predict(arrival_rate_per_s=3200.0)
    predict_us = (time.perf_counter() - started) / rounds * 1e6
    started = time.perf_counter()
    for _ in range(rounds):
        mmc(3200.0, 1000.0, 4)
    raw_us = (time.perf_counter() - started) / rounds * 1e6
    print(f"python: family('mmc').predict one point {predict_us:.0f} us; raw mmc() {raw_us:.0f} us "
          f"({predict_us / raw_us:.1f}x)")


def during_calibration(url: str) -> None:
    import iosizer

    rows = Path(iosizer.family("closed-network").example()).read_text().splitlines()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "big_load_test.csv"
        data.write_text("\n".join([rows[0]] + rows[1:] * 6000) + "\n")

        def fit() -> None:
            with data.open("rb") as handle:
                httpx.post(url + "/api/calibrate/closed-network", files={"file": (data.name, handle)},
                           data={"stations": "3"}, headers={"X-Iosizer": "1"}, timeout=120)

        thread = threading.Thread(target=fit)
        started = time.perf_counter()
        thread.start()
        waits = []
        with httpx.Client(base_url=url) as client:
            while thread.is_alive():
                t = time.perf_counter()
                client.post(WHAT_IFS[0][0], json=WHAT_IFS[0][1])
                waits.append(time.perf_counter() - t)
                time.sleep(0.05)
        thread.join()
    print(f"{len(waits)} what-ifs during a {time.perf_counter() - started:.2f} s calibration: "
          f"median {quantile(waits, 0.5) * 1e3:.0f} ms, slowest {max(waits) * 1e3:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--requests", type=int, default=1000, help="per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bare-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.bare_server:
        import uvicorn

        uvicorn.run(bare_app(), host="127.0.0.1", port=options.port, log_level="warning")
        return
    clients = [int(c) for c in options.clients.split(",")]
    predict_overhead()
    with tempfile.TemporaryDirectory():
        try:
            in_process(options.requests)
        except AttributeError:  # before issue 26 there was no direct call
            pass
    servers = {"bare FastAPI": start(sys.executable, __file__, "--bare-server"),
               "iosizer": start(sys.executable, "-m", "iosizer.cli", "serve", "--log-level", "warning",
                                "--workers", str(options.workers))}
    try:
        results = measure({name: url for name, (_, url) in servers.items()}, clients, options.requests,
                          options.rounds)
        during_calibration(servers["iosizer"][1])
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(timeout=30)
    bare, ours = results["bare FastAPI"], results["iosizer"]
    for count in clients:
        print(f"clients {count:2d}: requests/s {ours[count][0] / bare[count][0]:.2f} of bare (goal >= 0.5), "
              f"p50 {ours[count][1] / bare[count][1]:.2f}x bare (goal <= 2 at 8 and 32)")


if __name__ == "__main__":
    main()
