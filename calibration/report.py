"""Every model family against every published figure: the checks behind ``iosizer report``.

Each shipped measurement file ``data/measurements/seedNNN_*.csv`` belongs to
a seed. A seed's *provider* runs that seed's models with their shipped,
calibrated profiles (the same library functions the CLI commands call; no
model value is typed in here) and returns one :class:`Check` per published
number, plus optional charts. Every CSV row must be accounted for: checked,
or listed as "not modelled" with the reason. A row no record mentions is
reported as ``not_covered`` (a failure), and a seed with no provider lists
its files as ``no_provider``, so nothing is silently dropped.

Provider interface
------------------
A provider is a function of no arguments returning :class:`Provided`::

    def seed005_thing() -> Provided:
        out = Collector("seed005")
        for line, row in out.rows("seed005_table1"):       # (CSV line, row dict)
            out.check("seed005_table1", line, row, figure="table 1, " + row["case"],
                      quantity="iops", unit="IOPS", model=model_value, column="iops")
            # or: out.not_modelled("seed005_table1", line, row, "why there is no model value")
        out.chart("seed005_curve", "title", [ChartPanel("x", "y", [ChartSeries("model", xs, ys)])])
        return out.provided()

and one registry line: ``PROVIDERS["seed005"] = seed005_thing``.

Tolerances (:func:`accepted_band`) follow the CSV's own reading of each
number: an exact printed value is met to half a unit of its last printed
digit; ``approx`` values use the row's ``approx_pct`` (the transcriber's
band); ``le``/``lt`` are upper bounds, ``ge`` lower bounds, ``approx_under``
"a little under" is ``[v (1 - p), v]``, ``approx_over`` ``[v, v (1 + p)]``,
``max`` (the largest value observed) is met like an exact value by the
model's largest value over the same cases. A provider may pass its own
``band`` only with a stated reason; every record carries its reason.

Expected misses: a check may be marked ``expected_miss="reason"`` when the
shipped model is known not to reproduce a figure. If it is then outside its
band its status is ``expected_miss``: listed with the reason, counted
separately, neither a pass nor a failure for ``--check``. If it falls
inside its band it is a plain pass and the report says the mark is stale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from iosizer.calibration.shipped import measurement_names, read_measurement

#: Statuses of a record. Only ``fail`` and ``not_covered`` fail ``--check``.
PASS, FAIL, EXPECTED_MISS = "pass", "fail", "expected_miss"
NOT_MODELLED, NOT_COVERED, NO_PROVIDER = "not_modelled", "not_covered", "no_provider"
CHECKED = (PASS, FAIL, EXPECTED_MISS)
FAILING = (FAIL, NOT_COVERED)

#: Absolute band for approximate zeros ("not affected", "no loss"): the CSV
#: gives no relative tolerance for them (a relative band of 0 is empty).
ZERO_BAND_PCT_POINTS = 1.0


@dataclass
class Check:
    """One published number against the model (or a row with no model counterpart)."""

    seed: str
    file: str
    line: int | None
    figure: str
    quantity: str
    unit: str
    published: float | None
    published_text: str
    relation: str | None
    model: float | None
    accepted_low: float | None
    accepted_high: float | None
    tolerance: float | None
    tolerance_reason: str
    source: str
    note: str
    status: str
    expected_miss_reason: str | None = None

    @property
    def difference(self) -> float | None:
        if self.model is None or self.published is None:
            return None
        return self.model - self.published

    @property
    def within(self) -> bool | None:
        return None if self.status not in CHECKED else self.status == PASS

    def to_dict(self) -> dict[str, Any]:
        return {
            "figure": self.figure, "quantity": self.quantity, "published": self.published,
            "model": self.model, "difference": self.difference, "tolerance": self.tolerance,
            "within": self.within, "source": self.source, "note": self.note,
            "status": self.status, "relation": self.relation, "unit": self.unit,
            "published_text": self.published_text, "accepted_low": self.accepted_low,
            "accepted_high": self.accepted_high, "tolerance_reason": self.tolerance_reason,
            "expected_miss_reason": self.expected_miss_reason, "file": self.file, "line": self.line,
        }


@dataclass
class ChartSeries:
    """A curve, points or band; the field names match :class:`iosizer.cli.output.Series`."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    kind: str = "line"
    y_high: Sequence[float] | None = None


@dataclass
class ChartPanel:
    """One subplot; the field names match :class:`iosizer.cli.output.Panel`."""

    x_label: str
    y_label: str
    series: list[ChartSeries]
    title: str = ""


@dataclass
class Chart:
    """One picture of the report: ``name`` becomes ``NAME.png``."""

    name: str
    title: str
    panels: list[ChartPanel]


@dataclass
class Provided:
    checks: list[Check]
    charts: list[Chart] = field(default_factory=list)


@dataclass
class Band:
    low: float | None
    high: float | None
    tolerance: float
    reason: str


def _resolution(text: str) -> float:
    """Half a unit of the last printed digit: '75.7' -> 0.05, '13' -> 0.5."""
    digits = text.strip().partition(".")[2]
    return 0.5 * 10.0 ** -len(digits)


def accepted_band(
    text: str, relation: str, approx_pct: str = "", value_max: str = "", zero_band: float | None = None,
) -> Band:
    """The interval a model value must fall in to reproduce a published number.

    ``relation`` as in the measurement CSVs (README): eq, approx, le, lt, ge,
    max, approx_under, approx_over, range.
    """
    value = float(text)
    r = _resolution(text)
    p = float(approx_pct) / 100.0 if approx_pct.strip() else None
    if relation in ("eq", "max"):
        what = "largest value observed (高々/最大): the model's largest over the same cases, " if relation == "max" \
            else "exact printed value: "
        return Band(value - r, value + r, r, f"{what}± half a unit of the last printed digit ({r:g})")
    if relation in ("le", "lt"):
        word = "at most" if relation == "le" else "under"
        return Band(None, value + r, r, f"upper bound ({word} {text}): model ≤ {text} + rounding of the printed digit ({r:g})")
    if relation == "ge":
        return Band(value - r, None, r, f"lower bound (at least {text}) - rounding of the printed digit ({r:g})")
    if relation == "range":
        return Band(value, float(value_max), 0.0, f"stated range {text}..{value_max}")
    if value == 0 and p is None:
        if zero_band is None:
            raise ValueError("an approximate zero needs an absolute band")
        return Band(-zero_band, zero_band, zero_band,
                    f"approximate zero read from a qualitative statement: absolute ±{zero_band:g} "
                    "(the CSV gives no relative band for zero)")
    if p is None:
        raise ValueError(f"approximate value {text} ({relation}) has no approx_pct")
    if relation == "approx":
        return Band(value * (1 - p), value * (1 + p), value * p,
                    f"'about {text}' (程度/約): ± {approx_pct} % (the transcriber's band)")
    if relation == "approx_under":
        return Band(value * (1 - p), value, value * p,
                    f"'a little under {text}' (弱): {text} - {approx_pct} % .. {text}")
    if relation == "approx_over":
        return Band(value, value * (1 + p), value * p,
                    f"'a little over {text}' (強): {text} .. {text} + {approx_pct} %")
    raise ValueError(f"unknown relation '{relation}'")


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


class Collector:
    """What a provider fills in: checks, not-modelled rows and charts of one seed."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.checks: list[Check] = []
        self.charts: list[Chart] = []

    @staticmethod
    def rows(name: str) -> list[tuple[int, dict[str, str]]]:
        """Rows of a shipped measurement with their CSV line numbers (header = line 1)."""
        return [(i + 2, row) for i, row in enumerate(read_measurement(name))]

    def check(
        self, file: str, line: int, row: dict[str, str], *, figure: str, quantity: str, unit: str,
        model: float, column: str, relation: str | None = None, band: Band | None = None,
        zero_band: float | None = None, expected_miss: str | None = None, note: str = "",
    ) -> Check:
        """Check ``row[column]`` against ``model``; the band from the row unless given."""
        text = row[column]
        exact = row.get("exact", "true").strip().lower() == "true"
        relation = relation or row.get("relation") or ("eq" if exact else "approx")
        if band is None:
            band = accepted_band(text, relation, row.get("approx_pct", ""), row.get("value_max", ""), zero_band)
        model = float(model)
        within = math.isfinite(model) and (band.low is None or model >= band.low) and (
            band.high is None or model <= band.high)
        if within and expected_miss:
            note = (note + "; " if note else "") + "marked as an expected miss but passes: drop the mark"
        status = PASS if within else (EXPECTED_MISS if expected_miss else FAIL)
        record = Check(self.seed, file, line, figure, quantity, unit, _number(text), text, relation, model,
                       band.low, band.high, band.tolerance, band.reason, row.get("source", ""), note, status,
                       expected_miss)
        self.checks.append(record)
        return record

    def not_modelled(self, file: str, line: int, row: dict[str, str], reason: str, *, figure: str = "",
                     quantity: str = "", column: str = "value") -> None:
        """A published row with no model counterpart, and why."""
        text = row.get(column, "")
        self.checks.append(Check(
            self.seed, file, line, figure or file, quantity or _row_key(row), row.get("unit", ""),
            _number(text), text, row.get("relation"), None, None, None, None, "", row.get("source", ""),
            reason, NOT_MODELLED))

    def chart(self, name: str, title: str, panels: list[ChartPanel]) -> None:
        self.charts.append(Chart(name, title, panels))

    def provided(self) -> Provided:
        return Provided(self.checks, self.charts)


def _row_key(row: dict[str, str]) -> str:
    """The row's own name: its first column (item, fact, parameter, case...)."""
    return str(next(iter(row.values()), "")) if row else ""


# -- seed 000: I/O latency added by switches (DMA, OLTP, tiers) -------------

_FIT_INPUT = "fit input: the two intervals fix the device's two parameters exactly (reproduced by construction)"
_OLTP_KNEE_MISS = (
    "the shipped OLTP network is fitted by least squares to all six transcribed points (knee ~1445 ns); its "
    "smooth MVA knee then reads ~6.5 % at 1500 ns, 1.5 points above the hard bound (inside issue 4's "
    "2-point acceptance band)"
)
_OLTP_1600_MISS = (
    "the fitted OLTP curve gives ~7.8 % at 1600 ns (FC 400 ns x 2 tiers) where sec 4.4 says 'a little under "
    "10 %'; the same smooth-knee compromise as at 1500 ns (within issue 4's 2-point acceptance band)"
)


def seed000_latency() -> Provided:
    """Seed 000: table 4-1 DMA, figure 4-1 posted paths, TPC-C curve, sec 4.4 tiers, switch catalogue."""
    import numpy as np

    from iosizer.calibration import latency as family
    from iosizer.calibration.shipped import hardware_profile
    from iosizer.model.latency import dma, oltp_degradation_pct, round_trip_latency_ns

    out = Collector("seed000")

    # Table 4-1: the calibrated NIC send devices.
    name = "seed000_table4_1_dma"
    for line, row in out.rows(name):
        nic = row["nic"]
        device = family.device(nic)
        x = float(row["added_latency_ns"])
        local, added = dma(device, 0.0), dma(device, x)
        figure = f"table 4-1, {nic}"
        out.check(name, line, row, figure=figure, quantity="MRd issue interval, local", unit="ns",
                  model=local.issue_interval_ns, column="issue_interval_local_ns", note=_FIT_INPUT)
        out.check(name, line, row, figure=figure, quantity=f"MRd issue interval, +{x:g} ns", unit="ns",
                  model=added.issue_interval_ns, column="issue_interval_added_ns", note=_FIT_INPUT)
        out.check(name, line, row, figure=figure, quantity="issue interval increase", unit="ns",
                  model=added.issue_interval_ns - local.issue_interval_ns, column="issue_interval_increase_ns",
                  note=_FIT_INPUT)
        out.check(name, line, row, figure=figure, quantity="throughput, local", unit="MB/s",
                  model=added.local_throughput_mbps, column="throughput_local_mbps",
                  note="burst bytes / issue interval (Little's law)")
        out.check(name, line, row, figure=figure, quantity=f"throughput, +{x:g} ns", unit="MB/s",
                  model=added.throughput_mbps, column="throughput_added_mbps",
                  note="burst bytes / issue interval (Little's law)")
        out.check(name, line, row, figure=figure, quantity="estimated degradation", unit="%",
                  model=added.degradation_pct, column="estimated_degradation_pct")
        measured = float(row["measured_degradation_pct"])
        gap = abs(measured - float(row["estimated_degradation_pct"]))
        out.check(name, line, row, figure=figure, quantity="measured degradation", unit="%",
                  model=added.degradation_pct, column="measured_degradation_pct",
                  band=Band(measured - 2.5, measured + 2.5, 2.5,
                            f"a measurement against the seed's own Little's-law estimate, which the model is; the "
                            f"seed's estimate differs from its measurement by {gap:.1f} points: ±2.5 points "
                            "(issue 4's acceptance)"))

    # Figure 4-1: sensitivity per adapter at +2100 ns.
    name = "seed000_fig4_1_adapter_sensitivity"
    devices = {("HBA", "write"): "hba-write", ("NIC", "recv"): "nic-recv"}
    for line, row in out.rows(name):
        key = devices.get((row["adapter"], row["operation"]), row["nic"])
        x = float(row["added_latency_ns"])
        miss = None
        if key == "e1000":
            miss = ("the model is table 4-1's Little's-law estimate (13.0 %); the seed's own table 4-1 measures "
                    "12.4 % for this point, also outside the transcribed band for the figure's '10 % 強'")
        out.check(name, line, row, figure=f"figure 4-1, {row['adapter']} {row['operation']}"
                  + (f" ({row['nic']})" if row["nic"] else ""),
                  quantity=f"degradation at +{x:g} ns", unit="%", model=dma(family.device(key), x).degradation_pct,
                  column="degradation_pct", zero_band=ZERO_BAND_PCT_POINTS, expected_miss=miss,
                  note="posted path: latency-insensitive by construction" if key in devices.values() else "")

    # TPC-C degradation curve: the calibrated OLTP network.
    profile = family.oltp_profile()
    network = family.oltp_network(profile)
    name = "seed000_tpcc_degradation"
    tpcc_rows = out.rows(name)
    for line, row in tpcc_rows:
        x = float(row["added_latency_ns"])
        miss = {1500.0: _OLTP_KNEE_MISS, 1600.0: _OLTP_1600_MISS}.get(x)
        out.check(name, line, row, figure=f"TPC-C curve, +{x:g} ns", quantity="degradation", unit="%",
                  model=oltp_degradation_pct(network, x), column="degradation_pct", expected_miss=miss,
                  note="fit input (least squares over the six points)")
        if x == 1500.0:
            knee = profile.parameters["knee_latency_ns"]
            out.check(name, line, row, figure="TPC-C curve, knee (sec 4.3, 6.1)", quantity="knee latency",
                      unit="ns", model=knee.value, column="added_latency_ns",
                      band=Band(1200.0, 1800.0, 300.0,
                                "the seed measured in 300 ns steps (ASI stages) and puts the knee at 5 stages: "
                                "± one stage"),
                      note=f"fitted bottleneck shift; 95 % interval {knee.ci_low:.0f}..{knee.ci_high:.0f} ns")

    # Section 4.4: switch tiers within 5 %.
    name = "seed000_sec4_4_tiers"
    for line, row in out.rows(name):
        hop, tiers = float(row["hop_latency_ns"]), int(row["tiers"])
        (plan,) = family.tier_plan([{"switch": row["switch_example"], "hop_ns": hop}], 5.0)
        figure = f"sec 4.4, {hop:g} ns hop x {tiers} tiers"
        out.check(name, line, row, figure=figure, quantity="degradation", unit="%",
                  model=plan["loss_pct"][tiers - 1], column="degradation_pct",
                  expected_miss=_OLTP_1600_MISS if hop == 400.0 else None,
                  note="OLTP curve at round trip 2 x tiers x hop")
        inside = row["within_5pct"] == "true"
        out.check(name, line, row, figure=figure, quantity="most tiers within 5 %", unit="tiers",
                  model=plan["max_tiers"], column="tiers", relation="ge" if inside else "lt",
                  band=Band(tiers, None, 0.0, f"'within 5 %' at {tiers} tiers: planner's answer ≥ {tiers}") if inside
                  else Band(None, tiers - 1, 0.0, f"'over 5 %' at {tiers} tiers: planner's answer < {tiers}"))

    # Table 3-3 and section 3.2: the switch catalogue the tier planner uses.
    catalogue = hardware_profile("switches")
    by_vendor = {item["vendor"]: item for item in catalogue["items"]}
    name = "seed000_table3_3_switches"
    for line, row in out.rows(name):
        item = by_vendor[row["vendor"]]
        figure = f"table 3-3, {row['protocol']}"
        out.check(name, line, row, figure=figure, quantity="one-way hop latency", unit="ns", model=item["hop_ns"],
                  column="one_way_hop_latency_ns", note="tier-planner input (data/profiles/switches.json)")
        out.check(name, line, row, figure=figure, quantity="round trip per stage", unit="ns",
                  model=round_trip_latency_ns(1, item["hop_ns"]), column="round_trip_per_stage_ns",
                  note="2 x hop (sec 3.2)")
    asi = by_vendor["StarGen"]["hop_ns"]
    io_hops = [item["hop_ns"] for item in catalogue["items"] if "FCoE" not in item["protocol"]]
    fcoe = max(item["hop_ns"] for item in catalogue["items"] if "FCoE" in item["protocol"])
    facts: dict[str, tuple[str, float, str]] = {
        "asi_one_way_added_per_stage": ("ASI hop latency", asi, "tier-planner input"),
        "asi_round_trip_added_per_stage": ("round trip per ASI stage", round_trip_latency_ns(1, asi), "2 x hop"),
        "max_round_trip_added": ("round trip at 7 ASI stages", round_trip_latency_ns(7, asi), "2 x 7 x hop"),
        "round_trip_added_at_7_stages": ("round trip at 7 ASI stages", round_trip_latency_ns(7, asi), "2 x 7 x hop"),
        "round_trip_added_at_5_stages": ("round trip at 5 ASI stages", round_trip_latency_ns(5, asi), "2 x 5 x hop"),
        "typical_io_switch_one_way_min": ("shortest I/O-switch hop in the catalogue", min(io_hops), "tier-planner input"),
        "typical_io_switch_one_way_max": ("longest I/O-switch hop in the catalogue", max(io_hops), "tier-planner input"),
    }
    name = "seed000_sec3_2_latency_facts"
    for line, row in out.rows(name):
        fact = row["fact"]
        if fact in facts:
            quantity, model, note = facts[fact]
            out.check(name, line, row, figure=f"sec 3.2, {fact}", quantity=quantity, unit=row["unit"],
                      model=model, column="value", note=note)
        elif fact == "fcoe_latency_vs_other_switches":
            out.check(name, line, row, figure=f"sec 3.2, {fact}", quantity="FCoE hop / longest I/O-switch hop",
                      unit="x", model=fcoe / max(io_hops), column="value",
                      band=Band(10 ** 0.5, 10 ** 1.5, 0.0, "'one order of magnitude' (一桁): the ratio rounds to "
                                "10 on a log scale (3.16..31.6)"),
                      note="tier-planner input; against the shortest hop the ratio is "
                      f"{fcoe / min(io_hops):.1f}")
        else:
            out.not_modelled(name, line, row, "a count of the experimental setup, not a model output",
                             figure=f"sec 3.1-4.3, {fact}")

    name = "seed000_table3_2_tpcc_params"
    for line, row in out.rows(name):
        parameter = row["parameter"]
        if parameter == "terminals":
            out.check(name, line, row, figure="table 3-2, terminals", quantity="jobs in the OLTP network", unit="",
                      model=network.terminals, column="value", note="configuration of the shipped oltp profile")
        elif parameter == "think_time":
            out.check(name, line, row, figure="table 3-2, think time", quantity="think share of the OLTP network",
                      unit="", model=network.think_share, column="value",
                      note="batch mode: no think time in the shipped network")
        else:
            out.not_modelled(name, line, row, "benchmark configuration with no model parameter "
                             "(the model is normalised to the local throughput)", figure=f"table 3-2, {parameter}")
    for line, row in out.rows("seed000_table3_1_platform"):
        out.not_modelled("seed000_table3_1_platform", line, row,
                         "test platform description: the shipped profiles take this server as their reference "
                         "CPU (speed 1) and have no hardware-spec parameters", figure=f"table 3-1, {row['machine']}",
                         quantity=row["item"])
    for line, row in out.rows("seed000_sec2_cpu_generation"):
        out.not_modelled("seed000_sec2_cpu_generation", line, row,
                         "qualitative: the two opposing CPU effects are explicit exponents of the extrapolation "
                         "(stall a, issue rate b), with no published number to check",
                         figure=f"sec 2/6, {row['statement']}", quantity=row["statement"])

    # Charts: DMA devices, the OLTP curve, the tier planner.
    span = np.linspace(0.0, 2400.0, 241)
    series = [ChartSeries(f"{n} model", span, dma(family.device(n), span).degradation_pct)
              for n in ("bcm5700", "e1000", "hba-write")]
    for line, row in out.rows("seed000_table4_1_dma"):
        series.append(ChartSeries(f"table 4-1 measured, {row['nic']}", [float(row["added_latency_ns"])],
                                  [float(row["measured_degradation_pct"])], "points"))
    out.chart("seed000_dma", "Seed 000: DMA reads under added latency (table 4-1, figure 4-1)",
              [ChartPanel("added round-trip latency (ns)", "degradation PD (%)", series)])
    band = family.oltp_points(profile, span[::10].tolist())
    series = [
        ChartSeries("95 % band", [p["added_latency_ns"] for p in band], [p["degradation_pct_low"] for p in band],
                    "band", [p["degradation_pct_high"] for p in band]),
        ChartSeries("MVA model (calibrated)", span, oltp_degradation_pct(network, span)),
    ]
    for relations, label, kind in ((("le", "lt"), "published bound (<=)", "bound"),
                                   (("eq", "approx", "approx_under"), "published (about / a little under)", "points")):
        chosen = [r for _, r in tpcc_rows if r["relation"] in relations]
        series.append(ChartSeries(label, [float(r["added_latency_ns"]) for r in chosen],
                                  [float(r["degradation_pct"]) for r in chosen], kind))
    out.chart("seed000_oltp", "Seed 000: TPC-C degradation (sec 4.3, 4.4, 6.1)",
              [ChartPanel("added round-trip latency (ns)", "degradation PD (%)", series)])
    plan = family.tier_plan(family.switch_catalogue(), 5.0)
    series = [ChartSeries(p["switch"], p["tiers"], p["loss_pct"], "linepoints") for p in plan if p["hop_ns"] < 1000]
    series.append(ChartSeries("5 % budget", [1, 4], [5.0, 5.0], "dashed"))
    stated = [row for _, row in out.rows("seed000_sec4_4_tiers")]
    for hop in sorted({row["hop_latency_ns"] for row in stated}, key=float):
        chosen = [row for row in stated if row["hop_latency_ns"] == hop]
        bound = all(row["relation"] in ("lt", "le") for row in chosen)
        series.append(ChartSeries(f"sec 4.4, {hop} ns hop ({'under' if bound else 'a little under'})",
                                  [int(row["tiers"]) for row in chosen],
                                  [float(row["degradation_pct"]) for row in chosen], "bound" if bound else "points"))
    out.chart("seed000_tiers", "Seed 000: switch tiers within 5 % (sec 4.4)",
              [ChartPanel("switch tiers", "degradation PD (%)", series)])
    return out.provided()


# -- seed 001: PCIe writes, unaligned accesses, RMW contention --------------

_STEP_MISS = (
    "the shared-RMW closed network's loss grows fastest between 4.43 and 6.89 per KiB (cases D -> C), at 8 and "
    "32 lanes alike; the seed's largest step (E -> B) is not reproduced by a model whose only pattern input is "
    "the unaligned frequency and TLP size"
)


def seed001_pcie() -> Provided:
    """Seed 001: table 2 patterns, section 4 losses, platform and text facts with a model value."""
    from iosizer.calibration import pcie as family
    from iosizer.model.pcie import LINE_BYTES, access_pattern, rmw_throughput

    out = Collector("seed001")
    platform = family.platform()
    mps = platform.link.mps_bytes
    lanes = [8, 16, 24, 32]
    cases = family.table2()
    patterns = {c["case"]: access_pattern(c["transfer_bytes"], mps) for c in cases}
    results = {k: rmw_throughput(platform, p, lanes) for k, p in patterns.items()}

    name = "seed001_table2_patterns"
    for line, row in out.rows(name):
        pattern = patterns[row["case"]]
        figure = f"table 2, case {row['case']} ({row['transfer_bytes']} B)"
        tail = pattern.tlp_bytes[-1] if pattern.tlp_bytes[-1] < mps else 0
        out.check(name, line, row, figure=figure, quantity="TLPs per transfer", unit="TLPs",
                  model=len(pattern.tlp_bytes), column="tlp_count", note="split at MPS 256")
        out.check(name, line, row, figure=figure, quantity="last TLP payload", unit="bytes", model=tail,
                  column="tail_tlp_bytes", note="0 when the last TLP is a full MPS")
        out.check(name, line, row, figure=figure, quantity="64 B-unaligned accesses per KiB", unit="per KiB",
                  model=pattern.unaligned_per_kib, column="unaligned_per_kib")

    name = "seed001_sec4_losses"
    for line, row in out.rows(name):
        total = int(row["total_lanes"])
        index = lanes.index(total)
        named = row["cases"].split()
        worst = max(float(results[c].loss_pct[index]) for c in named)
        unaligned = row["pattern_class"] == "unaligned"
        out.check(name, line, row, figure=f"sec 4, {row['pattern_class']} at {total} lanes",
                  quantity=f"largest loss over cases {' '.join(named)}", unit="%", model=worst, column="loss_pct",
                  zero_band=ZERO_BAND_PCT_POINTS,
                  note="fit input: the two maxima fix the RMW service time and the credits (case B)" if unaligned
                  else "aligned: no RMW demand, throughput proportional to lanes")

    link = platform.link
    settings = {"max_payload_size": (link.mps_bytes, "MPS of the calibrated platform"),
                "fpga_pcie_gen": (link.generation, "generation of each port"),
                "fpga_lanes": (link.lanes, "lanes per port")}
    name = "seed001_table1_platform"
    for line, row in out.rows(name):
        if row["item"] in settings:
            model, quantity = settings[row["item"]]
            out.check(name, line, row, figure=f"table 1, {row['item']}", quantity=quantity, unit=row["unit"],
                      model=model, column="value", note="configuration of the shipped rmw platform")
        else:
            out.not_modelled(name, line, row, "test platform description: the RMW model has no CPU, memory or "
                             "OS parameter (its service time and credits are fitted)", figure=f"table 1, {row['item']}")

    # "The loss grows most from 7.24 to 8.86 per KiB": the model's largest step between neighbours.
    unaligned_cases = sorted((c for c in cases if patterns[c["case"]].unaligned_per_kib > 0),
                             key=lambda c: patterns[c["case"]].unaligned_per_kib)
    at_32 = [float(results[c["case"]].loss_pct[-1]) for c in unaligned_cases]
    step = max(range(len(at_32) - 1), key=lambda i: at_32[i + 1] - at_32[i])
    ends = {"largest_loss_step_unaligned_per_kib_from": unaligned_cases[step],
            "largest_loss_step_unaligned_per_kib_to": unaligned_cases[step + 1]}
    name = "seed001_text_facts"
    for line, row in out.rows(name):
        fact = row["fact"]
        if fact in ends:
            end = ends[fact]
            out.check(name, line, row, figure=f"sec 4, {fact}", quantity="unaligned per KiB at an end of the "
                      "largest loss step (32 lanes)", unit="per KiB",
                      model=patterns[end["case"]].unaligned_per_kib, column="value", expected_miss=_STEP_MISS,
                      note=f"model's largest step ends at case {end['case']}")
        elif fact == "memory_access_unit":
            out.check(name, line, row, figure=f"sec 1, {fact}", quantity="memory line of the access model",
                      unit="bytes", model=LINE_BYTES, column="value", note="model constant LINE_BYTES")
        else:
            out.not_modelled(name, line, row, "context of the study (data format, growth, units, lane range), "
                             "not a model output", figure=f"sec 1-4, {fact}")

    # Charts: table 2, figure 4 (throughput) and the losses against lanes.
    index = list(range(1, len(cases) + 1))
    out.chart("seed001_patterns", "Seed 001: 64 B-unaligned accesses per KiB (table 2)", [ChartPanel(
        "table 2 case (1 = A ... 6 = F)", "unaligned accesses per KiB",
        [ChartSeries("model", index, [patterns[c["case"]].unaligned_per_kib for c in cases], "linepoints"),
         ChartSeries("table 2", index, [c["unaligned_per_kib"] for c in cases], "points")])])
    throughput = [ChartSeries(f"({c['case']}) {c['transfer_bytes']} B", lanes, results[c["case"]].throughput_gbps,
                              "linepoints") for c in cases]
    losses = [ChartSeries(f"({c['case']}) {c['transfer_bytes']} B", lanes, results[c["case"]].loss_pct,
                          "linepoints") for c in cases]
    published = [(int(r["total_lanes"]), float(r["loss_pct"])) for _, r in out.rows("seed001_sec4_losses")
                 if r["pattern_class"] == "unaligned"]
    losses.append(ChartSeries("sec 4 largest loss (max)", [p[0] for p in published], [p[1] for p in published],
                              "bound"))
    out.chart("seed001_rmw", "Seed 001: writes against lanes with a shared RMW unit (figure 4, sec 4)", [
        ChartPanel("total PCIe lanes", "write throughput (GB/s)", throughput, "throughput (cf. figure 4)"),
        ChartPanel("total PCIe lanes", "loss (%)", losses, "loss against the aligned reference"),
    ])
    return out.provided()


#: One provider per seed; adding a seed is one function and one line here.
PROVIDERS: dict[str, Callable[[], Provided]] = {
    "seed000": seed000_latency,
    "seed001": seed001_pcie,
}


@dataclass
class SeedReport:
    seed: str
    checks: list[Check]
    charts: list[Chart]
    has_provider: bool

    def count(self, *statuses: str) -> int:
        return sum(1 for c in self.checks if c.status in statuses)

    @property
    def passed(self) -> int:
        return self.count(PASS)

    @property
    def total(self) -> int:
        return self.count(*CHECKED)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.status in FAILING]

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed, "provider": self.has_provider, "passed": self.passed, "total": self.total,
            "failed": len(self.failures), "expected_misses": self.count(EXPECTED_MISS),
            "not_modelled": self.count(NOT_MODELLED), "no_provider": self.count(NO_PROVIDER),
            "failures": [f"{c.figure}: {c.quantity}" for c in self.failures],
            "checks": [c.to_dict() for c in self.checks],
        }


def seed_names() -> list[str]:
    """Seeds with shipped measurement files, in order."""
    return sorted({name.split("_", 1)[0] for name in measurement_names()})


def seed_files(seed: str) -> list[str]:
    return [name for name in measurement_names() if name.split("_", 1)[0] == seed]


def run_seed(seed: str, providers: dict[str, Callable[[], Provided]] | None = None) -> SeedReport:
    """Run ``seed``'s provider and account for every row of its files.

    A provider that raises is recorded as one failed check naming the error,
    so the rest of the report still renders and ``--check`` fails.
    """
    providers = PROVIDERS if providers is None else providers
    files = seed_files(seed)
    provider = providers.get(seed)
    if provider is None:
        return SeedReport(seed, [
            Check(seed, name, None, name, "", "", None, "", None, None, None, None, None, "", name,
                  "no provider yet: this seed's models are not in the report", NO_PROVIDER)
            for name in files], [], False)
    try:
        provided = provider()
    except Exception as error:  # noqa: BLE001 - a broken provider is a failed check, not a crash
        return SeedReport(seed, [Check(
            seed, "", None, f"{seed} provider", "provider", "", None, "", None, None, None, None, None, "",
            "", f"provider raised {type(error).__name__}: {error}", FAIL)], [], True)
    checks = list(provided.checks)
    covered = {(c.file, c.line) for c in checks}
    for name in files:
        for line, row in Collector.rows(name):
            if (name, line) not in covered:
                checks.append(Check(seed, name, line, name, _row_key(row), "", None, "", row.get("relation"), None,
                                    None, None, None, "", row.get("source", ""),
                                    "row neither checked nor listed as not modelled by the provider",
                                    NOT_COVERED))
    return SeedReport(seed, checks, provided.charts, True)


@dataclass
class FullReport:
    seeds: list[SeedReport]

    @property
    def passed(self) -> int:
        return sum(s.passed for s in self.seeds)

    @property
    def failed(self) -> int:
        return sum(len(s.failures) for s in self.seeds)

    def count(self, status: str) -> int:
        return sum(s.count(status) for s in self.seeds)

    def to_dict(self, output_dir: str | None = None) -> dict[str, Any]:
        return {
            "seeds": [s.to_dict() for s in self.seeds],
            "passed": self.passed, "failed": self.failed, "expected_misses": self.count(EXPECTED_MISS),
            "not_modelled": self.count(NOT_MODELLED), "no_provider": self.count(NO_PROVIDER),
            "output_dir": output_dir,
        }


def run_report(providers: dict[str, Callable[[], Provided]] | None = None) -> FullReport:
    """Every seed's checks (see :func:`run_seed`)."""
    return FullReport([run_seed(seed, providers) for seed in seed_names()])
