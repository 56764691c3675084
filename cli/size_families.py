"""``iosizer size latency``: the seed families' sizing questions.

Registered on :data:`iosizer.cli.size.app`. Each command calls one function of
:mod:`iosizer.model.family_sizing` (root finding on the family's model) with
the family's calibrated (or a given profile's) parameters, and, with
``--profile``, the interval of the answer at the ends of the profile's 95 %
parameter intervals. (``size lanes``, ``hba`` and ``outstanding`` are declared: the rmw, hba and
replication questions' sizings.)
"""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer

from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, Report, emit
from iosizer.cli.size import ProfileOption, app

BudgetPct = Annotated[float, typer.Option("--budget-pct", help="Largest acceptable loss, percent.")]


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def _interval(profile: Any, answer: Any, on_failure: float = math.inf) -> tuple[float | None, float | None]:
    from iosizer.calibration.sizing import answer_interval

    return answer_interval(profile, answer, on_failure)


# --- seed 000 -------------------------------------------------------------------------------


@app.command()
def latency(
    budget_pct: BudgetPct = 5.0,
    hop_ns: Annotated[
        list[float] | None, typer.Option("--hop-ns", help="One-way hop latency of a switch (repeat) [table 3-3's].")
    ] = None,
    device: Annotated[
        str | None, typer.Option("--device", help="A DMA device (e1000, bcm5700, ...) instead of the OLTP curve.")
    ] = None,
    profile: ProfileOption = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Seed 000: the largest added latency within a degradation budget, and the most switch tiers per hop.

    PD grows with the added round trip x, so t tiers of hop h fit exactly when 2 t h <= x_max, the root of
    PD(x) = budget (Brent's method on the OLTP network's MVA curve; the closed form for a DMA device). The
    same answer as 'iosizer latency tiers', without a tier count limit.
    """
    from iosizer.calibration import latency as family
    from iosizer.model.family_sizing import max_switch_tiers

    calibrated = None
    if profile is not None:
        from iosizer.calibration.profile import load_profile

        calibrated = load_profile(profile)
    kind, source = family.loss_source(calibrated, device)

    def x_max(values: Any = None) -> float:
        if kind == "oltp":
            network = source if values is None else source.model_copy(update={
                "knee_latency_ns": values["knee_latency_ns"], "serial_share": values["serial_share"]})
            return family.max_oltp_latency_ns(network, budget_pct)
        chosen = source if values is None else source.model_copy(update={
            "local_issue_interval_ns": values["local_issue_interval_ns"],
            "exposed_round_trips": values["exposed_round_trips"]})
        return family.max_dma_latency_ns(chosen, budget_pct)

    answer = x_max()
    chosen_profile = calibrated if calibrated is not None else (family.oltp_profile() if kind == "oltp" else None)
    band = _interval(chosen_profile, x_max) if chosen_profile is not None else (None, None)
    from iosizer.model.latency import HOP_NS

    # Each hop within the declaration, as 'latency tiers --hop-ns' checks it (1e308 was answered here).
    switches = ([{"switch": f"hop {h:g} ns", "hop_ns": HOP_NS.check(h, "--hop-ns")} for h in hop_ns] if hop_ns
                else family.switch_catalogue())
    rows = []
    for switch in switches:
        hop = float(switch["hop_ns"])
        row = {"switch": switch["switch"], "hop_ns": hop, "max_tiers": _whole(max_switch_tiers(answer, hop))}
        if band != (None, None):
            row["max_tiers_ci_low"] = None if band[0] is None else _whole(max_switch_tiers(band[0], hop))
            row["max_tiers_ci_high"] = None if band[1] is None else _whole(max_switch_tiers(band[1], hop))
        rows.append(row)
    model = f"profile {profile}" if profile else (f"device {device}" if device else "the OLTP curve (seed 000)")
    data: dict[str, Any] = {"model": model, "budget_pct": budget_pct, "max_added_latency_ns": _finite(answer)}
    if band != (None, None) or chosen_profile is not None:
        data["max_added_latency_ns_ci_low"] = _finite(band[0])
        data["max_added_latency_ns_ci_high"] = _finite(band[1])
    data["switches"] = rows
    notes = [f"largest added round trip within {budget_pct:g} %: {_text(answer)} ns"
             + (f" [{_text(band[0])}, {_text(band[1])}]" if band != (None, None) else ""),
             f"max_tiers = floor(x_max / (2 hop)); loss from {model}",
             "_ci_low/_ci_high: at the ends of the profile's 95 % intervals" if band != (None, None) else
             "no interval: the profile's fit is exact (as many points as parameters)"]
    emit(Report(data=data, rows=rows, title=f"Switch tiers within {budget_pct:g} % loss", notes=notes),
         output_format)


def _whole(value: float) -> int | None:
    return None if not math.isfinite(value) else int(value)


def _text(value: float | None) -> str:
    return "unbounded" if value is None or not math.isfinite(value) else f"{value:.6g}"
