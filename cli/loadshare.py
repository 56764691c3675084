"""``iosizer loadshare ...``: port load-sharing policies on a multi-core controller (seed 003)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from iosizer.cli.options import FormatOption, PlotOption
from iosizer.cli.output import OutputFormat, Panel, Report, Series, emit
from iosizer.cli.tails import PercentileOption
from iosizer.errors import InputError

app = typer.Typer(
    help="Which policy spreads storage-port queues over cores best (seed 003).",
    no_args_is_help=True,
)

SEED = "seed 003"
#: Where a default comes from: the family's declaration, never a number here.
DECLARED = "[declared value; see `iosizer params loadshare`]"
ScenarioOption = Annotated[
    str | None, typer.Option("--scenario", help=f"one-port (table 2), system (table 3) or skew (table 4). {DECLARED}")
]
PolicyOption = Annotated[
    str | None, typer.Option("--policy", help=f"shared, exclusive, one-stage or multi-stage. {DECLARED}")
]
Overhead = Annotated[
    float | None, typer.Option("--comm-overhead-pct", help="Extra core time when another core continues an I/O, "
                               f"% of one I/O (not published; assumed). {DECLARED}")
]
Threshold = Annotated[
    float | None, typer.Option("--threshold", help="Switching threshold: a port's load per serving core, "
                               f"fraction of one core (one-stage, multi-stage). {DECLARED}")
]
NonCore = Annotated[
    float | None, typer.Option("--non-core-pct", help="Fixed time of a write hit that no core spends (link "
                               "transfer, adapter DMA), added to every port's response, % of one I/O's "
                               f"service time (not published; assumed). {DECLARED}")
]
SwitchRule = Annotated[
    str | None, typer.Option("--switch-rule", help="When multi-stage gives a port another core: system-response, "
                             f"equal-response or threshold (see `iosizer params loadshare`). {DECLARED}")
]
Cores = Annotated[int | None, typer.Option("--cores", help="Controller cores [the scenario's, tables 2-4].")]
SharesOption = Annotated[
    str | None, typer.Option("--shares", metavar="A,B,...", help="Any port mix instead of a scenario: one load "
                             "share per port, comma-separated, normalised (1,2,3,4); --cores then defaults to "
                             "the declared count and the curves are normalised by shared's.")
]


def parse_shares(text: str | None, flag: str = "--shares") -> tuple[float, ...] | None:
    """``--shares 1,2,3,4`` as port shares (None when not given); a one-line error on a bad list."""
    if text is None:
        return None
    try:
        shares = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise InputError(f"{flag} must be numbers separated by commas (1,2,3,4), got {text!r}") from None
    if not shares or any(not share >= 0 for share in shares) or sum(shares) <= 0:
        raise InputError(f"{flag} must be non-negative loads with a positive sum, got {text!r}")
    return shares
SimulateOption = Annotated[bool, typer.Option(
    "--simulate", help="Answer each point's mean response by simulation (a few short replications per point, "
                       "the model's placement; the notes say how many), with its 95 % interval; the model's "
                       "value stays beside it.")]
Points = Annotated[int, typer.Option("--points", help="Load points per curve; a curve also gets both sides "
                                     "of every switching load, so it may have more rows.")]


def _declared(name: str) -> Any:
    from iosizer.model.registry import declaration

    return declaration("loadshare").default(name)


def _setup(scenario: str | None, cores: int | None, comm_overhead_pct: float | None,
           threshold: float | None, non_core_pct: float | None = None,
           switch_rule: str | None = None, shares: tuple[float, ...] | None = None) -> tuple[Any, Any]:
    """The scenario (declared one if not given; ``shares``: a custom mix) and the policy parameters
    (declared where not given)."""
    from iosizer.calibration.loadshare import custom_scenario, policy_params
    from iosizer.calibration.loadshare import scenario as find
    from iosizer.model.loadshare import COMM_OVERHEAD, CORES, NON_CORE, SWITCH_RULE, THRESHOLD

    for spec, flag, value in ((CORES, "--cores", cores), (COMM_OVERHEAD, "--comm-overhead-pct", comm_overhead_pct),
                              (THRESHOLD, "--threshold", threshold), (NON_CORE, "--non-core-pct", non_core_pct)):
        if value is not None:
            spec.check(value, flag)
    if switch_rule is not None:
        switch_rule = SWITCH_RULE.check(switch_rule, "--switch-rule")
    if shares is not None:
        if scenario is not None:
            raise InputError("give --scenario or --shares, not both")
        chosen = custom_scenario(shares, int(_declared("cores")))
    else:
        chosen = find(_declared("scenario") if scenario is None else scenario)
    return chosen, policy_params(chosen.cores if cores is None else cores, comm_overhead_pct, threshold,
                                 non_core_pct, switch_rule)


def _points(points: int) -> int:
    from iosizer.model.loadshare import POINTS

    return POINTS.check(points, "--points")


ProfileOption = Annotated[
    Path | None,
    typer.Option("--profile", help="A 'loadshare' profile from 'iosizer calibrate loadshare': its per-I/O core time "
                                   "and overhead (95 % intervals) replace the declared ones, and the answer "
                                   "gains IOPS and microseconds."),
]
CpuSpeed = Annotated[
    float | None,
    typer.Option("--cpu-speed", help="Carry the profile (or the declared values) to a controller CPU of this "
                                     "relative per-core speed; answers in IOPS and us."),
]


def _calibrated(profile: str | None, cpu_speed: float | None, comm_overhead_pct: float | None,
                threshold: float | None, non_core_pct: float | None, switch_rule: str | None = None) -> Any:
    """With --profile or --cpu-speed: the values to run on (options still override them)."""
    if profile is None and cpu_speed is None:
        return None
    from iosizer.calibration.whatif import what_if

    return what_if("loadshare", profile, cpu_speed=cpu_speed,
                   changes={"comm_overhead_pct": comm_overhead_pct, "threshold": threshold,
                            "non_core_pct": non_core_pct, "switch_rule": switch_rule})


def _configured(scenario: str | None, cores: int | None, comm_overhead_pct: float | None,
                threshold: float | None, non_core_pct: float | None, switch_rule: str | None,
                profile: str | None, cpu_speed: float | None,
                shares: tuple[float, ...] | None = None) -> tuple[Any, Any, Any]:
    """The scenario, the policy parameters and the what-if (None without --profile/--cpu-speed):
    a profile (or --cpu-speed) first, the options over it, the declared values for the rest."""
    calibrated = _calibrated(profile, cpu_speed, comm_overhead_pct, threshold, non_core_pct, switch_rule)
    if calibrated is not None:
        values = calibrated.values
        comm_overhead_pct, threshold = values["comm_overhead_pct"], values["threshold"]
        non_core_pct, switch_rule = values["non_core_pct"], values["switch_rule"]
    return (*_setup(scenario, cores, comm_overhead_pct, threshold, non_core_pct, switch_rule, shares), calibrated)


def _non_core_source(calibrated: Any, given: bool) -> str:
    """Where the non-core part came from: the option, the declaration, or the profile (which may predate it)."""
    if given:
        return "given"
    if calibrated is None:
        return "assumed"
    if "non_core_pct" not in calibrated.profile.parameters:
        return ("declared: the profile records none, as one made before the parameter was; give "
                "--non-core-pct 0 for the response it was fitted under")
    return "from the " + calibrated.source


def _rows_note(points: int, switches: int, rows: int) -> list[str]:
    """Why a curve has more rows than --points: both sides of every switching load."""
    if rows == points:
        return []
    return [(f"{rows} rows: {points} load points and both sides of {switches} switching load"
            f"{'s' if switches != 1 else ''} below 0.95 of the maximum (where the response jumps)")]


def _notes(chosen: Any, params: Any, reference: dict[str, float], calibrated: Any = None,
           non_core_given: bool = False) -> list[str]:
    source = (f"{SEED} table {chosen.table}, figure {chosen.figure}" if chosen.table else
              f"port shares {', '.join(f'{v:.4g}' for v in chosen.port_shares)} (not a seed scenario)")
    return [
        f"{source}: throughput / {chosen.reference_policy}'s maximum "
        f"({reference['max_throughput_cores']:.4g} cores), response / {chosen.reference_policy}'s minimum "
        f"({reference['min_response_service_times']:.4g} service times)",
        f"{params.cores} cores; communication overhead {params.comm_overhead_pct:g} % "
        f"({'assumed' if calibrated is None else 'from the ' + calibrated.source}); "
        f"threshold {params.threshold:g} of a core per serving core (one-stage; multi-stage only under the "
        f"threshold rule); multi-stage switch rule {params.switch_rule}",
        f"every response includes the non-core part of a write hit, {params.non_core_pct:g} % of a service time "
        f"({_non_core_source(calibrated, non_core_given)})",
        "response: each group of cores linked by shared ports pooled as one M/M/K (Erlang C), a port on fewer of "
        "them also waiting for one of its own and behind its own I/Os ahead, throughput-weighted over ports",
    ]


def _panel(chosen: Any, curves: list[Any]) -> Panel:
    return Panel(f"throughput / {chosen.reference_policy} max", f"response / {chosen.reference_policy} min", [
        Series(c.policy, c.throughput_norm, c.response_norm, "line") for c in curves
    ], f"{SEED} figure {chosen.figure}: {chosen.name}" if chosen.figure else f"{SEED} policies: {chosen.name}")


def _mean_response_error(rows: list[dict[str, Any]], chosen: Any, policy: str, params: Any, raw: Any,
                         notes: list[str]) -> list[str]:
    """``response_error_pct`` on every row where the mean response's measured error around any point exceeds 2 %
    (grid ``loadshare_response``: the seed's scenario at its cores, else every other mix measured); shared and
    exclusive are exact."""
    import numpy as np

    from iosizer.cli.tails import ERROR_RULE_PCT, load_error_grid
    from iosizer.model.percentiles import percentile_approximation_error

    if policy in ("shared", "exclusive"):
        return []
    grid = load_error_grid("loadshare_response")
    from iosizer.calibration.loadshare import scenarios

    seed = np.isin(grid["mix"], list(scenarios()))
    same = (grid["mix"] == chosen.name) & (grid["cores"] == params.cores) & (grid["policy"] == policy)
    region = same if chosen.table and same.any() else (~seed & (grid["policy"] == policy))
    subset = {key: values[region] for key, values in grid.items()}
    fractions = raw.throughput / raw.max_throughput
    errors = np.array([percentile_approximation_error(subset, {"load_fraction": float(f)}) for f in fractions])
    if not np.any(np.abs(errors) > ERROR_RULE_PCT):
        return []
    for row, error in zip(rows, errors):
        row["response_error_pct"] = float(error)
    where = "this scenario" if region is same else f"{int(region.sum())} cells of mixes off the seed's scenarios"
    notes.append(f"response_error_pct: the mean response's worst error measured against simulation around each "
                 f"load ({where}, data/error_grids/loadshare_response.csv; 0 within the simulation's interval); "
                 "past 2 % ask --simulate")
    return ["response_error_pct"]


def _simulated(rows: list[dict[str, Any]], chosen: Any, policy: str, params: Any, raw: Any, unit: float,
               notes: list[str]) -> list[str]:
    """The rows' mean response replaced by the simulation's, with its 95 % interval; the model's kept beside."""
    from iosizer.simulate.loadshare import simulate_points

    done = simulate_points(policy, raw.throughput, chosen.port_shares, params, customers=20_000,
                           cores_per_port=raw.cores_per_port)
    for row, mean, low, high in zip(rows, done.response, done.ci_low, done.ci_high):
        row["response_model_service_times"] = row["response_service_times"]
        row["response_model_norm"] = row["response_norm"]
        row.update({"response_service_times": float(mean), "response_norm": float(mean) / unit,
                    "response_ci_low_service_times": float(low), "response_ci_high_service_times": float(high),
                    "response_ci_low_norm": float(low) / unit, "response_ci_high_norm": float(high) / unit})
    notes.append(f"--simulate: response_norm is the simulated mean ({done.replications} replications of "
                 f"{done.customers:,} I/Os per point, iosizer.simulate.loadshare, the model's cores and placement), "
                 "response_ci_low/high_norm its 95 % interval, response_model_norm the model's")
    return ["response_ci_low_norm", "response_ci_high_norm", "response_model_norm"]


@app.command()
def curve(
    scenario: ScenarioOption = None,
    shares: SharesOption = None,
    policy: PolicyOption = None,
    cores: Cores = None,
    comm_overhead_pct: Overhead = None,
    threshold: Threshold = None,
    non_core_pct: NonCore = None,
    switch_rule: SwitchRule = None,
    points: Points = 60,
    percentile: PercentileOption = None,
    profile: ProfileOption = None,
    cpu_speed: CpuSpeed = None,
    simulate: SimulateOption = False,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """Response against throughput for one policy, normalised as in the seed's figures.

    The mean response of one-stage and multi-stage is an approximation: where its error measured against
    simulation (data/error_grids/loadshare_response.csv) exceeds 2 % around a point, the row states it as
    response_error_pct; --simulate answers with the simulated mean and its 95 % interval instead.

    --percentile: response_pP_service_times and response_pP_norm, the throughput-weighted mixture of the
    ports' responses in M/M/c form with the model's wait probability and mean wait per port (exact for
    shared and exclusive, within about 1 % of simulation where port groups overlap).
    """
    from iosizer.calibration.loadshare import normalised_curves
    from iosizer.model.loadshare import POLICIES

    policy = _declared("policy") if policy is None else policy
    if policy not in POLICIES:
        raise InputError(f"--policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    points = _points(points)
    non_core_given = non_core_pct is not None
    chosen, params, calibrated = _configured(scenario, cores, comm_overhead_pct, threshold, non_core_pct,
                                             switch_rule, profile, cpu_speed, parse_shares(shares))
    (answer,), reference = normalised_curves(chosen, [policy], params, points)
    raw = answer.curve
    rows = [
        {"policy": policy, "scenario": chosen.name, "throughput_norm": float(x), "response_norm": float(r),
         "throughput_cores": float(t), "response_service_times": float(rr),
         "hot_port_cores": int(k.max())}
        for x, r, t, rr, k in zip(answer.throughput_norm, answer.response_norm, raw.throughput, raw.response,
                                  raw.cores_per_port)
    ]
    tail_keys: list[str] = []
    if percentile:
        from iosizer.model.percentiles import loadshare_percentiles

        tails = loadshare_percentiles(policy, raw.throughput, chosen.port_shares, params, percentile)
        for key, values in tails.items():
            tail_keys.append(f"{key}_norm")
            for row, value in zip(rows, values):
                row[f"{key}_service_times"] = float(value)
                row[f"{key}_norm"] = float(value) / reference["min_response_service_times"]
        import numpy as np

        from iosizer.cli.tails import loadshare_errors
        from iosizer.model.loadshare import max_throughput

        top = max_throughput(policy, np.asarray(chosen.port_shares, dtype=float) / np.sum(chosen.port_shares), params)
        for key, values in loadshare_errors(chosen.name, policy, params.cores, raw.throughput / top, percentile).items():
            tail_keys.append(key)
            for row, value in zip(rows, values):
                row[key] = float(value)
    notes = _notes(chosen, params, reference, calibrated, non_core_given)
    mean_keys = _mean_response_error(rows, chosen, policy, params, raw, notes)
    if simulate:
        mean_keys = _simulated(rows, chosen, policy, params, raw, reference["min_response_service_times"], notes)
    absolute_keys: list[str] = []
    if calibrated is not None:
        from iosizer.calibration.loadshare import absolute_units

        notes.append(absolute_units(rows, calibrated, chosen, policy, params, raw.switch_loads))
        absolute_keys = ["throughput_iops", "response_us"]
    if percentile:
        notes.append("response_pP: mixture over ports of M/M/c-form responses with each port's wait probability "
                     "and mean wait from the model (exact for shared and exclusive; for one-stage and multi-stage "
                     "measured against simulation on a grid, iosizer/data/error_grids/loadshare_percentiles.csv, "
                     "and stated as response_pP_error_pct past 2 %); a switch's jump below is the mean's, "
                     "a percentile may move there too")
    notes += _rows_note(points, int(raw.switch_loads.size), len(rows))
    if raw.switch_loads.size:
        notes.append("switches at " + ", ".join(
            f"{x / reference['max_throughput_cores']:.3f} (jump {100 * j:.1f} %)"
            for x, j in zip(raw.switch_loads, raw.switch_jumps)))
    emit(Report(rows, rows, title=f"{policy} policy, {chosen.name} scenario",
                columns=["throughput_norm", "response_norm", *mean_keys, *absolute_keys, *tail_keys,
                         "hot_port_cores"],
                notes=notes,
                plot=[_panel(chosen, [answer])] if plot is not None else None), output_format, plot)
