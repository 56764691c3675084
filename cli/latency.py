"""``iosizer latency ...``: throughput lost to added I/O latency (seed 000)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from iosizer.cli.options import FormatOption, PlotOption
from iosizer.cli.output import OutputFormat, Panel, Report, Series, emit
from iosizer.cli.params import parse_grid, reject_repeats
from iosizer.errors import InputError

app = typer.Typer(
    help="Throughput lost to added I/O latency: DMA devices, OLTP curve, budgets, switch tiers (seed 000).",
    no_args_is_help=True,
)

AddedLatency = Annotated[
    str,
    typer.Option("--added-latency-ns", metavar="NS", help="Added round-trip latency: 2100, a list 300,600 or 0:2100:300."),
]
Device = Annotated[
    str | None,
    typer.Option("--device", help="e1000, bcm5700 (NIC send, table 4-1), nic-recv or hba-write (posted)."),
]
BudgetPct = Annotated[float, typer.Option("--budget-pct", help="Largest acceptable loss, percent.")]
ShowFormula = Annotated[
    bool, typer.Option("--show-formula", help="Print the closed form used (text and LaTeX) and dPD/dx.")
]
SEED = "seed 000"


def _one_or_list(points: list[dict[str, Any]]) -> Any:
    return points[0] if len(points) == 1 else points


def _dma_formula(device: Any, x: float) -> dict[str, Any]:
    from iosizer.model.symbolic import DMA_SYMBOLS, dma_degradation_expression, dma_functions, formula

    slope = dma_functions()["d_degradation_d_latency"](x, device.local_issue_interval_ns, device.exposed_round_trips)
    return {
        "formula": {**formula(dma_degradation_expression()), "symbols": DMA_SYMBOLS},
        "d_degradation_d_latency_pct_per_ns": float(slope),
    }


@app.command()
def dma(
    added_latency_ns: AddedLatency,
    device: Device = None,
    profile: Annotated[
        Path | None, typer.Option("--profile", help="A 'dma' profile from 'iosizer calibrate dma'.")
    ] = None,
    burst_bytes: Annotated[
        float | None, typer.Option("--burst-bytes", help="With --profile: bytes per read burst (for MB/s).")
    ] = None,
    cpu_speed: Annotated[
        float | None,
        typer.Option("--cpu-speed", help="With --profile: carry it to a CPU of this relative per-core speed "
                                         "(issue interval and exposed round trips scale within their "
                                         "declared exponent ranges)."),
    ] = None,
    show_formula: ShowFormula = False,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """DMA read throughput under added latency (Little's law); posted writes lose nothing."""
    from iosizer.calibration import latency as family
    from iosizer.model.latency import ADDED_LATENCY
    from iosizer.model.latency import dma as solve

    if (device is None) == (profile is None):
        raise InputError("give either --device NAME or --profile FILE")
    if profile is not None:
        from iosizer.calibration.profile import load_profile

        if burst_bytes is not None:
            from iosizer.model.latency import BURST_BYTES

            BURST_BYTES.check(burst_bytes, "--burst-bytes")
        from iosizer.calibration.whatif import on_cpu

        chosen = family.device_from_profile(on_cpu(load_profile(profile, "dma"), cpu_speed, str(profile)),
                                            burst_bytes)
    else:
        if cpu_speed is not None:
            raise InputError("--cpu-speed carries a calibrated profile to another CPU: give --profile FILE")
        if burst_bytes is not None:
            raise InputError("--burst-bytes goes with --profile; a catalogue device knows its burst size")
        chosen = family.device(device)
    latencies = parse_grid(added_latency_ns, "added-latency-ns", ADDED_LATENCY)
    result = solve(chosen, latencies).to_dict()
    published = family.published_dma(chosen.name) if device else None
    points = []
    for i, x in enumerate(latencies):
        point = {
            "device": chosen.name,
            "posted": chosen.posted,
            "added_latency_ns": x,
            "issue_interval_ns": None if result["issue_interval_ns"] is None else result["issue_interval_ns"][i],
            "throughput_mbps": None if result["throughput_mbps"] is None else result["throughput_mbps"][i],
            "local_throughput_mbps": result["local_throughput_mbps"],
            "degradation_pct": result["degradation_pct"][i],
        }
        if published is not None and x == published.added_latency_ns:
            point["published_estimate_pct"] = published.estimated_degradation_pct
            point["measured_degradation_pct"] = published.measured_degradation_pct
        if show_formula and not chosen.posted:
            point.update(_dma_formula(chosen, x))
        points.append(point)

    notes = []
    if published is not None:
        notes.append(
            f"{SEED} table 4-1 at +{published.added_latency_ns:g} ns: {published.throughput_mbps:g} MB/s, "
            f"estimated -{published.estimated_degradation_pct:g} %, measured -{published.measured_degradation_pct:g} %"
        )
    if device is not None and not chosen.posted:
        notes.append("profile calibrated from table 4-1's two issue intervals: an exact fit, so no interval")
    if chosen.posted:
        notes.append("posted DMA writes do not wait for completions: added latency costs nothing")
    if show_formula and not chosen.posted:
        f = points[0]["formula"]
        notes.append(f"PD(x) = {f['text']}   [LaTeX: {f['latex']}]")
        notes.append("where " + "; ".join(f"{k}: {v}" for k, v in f["symbols"].items()))
        notes.append(f"dPD/dx at x = {latencies[0]:g} ns: {points[0]['d_degradation_d_latency_pct_per_ns']:.6g} % per ns")
    columns = ["device", "added_latency_ns", "issue_interval_ns", "throughput_mbps", "degradation_pct"]
    if any("measured_degradation_pct" in p for p in points):
        columns.append("measured_degradation_pct")
    emit(
        Report(_one_or_list(points), points, title=f"DMA under added latency: {chosen.name}",
               columns=columns, notes=notes,
               plot=[_dma_panel(chosen, latencies, points, published)] if plot is not None else None),
        output_format,
        plot,
    )


def _dma_panel(chosen: Any, latencies: list[float], points: list[dict[str, Any]], published: Any) -> Panel:
    import numpy as np

    from iosizer.model.latency import dma as solve

    span = np.linspace(0.0, max(max(latencies), 2100.0), 200)
    series = [Series(f"{chosen.name} model", span, solve(chosen, span).degradation_pct)]
    if published is not None:
        series.append(Series("table 4-1 measured", [published.added_latency_ns],
                             [published.measured_degradation_pct], "points"))
        series.append(Series("table 4-1 estimate", [published.added_latency_ns],
                             [published.estimated_degradation_pct], "points"))
    return Panel("added round-trip latency (ns)", "degradation PD (%)", series)


@app.command()
def oltp(
    added_latency_ns: AddedLatency,
    profile: Annotated[
        list[Path] | None,
        typer.Option("--profile", help="'oltp' profile(s); several (from different CPUs) with --cpu-speed."),
    ] = None,
    cpu_speed: Annotated[
        float | None, typer.Option("--cpu-speed", help="Relative per-core speed of the target CPU (seed CPU = 1).")
    ] = None,
    stall_exponent: Annotated[
        float | None, typer.Option("--stall-exponent", help="a in [0, 1]: how much more a faster core loses per wait.")
    ] = None,
    issue_rate_exponent: Annotated[
        float | None,
        typer.Option("--issue-rate-exponent", help="b in [0, 1]: how much latency a faster core hides by issuing more DMA."),
    ] = None,
    service_scv: Annotated[
        float | None,
        typer.Option("--service-scv", help="Service-time scv of the CPU and serial step: 1 exponential (exact MVA, "
                     "the default or the profile's), 0 constant (residual-service approximation)."),
    ] = None,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """OLTP (TPC-C-like) degradation curve: the seed's batch closed network solved by MVA."""
    from iosizer.calibration import latency as family
    from iosizer.calibration.profile import load_profile
    from iosizer.model.family import CPU_SPEED, cpu_speed_factor
    from iosizer.model.latency import ADDED_LATENCY, effective_latency_ns
    from iosizer.model.mva import SERVICE_SCV

    if cpu_speed is not None:
        CPU_SPEED.check(cpu_speed, "--cpu-speed")
    if service_scv is not None:
        SERVICE_SCV.check(service_scv, "--service-scv")
    if profile:
        reject_repeats([p.resolve() for p in profile], "--profile", [str(p) for p in profile])
    base = [load_profile(p, "oltp") for p in profile] if profile else [family.oltp_profile()]
    latencies = parse_grid(added_latency_ns, "added-latency-ns", ADDED_LATENCY)
    explicit = stall_exponent is not None or issue_rate_exponent is not None
    notes = []
    if explicit:
        if cpu_speed is None or len(base) > 1:
            raise InputError("--stall-exponent/--issue-rate-exponent need --cpu-speed and one profile")
        chosen, extrapolation = base[0], None
        felt = effective_latency_ns(latencies, cpu_speed_factor(cpu_speed, base[0].cpu_speed or 1.0, "--cpu-speed"),
                                    stall_exponent or 0.0, issue_rate_exponent or 0.0)
        notes.append(f"CPU speed {cpu_speed:g}: latency felt as x s^(a-b) with a={stall_exponent or 0:g}, "
                     f"b={issue_rate_exponent or 0:g}")
    else:
        chosen, extrapolation = family.profile_at_cpu(base, cpu_speed)
        felt = latencies
    network = family.oltp_network(chosen, service_scv)
    points = family.oltp_points(chosen, latencies, felt, service_scv)
    knee = chosen.parameters["knee_latency_ns"]
    notes.append(f"knee (bottleneck shift) at {knee.value:.0f} ns added latency; serial share "
                 f"{chosen.value('serial_share'):.3g}; {network.terminals} terminals, batch mode")
    notes.append("service times exponential (cv^2 = 1): exact MVA" if network.service_scv == 1 else
                 f"service-time cv^2 = {network.service_scv:g} ("
                 + ("given; the profile's was fitted with its own" if service_scv is not None else "the profile's")
                 + "): MVA with the residual-service correction (approximate)")
    notes.append("_low/_high: 95 % band from the profile's intervals"
                 + (" and the CPU-scaling assumptions" if extrapolation is not None else ""))
    if family.band_clipped(points):
        notes.append("band clipped at 100 %: a loss cannot exceed the whole throughput, "
                     "though the propagated interval reaches past it")
    if extrapolation is not None and len({p.cpu_speed for p in base}) == 1:
        spread = next(p for p in extrapolation.parameters if p.name == "knee_latency_ns").assumption_spread
        notes.append(
            f"one CPU measured: knee spans {spread[0]:.0f}..{spread[1]:.0f} ns between pure stall "
            "amplification (a=1, b=0) and pure DMA latency hiding (a=0, b=1)"
        )
    emit(
        Report(_one_or_list(points), points, notes=notes,
               title="OLTP degradation curve (TPC-C-like, MVA)" + (f", CPU speed {cpu_speed:g}" if cpu_speed else ""),
               plot=[_oltp_panel(network, chosen, points)] if plot is not None else None),
        output_format,
        plot,
    )


def _oltp_panel(network: Any, profile: Any, points: list[dict[str, Any]]) -> Panel:
    import numpy as np

    from iosizer.calibration.latency import tpcc_points
    from iosizer.model.latency import oltp_degradation_pct

    top = max(2400.0, max(p["added_latency_ns"] for p in points))
    span = np.linspace(0.0, top, 241)
    published = tpcc_points()
    series = [
        Series("95 % band", [p["added_latency_ns"] for p in points], [p["degradation_pct_low"] for p in points],
               "band", [p["degradation_pct_high"] for p in points]),
        Series("MVA model", span, oltp_degradation_pct(network, span)),
    ]
    for relation, label, kind in (("le", "published bound (<=)", "bound"), ("approx", "published (about)", "points"),
                                  ("approx_under", "published (a little under)", "points"),
                                  ("eq", "published (exact)", "points")):
        chosen = [p for p in published if p["relation"] == relation]
        if chosen:
            series.append(Series(label, [p["added_latency_ns"] for p in chosen],
                                 [p["degradation_pct"] for p in chosen], kind))
    return Panel("added round-trip latency (ns)", "degradation PD (%)", series)


LossProfile = Annotated[
    Path | None, typer.Option("--profile", help="An 'oltp' or 'dma' profile from 'iosizer calibrate'.")
]


def _load_loss_profile(path: Path | None) -> Any:
    if path is None:
        return None
    from iosizer.calibration.profile import load_profile

    return load_profile(path)


@app.command()
def budget(
    budget_pct: BudgetPct,
    device: Device = None,
    profile: LossProfile = None,
    show_formula: ShowFormula = False,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Largest added latency whose predicted loss stays within the budget (OLTP, or a device)."""
    from iosizer.calibration import latency as family

    kind, source = family.loss_source(_load_loss_profile(profile), device)
    label = f"profile:{profile}" if profile else (f"dma:{device}" if device else "oltp")
    if kind == "oltp":
        answer = family.max_oltp_latency_ns(source, budget_pct)
        slope = family.oltp_slope_pct_per_ns(source, answer)
        data: dict[str, Any] = {
            "model": label, "budget_pct": budget_pct, "max_added_latency_ns": answer,
            "method": "Brent's method on the exact MVA curve (no closed form)",
            "d_degradation_d_latency_pct_per_ns": float(slope),
        }
    else:
        answer = family.max_dma_latency_ns(source, budget_pct)
        data = {"model": label, "budget_pct": budget_pct,
                "max_added_latency_ns": answer if math.isfinite(answer) else None,
                "method": "closed form, sympy: x = B I_0 / (k (100 - B))" if not source.posted
                else "posted device: no added latency degrades it"}
        if show_formula and not source.posted:
            from iosizer.model.symbolic import DMA_SYMBOLS, dma_budget_expression, formula

            data["formula"] = {**formula(dma_budget_expression()), "symbols": DMA_SYMBOLS}
            data.update({k: v for k, v in _dma_formula(source, answer).items() if k != "formula"})
    notes = []
    if show_formula and "formula" in data:
        notes.append(f"x_max = {data['formula']['text']}   [LaTeX: {data['formula']['latex']}]")
    if show_formula and "d_degradation_d_latency_pct_per_ns" in data:
        notes.append(f"dPD/dx at the answer: {data['d_degradation_d_latency_pct_per_ns']:.6g} % per ns")
    if show_formula and kind == "oltp":
        notes.append("the OLTP curve has no closed form (MVA recursion); solved numerically")
    rows = [{"metric": k, "value": v} for k, v in data.items() if k not in ("formula",)]
    emit(Report(data, rows, title=f"Latency budget ({budget_pct:g} % loss)", notes=notes), output_format)


@app.command()
def tiers(
    budget_pct: BudgetPct = 5.0,
    hop_ns: Annotated[
        list[float] | None, typer.Option("--hop-ns", help="Evaluate this one-way hop latency instead of table 3-3.")
    ] = None,
    device: Device = None,
    profile: LossProfile = None,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """Switch tiers within a loss budget: t tiers of hop h add 2 t h ns round trip (table 3-3)."""
    from iosizer.calibration import latency as family
    from iosizer.model.latency import HOP_NS

    switches = (
        [{"switch": f"hop {h:g} ns", "hop_ns": HOP_NS.check(h, "--hop-ns")} for h in hop_ns]
        if hop_ns else family.switch_catalogue()
    )
    answer = family.tier_plan(switches, budget_pct, device, _load_loss_profile(profile))
    rows = [
        {"switch": a["switch"], "hop_ns": a["hop_ns"],
         **{f"loss_{t}_tiers_pct": loss for t, loss in zip(a["tiers"], a["loss_pct"])},
         "max_tiers": a["max_tiers"]}
        for a in answer
    ]
    model = f"profile {profile}" if profile else (f"device {device}" if device else "the OLTP curve")
    notes = [f"loss from {model}; round trip 2 x tiers x hop; max_tiers: most tiers within {budget_pct:g} %"]
    series = [Series(a["switch"], a["tiers"], a["loss_pct"], "linepoints") for a in answer]
    series.append(Series(f"{budget_pct:g} % budget", [1, 4], [budget_pct, budget_pct], "dashed"))
    for hop in sorted({p["hop_ns"] for p in family.published_tier_points()}):
        stated = [p for p in family.published_tier_points() if p["hop_ns"] == hop]
        kind = "bound" if all(p["relation"] in ("lt", "le") for p in stated) else "points"
        series.append(Series(f"{SEED} sec 4.4, {hop:g} ns hop", [p["tiers"] for p in stated],
                             [p["degradation_pct"] for p in stated], kind))
    emit(
        Report(answer, rows, title=f"Switch tiers within {budget_pct:g} % loss", notes=notes,
               plot=[Panel("switch tiers", "degradation PD (%)", series)]),
        output_format,
        plot,
    )
