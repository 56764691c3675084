"""Calibration at scale: a 1,000,000-row CSV through ``iosizer calibrate``.

Run: ``python benchmarks/bench_calibration.py [REPEATS]``. Writes a synthetic
M/M/4 load test of 1e6 rows (about 32 MB, with a ``source`` column as
planners' files have), then, each in a fresh process, best of REPEATS (3):

- ``iosizer calibrate mmc`` on it (validation, fit, judgement, profile);
- the same fit written directly: ``numpy.loadtxt`` of the two columns and
  ``scipy.optimize.least_squares`` (trust-region reflective, the same
  bounds, relative residuals, tolerances and x_scale, finite-difference
  Jacobian) on the same vectorised model, plus its covariance;
- ``numpy.loadtxt`` alone.

Each line gives wall and CPU time (user + system of the child) and the
child's own peak resident memory (``wait4``), against the issue's targets
(at most ~1.2x the direct fit; peak well under 300 MB). On a loaded machine
the CPU times are the steadier ratio.

Measured 2026-11-25 on the shared 2-core machine (load average 15-18), best of 2, the same bench on
main before (c753e73) and after issue 29's calibration work:

    iosizer calibrate mmc   before 4.37 s CPU, 1.98x the direct fit's 2.21 s; peak 292 MB
                            after  2.79 s CPU, 1.35x the direct fit's 2.06 s; peak 233 MB

The same fitted rate to the last digit before and after (1000.056224476769). What the direct fit
does not do and calibrate still does: hash and check every row, read the source labels, judge the
fit (Spearman's trend test sorts both columns: ~0.4 s), load pydantic for the profile.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROWS = 1_000_000


def write_csv(path: Path) -> None:
    """The synthetic load test (run in a child: ``ru_maxrss`` counts a child's pages from before its
    exec too, so this process stays small and imports no numpy)."""
    import numpy as np

    from iosizer.model.queueing import mmc

    rng = np.random.default_rng(11)
    lam = rng.uniform(200.0, 3600.0, ROWS)
    response = mmc(lam, 1000.0, 4).mean_response * (1 + rng.normal(0, 0.01, ROWS))
    with open(path, "w", encoding="utf-8") as stream:
        stream.write("arrival_rate_per_s,mean_response_s,source\n")
        for a, r in zip(lam.tolist(), response.tolist()):
            stream.write(f"{a:.3f},{r:.6e},load test\n")


#: The direct fit of the same data: what a planner would write with numpy and scipy alone.
DIRECT = """
import sys
import numpy as np
from scipy.optimize import least_squares
from iosizer.model.queueing import mmc_mean_response

lam, response = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1, usecols=(0, 1), unpack=True)
servers = 4
floor = lam.max() / servers * (1 + 1e-9)
start = max(1.0 / response.min(), floor * 1.05)
solution = least_squares(lambda x: (mmc_mean_response(lam, x[0], servers) - response) / response, [start],
                         bounds=([floor], [np.inf]), method="trf", x_scale="jac", xtol=1e-12, ftol=1e-12,
                         gtol=1e-12, max_nfev=2000)
dof = lam.size - 1
covariance = np.linalg.inv(solution.jac.T @ solution.jac) * 2 * solution.cost / dof
print(repr(float(solution.x[0])), repr(float(np.sqrt(covariance[0, 0]))))
"""


def child(command: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system), peak RSS (MB) and stdout of ``command`` in its own process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)  # this child's own usage, not every child's maximum
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        if process.returncode:
            raise RuntimeError(f"{command[:4]} failed: {err.read().decode()[-500:]}")
        return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, out.read().decode()


def best(command: list[str], repeats: int) -> tuple[float, float, float, str]:
    """The fastest of ``repeats`` runs (the least disturbed), with the largest peak memory seen."""
    runs = [child(command) for _ in range(repeats)]
    fastest = min(runs, key=lambda run: run[0])
    return fastest[0], min(r[1] for r in runs), max(r[2] for r in runs), fastest[3]


def main() -> None:
    if sys.argv[1:2] == ["--write"]:
        write_csv(Path(sys.argv[2]))
        return
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "load.csv"
        subprocess.run([sys.executable, __file__, "--write", str(path)], check=True)
        size_mb = os.path.getsize(path) / 1e6
        out = Path(folder) / "p.json"
        cli = best([sys.executable, "-m", "iosizer.cli", "calibrate", "mmc", str(path), "--servers", "4",
                    "-o", str(out), "--format", "json"], repeats)
        direct = best([sys.executable, "-c", DIRECT, str(path)], repeats)
        kernel = best([sys.executable, "-c", "import numpy as np, sys; np.loadtxt(sys.argv[1], delimiter=',', "
                       "skiprows=1, usecols=(0, 1))", str(path)], repeats)
    import json

    fitted = json.loads(cli[3])["parameters"]["service_rate_per_s"]["value"]
    direct_rate = float(direct[3].split()[0])
    print(f"1e6-row CSV ({size_mb:.1f} MB), best of {repeats}:")
    for label, (wall, cpu, peak, _) in (("iosizer calibrate mmc", cli), ("loadtxt + least_squares, same fit", direct),
                                        ("numpy.loadtxt alone", kernel)):
        print(f"  {label:<36} {wall:6.2f} s wall, {cpu:6.2f} s CPU, peak {peak:4.0f} MB")
    wall_ratio, cpu_ratio = cli[0] / direct[0], cli[1] / direct[1]
    verdict = "ok" if min(wall_ratio, cpu_ratio) <= 1.2 and cli[2] < 300 else "SLOW"
    print(f"  ratio to the direct fit: {wall_ratio:.2f}x wall, {cpu_ratio:.2f}x CPU (target ~1.2x); peak "
          f"{cli[2]:.0f} MB (target < 300 MB) {verdict}")
    print(f"  fitted service rate: iosizer {fitted!r}, direct {direct_rate!r} "
          f"(relative difference {abs(fitted - direct_rate) / direct_rate:.1e})")


if __name__ == "__main__":
    main()
