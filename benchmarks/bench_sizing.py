"""Speed of the sizing answers (issue 16), on this machine.

Run: ``python benchmarks/bench_sizing.py``. Not part of the test run.

The target: 1,000,000 (arrival rate, service rate, target response) rows
through :func:`iosizer.model.sizing.smallest_servers` in under a second,
compared with one scipy pass over the same points (the kernel: the
regularised incomplete gamma function, ``scipy.special.gammaincc(c + 1, a)``,
at the answer's server count). The answers are spot-checked against a brute
force search with :func:`iosizer.model.queueing.mmc` before timing.

Each figure is the best of several runs (the least disturbed one).
"""

from __future__ import annotations

import numpy as np
from bench_core import best_of  # run from benchmarks/: python benchmarks/bench_sizing.py


def brute_force(lam: float, mu: float, target: float) -> int:
    from iosizer.model.queueing import mmc

    servers = int(np.floor(lam / mu)) + 1
    while mmc(lam, mu, servers).mean_response > target:
        servers += 1
    return servers


def rows(points: int, seed: int = 20261121) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Offered loads 0.1..1,000 erlangs, service rates 0.5..2 per unit time,
    targets 0.1 % to 200 % above the service time."""
    rng = np.random.default_rng(seed)
    mu = rng.uniform(0.5, 2.0, points)
    lam = rng.uniform(0.1, 1_000.0, points) * mu
    target = (1.0 + rng.uniform(0.001, 2.0, points)) / mu
    return lam, mu, target


def main() -> None:
    from scipy.special import gammaincc

    from iosizer.model.sizing import smallest_servers

    points = 1_000_000
    lam, mu, target = rows(points)
    smallest_servers(lam[:100], mu[:100], target[:100])  # warm the imports and tables
    servers = smallest_servers(lam, mu, target)
    rng = np.random.default_rng(1)
    checked = rng.choice(points, 200, replace=False)
    wrong = sum(brute_force(lam[i], mu[i], target[i]) != servers[i] for i in checked)
    print(f"spot check against brute force: {len(checked) - wrong}/{len(checked)} equal")

    sizing = best_of(5, lambda: smallest_servers(lam, mu, target))
    offered = lam / mu
    shape = servers + 1.0
    kernel = best_of(5, lambda: gammaincc(shape, offered))
    verdict = "ok" if sizing < 1.0 else "SLOW"
    print(f"smallest_servers, 1e6 rows (mean-response target)   {sizing * 1e3:8.1f} ms  "
          f"target < 1,000 ms  {verdict}")
    print(f"scipy gammaincc(c + 1, a), same 1e6 points (kernel) {kernel * 1e3:8.1f} ms")
    print(f"ratio sizing / kernel                                {sizing / kernel:8.2f}x")

    p99 = best_of(3, lambda: smallest_servers(lam, mu, target + 4.0 / mu, percentile=99))
    print(f"smallest_servers, 1e6 rows (p99 target)             {p99 * 1e3:8.1f} ms  ({p99 / kernel:.2f}x kernel)")
    wait = best_of(3, lambda: smallest_servers(lam, mu, target_wait_probability=0.2))
    print(f"smallest_servers, 1e6 rows (P(wait) <= 0.2)         {wait * 1e3:8.1f} ms  ({wait / kernel:.2f}x kernel)")


if __name__ == "__main__":
    main()
