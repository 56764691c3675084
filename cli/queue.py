"""``iosizer queue ...``: open queues and closed networks from the queueing core."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable

import typer

from iosizer.cli.options import BandKind, BandOption, FormatOption, PlotOption
from iosizer.cli.output import OutputFormat, Panel, Report, Series, emit
from iosizer.cli.params import parse_grid, parse_servers
from iosizer.cli.tails import (
    APPROXIMATE_NOTE,
    CLOSED_NOTE,
    EXACT_NOTE,
    MD_EXACT_NOTE,
    mg1_note,
    PercentileOption,
    SimulateOption,
    tail,
    with_percentiles,
)
from iosizer.errors import InputError

app = typer.Typer(
    help="Open queues (M/M/1, M/M/c, M/G/1, M/D/1, G/G/c) and closed networks (MVA).",
    no_args_is_help=True,
)

ArrivalRate = Annotated[
    str,
    typer.Option(
        "--arrival-rate",
        metavar="RATE",
        help="Arrivals per unit time; a list 1,2,3 or a range 0.5:3.5:0.5 sweeps it.",
    ),
]
Servers = Annotated[int, typer.Option("--servers", help="Number of identical servers (>= 1).")]
OptionalServiceRate = Annotated[
    float | None,
    typer.Option("--service-rate", help="Completions per unit time of one busy server."),
]
OptionalServers = Annotated[
    int | None, typer.Option("--servers", help="Number of identical servers (>= 1).")
]
ProfileOption = Annotated[
    Path | None,
    typer.Option("--profile", help="Calibrated profile (JSON from 'iosizer calibrate') to take parameters from."),
]
CpuSpeedOption = Annotated[
    float | None,
    typer.Option("--cpu-speed", help="With --profile: carry it to a CPU of this relative per-core speed (the "
                                     "service rate scales within its declared exponent range; the band widens)."),
]
ServiceScv = Annotated[
    float,
    typer.Option(
        "--service-scv",
        help="Squared coefficient of variation of service time (0 deterministic, 1 exponential).",
    ),
]
ArrivalScv = Annotated[
    float, typer.Option("--arrival-scv", help="Squared coefficient of variation of inter-arrival time.")
]

_QUEUE_NOTE = "Times are in the unit of 1/rate; utilization is per server."


@dataclass
class _ServiceSettings:
    """Service rate and servers, from options or from an ``mmc`` profile."""

    service_rate: float
    servers: int
    profile: Any = None
    source: str = ""
    band: str = "parameter"


def _service_settings(
    service_rate: float | None,
    servers: int | None,
    profile: Path | None,
    single_server: bool = False,
    cpu_speed: float | None = None,
    band: str = "parameter",
) -> _ServiceSettings:
    if servers is not None:
        _check_servers(servers)
    if profile is None:
        if cpu_speed is not None:
            raise InputError("--cpu-speed carries a calibrated profile to another CPU: give --profile FILE")
        if service_rate is None:
            raise InputError("Missing option '--service-rate' (or give --profile FILE)")
        if servers is None and not single_server:
            raise InputError("Missing option '--servers' (or give --profile FILE)")
        return _ServiceSettings(service_rate, 1 if single_server else int(servers))
    from iosizer.calibration.profile import load_profile
    from iosizer.calibration.whatif import mmc_settings

    from iosizer.calibration.whatif import on_cpu

    if service_rate is not None:
        raise InputError("--profile supplies the service rate; drop --service-rate")
    calibrated = on_cpu(load_profile(profile, "mmc"), cpu_speed, str(profile))
    rate, count = mmc_settings(calibrated)
    if single_server and count != 1:
        raise InputError(f"{profile}: profile was calibrated with {count} servers; this queue has 1")
    source = str(profile) + (f" carried to CPU speed {cpu_speed:g}" if cpu_speed is not None else "")
    if servers is not None and servers != count:  # what if I add a server: the rate stays the profile's
        count = int(servers)
        source += f", with {count} servers"
    return _ServiceSettings(rate, count, calibrated, source, band)


def _server_spec() -> Any:
    """The declaration of a server count: the mmc family's ``servers`` (identical servers, one queue)."""
    from iosizer.model.registry import declaration

    return declaration("mmc").spec("servers")


def _check_servers(servers: int) -> int:
    """``--servers`` within its declared bounds (the bound in the message)."""
    return _server_spec().check(servers, "--servers")


def _open_queue(
    title: str,
    arrival_rate: str,
    solve: Callable[[Any, float], Any],
    settings: _ServiceSettings,
    output_format: OutputFormat,
    plot: Path | None = None,
    note: str | None = None,
    simulate: tuple[int, float, float, list[float]] | None = None,
) -> None:
    """Solve at one arrival rate (one JSON object) or a sweep (a list of them).

    ``solve(arrival_rate, service_rate)``; with a profile, each answer gets
    ``<key>_ci_low``/``<key>_ci_high`` 95 % bands. ``simulate`` (servers, arrival cv^2, service cv^2,
    percentiles): the percentiles are answered by a simulation at each rate (``--simulate``).
    """
    import numpy as np

    rates = parse_grid(arrival_rate, "arrival-rate")
    columns = solve(np.asarray(rates), settings.service_rate).to_dict()
    answers = [{k: (v[i] if isinstance(v, list) else v) for k, v in columns.items()} for i in range(len(rates))]
    notes = [_QUEUE_NOTE] + ([note] if note else [])
    if settings.profile is not None:
        from iosizer.calibration.whatif import band_note, band_words, service_rate_band, with_bands

        bands = service_rate_band(settings.profile, lambda mu: solve(np.asarray(rates), mu).to_dict(), settings.band)
        answers = [with_bands(answer, bands, i) for i, answer in enumerate(answers)]
        notes.append(
            f"service rate {settings.service_rate:.6g} and {settings.servers} server(s) from {settings.source}; "
            + band_note(answers, "*_ci_low/_ci_high: " + band_words(settings.band))
        )
    if simulate is not None:
        from iosizer.cli.tails import check_simulate, open_simulated_note, open_simulation, simulated

        servers, arrival_scv, service_scv, percentiles = simulate
        check_simulate(True, percentiles, len(rates))
        run = open_simulation(settings.service_rate, servers, arrival_scv, service_scv, percentiles)
        answers = [simulated(answer, run(rate)) for answer, rate in zip(answers, rates)]
        notes.append(open_simulated_note(servers, arrival_scv, service_scv))
    if len(rates) == 1:
        data = answers[0]
        rows = [{"metric": k, "value": v} for k, v in data.items()]
        report = Report(data=data, rows=rows, title=title, notes=notes,
                        csv_rows=[{"arrival_rate": rates[0], **data}])
    else:
        data = [{"arrival_rate": rate, **answer} for rate, answer in zip(rates, answers)]
        report = Report(data=data, rows=data, title=title, notes=notes)
    report.plot = [_response_panel(rates, answers)]
    emit(report, output_format, plot)


def _simulation(simulate: bool, percentile: list[float] | None, servers: int, arrival_scv: float,
                service_scv: float) -> tuple[int, float, float, list[float]] | None:
    """What ``_open_queue`` simulates under ``--simulate`` (None without it)."""
    from iosizer.cli.tails import check_simulate

    if not check_simulate(simulate, percentile, 1):
        return None
    return servers, arrival_scv, service_scv, list(percentile or [])


def _response_panel(rates: list[float], answers: list[dict[str, Any]]) -> Panel:
    """Mean response against arrival rate, with the profile's band when there is one."""
    response = [a["mean_response"] for a in answers]
    series = []
    if "mean_response_ci_low" in answers[0]:
        series.append(Series("95 % band", rates, [a["mean_response_ci_low"] for a in answers], "band",
                             [a["mean_response_ci_high"] for a in answers]))
    series.append(Series("mean response", rates, response, "line" if len(rates) > 1 else "points"))
    return Panel("arrival rate (per unit time)", "mean response (unit of 1/rate)", series)


@app.command()
def mm1(
    arrival_rate: ArrivalRate,
    service_rate: OptionalServiceRate = None,
    profile: ProfileOption = None,
    percentile: PercentileOption = None,
    simulate: SimulateOption = False,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """M/M/1: one server, Poisson arrivals, exponential service. --percentile: exact."""
    from iosizer.model.queueing import mm1 as solve

    settings = _service_settings(service_rate, None, profile, single_server=True)
    solve = with_percentiles(solve, tail("mm1_percentiles"), percentile)
    _open_queue("M/M/1", arrival_rate, solve, settings, output_format, plot, EXACT_NOTE if percentile else None,
                _simulation(simulate, percentile, 1, 1.0, 1.0))


@app.command()
def mg1(
    arrival_rate: ArrivalRate,
    service_scv: ServiceScv,
    service_rate: OptionalServiceRate = None,
    profile: ProfileOption = None,
    percentile: PercentileOption = None,
    simulate: SimulateOption = False,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """M/G/1: one server, general service time (Pollaczek-Khinchine).

    --percentile: exact (the Pollaczek-Khinchine transform of gamma service of this cv^2, inverted
    numerically; constant service by Crommelin's M/D/1 distribution; see iosizer.model.transforms).
    """
    from iosizer.model.queueing import mg1 as solve

    settings = _service_settings(service_rate, None, profile, single_server=True)
    solved = with_percentiles(lambda lam, mu: solve(lam, mu, service_scv),
                              lambda lam, mu, ps: tail("mg1_percentiles")(lam, mu, service_scv, ps), percentile)
    _open_queue("M/G/1", arrival_rate, solved, settings, output_format, plot,
                mg1_note(service_scv) if percentile else None, _simulation(simulate, percentile, 1, 1.0, service_scv))


@app.command()
def md1(
    arrival_rate: ArrivalRate,
    service_rate: OptionalServiceRate = None,
    profile: ProfileOption = None,
    percentile: PercentileOption = None,
    simulate: SimulateOption = False,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """M/D/1: one server, constant service time.

    --percentile: exact (Crommelin's M/D/1 waiting-time distribution; response = wait + service).
    """
    from iosizer.model.queueing import md1 as solve

    settings = _service_settings(service_rate, None, profile, single_server=True)
    solve = with_percentiles(solve, tail("md1_percentiles"), percentile)
    _open_queue("M/D/1", arrival_rate, solve, settings, output_format, plot,
                MD_EXACT_NOTE if percentile else None, _simulation(simulate, percentile, 1, 1.0, 0.0))


@app.command()
def ggc(
    arrival_rate: ArrivalRate,
    service_rate: OptionalServiceRate = None,
    servers: OptionalServers = None,
    arrival_scv: ArrivalScv = 1.0,
    service_scv: ServiceScv = 1.0,
    profile: ProfileOption = None,
    percentile: PercentileOption = None,
    simulate: SimulateOption = False,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """G/G/c by the Allen-Cunneen approximation (exact for M/M/c).

    Mean response against simulation (see iosizer.model.queueing.ggc): exact for Poisson arrivals to one
    server; otherwise up to +8 % with ca^2 0.5 and -13 % with ca^2 2 at light load (within 3 % at
    utilisation 0.9), -20 % with ca^2 4. p_wait is Erlang C's: at utilisation 0.5 it is 22-45 % off when
    ca^2 is 0.5 or 2 (over for 0.5, under for 2).

    --percentile: exact with Poisson arrivals (--arrival-scv 1) and one server, constant or exponential
    service (M/G/1, M/D/c, M/M/c); otherwise an approximation (exponential-tail wait with Erlang C and the
    Allen-Cunneen mean, gamma service) whose measured error against simulation, where above 2 %, is stated
    as response_pP_error_pct (grid: iosizer/data/error_grids/ggc_percentiles.csv). --simulate: the
    percentiles from a simulation of this queue, with their 95 % intervals.
    """
    from iosizer.cli.tails import ggc_is_exact, ggc_tails
    from iosizer.model.queueing import ggc as solve

    settings = _service_settings(service_rate, servers, profile)
    solved = with_percentiles(
        lambda lam, mu: solve(lam, mu, settings.servers, arrival_scv, service_scv),
        lambda lam, mu, ps: ggc_tails(lam, mu, settings.servers, arrival_scv, service_scv, ps),
        percentile,
    )
    exact = ggc_is_exact(settings.servers, arrival_scv, service_scv)
    exact_note = mg1_note(service_scv) if settings.servers == 1 else (MD_EXACT_NOTE if service_scv == 0 else EXACT_NOTE)
    _open_queue(
        f"G/G/{settings.servers} (Allen-Cunneen)",
        arrival_rate,
        solved,
        settings,
        output_format,
        plot,
        (exact_note if exact else APPROXIMATE_NOTE) if percentile else None,
        _simulation(simulate, percentile, settings.servers, arrival_scv, service_scv),
    )


@app.command()
def erlang(
    servers: OptionalServers = None,
    offered_load: Annotated[
        float | None,
        typer.Option("--offered-load", help="Offered load in erlangs (arrival rate / service rate)."),
    ] = None,
    arrival_rate: Annotated[
        float | None, typer.Option("--arrival-rate", help="With --profile: arrivals per second.")
    ] = None,
    profile: ProfileOption = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Erlang B (blocking, M/M/c/c) and Erlang C (waiting, M/M/c) probabilities."""
    from iosizer.model.queueing import erlang_b, erlang_c

    notes = []
    if profile is not None:
        if offered_load is not None or arrival_rate is None:
            raise InputError("with --profile give --arrival-rate (the profile supplies the service rate)")
        settings = _service_settings(None, servers, profile)
        servers, offered_load = settings.servers, arrival_rate / settings.service_rate
        notes.append(f"offered load {offered_load:.6g} erlangs = arrival rate / calibrated service rate "
                     f"{settings.service_rate:.6g} from {profile}")
    elif arrival_rate is not None:  # was silently ignored (nan and -1 included)
        raise InputError("--arrival-rate goes with --profile (which supplies the service rate); "
                         "without one give --offered-load (arrival rate / service rate)")
    elif servers is None or offered_load is None:
        raise InputError("give --servers and --offered-load (or --profile FILE with --arrival-rate)")
    else:
        _check_servers(servers)
    data = {"servers": servers, "offered_load": offered_load, "erlang_b": erlang_b(servers, offered_load)}
    data["erlang_c"] = erlang_c(servers, offered_load) if offered_load < servers else None
    if data["erlang_c"] is None:
        notes.append("Erlang C undefined: offered load >= servers (the queue would grow without bound).")
    rows = [{"metric": k, "value": v} for k, v in data.items()]
    emit(Report(data=data, rows=rows, title=f"Erlang, c={servers}", notes=notes), output_format)


@app.command()
def mva(
    population: Annotated[int, typer.Option("--population", help="Jobs in the closed network (>= 1).")],
    demand: Annotated[
        list[float] | None,
        typer.Option("--demand", help="Service demand of one station (repeat per station)."),
    ] = None,
    think_time: Annotated[
        float | None, typer.Option("--think-time", help="Think (delay) time outside the stations [default: 0].")
    ] = None,
    servers: Annotated[
        list[str] | None,
        typer.Option(
            "--servers",
            help="Servers per station in --demand order: a whole number, or 'delay'. Default 1 each.",
        ),
    ] = None,
    profile: ProfileOption = None,
    cpu_speed: CpuSpeedOption = None,
    percentile: PercentileOption = None,
    simulate: SimulateOption = False,
    band: BandOption = BandKind.parameter,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """Closed network by exact Mean Value Analysis; --format csv gives the curve 1..N.

    --percentile: per-station and end-to-end response percentiles from the arrival theorem's mixture over
    the state a job finds (exact for single-server stations and for one queueing station; with a c-server
    station among others, its error against simulation is measured on a grid and stated as
    response_pP_error_pct past 2 %: iosizer/data/error_grids/closed_percentiles.csv). --simulate: the
    end-to-end percentiles from a simulation of the network, with their 95 % intervals.
    """
    from iosizer.model.mva import POPULATION, asymptotic_bounds
    from iosizer.model.mva import mva as solve

    POPULATION.check(population, "--population")
    bands: dict[str, tuple[float, float]] = {}
    notes = []
    calibrated = profile_servers = None
    if profile is not None:
        from iosizer.calibration.profile import load_profile
        from iosizer.calibration.whatif import (band_note, band_words, closed_network_band,
                                                closed_network_servers, closed_network_settings, with_bands)

        if demand or think_time is not None or servers:
            raise InputError("--profile supplies the demands and think time; drop --demand/--think-time/--servers")
        from iosizer.calibration.whatif import on_cpu

        calibrated = on_cpu(load_profile(profile, "closed-network"), cpu_speed, str(profile))
        demand, think_time = closed_network_settings(calibrated)
        profile_servers = closed_network_servers(calibrated)  # the servers it was calibrated with
        bands = closed_network_band(calibrated, population, band.value)
        notes.append(f"demands and think time from {profile} (seconds: throughput per second); "
                     + band_note(with_bands(dict.fromkeys(bands), bands), "*_ci_low/_ci_high: " + band_words(band.value)))
    elif not demand:
        raise InputError("Missing option '--demand' (or give --profile FILE)")
    if cpu_speed is not None and profile is None:
        raise InputError("--cpu-speed carries a calibrated profile to another CPU: give --profile FILE")
    think_time = 0.0 if think_time is None else think_time

    counts = parse_servers(servers, _server_spec()) if servers else (profile_servers if calibrated else None)
    if counts is not None and len(counts) != len(demand):
        raise InputError(
            f"--servers is given {len(counts)} time{'s' if len(counts) != 1 else ''} for {len(demand)} "
            f"station{'s' if len(demand) != 1 else ''} (--demand); give one --servers per --demand, in the "
            "same order, or none for one server each"
        )
    result = solve(demand, think_time, population, counts)
    bounds = asymptotic_bounds(demand, think_time, population, counts)
    data = result.to_dict()
    if bands:
        from iosizer.calibration.whatif import with_bands

        data = with_bands(data, bands)
    data["knee_population"] = result.knee_population
    data["throughput_upper_bound"] = float(bounds.throughput_upper)
    data["response_time_lower_bound"] = float(bounds.response_lower)
    from iosizer.cli.tails import (check_simulate, closed_network_tails, closed_simulated, closed_simulated_note,
                                   simulated)

    tails, station_tails = closed_network_tails(demand, think_time, population, counts, percentile, calibrated)
    if check_simulate(simulate, percentile, 1):
        tails = simulated(tails, closed_simulated(list(demand), list(counts or [1.0] * len(demand)), population,
                                                  list(percentile or []), think_time=think_time))
        notes.append(closed_simulated_note() + "; the stations' percentiles stay analytic")
    data.update(tails)
    for station, extra in zip(data["stations"], station_tails):
        station.update(extra)
    if percentile:
        notes.append("end to end: " + ", ".join(f"{k} {v:.6g}" for k, v in tails.items()
                                                if not k.endswith(("_low", "_high", "_model"))))
        notes.append(CLOSED_NOTE)

    server_labels = [_server_label(c) for c in (counts or [1] * len(demand))]
    rows = [
        {"station": i + 1, "servers": server_labels[i], "demand": d, **station}
        for i, (d, station) in enumerate(zip(demand, data["stations"]))
    ]
    notes[:0] = [
        f"N={population}: throughput {data['throughput']:.6g} per unit time, "
        f"response time {data['response_time']:.6g} (think time {think_time:g} excluded)",
        f"bounds: throughput <= {data['throughput_upper_bound']:.6g}, "
        f"response >= {data['response_time_lower_bound']:.6g}; "
        f"knee N* = {data['knee_population']:.4g}; method: {data['method']}",
    ]
    emit(
        Report(
            data=data,
            rows=rows,
            title=f"Closed network, {len(demand)} stations, N={population}",
            csv_rows=_curve_rows(result.curve),
            notes=notes,
            plot=_network_panels(result, demand, think_time, counts) if plot is not None else None,
        ),
        output_format,
        plot,
    )


def _network_panels(result: Any, demand: list[float], think_time: float, counts: Any) -> list[Panel]:
    """X(N) and R(N) with their asymptotic bounds, the classic bottleneck picture."""
    from iosizer.model.mva import asymptotic_bounds

    curve = result.curve
    populations = curve.population
    bounds = asymptotic_bounds(demand, think_time, populations, counts)
    return [
        Panel("population N", "throughput (per unit time)", [
            Series("MVA", populations, curve.throughput),
            Series("asymptotic bound", populations, bounds.throughput_upper, "dashed"),
        ], "Throughput"),
        Panel("population N", "response time (think time excluded)", [
            Series("MVA", populations, curve.response_time),
            Series("asymptotic bound", populations, bounds.response_lower, "dashed"),
        ], "Response time"),
    ]


def _server_label(count: float) -> str:
    return "delay" if count == float("inf") else str(int(count))


def _curve_rows(curve: Any) -> list[dict[str, Any]]:
    """One CSV row per population with per-station columns suffixed _1.._K."""
    stations = curve.utilization.shape[1]
    rows = []
    for n in range(len(curve.population)):
        row = {
            "population": int(curve.population[n]),
            "throughput": float(curve.throughput[n]),
            "response_time": float(curve.response_time[n]),
        }
        for k in range(stations):
            row[f"utilization_{k + 1}"] = float(curve.utilization[n, k])
            row[f"queue_length_{k + 1}"] = float(curve.queue_length[n, k])
            row[f"residence_time_{k + 1}"] = float(curve.residence_time[n, k])
        rows.append(row)
    return rows
