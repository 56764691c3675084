"""Measure closed-network percentiles with a multi-server station against simulation; write
data/error_grids/closed_percentiles.csv.

Not a test (minutes of CPU). The answer is
iosizer.model.percentiles.closed_network_percentiles (the arrival theorem's
mixture over the joint state found, inverted numerically; past 20,000 arrival
states the gamma fit of the exact mean and variance). The networks vary the
axes of closed_network_grid_point: a c-server station (c = 2, 4) with one or
two single-server stations, the c-server station the bottleneck (D / c = 1,
the others 0.5) or not (D / c = 0.5, one single server at 1), exponential
think time 1 or 10 times the sum of the demands, and the population at 0.5,
1, 2, 4 and 8 times the knee N* (three queueing stations past about 47 jobs
pass 20,000 arrival states and are answered by the gamma fit: at think
ratio 10 every load from the knee up). Reference: iosizer.simulate.tails'
closed-cycle simulation, R replications of n cycles, 5 % warm-up dropped;
error = model / mean(simulated) - 1 with a 95 % half-width over the
replications.

    python benchmarks/grid_closed_network_tails.py [--quick]
"""

from __future__ import annotations

import sys

from error_grid import write

from iosizer.model.percentiles import closed_network_grid_point, closed_network_percentiles
from iosizer.simulate.tails import closed_percentiles

SERVERS = (2, 4)
STATIONS = (2, 3)
BOTTLENECK = (1, 0)
THINK_RATIO = (1.0, 10.0)
LOADS = (0.5, 1.0, 2.0, 4.0, 8.0)
PERCENTILES = (90.0, 99.0, 99.9)


def network(c: int, stations: int, bottleneck: int, think_ratio: float) -> tuple[list[float], list[float], float]:
    """Demands, servers and think time of one grid network (the c-server station first)."""
    if bottleneck:
        demands = [c * 1.0] + [0.5] * (stations - 1)
    else:
        demands = [c * 0.5, 1.0] + [0.5] * (stations - 2)
    return demands, [float(c)] + [1.0] * (stations - 1), think_ratio * float(sum(demands))


def main(quick: bool = False) -> None:
    replications, cycles = (3, 10_000) if quick else (5, 40_000)
    rows = []
    for c in SERVERS:
        for stations in STATIONS:
            for bottleneck, think_ratio in [(b, r) for r in THINK_RATIO for b in BOTTLENECK]:
                demands, servers, think = network(c, stations, bottleneck, think_ratio)
                knee = (sum(demands) + think) / max(d / s for d, s in zip(demands, servers))
                for seed, load in enumerate(LOADS):
                    jobs = max(2, int(round(load * knee)))
                    point = closed_network_grid_point(demands, think, jobs, servers)
                    assert point is not None
                    model = closed_network_percentiles(demands, think, jobs, PERCENTILES, servers).response
                    sims = closed_percentiles(demands, servers, jobs, PERCENTILES, think_time=think,
                                              seed=1000 * c + 100 * stations + 10 * bottleneck + seed
                                              + (0 if think_ratio == 1 else 50),
                                              replications=replications, cycles=cycles)
                    for p in PERCENTILES:
                        value = float(model["response_p" + format(p, "g").replace(".", "_")])
                        estimate = sims[p]
                        half = 100 * (estimate.high - estimate.mean) / estimate.mean
                        rows.append({**{k: f"{v:g}" for k, v in point.items()}, "population": jobs,
                                     "percentile": p, "model": f"{value:.6g}", "simulated": f"{estimate.mean:.6g}",
                                     "half_width_pct": f"{half:.2f}",
                                     "error_pct": f"{100 * (value / estimate.mean - 1):.2f}"})
                    print(c, stations, bottleneck, think_ratio, jobs, [r["error_pct"] for r in rows[-3:]], flush=True)
    write(rows, "closed_percentiles")


if __name__ == "__main__":
    main("--quick" in sys.argv)
