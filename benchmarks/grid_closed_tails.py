"""Measure the closed-network percentile approximation on seed 002's HBA port; write
data/error_grids/hba_percentiles.csv.

Not a test (minutes of CPU). The approximation is
iosizer.model.percentiles.closed_network_percentiles (arrival theorem per
station, gamma fit end to end) on the network ``iosizer hba response
--percentile`` answers from: the shipped port (iosizer.calibration.hba.fc_port),
its core station (c servers shared, 1 in occupancy mode), the link, a
constant storage delay of 50 us. The reference is an event simulation of that
network (iosizer.simulate.tails.closed_cycle_responses): exponential FCFS
stations in a cycle, the constant delay closing it; R replications of n cycles, 5 % warm-up dropped; error =
model / mean(simulated) - 1 with a 95 % half-width over the replications.

    python benchmarks/grid_closed_tails.py [--quick]
"""

from __future__ import annotations

import sys
import zlib

import numpy as np
from error_grid import cell, write

from iosizer.calibration.hba import fc_port
from iosizer.model.hba import response_network
from iosizer.model.percentiles import closed_network_percentiles
from iosizer.simulate.tails import closed_cycle_responses

MODES = ("shared", "occupancy")
BLOCK_BYTES = (512, 4096)
THREADS = (4, 8, 12, 16, 24, 32, 48, 64)
PERCENTILES = (90.0, 99.0, 99.9)
STORAGE_US = 50.0


def main(quick: bool = False) -> None:
    replications, cycles = (3, 20_000) if quick else (5, 60_000)
    port = fc_port()
    rows = []
    for mode in MODES:
        for block in BLOCK_BYTES:
            demands, servers, _, storage = response_network(port, mode, block, STORAGE_US)
            queues = [(float(d), int(c)) for d, c in zip(demands, servers) if np.isfinite(c)]
            means, counts = [d for d, _ in queues], [c for _, c in queues]
            for threads in THREADS:
                # zlib, not hash(): a str's hash() changes from one run to the next.
                rng = np.random.default_rng(zlib.crc32(f"{mode} {block} {threads}".encode()))
                sims = np.array([np.percentile(closed_cycle_responses(rng, means, counts, threads, cycles,
                                                                      constant_delay=storage),
                                               PERCENTILES) for _ in range(replications)])
                model = closed_network_percentiles(means, 0.0, threads, PERCENTILES, counts, storage).response
                for k, p in enumerate(PERCENTILES):
                    value = float(model["response_p" + format(p, "g").replace(".", "_")])
                    rows.append({"mode": MODES.index(mode), "block_bytes": block, "threads": threads,
                                 "percentile": p, **cell(value, sims[:, k])})
                print(mode, block, threads, [r["error_pct"] for r in rows[-3:]], flush=True)
    write(rows, "hba_percentiles")


if __name__ == "__main__":
    main("--quick" in sys.argv)
