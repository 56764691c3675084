"""``--percentile P`` for every what-if that reports a response or wait time.

The option is declared once here; a command wraps its solve function with
:func:`with_percentiles` so the percentiles travel with the means (and so
get the same 95 % bands from a profile). JSON keys are ``wait_pP`` and
``response_pP`` with the point written with an underscore (``response_p99``,
``response_p99_9``); see :mod:`iosizer.model.percentiles` for the formulas
and the approximations' measured errors.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, Mapping

import typer

from iosizer.data.error_grids import ERROR_RULE_PCT, load as load_error_grid

from iosizer.errors import InputError
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

#: What the notes say about each kind of percentile.
EXACT_NOTE = "wait_pP/response_pP: exact M/M/c percentiles (Erlang C wait + exponential service)"
MG1_EXACT_NOTE = (
    "wait_pP/response_pP: exact M/G/1 percentiles (Pollaczek-Khinchine transform of gamma service of this cv^2 "
    "inverted numerically, Abate-Whitt Euler: tail probabilities within 1e-7 relative for cv^2 >= 0.1, 2e-4 for "
    "cv^2 >= 0.01; constant service by Crommelin's M/D/1 "
    "distribution; see iosizer.model.transforms)"
)
MD_EXACT_NOTE = (
    "wait_pP/response_pP: exact M/D/c percentiles (Crommelin's distribution of the wait, response = wait + the "
    "constant service; see iosizer.model.mdc)"
)
#: Below this cv^2 (but above 0) the service density is a spike too narrow for Euler's 31 nodes.
NEAR_DETERMINISTIC_SCV = 0.01


def mg1_note(service_scv: float) -> str:
    """The M/G/1 percentile note; a cv^2 in (0, 0.01) says the inversion is not exact there."""
    if 0 < service_scv < NEAR_DETERMINISTIC_SCV:
        return MG1_EXACT_NOTE + (
            f"; but cv^2 {service_scv:g} < {NEAR_DETERMINISTIC_SCV:g} is a near-constant service whose narrow density "
            "the inversion resolves only approximately: measured up to 2.6 % off at the response's 90th (cv^2 1e-6, "
            "utilisation 0.1); cv^2 0 (M/D/1) is exact")
    return MG1_EXACT_NOTE


APPROXIMATE_NOTE = (
    "wait_pP/response_pP: approximation (exponential-tail wait with the model's P(wait) and mean, Whitt's QNA, "
    "+ gamma-fitted service); its response error against simulation is measured on a grid "
    "(iosizer/data/error_grids/ggc_percentiles.csv) and stated as response_pP_error_pct (the wait's as "
    "wait_pP_error_pct) where it exceeds 2 %"
)
CLOSED_NOTE = (
    "response_pP: the arrival theorem's mixture over the state a job finds, inverted numerically (exact for "
    "single-server stations in a cycle, per station, and for one queueing station; with a c-server station "
    "among others end to end within 2 % of simulation on a grid, iosizer/data/error_grids/closed_percentiles.csv, "
    "stated as response_pP_error_pct past 2 %); where more than 20,000 arrival states carry the probability a "
    "gamma fit (within 2.5 % on single servers, +3.5 % with a c-server station): see iosizer.model.percentiles"
)


class _Tailed:
    """A solver's result with percentile keys added to its ``to_dict()``."""

    def __init__(self, result: Any, tails: Mapping[str, Any]) -> None:
        self.result = result
        self.tails = tails

    def __getattr__(self, name: str) -> Any:
        return getattr(self.result, name)

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.result.to_dict())
        for key, value in self.tails.items():
            out[key] = value.tolist() if hasattr(value, "tolist") else value
        return out


def with_percentiles(
    solve: Callable[[Any, float], Any],
    tails: Callable[[Any, float, list[float]], Mapping[str, Any]],
    percentiles: list[float] | None,
) -> Callable[[Any, float], Any]:
    """``solve(arrival_rate, service_rate)`` whose result also carries ``tails(...)``'s percentiles."""
    if not percentiles:
        return solve  # no --percentile: the tail models are not imported
    from iosizer.model.percentiles import parse_percentiles

    chosen = parse_percentiles(percentiles)
    if not chosen:
        return solve

    def solved(arrival_rate: Any, service_rate: float) -> Any:
        return _Tailed(solve(arrival_rate, service_rate), tails(arrival_rate, service_rate, chosen))

    return solved


def tail(name: str) -> Callable[..., Any]:
    """``iosizer.model.percentiles.<name>``, imported when it is first called (only --percentile needs it)."""
    def call(*args: Any) -> Any:
        from iosizer.model import percentiles

        return getattr(percentiles, name)(*args)

    return call


def loadshare_errors(scenario: str, policy: str, cores: int, load_fractions: Any,
                     percentiles: list[float]) -> dict[str, Any]:
    """``response_pP_error_pct`` for ``iosizer loadshare curve`` points (``load_fractions`` of the policy's
    maximum) where the measured error around them exceeds :data:`ERROR_RULE_PCT` (grid
    ``loadshare_percentiles``: the seed's scenario at its core count, else the worst of the mixes measured off
    the seed's scenarios, issue 28's held-out ones). Shared and exclusive are exact (Erlang C per port group)
    and get nothing."""
    import numpy as np

    from iosizer.model.percentiles import percentile_approximation_error, percentile_key

    grid = load_error_grid("loadshare_percentiles")
    same = (grid["scenario"] == scenario) & (grid["policy"] == policy) & (grid["cores"] == cores)
    from iosizer.calibration.loadshare import scenarios

    off_seed = ~np.isin(grid["scenario"], list(scenarios())) & (grid["policy"] == policy)
    rows = same if same.any() else off_seed
    if policy in ("shared", "exclusive") or not rows.any():
        return {}
    subset = {key: values[rows] for key, values in grid.items()}
    out: dict[str, Any] = {}
    for p in percentiles:
        error = np.array([percentile_approximation_error(subset, {"load_fraction": float(f), "percentile": p})
                          for f in np.atleast_1d(load_fractions)])
        if np.any(np.abs(error) > ERROR_RULE_PCT):
            out[f"response_{percentile_key(p)}_error_pct"] = error
    return out


def ggc_tails(arrival_rate: Any, service_rate: float, servers: int, arrival_scv: float, service_scv: float,
              percentiles: list[float]) -> dict[str, Any]:
    """G/G/c percentiles, plus ``response_pP_error_pct`` and ``wait_pP_error_pct`` (the measured error of the
    approximation around the query, grid ``ggc_percentiles``) wherever that error exceeds :data:`ERROR_RULE_PCT`.
    Exact cases add nothing."""
    import numpy as np

    from iosizer.model.percentiles import ggc_percentiles, percentile_approximation_error, percentile_key

    out = dict(ggc_percentiles(arrival_rate, service_rate, servers, arrival_scv, service_scv, percentiles))
    if ggc_is_exact(servers, arrival_scv, service_scv):
        return out
    grid = load_error_grid("ggc_percentiles")
    # The wait's columns: a cell whose simulated quantile is 0 has no relative error (nan: counted as 0).
    waits = {**grid, "error_pct": grid["wait_error_pct"], "half_width_pct": grid["wait_half_width_pct"]}
    rho = np.atleast_1d(np.asarray(arrival_rate, dtype=np.float64) / (float(service_rate) * servers))
    for p in percentiles:
        for kind, measured in (("wait", waits), ("response", grid)):
            error = np.array([percentile_approximation_error(measured, {
                "servers": servers, "arrival_scv": arrival_scv, "service_scv": service_scv, "utilization": r,
                "percentile": p}) for r in rho])
            if np.any(np.abs(error) > ERROR_RULE_PCT):
                out[f"{kind}_{percentile_key(p)}_error_pct"] = error if np.ndim(arrival_rate) else float(error[0])
    return out


def rmw_errors(transfer_bytes: int, lanes: list[int], service_scv: float) -> list[dict[str, float]]:
    """Per lane count, ``throughput_error_pct`` and ``loss_error_points`` of ``iosizer pcie rmw`` at a service
    cv^2 other than 1 (the residual-service correction), for every point where one point's measured error
    exceeds 2 (% or points), else nothing (grid ``rmw_service_scv``: the shipped platform, cases B, C, E,
    8-32 lanes, cv^2 0-1; errors within the simulation's half-width count as 0)."""
    from iosizer.model.percentiles import percentile_approximation_error

    grid = load_error_grid("rmw_service_scv")
    loss_grid = {**grid, "error_pct": grid["loss_error_points"], "half_width_pct": grid["loss_half_width_points"]}
    out = []
    for total in lanes:
        query = {"transfer_bytes": float(transfer_bytes), "lanes": float(total), "service_scv": float(service_scv)}
        out.append({"throughput_error_pct": percentile_approximation_error(grid, query),
                    "loss_error_points": percentile_approximation_error(loss_grid, query)})
    if all(max(abs(v) for v in point.values()) <= ERROR_RULE_PCT for point in out):
        return [{} for _ in out]
    return out


def ggc_is_exact(servers: int, arrival_scv: float, service_scv: float) -> bool:
    """Poisson arrivals with one server, constant or exponential service: an exact method answers."""
    return arrival_scv == 1.0 and (servers == 1 or service_scv in (0.0, 1.0))


def closed_network_tails(demands: list[float], think_time: float, population: int, servers: Any,
                         percentiles: list[float] | None, profile: Any = None) -> tuple[dict, list[dict]]:
    """End-to-end keys (``response_pP``, with 95 % bands from a closed-network profile) and one dict of
    ``response_pP`` per station, for ``iosizer queue mva --percentile``."""
    from iosizer.model.percentiles import closed_network_percentiles, parse_percentiles

    chosen = parse_percentiles(percentiles)
    if not chosen:
        return {}, [{} for _ in demands]
    tails = closed_network_percentiles(demands, think_time, population, chosen, servers)
    end_to_end: dict[str, Any] = dict(tails.response)
    if profile is not None:
        from iosizer.calibration.models import demand_name
        from iosizer.calibration.uncertainty import propagate
        from iosizer.calibration.whatif import with_bands

        def evaluate(params: Mapping[str, float]) -> Mapping[str, Any]:
            moved = [params[demand_name(k + 1)] for k in range(len(demands))]
            return closed_network_percentiles(moved, params["think_time_s"], population, chosen, servers).response

        end_to_end = with_bands(end_to_end, propagate(profile, evaluate))
    end_to_end.update(closed_network_errors(demands, think_time, population, servers, chosen))
    stations = [{key: float(values[k]) for key, values in tails.station.items()} for k in range(len(demands))]
    return end_to_end, stations


def closed_network_errors(demands: list[float], think_time: float, population: int, servers: Any,
                          percentiles: list[float], constant_delay: float = 0.0, unit: str = "") -> dict[str, float]:
    """``response_pP<unit>_error_pct`` of a closed network with a multi-server station, where the error measured
    around it (grid ``closed_percentiles``, axes of :func:`iosizer.model.percentiles.closed_network_grid_point`)
    exceeds :data:`ERROR_RULE_PCT`; nothing for the exact cases."""
    from iosizer.model.percentiles import closed_network_grid_point, percentile_approximation_error, percentile_key

    point = closed_network_grid_point(demands, think_time, population, servers, constant_delay)
    if point is None:
        return {}
    grid = load_error_grid("closed_percentiles")
    out = {}
    for p in percentiles:
        error = percentile_approximation_error(grid, {**point, "percentile": p})
        if abs(error) > ERROR_RULE_PCT:
            out[f"response_{percentile_key(p)}{unit}_error_pct"] = error
    return out


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


