"""A bounded load test: 2,000 what-ifs from 32 concurrent clients, every one answered, p99 reported.

Each client is a thread with its own connection (one asyncio client holding 32
connections measures its own scheduling more than the server: its p99 is
several times longer).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx

from tests.serve.conftest import LOAD_SUMMARY

REQUESTS = 2000
CLIENTS = 32
#: Generous: on two busy CPUs the whole run takes under ten seconds.
TIME_LIMIT_S = 60.0

#: A mix of quick what-ifs across the families, each varied a little.
MIX: list[tuple[str, Any]] = [
    ("/api/queue/mmc", lambda i: {"arrival_rate": 1 + (i % 25) * 0.1, "service_rate": 1, "servers": 4}),
    ("/api/queue/mm1", lambda i: {"arrival_rate": "0.1:0.9:0.1", "service_rate": 1 + i % 3}),
    ("/api/latency/dma", lambda i: {"device": "bcm5700", "added_latency_ns": 150 * (i % 15)}),
    ("/api/pcie/pattern", lambda i: {"transfer_bytes": str(512 + 8 * (i % 9))}),
    ("/api/hba/isolation", lambda i: {"block_kib": 4, "lpar2_iops": f"0:{100000 + i % 5 * 50000}:50000"}),
    ("/api/replication", lambda i: {"link": "10g", "block_kib": str(4 * (1 + i % 4))}),
    ("/api/families/mmc/parameters", None),
]


def _request(client: httpx.Client, i: int) -> httpx.Response:
    path, body = MIX[i % len(MIX)]
    return client.get(path) if body is None else client.post(path, json=body(i))


def _load(url: str) -> tuple[list[float], list[str], float, dict[int, str]]:
    latencies: list[float] = []
    failures: list[str] = []
    kept: dict[int, str] = {}
    jobs = iter(range(REQUESTS))
    lock = threading.Lock()

    def one_client() -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            while True:
                with lock:
                    i = next(jobs, None)
                if i is None:
                    return
                started = time.perf_counter()
                response = _request(client, i)
                latencies.append(time.perf_counter() - started)
                if response.status_code != 200:
                    failures.append(f"{MIX[i % len(MIX)][0]} {response.status_code} {response.text[:200]}")
                elif i % 97 == 0:
                    kept[i] = response.text

    clients = [threading.Thread(target=one_client) for _ in range(CLIENTS)]
    started = time.perf_counter()
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    return latencies, failures, time.perf_counter() - started, kept


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def test_two_thousand_requests_from_32_clients(server: Any) -> None:
    latencies, failures, elapsed, kept = _load(server.url)
    p50, p99 = _quantile(latencies, 0.50), _quantile(latencies, 0.99)
    summary = (f"serve load test: {len(latencies)} requests from {CLIENTS} clients in {elapsed:.2f} s "
               f"({len(latencies) / elapsed:.0f}/s), latency p50 {p50 * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, "
               f"max {max(latencies) * 1e3:.1f} ms, {len(failures)} failed")
    LOAD_SUMMARY.append(summary)
    print(summary)
    assert not failures, failures[:5]
    assert len(latencies) == REQUESTS
    assert elapsed < TIME_LIMIT_S, summary
    # Answers under load are the answers alone: no request saw another's output.
    for i, text in kept.items():
        assert _request(server.client, i).text == text, MIX[i % len(MIX)][0]
