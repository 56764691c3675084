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
