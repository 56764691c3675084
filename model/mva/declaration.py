"""The ``closed-network`` family: a planner's closed network, calibrated from a load test.

The system and its formulas: :mod:`iosizer.model.mva`; derivations: docs/validation/mva.md.
"""

from __future__ import annotations

import math

import numpy as np

from iosizer.errors import InputError
from iosizer.model.family import Column, CpuScaling, Family, FitPlan, ParameterSpec, Question, Role, Schema
from iosizer.model.mva._inputs import POPULATION
from iosizer.model.mva.single import mva


def demand_name(station: int) -> str:
    """Parameter name of station ``station``'s service demand (1-based)."""
    return f"demand_{station}_s"


def _closed_demands(settings) -> tuple[ParameterSpec, ...]:
    return tuple(
        ParameterSpec(demand_name(k + 1), "s", None, (0.0, math.inf), "fitted",
                      "calibrated from the planner's load test",
                      f"service demand of station {k + 1}",
                      cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0))
        for k in range(settings["stations"])
    )


def parse_station_servers(value: object, label: str = "servers") -> str:
    """``servers`` of a closed network as text: one entry for every station (``4``) or one per
    station (``1,4,delay``), each a whole number of servers or ``delay`` (``inf``: a delay station)."""
    text = str(value).strip().lower()
    parts = [part.strip() for part in text.split(",")]
    for part in parts:
        if part in ("delay", "inf"):
            continue
        try:
            number = float(part)
        except ValueError:
            number = math.nan
        if not (math.isfinite(number) and number >= 1 and number == math.floor(number)
                and number <= POPULATION.bounds[1]):
            raise InputError(f"{label} must list whole numbers of servers (1 to {int(POPULATION.bounds[1]):,}) or "
                             f"'delay', one for every station or one per station (1,4,delay), got {value!r}")
    return ",".join("delay" if p in ("delay", "inf") else str(int(float(p))) for p in parts)


def station_servers(values) -> list[float]:
    """Servers per station (inf for a delay) from the ``servers`` setting (all single servers without it)."""
    stations = int(values["stations"])
    parts = parse_station_servers(values.get("servers") or "1").split(",")
    if len(parts) == 1:
        parts = parts * stations
    if len(parts) != stations:
        raise InputError(f"servers lists {len(parts)} stations ({','.join(parts)}) but the network has "
                         f"{stations}; give one entry per station or one for all")
    return [math.inf if p == "delay" else float(p) for p in parts]


def _closed_solve(values, inputs):
    population = np.asarray(inputs["population"]).astype(np.int64)
    demands = [values[demand_name(k + 1)] for k in range(values["stations"])]
    curve = mva(demands, values["think_time_s"], int(population.max()), station_servers(values)).curve
    index = population - 1
    return {"throughput_per_s": curve.throughput[index], "response_time_s": curve.response_time[index]}


def _closed_tail(values, inputs, percentile):
    """End-to-end response percentile (s) at each population, by the approximation of
    :func:`iosizer.model.percentiles.closed_network_percentiles` (arrival theorem per station,
    gamma fit end to end; its error against simulation is stated there)."""
    from iosizer.model.percentiles import closed_network_percentiles, percentile_key

    demands = [values[demand_name(k + 1)] for k in range(values["stations"])]
    key = "response_" + percentile_key(percentile)
    population = np.asarray(inputs["population"]).astype(np.int64)
    servers = station_servers(values)
    cache = {int(n): closed_network_percentiles(demands, values["think_time_s"], int(n), [percentile],
                                                servers=servers).response[key]
             for n in np.unique(population)}
    return np.array([cache[int(n)] for n in population.ravel()], dtype=np.float64).reshape(population.shape)


def _closed_start(data, settings):
    """Start where the data point: the bottleneck from peak throughput, the
    total demand from the lightest load; stations start unequal so the fit
    is not stuck on the symmetric saddle where all demands are the same."""
    stations = settings["stations"]
    population, throughput = data["population"], data["throughput_per_s"]
    bottleneck_s = 1.0 / float(np.max(throughput))
    lightest = int(np.argmin(population))
    cycle_s = float(population[lightest] / throughput[lightest])  # R + Z at the lightest load
    response = data.get("response_time_s")
    if response is not None and np.isfinite(response[lightest]):
        think_s = max(cycle_s - float(response[lightest]), 0.0)
    else:
        think_s = max(cycle_s - 1.5 * bottleneck_s, 0.0)
    shares = np.linspace(1.0, 0.3, stations)
    # A c-server station carries c times the demand of one server at the same utilisation.
    per_server = [1.0 if math.isinf(c) else c for c in station_servers(settings)]
    start: dict[str, object] = {
        demand_name(k + 1): (bottleneck_s * float(shares[k]) * per_server[k], 1e-12 * bottleneck_s, math.inf)
        for k in range(stations)
    }
    start["think_time_s"] = float(think_s)
    return start


FAMILIES = (
    Family(
        name="closed-network",
        sizing_command="size load",
        formula=("exact MVA over n = 1..N: R_k(n) = D_k (1 + Q_k(n - 1)) at a queueing station, D_k at "
                 "a delay, a c-server station through its marginal probabilities p_k(j | n) "
                 "(Seidmann's split beyond 4 multi-server stations); X(n) = n / (Z + sum_k R_k(n)), "
                 "Q_k(n) = X(n) R_k(n), R(n) = n / X(n) - Z"),
        summary="closed network by exact MVA: station demands and think time from X(N), R(N)",
        source="Reiser & Lavenberg 1980 (exact MVA); Lazowska et al. 1984 ch. 5-6",
        parameters=(
            ParameterSpec("think_time_s", "s", None, (0.0, math.inf), "fitted",
                          "calibrated from the load test unless the planner gives --think-time-s",
                          "think time outside the stations"),
            ParameterSpec("stations", "stations", None, (1, 1000), "assumed",
                          "no default: the planner's configuration, queueing stations (CPU, disks, links)",
                          "single-server queueing stations", kind="setting", integer=True),
            ParameterSpec("servers", "servers", "1", (0.0, 0.0), "assumed",
                          "single servers unless the planner's configuration says otherwise: a whole number "
                          "per station, or delay for a pure latency (exact load-dependent MVA, up to 4 "
                          "multi-server stations)",
                          "servers per station: one for all (4) or one per station (1,4,delay)",
                          kind="setting", parse=parse_station_servers),
        ),
        expand=_closed_demands,
        columns=Schema("closed-network", (
            Column("population", Role.input, "jobs", "jobs in the network (N)", minimum=1, integer=True,
                   maximum=POPULATION.bounds[1]),
            Column("throughput_per_s", Role.observed, "1/s", "completions per second",
                   minimum=0, minimum_inclusive=False),
            Column("response_time_s", Role.observed, "s", "time at the stations, think time excluded",
                   required=False, minimum=0, minimum_inclusive=False),
        )),
        solve=_closed_solve,
        service_time="exponential (product-form) FCFS stations; exact MVA",
        questions=(
            Question("queue mva", "throughput, response and utilisations of a closed network vs population",
                     ("demand_s", "think_time_s", "population"),
                     ("throughput_per_s", "response_time_s", "utilization")),
        ),
        fit=FitPlan(_closed_start, relative=True, holdable=("think_time_s",)),
        tail=_closed_tail,
        example="load_test.csv",
        example_settings={"stations": 3},
    ),
)
