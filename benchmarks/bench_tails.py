"""Speed of the exact tails (issue 28): M/G/1 percentiles by transform inversion, M/D/c by Crommelin.

Run: ``python benchmarks/bench_tails.py``. Not part of the test run: timings
depend on the machine and its load (best of several runs). Target from issue
28: 10^4 M/G/1 percentile points (wait and response) in under a second.
"""

from __future__ import annotations

import numpy as np

from bench_core import best_of, report


def main() -> None:
    from iosizer.model.mdc import mdc_wait_quantile
    from iosizer.model.percentiles import mg1_exact_quantiles, mg1_percentiles

    rng = np.random.default_rng(20261125)
    points = 10_000
    utilisation = rng.uniform(0.05, 0.98, points)
    scv = rng.uniform(0.1, 4.0, points)
    mg1_exact_quantiles(utilisation[:10], scv[:10], 0.99)  # warm imports
    for q in (0.5, 0.9, 0.99, 0.9999):
        seconds = best_of(3, lambda: mg1_exact_quantiles(utilisation, scv, q))
        report(f"M/G/1 gamma, 1e4 points, wait + response p{100 * q:g}", seconds, 1.0, per=points)
    seconds = best_of(3, lambda: mg1_percentiles(utilisation, 1.0, scv, [90, 99, 99.9]))
    report("M/G/1 via mg1_percentiles, 1e4 points x 3 percentiles", seconds, 3.0, per=3 * points)
    for servers, rho in ((1, 0.9), (1, 0.99), (16, 0.9), (64, 0.99), (1000, 0.9)):
        seconds = best_of(3, lambda: mdc_wait_quantile(rho * servers, servers, [0.9, 0.99, 0.999]))
        report(f"M/D/c exact, c = {servers}, utilisation {rho}, 3 percentiles", seconds, 1.0)


if __name__ == "__main__":
    main()
