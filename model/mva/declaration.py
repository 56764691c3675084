"""The ``closed-network`` family: a planner's closed network, calibrated from a load test.

The system and its formulas: :mod:`iosizer.model.mva`; derivations: docs/validation/mva.md.
"""

from __future__ import annotations

import math
import re

import numpy as np

from iosizer.errors import InputError
from iosizer.model.family import (SIMULATED_SCV, Column, CpuScaling, Family, FitPlan, Input, Output, ParameterSpec,
                                  Plot, Question, Repeated, Role, Schema, SimulateOption, Simulation, Sizing,
                                  SizingCommand)
from iosizer.model.mva._inputs import POPULATION, parse_servers
from iosizer.model.mva.bounds import asymptotic_bounds
from iosizer.model.mva.single import mva, solver_method


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


# --- the question: iosizer queue mva ---

#: Per station, as the answer nests them under ``stations`` (CSV columns ``<name>_<k>``, k from 1).
STATION_OUTPUTS = ("utilization", "queue_length", "residence_time")

_OUTPUTS = (
    Output("throughput", "1/t", "completions per unit time (the unit of the demands)", measured="throughput_per_s"),
    Output("response_time", "t", "time at the stations per cycle, think time excluded", measured="response_time_s"),
    Output("method", "", "how MVA solved it: exact, exact-load-dependent (c-server stations) or "
           "seidmann-approximation (more than 4 of them)", text=True),
    Output("knee_population", "jobs", "N* = (D + Z) / max_k D_k / c_k, where the asymptotes cross"),
    Output("throughput_upper_bound", "1/t", "asymptotic bound min(N / (D + Z), 1 / max_k D_k / c_k)"),
    Output("response_time_lower_bound", "t", "asymptotic bound max(D, N max_k D_k / c_k - Z)"),
)
_PERCENTILE_NOTE = (
    "response_pP: the arrival theorem's mixture over the state a job finds, inverted numerically (exact for "
    "single-server stations in a cycle, per station, and for one queueing station; with a c-server station "
    "among others end to end within 2 % of simulation on a grid, iosizer/data/error_grids/closed_percentiles.csv, "
    "stated as response_pP_error_pct past 2 %); where more than 20,000 arrival states carry the probability a "
    "gamma fit (within 2.5 % on single servers, +3.5 % with a c-server station): see iosizer.model.percentiles"
)


def _network(values):
    """(demands, think time, servers per station) of ``values``."""
    demands = [values[demand_name(k + 1)] for k in range(int(values["stations"]))]
    return demands, values["think_time_s"], station_servers(values)


def _network_solve(values, inputs):
    """Exact MVA up to the largest population asked, read at each one: the declared outputs, then
    ``<station output>_<k>`` per station (what :func:`_published` nests under ``stations``)."""
    population = np.asarray(inputs["population"]).astype(np.int64)
    demands, think, servers = _network(values)
    result = mva(demands, think, int(population.max()), servers)
    curve, index = result.curve, population - 1
    bounds = asymptotic_bounds(demands, think, population, servers)
    out = {"throughput": curve.throughput[index], "response_time": curve.response_time[index]}
    for k in range(len(demands)):
        for name in STATION_OUTPUTS:
            out[f"{name}_{k + 1}"] = getattr(curve, name)[index, k]
    out["method"] = np.array([solver_method(servers, n) for n in population.ravel()],
                             dtype=object).reshape(population.shape)
    out["knee_population"] = np.full(population.shape, result.knee_population)
    out["throughput_upper_bound"] = np.asarray(bounds.throughput_upper, dtype=np.float64)
    out["response_time_lower_bound"] = np.asarray(bounds.response_lower, dtype=np.float64)
    return out


def _network_percentiles(values, inputs, percentiles):
    """End-to-end ``response_pP`` and each station's ``response_pP_station_<k>`` at each population
    (:func:`iosizer.model.percentiles.closed_network_percentiles`; its error is stated there)."""
    from iosizer.model.percentiles import closed_network_percentiles

    population = np.asarray(inputs["population"]).astype(np.int64)
    demands, think, servers = _network(values)
    found = {int(n): closed_network_percentiles(demands, think, int(n), list(percentiles), servers)
             for n in np.unique(population)}
    flat = population.ravel()
    out = {}
    for key in found[int(flat[0])].response:
        out[key] = np.array([found[int(n)].response[key] for n in flat]).reshape(population.shape)
    for k in range(len(demands)):
        for key in found[int(flat[0])].station:
            out[f"{key}_station_{k + 1}"] = np.array([found[int(n)].station[key][k]
                                                      for n in flat]).reshape(population.shape)
    out.update(percentile_errors(demands, think, servers, flat, percentiles, population.shape))
    return out


def percentile_errors(demands, think, servers, populations, percentiles, shape):
    """``response_pP_error_pct``: the end-to-end approximation's error measured around each point (grid
    ``closed_percentiles``), where it passes :data:`~iosizer.data.error_grids.ERROR_RULE_PCT` at some point;
    nothing where the method is exact (no c-server station, or one queueing station)."""
    from iosizer.data.error_grids import ERROR_RULE_PCT, load
    from iosizer.model.percentiles import closed_network_grid_point, percentile_approximation_error, percentile_key

    points = [closed_network_grid_point(demands, think, int(n), servers) for n in populations]
    if all(point is None for point in points):
        return {}
    grid = load("closed_percentiles")
    out = {}
    for p in percentiles:
        error = np.array([0.0 if point is None else percentile_approximation_error(grid, {**point, "percentile": p})
                          for point in points])
        if np.any(np.abs(error) > ERROR_RULE_PCT):
            out[f"response_{percentile_key(p)}_error_pct"] = error.reshape(shape)
    return out


_TIME_NOTE = ("times in the unit of the demands (seconds from a profile: throughput per second); think time "
              "excluded from response_time")
#: End-to-end percentile keys (``response_p99``, ``response_p99_9``) and a station's (``..._station_2``).
_END_TO_END = re.compile(r"response_p\d+(_\d+)?")
_AT_STATION = re.compile(r"(response_p\d+(?:_\d+)?)_station_(\d+)")


def _bounds_note(values, outputs):
    """One point: its bounds, knee and method in a line (a sweep's table has them as columns)."""
    if len(outputs["throughput"]) != 1:
        return None
    return (f"bounds: throughput <= {outputs['throughput_upper_bound'][0]:.6g}, response >= "
            f"{outputs['response_time_lower_bound'][0]:.6g}; knee N* = {outputs['knee_population'][0]:.4g}; "
            f"method: {outputs['method'][0]}")


def _percentile_note(values, outputs):
    return _PERCENTILE_NOTE if any(_END_TO_END.fullmatch(key) for key in outputs) else None


def _published(records, values):
    """The JSON ``iosizer queue mva`` has always printed, from the answer's records: per point the
    network's totals, its stations nested (with their percentiles), the solver's method, the bands of
    throughput and response, the bounds, then the end-to-end percentiles with their bands and errors.
    One record per population, as the generic ones."""
    return [_point(dict(record), int(values["stations"])) for record in records]


def _point(row, stations):
    out = {key: row.pop(key) for key in ("population", "throughput", "response_time")}
    out["stations"] = [{name: row.pop(f"{name}_{k}") for name in STATION_OUTPUTS} for k in range(1, stations + 1)]
    for key in [key for key in row if _AT_STATION.fullmatch(key)]:
        found = _AT_STATION.fullmatch(key)
        out["stations"][int(found.group(2)) - 1][found.group(1)] = row.pop(key)
    out["method"] = row.pop("method")
    out.update({f"{key}{end}": row[f"{key}{end}"] for key in ("throughput", "response_time")
                for end in ("_ci_low", "_ci_high") if f"{key}{end}" in row})
    out.update({key: row[key] for key in ("knee_population", "throughput_upper_bound", "response_time_lower_bound")})
    ends = [key for key in row if _END_TO_END.fullmatch(key)]
    out.update({key: row[key] for key in ends})
    out.update({f"{key}{end}": row[f"{key}{end}"] for key in ends for end in ("_ci_low", "_ci_high")
                if f"{key}{end}" in row})
    out.update({f"{key}_error_pct": row[f"{key}_error_pct"] for key in ends if f"{key}_error_pct" in row})
    # --simulate: each simulated key's analytic value and the simulation's 95 % interval
    out.update({f"{key}{end}": row[f"{key}{end}"] for key in ends for end in ("_model", "_sim_low", "_sim_high")
                if f"{key}{end}" in row})
    return out


# --- sizing: iosizer size load (the largest population within a response target) ---


def _one_job_too_slow(values, target, percentile):
    """A target one job alone misses (R(1) is the demands' sum): no population meets it."""
    demands, think, servers = _network(values)
    alone = float(mva(demands, think, 1, servers).curve.response_time[0])
    if percentile is None:
        reached = alone <= target
    else:
        from iosizer.model.percentiles import closed_network_percentiles, percentile_key

        found = closed_network_percentiles(demands, think, 1, [percentile], servers)
        reached = found.response[f"response_{percentile_key(percentile)}"] <= target
    if reached:
        return None
    what = "mean response" if percentile is None else f"p{percentile:g} response"
    return (f"target {what} {target:.6g} is unreachable: one job alone takes {alone:.6g} "
            f"(the demands' sum {float(np.sum(demands)):.6g} for the mean)")


def _population_notes(values, records, inputs):
    notes = [f"population: the most jobs with {values['measure']} within the target (MVA up to the asymptotic "
             "bound); throughput: what they carry"]
    if values["profile_name"] is not None:
        notes.append(f"demands and think time from {values['profile_name']}; _ci_low/_ci_high at the ends of their "
                     "95 % intervals")
    return notes


#: ``iosizer size load`` of a closed network (shared with the mmc family's largest arrival rate).
_LOAD_SIZING = Sizing(
    "population", "response_time", smallest=False, command="load", target="target_response_s",
    percentile="response", out_of_reach=_one_job_too_slow, notes=_population_notes,
    intervals=("population", "throughput"),
    title=lambda values, targets, inputs: (f"Largest population, closed network of {int(values['stations'])} "
                                           "stations"),
    keys=(("population", "population"), ("throughput", "throughput"), ("target", "target_response_s"),
          ("percentile", "percentile"), ("measure", "{measure}"), ("one_more", "{measure}_one_more"),
          ("throughput_upper_bound", "throughput_upper_bound")))


_LOAD_COMMAND = SizingCommand(
    "load", "the population (and throughput) of a closed network (--demand, or a closed-network --profile)",
    flags={"demand_s": "--demand", "think_time_s": "--think-time"})


def _simulated_network(given):
    """``iosizer simulate closed-network``'s options as its builder's: the stations come with --demand."""
    demand, servers = given.pop("demand", None), given.pop("servers", None)
    if (servers or given.get("think_time") is not None) and not demand:
        raise InputError("--servers and --think-time go with --demand (the shipped profile has its own)")
    return {"population": given.pop("population"), "demands": demand or None,
            "think_time": given.pop("think_time", None), "servers": parse_servers(servers) if servers else None,
            **given}


#: ``iosizer simulate closed-network``: the network simulated (FCFS c-server and delay stations) against MVA.
_SIMULATION = Simulation(
    "closed-network", "A single-class closed network against MVA (numpy; --engine simpy).", (
        SimulateOption("population", "--population", "Jobs in the network.", kind=int, required=True),
        SimulateOption("demand", "--demand", "Service demand of one station, s (repeat per station) [the shipped "
                       "profile's].", many=True),
        SimulateOption("think_time", "--think-time", "Think time, s [the shipped profile's with its demands, else 0]."),
        SimulateOption("servers", "--servers", "Servers per station in --demand order: a whole number or 'delay' "
                       "[1 each].", kind=str, many=True),
        SimulateOption("method", "--method", "Analytic side: exact MVA or schweitzer (Bard-Schweitzer, an "
                       "approximation).", kind=str, default="exact"),
        SIMULATED_SCV), prepare=_simulated_network,
    metrics=(("throughput_per_s", "throughput"), ("response_time_s", "response_time")))


FAMILIES = (
    Family(
        name="closed-network",
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
            Question("queue mva", "closed network by exact MVA: throughput, response, utilisations, bounds, knee",
                     inputs=(Input("population", "jobs", (1, POPULATION.bounds[1]), description="jobs in the "
                                   "closed network (N)", integer=True),),
                     outputs=_OUTPUTS, solve=_network_solve, percentiles=_network_percentiles,
                     notes=(_TIME_NOTE, _bounds_note, _percentile_note), plot=Plot(
                         "population", ("throughput", "response_time"),
                         beside=(("throughput", "throughput_upper_bound"),
                                 ("response_time", "response_time_lower_bound"))),
                     repeated=(Repeated("demand_s", "service demand of one station, in --demand order "
                                        "(repeat per station)", count="stations", item=demand_name),
                               Repeated("servers", "servers per station in --demand order: a whole number, or "
                                        "'delay' (repeat per station; one for all)")),
                     aliases={"demand_s": ("demand",), "think_time_s": ("think_time",)},
                     defaults={"think_time_s": 0.0}, shipped=False, shape=_published, simulate=_SIMULATION,
                     sizing=(_LOAD_SIZING,), sizing_commands=(_LOAD_COMMAND,)),
        ),
        fit=FitPlan(_closed_start, relative=True, holdable=("think_time_s",)),
        tail=_closed_tail,
        example="load_test.csv",
        example_settings={"stations": 3},
    ),
)
