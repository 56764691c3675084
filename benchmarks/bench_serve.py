"""Speed of ``iosizer serve`` against a bare FastAPI endpoint under the same uvicorn, in the same run.

Run: ``python benchmarks/bench_serve.py [--set quick|mmc|device|mix] [--workers 2] [--clients 1,8,32]
[--requests 1000] [--rounds 3]`` (needs the serve and test extras). Not part of the test run: timings
depend on the machine and its load (printed at the start and the end), so only ratios measured in one
run mean much.

1. Python: ``iosizer.family("mmc").predict`` for one point against the raw model function it
   computes (``mmc_mean_response``), with and without reading its band (issue 26: within 10x).
2. The answers alone, in this process: the floor of a what-if.
3. A bare FastAPI endpoint (a JSON body in, a small JSON object out) under the
   same uvicorn settings, then the real server with ``--workers``: requests
   per second, p50 and p99 from 1, 8 and 32 concurrent clients, each server
   in turn, ``--rounds`` times (medians), and the ratios the goal is stated in
   (issue 26: at least half the bare requests/s at 8 clients; p50 at 8 and 32
   clients within 2x). The what-ifs (``--set``): ``quick``, the goal's (queue
   mmc, a hand-written command, and device curve, a declared question, one
   point each; every request's body differs a little); ``mix``, the issue's
   first mix, with two sweeps.
4. A what-if asked during a long calibration (the fits have their own workers).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

#: The issue's goal set: quick what-ifs, a hand-written command and a declared question, one point each.
QUICK = [
    ("/api/queue/mmc", lambda i: {"arrival_rate": 3.2 + (i % 50) * 0.001, "service_rate": 1, "servers": 4}),
    ("/api/device/curve", lambda i: {"outstanding": 1 + i % 32}),
]
#: The mix the issue first measured (two sweeps among them: answers of 7 and 2 points).
MIX = [
    ("/api/queue/mmc", lambda i: {"arrival_rate": 3.2 + (i % 50) * 0.001, "service_rate": 1, "servers": 4}),
    ("/api/latency/dma", lambda i: {"device": "bcm5700", "added_latency_ns": 2000 + i % 200}),
    ("/api/hba/isolation", lambda i: {"block_kib": 4, "lpar2_iops": "0:300000:50000"}),
    ("/api/replication", lambda i: {"link": "10g", "block_kib": "4,16"}),
]
#: What load() sends: each request's body differs a little (no answer is asked twice in a row).
WHAT_IFS = list(QUICK)


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
                client.post(path, json=body(i)).raise_for_status()
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
    """The answers alone, in this process (as a quick-lane worker computes them): the floor of a what-if."""
    from iosizer.catalogue import command_specs
    from iosizer.commands import body_values
    from iosizer.model.registry import declaration
    from iosizer.serve import worker
    from iosizer.serve.questions import question_paths, request_model

    specs = {spec.url: spec for spec in command_specs()[0]}
    questions = {"/api/" + "/".join(path): (family, command, request_model(declaration(family),
                                                                             declaration(family).question(command)))
                 for path, (family, command) in question_paths().items()}

    def answer(path: str, body: dict[str, Any]) -> Any:
        if path in questions:
            family, command, model = questions[path]
            return worker.answer_question(family, command, model.model_validate(body).model_dump(exclude_unset=True),
                                          list(model.model_fields))
        spec = specs[path]
        return worker.answer_quick(spec.path, body_values(spec.model.model_validate(body)))

    for path, body in WHAT_IFS:
        answer(path, body(0))
        started = time.perf_counter()
        for i in range(requests // 4):
            answer(path, body(i))
        seconds = (time.perf_counter() - started) / (requests // 4)
        print(f"in process, no HTTP: {path} {seconds * 1e3:.3f} ms per answer", flush=True)


def predict_overhead() -> None:
    """``iosizer.family("mmc").predict`` for one point against the raw model function (issue 26's Python point):
    the family's own formula (``mmc_mean_response``, what its solve computes) and the whole ``mmc()`` result."""
    import iosizer
    from iosizer.model.queueing import mmc, mmc_mean_response

    family = iosizer.family("mmc")
    calls = {
        "predict": lambda: family.predict(arrival_rate_per_s=3200.0),
        "predict, band read": lambda: family.predict(arrival_rate_per_s=3200.0).mean_response_s_ci_low,
        "mmc_mean_response()": lambda: mmc_mean_response(3200.0, 1000.0, 4),
        "mmc()": lambda: mmc(3200.0, 1000.0, 4),
    }
    took = {}
    for name, call in calls.items():
        call()
        rounds = 2000
        started = time.perf_counter()
        for _ in range(rounds):
            call()
        took[name] = (time.perf_counter() - started) / rounds * 1e6
    raw = took["mmc_mean_response()"]
    print("python, one point: " + "; ".join(f"{name} {us:.1f} us ({us / raw:.1f}x the raw formula)"
                                            for name, us in took.items()), flush=True)


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
                client.post(WHAT_IFS[0][0], json=WHAT_IFS[0][1](len(waits)))
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
    parser.add_argument("--set", choices=("quick", "mmc", "device", "mix"), default="quick",
                        help="quick: the goal's what-ifs (queue mmc, device curve; one point each); mmc or device: "
                             "one of them alone; mix: the issue's first mix (with two sweeps)")
    parser.add_argument("--no-calibration", action="store_true", help="skip the what-ifs during a calibration")
    parser.add_argument("--bare-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.bare_server:
        import uvicorn

        uvicorn.run(bare_app(), host="127.0.0.1", port=options.port, log_level="warning")
        return
    clients = [int(c) for c in options.clients.split(",")]
    WHAT_IFS[:] = {"quick": QUICK, "mmc": QUICK[:1], "device": QUICK[1:], "mix": MIX}[options.set]
    print(f"load average at the start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    predict_overhead()
    with tempfile.TemporaryDirectory():
        in_process(options.requests)
    servers = {"bare FastAPI": start(sys.executable, __file__, "--bare-server"),
               "iosizer": start(sys.executable, "-m", "iosizer.cli", "serve", "--log-level", "warning",
                                "--workers", str(options.workers))}
    try:
        results = measure({name: url for name, (_, url) in servers.items()}, clients, options.requests,
                          options.rounds)
        if not options.no_calibration:
            during_calibration(servers["iosizer"][1])
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(timeout=30)
    bare, ours = results["bare FastAPI"], results["iosizer"]
    for count in clients:
        print(f"clients {count:2d}: requests/s {ours[count][0] / bare[count][0]:.2f} of bare (goal >= 0.5), "
              f"p50 {ours[count][1] / bare[count][1]:.2f}x bare (goal <= 2 at 8 and 32)")
    print(f"load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
