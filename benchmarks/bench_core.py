"""Speed of the queueing core and of the CLI's start-up, on this machine.

Run: ``python benchmarks/bench_core.py``. Not part of the test run: timings
depend on the machine and its load. Each figure is the best of several runs
(the least disturbed one), with the target from issue 2 beside it.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from typing import Callable

import numpy as np


def best_of(repeats: int, call: Callable[[], object]) -> float:
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        timings.append(time.perf_counter() - start)
    return min(timings)


def wall_time(command: list[str], repeats: int = 7) -> float:
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def report(name: str, seconds: float, target_s: float, per: int | None = None) -> None:
    verdict = "ok" if seconds < target_s else "SLOW"
    per_call = f"  ({seconds / per * 1e9:,.0f} ns/point)" if per else ""
    print(f"{name:<58} {seconds * 1e3:9.1f} ms  target < {target_s * 1e3:,.0f} ms  {verdict}{per_call}")


def main() -> None:
    from iosizer.model.mva import mva
    from iosizer.model.queueing import mmc

    rng = np.random.default_rng(20261121)
    points = 1_000_000
    servers = rng.integers(1, 100_001, points).astype(np.float64)
    utilisation = rng.uniform(0.01, 0.99, points)
    mmc(utilisation[:10] * servers[:10], 1.0, servers[:10])  # warm caches
    seconds = best_of(3, lambda: mmc(utilisation * servers, 1.0, servers))
    report("M/M/c, 1e6 points, c up to 1e5", seconds, 0.5, per=points)
    print(f"{'':<58} {points / seconds:,.0f} evaluations/s")

    demands = np.linspace(0.001, 0.01, 10)
    seconds = best_of(5, lambda: mva(demands, 0.1, 10_000))
    report("exact MVA, 10 stations, N = 10,000", seconds, 0.05)

    seconds = best_of(5, lambda: mva([0.005, 0.003, 0.002], 0.1, 1_000, [1, 2, 1]))
    report("exact load-dependent MVA, 2-server station of 3, N = 1,000", seconds, 0.3)

    iosizer = shutil.which("iosizer")
    if iosizer is None:
        print("iosizer not on PATH: install the package to time --help")
        return
    baseline = wall_time([sys.executable, "-c", "import typer, numpy"])
    help_time = wall_time([iosizer, "--help"])
    ratio = help_time / baseline
    print(
        f"{'iosizer --help vs python -c \"import typer, numpy\"':<58} "
        f"{help_time * 1e3:9.1f} ms vs {baseline * 1e3:.1f} ms = {ratio:.2f}x  "
        f"target < 1.5x  {'ok' if ratio < 1.5 else 'SLOW'}"
    )


if __name__ == "__main__":
    main()
