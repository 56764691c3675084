"""An event simulation of a device under fio, independent of the model: a delay, then FCFS over C units.

N I/Os circulate: each spends the floor (a constant, or exponential of that
mean), then joins one FCFS queue in front of C units. With a constant floor
I/Os reach the queue in the order they left it, so the k-th arrival after
the first N is the k-th departure plus the floor: a heap of departures and
a heap of unit-free times run the whole loop. Service is gamma of mean S
and the given scv (exponential at 1, constant at 0). The tests here check
the simulator itself against Little's law and the no-queueing limit.
"""

from __future__ import annotations

import heapq
import json
from pathlib import Path

import numpy as np

#: fio's default completion-latency percentiles (fio 3.x JSON keys).
FIO_PERCENTILES = (1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9,
                   99.95, 99.99)


def simulate(floor_us: float, service_us: float, units: int, outstanding: int, ios: int, seed: int,
             service_scv: float = 1.0, exponential_floor: bool = False) -> dict:
    """IOPS, mean and latency sample (us) of ``ios`` completions after a warm-up of ``ios // 10``."""
    rng = np.random.default_rng(seed)
    warm = ios // 10
    total = ios + warm + outstanding
    if service_scv == 0:
        services = np.full(total, service_us)
    else:
        shape = 1.0 / service_scv
        services = rng.gamma(shape, service_us / shape, total)
    floors = rng.exponential(floor_us, total) if exponential_floor else np.full(total, floor_us)
    if exponential_floor:
        return _simulate_event(floors, services, units, outstanding, ios, warm)
    free = [0.0] * units  # unit free times
    departures: list[float] = []
    issued = np.zeros(total)  # when each I/O left fio (entered the floor)
    done = np.zeros(total)
    for i in range(total):
        # the first N leave fio at once; then each I/O is issued as one completes
        issue = 0.0 if i < outstanding else heapq.heappop(departures)
        issued[i] = issue
        arrive = issue + floors[i]
        start = max(arrive, heapq.heappop(free))
        finish = start + services[i]
        heapq.heappush(free, finish)
        heapq.heappush(departures, finish)
        done[i] = finish
    return _summary(issued, done, warm, ios)


def _simulate_event(floors: np.ndarray, services: np.ndarray, units: int, outstanding: int, ios: int,
                    warm: int) -> dict:
    """General delay (arrivals to the queue no longer in departure order): a time-ordered event loop."""
    total = floors.size
    events: list[tuple[float, int, int]] = []  # (time, kind 0 arrive at queue / 1 finish, io)
    issued = np.zeros(total)
    done = np.full(total, np.nan)
    for i in range(outstanding):
        heapq.heappush(events, (floors[i], 0, i))
    waiting: list[int] = []
    busy = 0
    started = outstanding
    head = 0
    while events:
        time, kind, io = heapq.heappop(events)
        if kind == 0:
            waiting.append(io)
        else:
            done[io] = time
            busy -= 1
            if started < total:
                issued[started] = time
                heapq.heappush(events, (time + floors[started], 0, started))
                started += 1
        while busy < units and head < len(waiting):
            nxt = waiting[head]
            head += 1
            busy += 1
            heapq.heappush(events, (time + services[nxt], 1, nxt))
    keep = np.isfinite(done)
    return _summary(issued[keep], done[keep], warm, ios)


def _summary(issued: np.ndarray, done: np.ndarray, warm: int, ios: int) -> dict:
    order = np.argsort(done)
    window = order[warm:warm + ios]
    span = done[window[-1]] - done[order[warm - 1]]  # window.size completions in this time
    latency = done[window] - issued[window]
    return {"iops": window.size / span * 1e6,
            "mean_latency_us": float(latency.mean()), "latency_us": latency}


def write_fio(path: Path, outstanding: int, run: dict, numjobs: int = 1, rw: str = "randread",
              block: str = "4k") -> Path:
    """A fio 3.x JSON file of one job at ``outstanding`` = iodepth x numjobs (group_reporting style)."""
    depth = outstanding // numjobs
    sample = run["latency_us"] * 1e3
    part = {"io_bytes": int(len(sample) * 4096), "iops": run["iops"], "total_ios": int(len(sample)),
            "runtime": 5000,
            "lat_ns": {"min": float(sample.min()), "max": float(sample.max()), "mean": float(sample.mean())},
            "slat_ns": {"mean": 0.0},
            "clat_ns": {"mean": float(sample.mean()),
                        "percentile": {f"{p:.6f}": float(np.percentile(sample, p)) for p in FIO_PERCENTILES}}}
    empty = {"io_bytes": 0, "iops": 0.0, "total_ios": 0, "lat_ns": {"mean": 0.0}, "clat_ns": {"mean": 0.0}}
    direction = "write" if "write" in rw else "read"
    job = {"jobname": "sim", "groupid": 0, "error": 0, "job_runtime": 5000, "usr_cpu": 1.0, "sys_cpu": 2.0,
           "job options": {"rw": rw, "iodepth": str(depth), "numjobs": str(numjobs), "bs": block},
           "read": part if direction == "read" else empty, "write": part if direction == "write" else empty,
           "trim": empty}
    document = {"fio version": "fio-3.33", "timestamp": 0, "global options": {"ioengine": "libaio",
                                                                               "direct": "1"},
                "jobs": [job]}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_no_queueing_when_units_cover_every_io() -> None:
    """C >= N: nobody waits, latency = floor + service exactly in the mean (to sampling error)."""
    run = simulate(20.0, 50.0, 8, 8, 40_000, seed=1)
    assert abs(run["mean_latency_us"] / 70.0 - 1) < 0.01  # 40k exponential samples: 0.5 % standard error
    # Little's law on the simulated loop: N = X R
    assert abs(run["iops"] * run["mean_latency_us"] * 1e-6 / 8 - 1) < 0.01


def test_saturated_device_runs_at_its_units_rate() -> None:
    """N >> C: every unit always busy, X = C / S."""
    run = simulate(10.0, 100.0, 4, 64, 40_000, seed=2)
    assert abs(run["iops"] / (4 / 100.0 * 1e6) - 1) < 0.01


def test_exponential_floor_event_loop_agrees_with_little() -> None:
    run = simulate(30.0, 40.0, 2, 6, 30_000, seed=3, exponential_floor=True)
    assert abs(run["iops"] * run["mean_latency_us"] * 1e-6 / 6 - 1) < 0.02
