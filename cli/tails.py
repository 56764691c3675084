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


def replication_points(system: Any, block_kib: float, outstanding: int,
                       percentiles: list[float] | None) -> dict[str, float]:
    """``latency_pP_us`` of ``iosizer replication`` at one point: the sender's protocol, the link and the
    receiver's protocol as queues, the flash writes, switch and residual delay as constant latency."""
    from iosizer.model.replication import protocol_demand_us, serialisation_us

    if not percentiles:
        return {}
    path = system.replica
    if path is None:
        from iosizer.model.percentiles import parse_percentiles, percentile_key

        return {f"latency_{percentile_key(p)}_us": system.local_flash_write_us for p in parse_percentiles(percentiles)}
    protocol = float(protocol_demand_us(path, block_kib))
    link = float(serialisation_us(path, block_kib))
    delay = system.local_flash_write_us + path.switch_round_trip_us + system.remote_flash_write_us \
        + path.residual_delay_us
    point = network_points([protocol, link, protocol], [1, 1, 1], [outstanding], delay, percentiles, "_us")[0]
    return {key.replace("response_", "latency_", 1): value for key, value in point.items()}


FAMILY_NOTE = (
    "_pP: the arrival theorem's mixture over the state a job finds, inverted numerically (exact for a cycle of "
    "single servers; the HBA port's shared cores within 2 % of simulation, data/error_grids/hba_percentiles.csv, "
    "stated as _error_pct past 2 %); where more than 20,000 arrival states carry the probability (replication "
    "at high depth) a gamma-fit approximation within 2.5 %: see iosizer.model.percentiles"
)


