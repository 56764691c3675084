"""Speed of the declared M/M/c sizing (``iosizer size servers``), on this machine.

Run: ``python benchmarks/bench_sizing_declared.py``. Not part of the test run.

``iosizer.family("mmc").size(..., command="servers")`` over 10,000 arrival
rates (the most points a question answers at once) at one service rate: the
declared road's search (galloping from the smallest stable count, then
bisection; every row at once) and the answer evaluated at each count found
(one server count at a time, as ``iosizer queue mmc`` answers it, to the last
digit). The answers are spot-checked against a brute force search with
:func:`iosizer.model.queueing.mmc` before timing.

The Python API keeps model/sizing.py's own vectorised M/M/c search (a
Halfin-Whitt start, 1e6 rows in about 0.4 s: ``benchmarks/bench_sizing.py``);
the command's road is this one, and its price is stated here.

Each figure is the best of several runs (the least disturbed one).
"""

from __future__ import annotations

import numpy as np
from bench_core import best_of  # run from benchmarks/: python benchmarks/bench_sizing_declared.py
from bench_sizing import brute_force  # the same brute force the Python API's benchmark checks against


def main() -> None:
    import iosizer

    points, mu, target = 10_000, 1.0, 1.5
    lam = np.random.default_rng(20261121).uniform(0.1, 1_000.0, points) * mu
    mmc = iosizer.family("mmc")

    def sized(**targets: float) -> list[int]:
        answer = mmc.size({"service_rate_per_s": mu}, command="servers", arrival_rate=list(lam), **targets)
        return [r["servers"] for r in answer.records()]

    servers = sized(target_response_s=target)
    checked = np.random.default_rng(1).choice(points, 100, replace=False)
    wrong = sum(brute_force(lam[i], mu, target) != servers[i] for i in checked)
    print(f"spot check against brute force: {len(checked) - wrong}/{len(checked)} equal")
    mean = best_of(3, lambda: sized(target_response_s=target))
    print(f"size servers, 1e4 rows (mean-response target)   {mean * 1e3:8.1f} ms")
    p99 = best_of(3, lambda: sized(target_response_s=target + 4.0, percentile=99))
    print(f"size servers, 1e4 rows (p99 target)             {p99 * 1e3:8.1f} ms")
    wait = best_of(3, lambda: sized(target_wait_probability=0.2))
    print(f"size servers, 1e4 rows (P(wait) <= 0.2)         {wait * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
