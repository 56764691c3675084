"""Calibration at scale: a 1,000,000-row CSV through ``iosizer calibrate``.

Run: ``python benchmarks/bench_calibration.py``. Writes a synthetic M/M/4
load test of 1e6 rows (about 26 MB, with a ``source`` column as planners'
files have), then runs ``iosizer calibrate mmc`` on it in a fresh process
and reports wall time and peak resident memory (``ru_maxrss`` of the
child), against the issue's targets (3 s, 300 MB). Beside it, the kernel
the loader is built on (``numpy.loadtxt`` over the same file) measured in
the same run, so the ratio says what the validation and the fit add.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROWS = 1_000_000


def write_csv(path: Path) -> None:
    from iosizer.model.queueing import mmc

    rng = np.random.default_rng(11)
    lam = rng.uniform(200.0, 3600.0, ROWS)
    response = mmc(lam, 1000.0, 4).mean_response * (1 + rng.normal(0, 0.01, ROWS))
    with open(path, "w", encoding="utf-8") as stream:
        stream.write("arrival_rate_per_s,mean_response_s,source\n")
        for a, r in zip(lam.tolist(), response.tolist()):
            stream.write(f"{a:.3f},{r:.6e},load test\n")


def child(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of ``command`` in its own process."""
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak_kb, before) / 1024.0


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "load.csv"
        write_csv(path)
        size_mb = os.path.getsize(path) / 1e6
        kernel_s, kernel_mb = child([sys.executable, "-c",
                                     "import numpy as np, sys; np.loadtxt(sys.argv[1], delimiter=',', "
                                     "skiprows=1, usecols=(0, 1))", str(path)])
        out = Path(folder) / "p.json"
        cli_s, cli_mb = child([sys.executable, "-m", "iosizer.cli", "calibrate", "mmc", str(path),
                               "--servers", "4", "-o", str(out), "--format", "json"])
    print(f"1e6-row CSV ({size_mb:.1f} MB): iosizer calibrate mmc {cli_s:.2f} s, peak {cli_mb:.0f} MB "
          f"(targets 3 s, 300 MB) {'ok' if cli_s < 3 and cli_mb < 300 else 'SLOW'}")
    print(f"  kernel numpy.loadtxt of the same file: {kernel_s:.2f} s, peak {kernel_mb:.0f} MB; "
          f"ratio {cli_s / kernel_s:.2f}x")


if __name__ == "__main__":
    main()
