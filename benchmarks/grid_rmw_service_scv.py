"""Measure the rmw family's service_scv correction against simulation; write data/error_grids/rmw_service_scv.csv.

Not a test (minutes of CPU). The answer is iosizer.model.pcie.rmw_throughput
at the shipped platform (seed 001 fit: 6.63 ns, 2.61 credits) with the
given service_scv: exact multi-class MVA at 1, the residual-service
correction (iosizer.model.mva.SCV_APPROXIMATION) below. The reference is
iosizer.simulate's rmw system (numpy engine: the same credit loops, gamma
service of that cv^2 at the links and the RMW unit, the line path a
constant delay), R replications; at cv^2 = 0 every run is the same
deterministic one. Cells: table 2's unaligned cases B (520 B), C (1040 B),
E (4104 B); 8, 16, 24, 32 lanes; cv^2 0, 0.25, 0.5, 1. Errors: the
throughput in % (model / simulated - 1, with the simulation's 95 %
half-width) and the loss in points (model - simulated).

    python benchmarks/grid_rmw_service_scv.py [--quick]
"""

from __future__ import annotations

import sys

from error_grid import write

from iosizer.calibration.pcie import platform
from iosizer.model.pcie import access_pattern, rmw_throughput
from iosizer.simulate import simulate

TRANSFER_BYTES = (520, 1040, 4104)
LANES = (8, 16, 24, 32)
SERVICE_SCV = (0.0, 0.25, 0.5, 1.0)


def main(quick: bool = False) -> None:
    replications, length = (3, 5_000) if quick else (6, 10_000)
    shipped = platform()
    rows = []
    for size in TRANSFER_BYTES:
        pattern = access_pattern(size, shipped.link.mps_bytes)
        for lanes in LANES:
            for scv in SERVICE_SCV:
                model = rmw_throughput(shipped.model_copy(update={"service_scv": scv}), pattern, [lanes])
                found = {row["metric"]: row for row in simulate(
                    "rmw", "rmw", transfer_bytes=size, lanes=lanes, service_scv=scv, run_length=length,
                    replications=2 if scv == 0 else replications, seed=7, workers=1, engine="numpy").rows()}
                sim, loss = found["throughput_gbyte_s"], found["loss_pct"]
                value = float(model.throughput_gbyte_s[0])
                half = 100 * (sim["ci_high"] - sim["simulated"]) / sim["simulated"]
                rows.append({"transfer_bytes": size, "lanes": lanes, "service_scv": scv,
                             "model": f"{value:.6g}", "simulated": f"{sim['simulated']:.6g}",
                             "half_width_pct": f"{half:.2f}",
                             "error_pct": f"{100 * (value / sim['simulated'] - 1):.2f}",
                             "model_loss_pct": f"{float(model.loss_pct[0]):.4g}",
                             "simulated_loss_pct": f"{loss['simulated']:.4g}",
                             "loss_half_width_points": f"{loss['ci_high'] - loss['simulated']:.2f}",
                             "loss_error_points": f"{float(model.loss_pct[0]) - loss['simulated']:.2f}"})
                print(size, lanes, scv, rows[-1]["error_pct"], rows[-1]["loss_error_points"], flush=True)
    write(rows, "rmw_service_scv")


if __name__ == "__main__":
    main("--quick" in sys.argv)
