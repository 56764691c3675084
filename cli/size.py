"""``iosizer size ...``: how many do I need, and how much does it carry (issue 16).

Each command parses its options, calls one sizing function of
:mod:`iosizer.model.sizing` or :mod:`iosizer.model.family_sizing` (root
finding on the model, never a loop over candidates here) and renders the
answer. With ``--profile`` the answer is solved again at the ends of the
profile's 95 % parameter intervals (:mod:`iosizer.calibration.sizing`) and
carries ``<key>_ci_low`` / ``<key>_ci_high``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from iosizer.cli.declared import SizeGroup
from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, Report, emit
from iosizer.cli.params import parse_grid
from iosizer.errors import InputError

app = typer.Typer(
    cls=SizeGroup,  # a family that declares sizing gets 'iosizer size <family>' (iosizer.cli.declared)
    help="Sizing: the smallest servers, cores, ports or outstanding I/Os for a target, and the largest load "
         "or latency within one.",
    no_args_is_help=True,
)

TargetResponse = Annotated[
    float | None,
    typer.Option("--target-response-s", help="Response-time target, in the unit of 1/rate (seconds with rates per "
                                            "second): the mean, or the --percentile."),
]
Percentile = Annotated[
    float | None,
    typer.Option("--percentile", metavar="P",
                 help="Apply the response target to the P-th percentile (99, 99.9) instead of the mean."),
]
TargetWait = Annotated[
    float | None,
    typer.Option("--target-wait-probability", help="Erlang C form: the probability of waiting at most this (0, 1]."),
]
ProfileOption = Annotated[
    Path | None,
    typer.Option("--profile", help="Calibrated profile; the answer then carries the interval of its parameters."),
]


def _metric_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"metric": k, "value": v} for k, v in data.items() if not isinstance(v, (list, dict))]


def _emit(data: Any, title: str, notes: list[str], output_format: OutputFormat) -> None:
    if isinstance(data, list):
        emit(Report(data=data, rows=data, title=title, notes=notes), output_format)
    else:
        emit(Report(data=data, rows=_metric_rows(data), title=title, notes=notes, csv_rows=[data]), output_format)


def _mmc_profile(profile: Path | None, service_rate: float | None) -> tuple[float, Any]:
    if profile is None:
        if service_rate is None:
            raise InputError("Missing option '--service-rate' (or give --profile FILE)")
        return service_rate, None
    from iosizer.calibration.profile import load_profile

    if service_rate is not None:
        raise InputError("--profile supplies the service rate; drop --service-rate")
    calibrated = load_profile(profile, "mmc")
    return calibrated.value("service_rate_per_s"), calibrated


def _target_keys(target_response_s: float | None, percentile: float | None,
                 target_wait_probability: float | None) -> dict[str, Any]:
    if target_wait_probability is not None:
        return {"target_wait_probability": target_wait_probability}
    keys: dict[str, Any] = {"target_response_s": target_response_s}
    if percentile is not None:
        keys["percentile"] = percentile
    return keys


@app.command()
def servers(
    arrival_rate: Annotated[
        str, typer.Option("--arrival-rate", metavar="RATE", help="Arrivals per unit time; a list or range sweeps it.")
    ],
    service_rate: Annotated[float | None, typer.Option("--service-rate", help="Completions per unit time of one server.")] = None,
    target_response_s: TargetResponse = None,
    percentile: Percentile = None,
    target_wait_probability: TargetWait = None,
    profile: ProfileOption = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Smallest M/M/c server count meeting a response (mean or --percentile) or wait-probability target.

    Exact (Erlang C); prints the measure at that count and at one fewer. A response target at or below the
    service time (or its percentile) is unreachable: no number of servers shortens the service itself.
    """
    from iosizer.model.sizing import size_servers, smallest_servers

    mu, calibrated = _mmc_profile(profile, service_rate)
    rates = parse_grid(arrival_rate, "arrival-rate")
    answers = []
    for rate in rates:
        sized = size_servers(rate, mu, target_response_s, percentile, target_wait_probability)
        data: dict[str, Any] = {"servers": sized.servers, "arrival_rate": rate, "service_rate": mu,
                                **_target_keys(target_response_s, percentile, target_wait_probability),
                                sized.measure: sized.achieved,
                                f"{sized.measure}_one_fewer": sized.achieved_one_fewer,
                                "utilization": sized.utilization,
                                "minimum_stable_servers": sized.minimum_stable_servers}
        if calibrated is not None:
            from iosizer.calibration.sizing import answer_interval, with_interval

            interval = answer_interval(calibrated, lambda p, rate=rate: smallest_servers(
                rate, p["service_rate_per_s"], target_response_s, percentile, target_wait_probability))
            data = with_interval(data, "servers", interval)
        answers.append(data)
    measure = next(k for k in answers[0] if k.endswith("_one_fewer"))[: -len("_one_fewer")]
    notes = [f"servers: the smallest count with {measure} within the target (exact M/M/c); "
             f"{measure}_one_fewer: the same at one server fewer (empty, null in JSON: one fewer is unstable)"]
    if calibrated is not None:
        notes.append(f"service rate {mu:.6g} from {profile}; servers_ci_low/_ci_high: the count at the ends "
                     "of its 95 % interval")
    title = "Smallest M/M/c server count"
    _emit(answers[0] if len(answers) == 1 else answers, title, notes, output_format)


def _closed_settings(demand: list[float] | None, think_time: float | None, servers: list[str] | None,
                     profile: Any) -> tuple[list[float], float, list[float] | None]:
    from iosizer.cli.params import parse_servers

    if profile is not None:
        from iosizer.calibration.whatif import closed_network_settings

        if demand or think_time is not None:
            raise InputError("--profile supplies the demands and think time; drop --demand/--think-time")
        demands, think = closed_network_settings(profile)
        return demands, think, parse_servers(servers) if servers else None
    if not demand:
        raise InputError("give --demand per station (or --profile FILE)")
    return list(demand), 0.0 if think_time is None else think_time, parse_servers(servers) if servers else None


@app.command()
def load(
    target_response_s: TargetResponse = None,
    service_rate: Annotated[float | None, typer.Option("--service-rate", help="M/M/c: completions per unit time of one server.")] = None,
    servers: Annotated[
        list[str] | None,
        typer.Option("--servers", help="M/M/c: the server count. Closed network: servers per station in --demand "
                                       "order (a whole number or 'delay')."),
    ] = None,
    demand: Annotated[
        list[float] | None, typer.Option("--demand", help="Closed network: service demand of one station (repeat).")
    ] = None,
    think_time: Annotated[float | None, typer.Option("--think-time", help="Closed network: think time [default: 0].")] = None,
    percentile: Percentile = None,
    target_wait_probability: TargetWait = None,
    profile: ProfileOption = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Largest load within a target: the arrival rate of an M/M/c queue, or the population (and throughput)
    of a closed network (--demand, or a closed-network --profile).

    M/M/c: exact, bisection on the arrival rate. Closed network: exact MVA up to the asymptotic bound; a
    --percentile target uses the approximation of 'iosizer queue mva --percentile'.
    """
    calibrated = None
    closed = bool(demand)
    if profile is not None:
        from iosizer.calibration.profile import load_profile

        calibrated = load_profile(profile)
        closed = calibrated.model == "closed-network"
        if calibrated.model not in ("mmc", "closed-network"):
            raise InputError(f"size load takes an mmc or closed-network profile, not '{calibrated.model}'")
    if closed:
        _closed_load(target_response_s, percentile, target_wait_probability, demand, think_time, servers,
                     calibrated, profile, output_format)
    else:
        if think_time is not None:  # was silently ignored (even -1 or nan)
            raise InputError("--think-time belongs to a closed network (give --demand per station, or a "
                             "closed-network --profile); an M/M/c queue has none")
        _mmc_load(target_response_s, percentile, target_wait_probability, service_rate, servers, calibrated,
                  profile, output_format)


def _mmc_load(target_response_s: float | None, percentile: float | None, target_wait_probability: float | None,
              service_rate: float | None, servers: list[str] | None, calibrated: Any, profile: Path | None,
              output_format: OutputFormat) -> None:
    from iosizer.model.sizing import largest_arrival_rate, size_load

    if calibrated is not None:
        if service_rate is not None:
            raise InputError("--profile supplies the service rate; drop --service-rate")
        mu = calibrated.value("service_rate_per_s")
        count = _whole(servers) if servers else int(calibrated.options["servers"])
    else:
        if service_rate is None or not servers:
            raise InputError("give --service-rate and --servers (M/M/c), or --demand per station (closed network)")
        mu = service_rate
        count = _whole(servers)
    sized = size_load(mu, count, target_response_s, percentile, target_wait_probability)
    data: dict[str, Any] = {"arrival_rate": sized.arrival_rate, "servers": count, "service_rate": mu,
                            **_target_keys(target_response_s, percentile, target_wait_probability),
                            sized.measure: sized.achieved, "utilization": sized.utilization}
    notes = [f"arrival_rate: the largest with {sized.measure} within the target (exact M/M/c, bisection to 1e-12)"]
    if calibrated is not None:
        from iosizer.calibration.sizing import answer_interval, with_interval

        interval = answer_interval(calibrated, lambda p: largest_arrival_rate(
            p["service_rate_per_s"], count, target_response_s, percentile, target_wait_probability), on_failure=0.0)
        data = with_interval(data, "arrival_rate", interval)
        notes.append(f"service rate {mu:.6g} from {profile}; arrival_rate_ci_low/_ci_high at the ends of its "
                     "95 % interval")
    _emit(data, f"Largest arrival rate, M/M/{count}", notes, output_format)


def _whole(servers: list[str]) -> int:
    """The one M/M/c server count, within the mmc family's declaration (nan and 1e308 included)."""
    from iosizer.model.registry import declaration

    if len(servers) != 1:
        raise InputError("M/M/c takes one --servers value")
    try:
        value = float(servers[0])
    except ValueError:
        raise InputError(f"--servers must be a whole number >= 1, got {servers[0]!r}") from None
    return int(declaration("mmc").spec("servers").check(value, "--servers"))


def _closed_load(target_response_s: float | None, percentile: float | None, target_wait_probability: float | None,
                 demand: list[float] | None, think_time: float | None, servers: list[str] | None, calibrated: Any,
                 profile: Path | None, output_format: OutputFormat) -> None:
    from iosizer.model.sizing import largest_population

    if target_wait_probability is not None or target_response_s is None:
        raise InputError("a closed network is sized on --target-response-s (its mean, or a --percentile)")
    demands, think, counts = _closed_settings(demand, think_time, servers, calibrated)
    sized = largest_population(demands, think, target_response_s, counts, percentile)
    data: dict[str, Any] = {"population": sized.population, "throughput": sized.throughput,
                            **_target_keys(target_response_s, percentile, None),
                            sized.measure: sized.response_time,
                            f"{sized.measure}_one_more": sized.next_response_time,
                            "throughput_upper_bound": sized.throughput_upper_bound}
    notes = [f"population: the most jobs with {sized.measure} within the target (MVA up to the asymptotic bound); "
             f"throughput: what they carry"]
    if calibrated is not None:
        from iosizer.calibration.models import demand_name
        from iosizer.calibration.sizing import answer_interval, with_interval

        def solve(p: dict[str, float]) -> Any:
            moved = [p[demand_name(k + 1)] for k in range(len(demands))]
            return largest_population(moved, p["think_time_s"], target_response_s, counts, percentile)

        data = with_interval(data, "population", answer_interval(calibrated, lambda p: solve(p).population, 0.0))
        data = with_interval(data, "throughput", answer_interval(calibrated, lambda p: solve(p).throughput, 0.0))
        notes.append(f"demands and think time from {profile}; _ci_low/_ci_high at the ends of their 95 % intervals")
    _emit(data, f"Largest population, closed network of {len(demands)} stations", notes, output_format)
