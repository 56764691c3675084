"""A bounded load test: 2,000 what-ifs from 32 concurrent clients, every one answered, p99 reported."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from tests.serve.conftest import LOAD_SUMMARY

REQUESTS = 2000
CLIENTS = 32
#: Generous: on two CPUs the whole run takes a few seconds.
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


async def _load(url: str) -> tuple[list[float], list[str], float, dict[int, str]]:
    latencies: list[float] = []
    failures: list[str] = []
    kept: dict[int, str] = {}
    jobs = iter(range(REQUESTS))
    limits = httpx.Limits(max_connections=CLIENTS, max_keepalive_connections=CLIENTS)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:

        async def one_client() -> None:
            for i in jobs:
                path, body = MIX[i % len(MIX)]
                started = time.perf_counter()
                if body is None:
                    response = await client.get(path)
                else:
                    response = await client.post(path, json=body(i))
                latencies.append(time.perf_counter() - started)
                if response.status_code != 200:
                    failures.append(f"{path} {response.status_code} {response.text[:200]}")
                elif i % 97 == 0:
                    kept[i] = response.text

        started = time.perf_counter()
        await asyncio.gather(*(one_client() for _ in range(CLIENTS)))
        return latencies, failures, time.perf_counter() - started, kept


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def test_two_thousand_requests_from_32_clients(server: Any) -> None:
    latencies, failures, elapsed, kept = asyncio.run(_load(server.url))
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
        path, body = MIX[i % len(MIX)]
        alone = server.get(path) if body is None else server.post(path, json=body(i))
        assert alone.text == text, path
