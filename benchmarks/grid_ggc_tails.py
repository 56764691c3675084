"""Measure the G/G/c percentile approximation against simulation on a grid; write data/error_grids/ggc_percentiles.csv.

Not a test (minutes of CPU). Each cell: the approximation of
iosizer.model.percentiles (exponential-tail wait with Erlang C and the
Allen-Cunneen mean, gamma service) against the FCFS simulation of the same
queue (iosizer.simulate.tails.open_responses: gamma inter-arrival and
service times, shape 1 / cv^2, iosizer's service law; one server by
Lindley's recursion unrolled in numpy, c servers by Kiefer-Wolfowitz). R replications of
n customers, 5 % warm-up dropped; error = model / mean(simulated) - 1 with a
95 % half-width from the replications' spread (t quantile). Cells with
Poisson arrivals are exact now (M/G/1, M/D/c, M/M/c) and not gridded.

    python benchmarks/grid_ggc_tails.py [--quick]
"""

from __future__ import annotations

import sys

import numpy as np
from error_grid import cell, write

from iosizer.model.percentiles import _approximate
from iosizer.model.queueing import ggc
from iosizer.simulate.tails import open_waits

SERVERS = (1, 2, 4)
ARRIVAL_SCV = (0.5, 2.0, 4.0)
SERVICE_SCV = (0.0, 0.5, 1.0, 2.0)
UTILIZATION = (0.3, 0.5, 0.7, 0.9)
PERCENTILES = (90.0, 99.0, 99.9)


def main(quick: bool = False) -> None:
    replications, n1, nc = (3, 200_000, 60_000) if quick else (6, 1_000_000, 200_000)
    rows = []
    for c in SERVERS:
        for ca2 in ARRIVAL_SCV:
            for cs2 in SERVICE_SCV:
                for rho in UTILIZATION:
                    rng = np.random.default_rng(hash((c, ca2, cs2, rho)) % 2**32)
                    runs = [open_waits(rng, c * rho, 1.0, c, ca2, cs2, n1 if c == 1 else nc)
                            for _ in range(replications)]
                    sims = np.array([np.percentile(w + s, PERCENTILES) for w, s in runs])
                    waits = np.array([np.percentile(w, PERCENTILES) for w, _ in runs])
                    model = _approximate(ggc(c * rho, 1.0, c, ca2, cs2), 1.0, cs2, PERCENTILES)
                    for k, p in enumerate(PERCENTILES):
                        key = format(p, "g").replace(".", "_")
                        rows.append({"servers": c, "arrival_scv": ca2, "service_scv": cs2, "utilization": rho,
                                     "percentile": p, **cell(float(model[f"response_p{key}"]), sims[:, k]),
                                     **wait_cell(float(model[f"wait_p{key}"]), waits[:, k])})
                    print(c, ca2, cs2, rho, [r["error_pct"] for r in rows[-3:]],
                          [r["wait_error_pct"] for r in rows[-3:]], flush=True)
    write(rows, "ggc_percentiles")


def wait_cell(model: float, replications: np.ndarray) -> dict[str, str]:
    """The wait quantile's columns; a simulated quantile of 0 (most customers do not wait) has no relative
    error: 0 where the model says 0 too, else left empty (not measured)."""
    if np.mean(replications) > 0:
        return {f"wait_{k}": v for k, v in cell(model, replications).items()}
    return {"wait_model": f"{model:.6g}", "wait_simulated": "0", "wait_half_width_pct": "0",
            "wait_error_pct": "0" if model == 0 else "nan"}


if __name__ == "__main__":
    main("--quick" in sys.argv)
