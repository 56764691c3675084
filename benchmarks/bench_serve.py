"""Speed of ``iosizer serve``: what HTTP and the worker processes add to a command, and why processes.

Run: ``python benchmarks/bench_serve.py`` (needs the serve and test extras).
Not part of the test run: timings depend on the machine and its load.

1. The commands alone, in this process: the floor for a what-if.
2. The real server with 1, 2 and 4 what-if workers, 2,000 requests from
   1, 8 and 32 concurrent clients: requests per second, p50 and p99.
3. The rejected design, commands in threads of the server's process: their
   printing (stdout), working folder and warning filters are process-wide,
   so they need one lock, and a what-if waits for a whole calibration.
   Measured here against the process pools, where it waits for nothing.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

import iosizer
from iosizer.serve import worker

WHAT_IFS = [
    ("/api/queue/mmc", {"arrival_rate": 3.2, "service_rate": 1, "servers": 4},
     ["queue", "mmc", "--arrival-rate", "3.2", "--service-rate", "1", "--servers", "4"]),
    ("/api/latency/dma", {"device": "bcm5700", "added_latency_ns": 2100},
     ["latency", "dma", "--device", "bcm5700", "--added-latency-ns", "2100"]),
    ("/api/hba/isolation", {"block_kib": 4, "lpar2_iops": "0:300000:50000"},
     ["hba", "isolation", "--block-kib", "4", "--lpar2-iops", "0:300000:50000"]),
    ("/api/replication", {"link": "10g", "block_kib": "4,16"}, ["replication", "--link", "10g", "--block-kib", "4,16"]),
]
REQUESTS = 2000


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def in_process() -> None:
    with tempfile.TemporaryDirectory() as folder:
        worker.run(WHAT_IFS[0][2] + ["--format", "json"], folder)
        started = time.perf_counter()
        for i in range(REQUESTS):
            worker.run(WHAT_IFS[i % len(WHAT_IFS)][2] + ["--format", "json"], folder)
        seconds = time.perf_counter() - started
    print(f"in process, no HTTP: {seconds / REQUESTS * 1e3:.2f} ms per command ({REQUESTS / seconds:.0f}/s)")


def start(workers: int) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "iosizer.cli", "serve", "--port", str(port),
                                "--workers", str(workers), "--log-level", "warning"])
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(url + "/api/health", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def load(url: str, clients: int) -> tuple[float, list[float]]:
    """REQUESTS what-ifs from ``clients`` threads, each with its own connection."""
    latencies: list[float] = []
    jobs = iter(range(REQUESTS))
    lock = threading.Lock()

    def one() -> None:
        with httpx.Client(base_url=url, timeout=60) as client:
            while True:
                with lock:
                    i = next(jobs, None)
                if i is None:
                    return
                path, body, _ = WHAT_IFS[i % len(WHAT_IFS)]
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


def big_fit(folder: Path) -> Path:
    rows = Path(iosizer.family("closed-network").example()).read_text().splitlines()
    path = folder / "big_load_test.csv"
    path.write_text("\n".join([rows[0]] + rows[1:] * 6000) + "\n")
    return path


def stall_with_processes(url: str, data: Path) -> None:
    def fit() -> None:
        with data.open("rb") as handle:
            httpx.post(url + "/api/calibrate/closed-network", files={"file": (data.name, handle)},
                       data={"stations": "3"}, timeout=120)

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
    print(f"process pools: {len(waits)} what-ifs during a {time.perf_counter() - started:.2f} s calibration, "
          f"median {quantile(waits, 0.5) * 1e3:.0f} ms, slowest {max(waits) * 1e3:.0f} ms")


def stall_with_threads(data: Path) -> None:
    lock = threading.Lock()

    def locked(argv: list[str]) -> None:
        with tempfile.TemporaryDirectory() as folder, lock:
            worker.run(argv + ["--format", "json"], folder)

    thread = threading.Thread(target=locked, args=(["calibrate", "closed-network", str(data), "--stations", "3"],))
    started = time.perf_counter()
    thread.start()
    time.sleep(0.3)
    t = time.perf_counter()
    locked(WHAT_IFS[0][2])
    waited = time.perf_counter() - t
    thread.join()
    print(f"threads + lock: a what-if during a {time.perf_counter() - started:.2f} s calibration "
          f"took {waited * 1e3:.0f} ms")


def main() -> None:
    in_process()
    with tempfile.TemporaryDirectory() as folder:
        data = big_fit(Path(folder))
        for workers in (1, 2, 4):
            process, url = start(workers)
            try:
                for clients in (1, 8, 32):
                    seconds, latencies = load(url, clients)
                    print(f"workers {workers}, clients {clients:2d}: {REQUESTS / seconds:5.0f}/s, "
                          f"p50 {quantile(latencies, 0.5) * 1e3:6.1f} ms, p99 {quantile(latencies, 0.99) * 1e3:6.1f} ms")
                if workers == 2:
                    stall_with_processes(url, data)
            finally:
                process.terminate()
                process.wait()
        stall_with_threads(data)


if __name__ == "__main__":
    main()
