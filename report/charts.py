"""The report's pictures: one function per chart, named in the seed's table (``charts = [...]``).

Each draws the same answers the checks compare (:mod:`iosizer.report.answers`)
beside the published points of the measurement files.
"""

from __future__ import annotations

from typing import Any, Callable

from iosizer.calibration.shipped import read_measurement
from iosizer.report import answers
from iosizer.report.records import Chart, ChartPanel, ChartSeries

LATENCY_SPAN_NS = (0.0, 2400.0, 241)


def dma() -> Chart:
    import numpy as np

    from iosizer.calibration.latency import device
    from iosizer.model.latency import dma as dma_at

    span = np.linspace(*LATENCY_SPAN_NS)
    series = [ChartSeries(f"{n} model", span, dma_at(device(n), span).degradation_pct)
              for n in ("bcm5700", "e1000", "hba-write")]
    series += [ChartSeries(f"table 4-1 measured, {row['nic']}", [float(row["added_latency_ns"])],
                           [float(row["measured_degradation_pct"])], "points")
               for row in read_measurement("seed000_table4_1_dma")]
    return Chart("seed000_dma", "Seed 000: DMA reads under added latency (table 4-1, figure 4-1)",
                 [ChartPanel("added round-trip latency (ns)", "degradation PD (%)", series)])


def oltp() -> Chart:
    import numpy as np

    from iosizer.calibration.latency import oltp_points
    from iosizer.model.latency import oltp_degradation_pct

    profile, network = answers.oltp()
    span = np.linspace(*LATENCY_SPAN_NS)
    band = oltp_points(profile, span[::10].tolist())
    series = [
        ChartSeries("95 % band", [p["added_latency_ns"] for p in band], [p["degradation_pct_low"] for p in band],
                    "band", [p["degradation_pct_high"] for p in band]),
        ChartSeries("MVA model (calibrated)", span, oltp_degradation_pct(network, span)),
    ]
    rows = read_measurement("seed000_tpcc_degradation")
    for relations, label, kind in ((("le", "lt"), "published bound (<=)", "bound"),
                                   (("eq", "approx", "approx_under"), "published (about / a little under)", "points")):
        chosen = [r for r in rows if r["relation"] in relations]
        series.append(ChartSeries(label, [float(r["added_latency_ns"]) for r in chosen],
                                  [float(r["degradation_pct"]) for r in chosen], kind))
    return Chart("seed000_oltp", "Seed 000: TPC-C degradation (sec 4.3, 4.4, 6.1)",
                 [ChartPanel("added round-trip latency (ns)", "degradation PD (%)", series)])


def tiers() -> Chart:
    from iosizer.calibration.latency import switch_catalogue, tier_plan

    plan = tier_plan(switch_catalogue(), 5.0)
    series = [ChartSeries(p["switch"], p["tiers"], p["loss_pct"], "linepoints") for p in plan if p["hop_ns"] < 1000]
    series.append(ChartSeries("5 % budget", [1, 4], [5.0, 5.0], "dashed"))
    stated = read_measurement("seed000_sec4_4_tiers")
    for hop in sorted({row["hop_latency_ns"] for row in stated}, key=float):
        chosen = [row for row in stated if row["hop_latency_ns"] == hop]
        bound = all(row["relation"] in ("lt", "le") for row in chosen)
        series.append(ChartSeries(f"sec 4.4, {hop} ns hop ({'under' if bound else 'a little under'})",
                                  [int(row["tiers"]) for row in chosen],
                                  [float(row["degradation_pct"]) for row in chosen], "bound" if bound else "points"))
    return Chart("seed000_tiers", "Seed 000: switch tiers within 5 % (sec 4.4)",
                 [ChartPanel("switch tiers", "degradation PD (%)", series)])


def patterns() -> Chart:
    _, _, cases, found, _ = answers.rmw()
    index = list(range(1, len(cases) + 1))
    return Chart("seed001_patterns", "Seed 001: 64 B-unaligned accesses per KiB (table 2)", [ChartPanel(
        "table 2 case (1 = A ... 6 = F)", "unaligned accesses per KiB",
        [ChartSeries("model", index, [found[c["case"]].unaligned_per_kib for c in cases], "linepoints"),
         ChartSeries("table 2", index, [c["unaligned_per_kib"] for c in cases], "points")])])


def rmw() -> Chart:
    _, lanes, cases, _, results = answers.rmw()
    label = {c["case"]: f"({c['case']}) {c['transfer_bytes']} B" for c in cases}
    throughput = [ChartSeries(label[c["case"]], lanes, results[c["case"]].throughput_gbyte_s, "linepoints") for c in cases]
    losses = [ChartSeries(label[c["case"]], lanes, results[c["case"]].loss_pct, "linepoints") for c in cases]
    published = [(int(r["total_lanes"]), float(r["loss_pct"])) for r in read_measurement("seed001_sec4_losses")
                 if r["pattern_class"] == "unaligned"]
    losses.append(ChartSeries("sec 4 largest loss (max)", [p[0] for p in published], [p[1] for p in published],
                              "bound"))
    return Chart("seed001_rmw", "Seed 001: writes against lanes with a shared RMW unit (figure 4, sec 4)", [
        ChartPanel("total PCIe lanes", "write throughput (GB/s)", throughput, "throughput (cf. figure 4)"),
        ChartPanel("total PCIe lanes", "loss (%)", losses, "loss against the aligned reference"),
    ])


def isolation() -> Chart:
    def lpar1(block_kib: int, top: Any, points: int, share: float | None) -> tuple[Any, dict[str, Any]]:
        sweep, _, runs = answers.isolation_runs(block_kib, top, points, share)
        return sweep, runs

    sweep, limit = lpar1(4, "cores", 13, None)
    _, light = lpar1(4, "cores", 13, answers.LIGHT_CORE_SHARE)
    # Figure 3-3's LPAR2 load: up to the seed's '~6000 IOPS' at 256 KiB.
    top = next(r["iops"] for r in read_measurement("seed002_sec3_1_isolation") if r["section"] == "3.1.2")
    large_sweep, large = lpar1(256, top, 7, None)
    series = []
    for mode in answers.MODES:
        series.append(ChartSeries(f"LPAR1 ({mode})", sweep, limit[mode].lpar1_iops, "linepoints"))
        series.append(ChartSeries(f"LPAR2 ({mode})", sweep, limit[mode].lpar2_iops, "dashed"))
    return Chart("seed002_isolation", "Seed 002: LPAR1 under a growing LPAR2 load (figures 3-1 to 3-3)", [
        ChartPanel("LPAR2 offered IOPS", "IOPS", series, "4 KiB, LPAR1 at its limit (fig 3-1)"),
        ChartPanel("LPAR2 offered IOPS", "IOPS", [ChartSeries(f"LPAR1 ({m})", sweep, light[m].lpar1_iops, "linepoints")
                                                  for m in answers.MODES], "4 KiB, LPAR1 within one core (fig 3-2)"),
        ChartPanel("LPAR2 offered IOPS", "IOPS", [ChartSeries(f"LPAR1 ({m})", large_sweep, large[m].lpar1_iops,
                                                              "linepoints") for m in answers.MODES],
                   "256 KiB: the link is shared (fig 3-3)"),
    ])


def response() -> Chart:
    import numpy as np

    from iosizer.model.hba import BLOCK_BYTES, STORAGE_US, response as respond

    many = np.arange(1, 33)
    title = f"Seed 002: response against I/O multiplicity, {BLOCK_BYTES.value:g} B (figure 3-4)"
    return Chart("seed002_response", title, [ChartPanel("threads", "response (us)", [
        ChartSeries(m, many, respond(answers.port(), m, many, BLOCK_BYTES.value, STORAGE_US.value).response_us,
                    "linepoints") for m in answers.MODES])])


def loadshare() -> list[Chart]:
    import numpy as np

    known, _, curves = answers.loadshare()
    charts = []
    for key, chosen in known.items():
        found, _ = curves[key]
        charts.append(Chart(f"seed003_{key.replace('-', '_')}", f"Seed 003 figure {chosen.figure}: {key} (table "
                            f"{chosen.table})", [ChartPanel(
                                f"throughput / {chosen.reference_policy} max", f"response / {chosen.reference_policy} min",
                                [ChartSeries(p, c.throughput_norm, np.minimum(c.response_norm, 20.0))
                                 for p, c in found.items()])]))
    return charts


def replication() -> Chart:
    from iosizer.calibration.replication import default

    sizes = list(answers.BLOCKS_KIB)
    shown = ("1gbe", "10gbe", "ipoib_56g")
    label = {link: answers.LINKS[link] for link in shown}
    runs = {link: answers.replication_run(link) for link in shown}
    return Chart("seed004_replication", f"Seed 004: replicated writes against block size, {default('outstanding')} "
                 "outstanding", [
        ChartPanel("block (KiB)", "IOPS", [ChartSeries(label[l], sizes, runs[l].iops, "linepoints") for l in shown],
                   "IOPS (cf. Fig85/86)"),
        ChartPanel("block (KiB)", "throughput (MB/s)",
                   [ChartSeries(label[l], sizes, runs[l].throughput_mbps, "linepoints") for l in shown],
                   "throughput (cf. Fig83/84)"),
    ])


#: Chart name (as a seed's table lists it) -> the function drawing it (one chart, or several).
CHARTS: dict[str, Callable[[], Chart | list[Chart]]] = {
    "dma": dma, "oltp": oltp, "tiers": tiers, "patterns": patterns, "rmw": rmw, "isolation": isolation,
    "response": response, "loadshare": loadshare, "replication": replication,
}
