"""Speed of the queueing core and of the CLI's start-up, on this machine.

Run: ``python benchmarks/bench_core.py``. Not part of the test run: timings
depend on the machine and its load. Each figure is the best of several runs
(the least disturbed one), with the target from its issue beside it.
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

    bench_multiclass()
    bench_fits()
    bench_families()

    iosizer = shutil.which("iosizer")
    if iosizer is None:
        print("iosizer not on PATH: install the package to time --help")
        return
    bench_startup(iosizer)
    bench_report(iosizer)


def bench_startup(iosizer: str) -> None:
    """Start-up (issue 29): benchmarks/bench_startup.py, best of 7 (``python benchmarks/bench_core.py startup``
    runs only it). ``iosizer`` is found on PATH there."""
    from bench_startup import measure, report

    report(measure(7))


def bench_multiclass() -> None:
    """Exact multi-class MVA with and without the residual-service correction (service_scv), same run."""
    from iosizer.model.mva import mva_multiclass

    for classes, jobs in ((4, 3), (3, 20)):
        demands = np.zeros((classes, classes + 1))
        demands[np.arange(classes), np.arange(classes)] = 25.0  # each class's own link
        demands[:, classes] = 10.0                              # the shared unit
        pops = np.full(classes, jobs)
        vectors = (jobs + 1) ** classes
        plain = best_of(5, lambda: mva_multiclass(demands, np.zeros(classes), pops, method="exact"))
        corrected = best_of(5, lambda: mva_multiclass(demands, np.zeros(classes), pops, method="exact",
                                                      service_scv=0.0))
        report(f"exact multi-class MVA, {classes} classes x {jobs} jobs ({vectors:,} vectors)", plain, 0.5)
        report(f"  the same with service_scv = 0 ({corrected / plain:.2f}x the exponential one)", corrected, 0.5)


def bench_families() -> None:
    """Seeds 002-004: per-call cost of the what-if models (targets: interactive, < 50 ms)."""
    from iosizer.calibration.replication import evaluate
    from iosizer.model.hba import FcPort, isolation
    from iosizer.model.loadshare import PolicyParams, policy_curve

    port = FcPort()
    sweep = np.linspace(0.0, 300_000.0, 1_000_000)
    seconds = best_of(3, lambda: isolation(port, "shared", sweep, 4096))
    report("hba isolation, 1e6 LPAR2 loads (pro-rata filling)", seconds, 2.0, per=sweep.size)
    shares = [7.0] + [0.125] * 8
    seconds = best_of(5, lambda: policy_curve("multi-stage", shares, PolicyParams(), points=200))
    report("loadshare curve, skew, 200 points + max search", seconds, 0.05)
    from iosizer.model.loadshare import POLICIES

    system = [1.0] * 16
    seconds = best_of(1, lambda: [policy_curve(p, system, PolicyParams(cores=256), points=60) for p in POLICIES])
    report("loadshare, every policy, 16 ports on 256 cores, 60 points", seconds, 5.0)
    evaluate("10g", 4.0, 32)  # fit the protocol costs once (cached)
    sizes = np.arange(4.0, 257.0, 4.0)
    seconds = best_of(5, lambda: evaluate("10g", sizes, 32))
    report("replication, 64 block sizes, 32 outstanding (MVA)", seconds, 0.05)


def bench_report(iosizer: str) -> None:
    """Issue 7 target: the whole report (every seed, tables and plots) in under 30 s."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        seconds = wall_time([iosizer, "report", "--output-dir", str(Path(folder) / "report")], repeats=3)
    report("iosizer report (all seeds, md + html + PNGs), wall time", seconds, 30.0)


def bench_fits() -> None:
    """Issue 3 targets: a 4-parameter closed-form fit on 10,000 points and a
    closed-network (MVA) fit on 200 points."""
    from iosizer.calibration.dataset import Dataset
    from iosizer.calibration.fit import Parameter, fit
    from iosizer.calibration.models import get_model
    from iosizer.model.mva import mva

    rng = np.random.default_rng(7)
    x = np.linspace(0.0, 10.0, 10_000)

    def model(p, i):
        return {"y": p["a"] * np.exp(-i["x"] / p["b"]) + p["c"] * i["x"] + p["d"]}

    y = model({"a": 3.0, "b": 2.0, "c": 0.5, "d": 1.0}, {"x": x})["y"] + rng.normal(0, 0.05, x.size)
    parameters = [Parameter("a", 1.0, 0, 100), Parameter("b", 1.0, 0.01, 100),
                  Parameter("c", 0.0, -10, 10), Parameter("d", 0.0, -10, 10)]
    seconds = best_of(3, lambda: fit(model, parameters, {"x": x}, {"y": y}))
    report("4-parameter closed-form fit, 10,000 points", seconds, 1.0)

    population = np.arange(1, 201, dtype=np.float64)
    curve = mva([0.005, 0.003, 0.002], 0.1, 200).curve
    columns = {
        "population": population,
        "throughput_per_s": curve.throughput * (1 + rng.normal(0, 0.01, 200)),
        "response_time_s": curve.response_time * (1 + rng.normal(0, 0.01, 200)),
    }
    closed = get_model("closed-network")
    data = Dataset("synthetic", "0" * 64, closed.schema, columns, np.arange(200))
    options = {"stations": 3, "think_time_s": None}
    seconds = best_of(3, lambda: fit(closed.function(options), closed.parameters(data, options),
                                     data.inputs(), data.observed(), relative=True))
    report("closed-network fit (3 stations + Z), 200 points", seconds, 5.0)


if __name__ == "__main__":
    if sys.argv[1:] == ["startup"]:  # only the start-up figures: seconds, not the minute of the rest
        bench_startup(shutil.which("iosizer") or "iosizer")
    else:
        main()
