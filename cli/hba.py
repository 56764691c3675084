"""``iosizer hba ...``: shared FC ports, HBA-core saturation and isolation (seed 002)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from iosizer.cli.options import FormatOption, PlotOption
from iosizer.cli.options import BandKind, BandOption
from iosizer.cli.output import OutputFormat, Panel, Report, Series, emit
from iosizer.cli.params import parse_grid
from iosizer.cli.tails import FAMILY_NOTE, PercentileOption, SimulateOption, hba_points, hba_simulated
from iosizer.errors import InputError

app = typer.Typer(
    help="Shared FC ports: HBA-core saturation, tenant isolation, response (seed 002).",
    no_args_is_help=True,
)

SEED = "seed 002"
#: Help suffix of an option whose default is the hba family's declared value:
#: the number lives in the declaration only (model/hba.py).
DECLARED = "[declared value; see `iosizer params hba`]"
Speed = Annotated[
    str | None, typer.Option("--port", help="FC speed profile: 8GFC, 16GFC or 32GFC [the speed seed 002 measured].")
]
Cores = Annotated[int | None, typer.Option("--cores", help=f"HBA cores per port {DECLARED}.")]
CoreIops = Annotated[
    float | None, typer.Option("--core-iops", help=f"I/Os per second one HBA core completes {DECLARED}.")
]
LinkMbps = Annotated[
    float | None, typer.Option("--link-mbps", help="Usable link rate, MB/s [FC speed x frame efficiency].")
]


def _modes(mode: str) -> list[str]:
    from iosizer.model.hba import MODES

    if mode == "both":
        return list(MODES)
    if mode not in MODES:
        raise InputError(f"--mode must be shared, occupancy or both, got {mode!r}")
    return [mode]


def _speed(speed: str | None) -> str:
    """The FC speed profile to use: the one given, or the one the seed measured."""
    from iosizer.calibration.hba import MEASURED_SPEED

    return MEASURED_SPEED if speed is None else speed


def _port(speed: str, cores: int | None, core_iops: float | None, link_mbps: float | None) -> Any:
    """The FC port, every override checked against the hba declaration (bounds in the message)."""
    from iosizer.calibration.hba import fc_port
    from iosizer.model.hba import CORE_IOPS, CORES, LINK_MBPS

    for spec, flag, value in ((CORES, "--cores", cores), (CORE_IOPS, "--core-iops", core_iops),
                              (LINK_MBPS, "--link-mbps", link_mbps)):
        if value is not None:
            spec.check(value, flag)
    return fc_port(speed, cores, core_iops, link_mbps)


ProfileOption = Annotated[
    Path | None,
    typer.Option("--profile", help="An 'hba' profile from 'iosizer calibrate hba': its core capacity and storage "
                                   "delay (with their 95 % intervals) replace the declared ones; --cores, "
                                   "--core-iops, --link-mbps, --storage-us still change them."),
]
CpuSpeed = Annotated[
    float | None,
    typer.Option("--cpu-speed", help="Carry the profile (or the shipped values) to a CPU of this relative per-core "
                                     "speed; one measured CPU spans the declared exponent range."),
]


def _calibrated_port(profile: str | None, cpu_speed: float | None, speed: str | None, cores: int | None,
                     core_iops: float | None, link_mbps: float | None, storage_us: float | None = None,
                     band: str = "parameter") -> Any:
    """With --profile or --cpu-speed: the port from a profile carried to the CPU, changes applied."""
    from iosizer.calibration.whatif import what_if

    if speed is not None and profile is not None:
        raise InputError("--port picks a shipped FC speed; a --profile holds its own port values "
                         "(change them with --cores, --core-iops, --link-mbps)")
    return what_if("hba", profile, cpu_speed=cpu_speed, changes={
        "cores": cores, "core_iops": core_iops, "link_mbps": link_mbps, "storage_us": storage_us}, band=band)


def _port_notes(speed: str, cores: int | None, core_iops: float | None, link_mbps: float | None) -> list[str]:
    from iosizer.calibration.hba import port_parameters

    described = port_parameters(speed, cores, core_iops, link_mbps)
    values = described["values"]
    return [f"{key} = {values[key]:,.6g}: {source}" for key, source in described["sources"].items()]


@app.command()
def isolation(
    block_kib: Annotated[
        float | None,
        typer.Option("--block-kib", help=f"LPAR1's I/O size, KiB {DECLARED}; the seed also ran 256 KiB."),
    ] = None,
    mode: Annotated[str, typer.Option("--mode", help="shared, occupancy or both.")] = "both",
    lpar2_iops: Annotated[
        str | None,
        typer.Option("--lpar2-iops", help="LPAR2's offered IOPS: a value, a list or start:stop:step "
                     "[0 to the port's ceiling in 12 steps]."),
    ] = None,
    lpar1_iops: Annotated[
        float | None,
        typer.Option("--lpar1-iops", help="LPAR1's offered IOPS [at its limit]; below one core's "
                     "capacity is section 3.1.1 (2)."),
    ] = None,
    lpar2_block_kib: Annotated[
        float | None, typer.Option("--lpar2-block-kib", help="LPAR2's I/O size, KiB [same as LPAR1].")
    ] = None,
    speed: Speed = None,
    cores: Cores = None,
    core_iops: CoreIops = None,
    link_mbps: LinkMbps = None,
    profile: ProfileOption = None,
    cpu_speed: CpuSpeed = None,
    band: BandOption = BandKind.parameter,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """LPAR1's IOPS while LPAR2's load grows on the same FC port (section 3.1)."""
    import numpy as np

    from iosizer.calibration.whatif import band_note, band_rows, band_words
    from iosizer.model.hba import BLOCK_KIB, OFFERED_IOPS, port_from_values
    from iosizer.model.hba import isolation as solve
    from iosizer.model.hba import port_ceiling_iops

    calibrated = None
    if profile is not None or cpu_speed is not None:
        calibrated = _calibrated_port(profile, cpu_speed, speed, cores, core_iops, link_mbps, band=band.value)
    speed = _speed(speed)
    block_kib = float(BLOCK_KIB.value) if block_kib is None else BLOCK_KIB.check(block_kib, "--block-kib")
    if lpar2_block_kib is not None:
        BLOCK_KIB.check(lpar2_block_kib, "--lpar2-block-kib")
    if lpar1_iops is not None:
        OFFERED_IOPS.check(lpar1_iops, "--lpar1-iops")
    port = _port(speed, cores, core_iops, link_mbps) if calibrated is None else port_from_values(calibrated.values)
    size1 = block_kib * 1024
    size2 = size1 if lpar2_block_kib is None else lpar2_block_kib * 1024
    if lpar2_iops is None:
        sweep = np.linspace(0.0, float(port_ceiling_iops(port, "shared", size2)), 13)
    else:
        sweep = np.array(parse_grid(lpar2_iops, "lpar2-iops", OFFERED_IOPS), dtype=np.float64)
    points: list[dict[str, Any]] = []
    results = []
    for chosen in _modes(mode):
        result = solve(port, chosen, sweep, size1, size2, lpar1_iops)
        # The change is against LPAR1 running alone (LPAR2 idle), whatever the sweep holds.
        alone = float(solve(port, chosen, [0.0], size1, size2, lpar1_iops).lpar1_iops[0])
        results.append(result)
        offset = len(points)
        columns = {key: getattr(result, key).tolist() for key in
                   ("lpar2_offered_iops", "lpar1_iops", "lpar2_iops", "lpar1_mbps", "lpar2_mbps")}
        for i, offered in enumerate(columns["lpar2_offered_iops"]):
            lpar1 = columns["lpar1_iops"][i]
            points.append({
                "mode": chosen, "block_kib": block_kib,
                "lpar2_offered_iops": offered,
                "lpar1_iops": lpar1, "lpar2_iops": columns["lpar2_iops"][i],
                "lpar1_mbps": columns["lpar1_mbps"][i], "lpar2_mbps": columns["lpar2_mbps"][i],
                "lpar1_offered_iops": result.lpar1_offered_iops,
                "lpar1_change_pct": 100 * (lpar1 / alone - 1) if alone > 0 else 0.0,
            })
        if calibrated is not None:
            band_rows(points, calibrated.bands(lambda v, chosen=chosen: {
                k: getattr(solve(port_from_values(v), chosen, sweep, size1, size2, lpar1_iops), k)
                for k in ("lpar1_iops", "lpar2_iops")}), offset)
    notes = [f"{SEED} sec 3.1: LPAR1 offers {'its limit' if lpar1_iops is None else f'{lpar1_iops:,.0f} IOPS'}; "
             "overload is shared pro rata to the offered IOPS at the saturated resource",
             "lpar1_change_pct: LPAR1's IOPS against LPAR1 alone (LPAR2 offering 0)"]
    if calibrated is None:
        notes += _port_notes(speed, cores, core_iops, link_mbps)
    else:
        notes.append(f"port from the {calibrated.source}; "
                     + band_note(points, "*_ci_low/_ci_high: " + band_words(calibrated.band)))
    panels = None
    if plot is not None:
        panels = [Panel("LPAR2 offered IOPS", "IOPS", [
            series for r in results for series in (
                Series(f"LPAR1 ({r.mode})", r.lpar2_offered_iops, r.lpar1_iops, "linepoints"),
                Series(f"LPAR2 ({r.mode})", r.lpar2_offered_iops, r.lpar2_iops, "dashed"))
        ], f"{SEED} fig 3-1..3-3: {block_kib:g} KiB, {speed}")]
    emit(Report(points, points, title=f"LPAR1 under a growing LPAR2 load ({block_kib:g} KiB, {speed})",
                columns=["mode", "lpar2_offered_iops", "lpar1_iops", "lpar2_iops", "lpar1_mbps",
                         "lpar2_mbps", "lpar1_change_pct"],
                notes=notes, plot=panels), output_format, plot)


@app.command()
def response(
    block_bytes: Annotated[
        float | None, typer.Option("--block-bytes", help=f"I/O size, bytes {DECLARED}.")
    ] = None,
    threads: Annotated[str, typer.Option("--threads", help="Outstanding I/Os: 1,8,16 or start:stop:step.")] = "1,8,16",
    mode: Annotated[str, typer.Option("--mode", help="shared, occupancy or both.")] = "both",
    storage_us: Annotated[
        float | None,
        typer.Option("--storage-us", help=f"Storage round trip per I/O, us (not published; assumed) {DECLARED}."),
    ] = None,
    speed: Speed = None,
    cores: Cores = None,
    core_iops: CoreIops = None,
    link_mbps: LinkMbps = None,
    service_scv: Annotated[
        float | None,
        typer.Option("--service-scv", help="Service-time scv at the cores and link: 1 exponential (exact MVA, "
                     "the default), 0 constant (residual-service approximation: against simulation within 4.4 % "
                     "shared, 10.2 % occupancy, worst at the knee; above 1 it overstates a saturated shared "
                     "port, +48 % at cv^2 2).")] = None,
    percentile: PercentileOption = None,
    simulate: SimulateOption = False,
    profile: ProfileOption = None,
    cpu_speed: CpuSpeed = None,
    band: BandOption = BandKind.parameter,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """One virtual port's response against outstanding I/Os, closed network by MVA (section 3.2).

    --percentile: response_pP_us from the arrival theorem's mixture over the state a job finds (the storage
    delay constant); against simulation at 4 to 64 threads, 512 B and 4 KiB, within 2.0 % (grid
    iosizer/data/error_grids/hba_percentiles.csv; past 2 % stated as response_pP_us_error_pct). --simulate:
    the percentiles from a simulation of the port's network, with their 95 % intervals.
    """
    from iosizer.calibration.whatif import band_note, band_rows, band_words
    from iosizer.model.hba import BLOCK_BYTES, SERVICE_SCV, STORAGE_US, THREADS, port_from_values
    from iosizer.model.hba import response as solve

    calibrated = None
    if profile is not None or cpu_speed is not None:
        calibrated = _calibrated_port(profile, cpu_speed, speed, cores, core_iops, link_mbps, storage_us,
                                      band=band.value)
    speed = _speed(speed)
    if block_bytes is not None:
        BLOCK_BYTES.check(block_bytes, "--block-bytes")
    if storage_us is not None:
        STORAGE_US.check(storage_us, "--storage-us")
    if service_scv is not None:
        SERVICE_SCV.check(service_scv, "--service-scv")
        if percentile is not None and service_scv != SERVICE_SCV.value:
            raise InputError("--percentile's approximation assumes exponential service; "
                             "give --percentile or --service-scv other than 1, not both")
    port = _port(speed, cores, core_iops, link_mbps) if calibrated is None else port_from_values(calibrated.values)
    if calibrated is not None:
        storage_us = calibrated.values["storage_us"]
        if service_scv is None:  # a profile calibrated with --set service_scv=0 keeps it
            service_scv = calibrated.values.get("service_scv")
    counts = parse_grid(threads, "threads", THREADS)
    # None takes the declared block size and storage delay; each result says which it used.
    results = [solve(port, chosen, counts, block_bytes, storage_us, service_scv) for chosen in _modes(mode)]
    block_bytes, storage_us = results[0].block_bytes, results[0].storage_us
    points = [
        {"mode": r.mode, "threads": int(n), "response_us": float(rt), "iops": float(x),
         "core_utilization": float(u)}
        for r in results for n, rt, x, u in zip(r.threads, r.response_us, r.iops, r.core_utilization)
    ]
    if calibrated is not None:
        for i, r in enumerate(results):
            band_rows(points, calibrated.bands(lambda v, m=r.mode: {
                k: getattr(solve(port_from_values(v), m, counts, block_bytes, v["storage_us"], service_scv), k)
                for k in ("response_us", "iops")}), i * len(counts))
    tails = [t for r in results for t in hba_points(port, r.mode, counts, block_bytes, storage_us, percentile)]
    for point, extra in zip(points, tails):
        point.update(extra)
    simulated_note = hba_simulated(points, port, block_bytes, storage_us, percentile, simulate)
    tails = [{k: v for k, v in p.items() if k.startswith("response_p")} for p in points] if simulated_note else tails
    notes = [f"{SEED} sec 3.2: threads cycle through the HBA cores ({port.cores} servers shared, "
             f"1 in occupancy mode), the link and the storage (a delay of {storage_us:g} us"
             f"{', assumed' if calibrated is None else ''})"]
    notes += (_port_notes(speed, cores, core_iops, link_mbps) if calibrated is None else
              [f"port from the {calibrated.source}; "
               + band_note(points, "*_ci_low/_ci_high: " + band_words(calibrated.band))])
    notes += [FAMILY_NOTE] if percentile else []
    notes += [simulated_note] if simulated_note else []
    scv = SERVICE_SCV.value if service_scv is None else service_scv
    notes.append("service times exponential (cv^2 = 1): exact MVA" if scv == 1 else
                 f"service-time cv^2 = {scv:g}: MVA with the residual-service correction (approximate)")
    panels = None
    if plot is not None:
        panels = [Panel("threads (outstanding I/Os)", "response (us)", [
            Series(r.mode, r.threads, r.response_us, "linepoints") for r in results
        ], f"{SEED} fig 3-4: {block_bytes:g} B")]
    emit(Report(points, points, title=f"Response vs I/O multiplicity ({block_bytes:g} B, {speed})",
                columns=["mode", "threads", "response_us", *(tails[0] if tails else {}), "iops",
                         "core_utilization"],
                notes=notes, plot=panels), output_format, plot)
