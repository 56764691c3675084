"""``--percentile P`` for every what-if that reports a response or wait time.

The option is declared once here (a declared question's percentiles are its
``Question.percentiles`` hook: the open queues' are in
:mod:`iosizer.model.queueing`). JSON keys are ``wait_pP`` and
``response_pP`` with the point written with an underscore (``response_p99``,
``response_p99_9``); see :mod:`iosizer.model.percentiles` for the formulas
and the approximations' measured errors.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from iosizer.data.error_grids import ERROR_RULE_PCT, load as load_error_grid
# --simulate's pieces live in the simulation layer (the declared questions' road uses them too).
from iosizer.simulate.answered import (MAX_SIMULATED_POINTS, check_simulate, closed_simulated,  # noqa: F401
                                       closed_simulated_note, open_simulated_note, open_simulation, simulated)

PercentileOption = Annotated[
    list[float] | None,
    typer.Option(
        "--percentile",
        metavar="P",
        help="Also report the P-th percentile of wait and response time (repeatable: 50, 90, 99, 99.9); "
             "JSON keys wait_pP, response_pP (response_p99_9).",
    ),
]

SimulateOption = Annotated[
    bool,
    typer.Option(
        "--simulate",
        help="Answer the --percentile values from a simulation (iosizer.simulate.tails: 5 replications, seed 0): "
             "response_pP (wait_pP) becomes the simulated mean, with its 95 % interval in _sim_low/_sim_high and "
             "the analytic value in _model. At most 10 points.",
    ),
]


def network_points(demands: list[float], servers: list[float], populations: list[int], constant_delay: float,
                   percentiles: list[float] | None, unit: str) -> list[dict[str, float]]:
    """End-to-end ``response_pP<unit>`` of a closed network at each population (delay stations constant)."""
    from iosizer.model.percentiles import closed_network_percentiles, parse_percentiles

    chosen = parse_percentiles(percentiles)
    if not chosen:
        return [{} for _ in populations]
    out = []
    for n in populations:
        tails = closed_network_percentiles(demands, 0.0, int(n), chosen, servers, constant_delay)
        out.append({f"{key}{unit}": value for key, value in tails.response.items()})
    return out


def hba_points(port: Any, mode: str, threads: list[float], block_bytes: float, storage_us: float,
               percentiles: list[float] | None) -> list[dict[str, float]]:
    """``response_pP_us`` of ``iosizer hba response`` at each thread count (the storage delay constant),
    with ``response_pP_us_error_pct`` where the measured error around the point exceeds :data:`ERROR_RULE_PCT`
    (grid ``hba_percentiles``: the shipped port, 50 us storage)."""
    import math

    from iosizer.model.hba import response_network
    from iosizer.model.percentiles import parse_percentiles, percentile_approximation_error, percentile_key

    demands, servers, _, storage = response_network(port, mode, block_bytes, storage_us)
    queues = [(d, c) for d, c in zip(demands, servers) if not math.isinf(c)]
    points = network_points([d for d, _ in queues], [c for _, c in queues], [int(n) for n in threads], storage,
                            percentiles, "_us")
    if points and points[0]:
        grid = load_error_grid("hba_percentiles")
        for n, point in zip(threads, points):
            for p in parse_percentiles(percentiles):
                error = percentile_approximation_error(grid, {
                    "mode": float(mode != "shared"), "block_bytes": block_bytes, "threads": n, "percentile": p})
                if abs(error) > ERROR_RULE_PCT:
                    point[f"response_{percentile_key(p)}_us_error_pct"] = error
    return points


def hba_simulated(points: list[dict[str, Any]], port: Any, block_bytes: float, storage_us: float,
                  percentiles: list[float] | None, simulate: bool) -> str | None:
    """Under ``--simulate``, each ``iosizer hba response`` point's ``response_pP_us`` from a simulation of the
    port's network (in place, see :func:`simulated`); the note saying so, or None without it."""
    import math

    from iosizer.model.hba import response_network

    if not check_simulate(simulate, percentiles, len(points)):
        return None
    for point in points:
        demands, servers, _, storage = response_network(port, point["mode"], block_bytes, storage_us)
        queues = [(float(d), float(c)) for d, c in zip(demands, servers) if not math.isinf(c)]
        found = closed_simulated([d for d, _ in queues], [c for _, c in queues], point["threads"],
                                 list(percentiles or []), "_us", constant_delay=storage)
        point.update(simulated(point, found))
    return closed_simulated_note()


FAMILY_NOTE = (
    "_pP: the arrival theorem's mixture over the state a job finds, inverted numerically (exact for a cycle of "
    "single servers; the HBA port's shared cores within 2 % of simulation, data/error_grids/hba_percentiles.csv, "
    "stated as _error_pct past 2 %); where more than 20,000 arrival states carry the probability (replication "
    "at high depth) a gamma-fit approximation within 2.5 %: see iosizer.model.percentiles"
)


