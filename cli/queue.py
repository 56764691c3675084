"""``iosizer queue ...``: open queues and closed networks from the queueing core."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from iosizer.cli.options import BandKind, BandOption, FormatOption, PlotOption
from iosizer.cli.output import OutputFormat, Panel, Report, Series, emit
from iosizer.cli.params import parse_servers
from iosizer.cli.tails import CLOSED_NOTE, PercentileOption, SimulateOption
from iosizer.errors import InputError

app = typer.Typer(
    help="Open queues (M/M/1, M/M/c, M/G/1, M/D/1, G/G/c) and closed networks (MVA).",
    no_args_is_help=True,
)

ProfileOption = Annotated[
    Path | None,
    typer.Option("--profile", help="Calibrated profile (JSON from 'iosizer calibrate') to take parameters from."),
]
CpuSpeedOption = Annotated[
    float | None,
    typer.Option("--cpu-speed", help="With --profile: carry it to a CPU of this relative per-core speed (the "
                                     "service rate scales within its declared exponent range; the band widens)."),
]


def _server_spec() -> Any:
    """The declaration of a server count: the mmc family's ``servers`` (identical servers, one queue)."""
    from iosizer.model.registry import declaration

    return declaration("mmc").spec("servers")


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
