"""``iosizer replication``: write-back flash cache with a synchronous replica (seed 004)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from iosizer.cli.options import FormatOption, PlotOption
from iosizer.cli.output import OutputFormat, Panel, Report, Series, emit
from iosizer.cli.params import parse_sizes, reject_repeats
from iosizer.cli.tails import FAMILY_NOTE, PercentileOption, replication_points
from iosizer.errors import InputError

SEED = "seed 004"
#: Options without a number of their own: the family declares their defaults.
DECLARED = "[declared value; see `iosizer params replication`]"
#: Block sizes the seed measured between (4K..256K); the plot's default sweep.
PLOT_BLOCKS_KIB = (4, 8, 16, 32, 64, 128, 256)
COLUMNS = ["link", "block_kib", "outstanding", "iops", "throughput_mbps", "latency_us", "bound"]


def _links(text: str | None) -> list[str]:
    from iosizer.calibration.replication import baseline_link, link_names, resolve_link

    if text is None:
        return [baseline_link()]
    if text.strip().lower() == "all":
        return link_names()
    given = [part.strip() for part in text.split(",")]
    if not any(given):
        raise InputError(f"--link: expected one of {', '.join(link_names())}, got {text!r}")
    if not all(given):  # '1g,' or '1g,,10g': a typo, never a silently shorter list
        raise InputError(f"--link: {text!r} has an empty item; give links separated by single commas, "
                         f"such as 1g,10g")
    names = [resolve_link(part) for part in given]
    reject_repeats(names, "--link", given)
    return names


def _outstanding(value: int | None) -> int | None:
    from iosizer.model.replication import OUTSTANDING

    return None if value is None else OUTSTANDING.check(value, "--outstanding")


def replication(
    link: Annotated[
        str | None,
        typer.Option("--link", metavar="<str>", help="1g, 10g, ipoib56 (56G IPoIB, FDR) or local (no replica); "
                     f"a list 10g,ipoib56; or all. {DECLARED}"),
    ] = None,
    block_kib: Annotated[
        str | None,
        typer.Option("--block-kib", metavar="KIB", help="Block size, KiB: 4, a list 4,16, doubling sizes 4:256 "
                     f"or a linear range 4:256:4. {DECLARED}"),
    ] = None,
    outstanding: Annotated[
        int | None,
        typer.Option("--outstanding", metavar="<int>", help=f"Writes kept in flight (queue depth). {DECLARED}"),
    ] = None,
    percentile: PercentileOption = None,
    profile: Annotated[
        Path | None,
        typer.Option("--profile", help="A 'replication' profile from 'iosizer calibrate replication': its protocol "
                                       "cost and residual delay (with 95 % intervals) replace the shipped ones; "
                                       "--link may name links of the same protocol stack."),
    ] = None,
    cpu_speed: Annotated[
        float | None,
        typer.Option("--cpu-speed", help="Carry the profile (or the shipped one) to a host CPU of this relative "
                                         "per-core speed: the protocol costs scale, the wire does not."),
    ] = None,
    output_format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """Random-write IOPS, throughput and latency of a write-back flash cache replicating to a peer.

    A closed network of OUTSTANDING writes (exact MVA): local flash write,
    protocol CPU on both hosts, link serialisation, remote flash write.
    'bound' names the binding cap: protocol (per-I/O CPU cost), bandwidth
    (link rate / block) or concurrency (outstanding / latency). JSON: always a
    list of points (one per link and block size), each with link,
    block_kib, outstanding, iops, throughput_mbps, latency_us, bound,
    unloaded_latency_us, protocol_utilization, link_utilization; with
    --percentile also latency_pP_us, by approximation (arrival theorem per
    station, gamma fit end to end, the flash writes and fixed delays
    constant; against simulation at 8 and 32 outstanding within 2.5 %).
    """
    import numpy as np

    from iosizer.calibration import replication as family

    from iosizer.calibration.whatif import band_note, band_rows
    from iosizer.model.mva import check_batch_steps
    from iosizer.model.replication import BLOCK_SIZE
    from iosizer.model.replication import replication as replication_model

    calibrated = None
    if profile is not None or cpu_speed is not None:
        from iosizer.calibration.whatif import what_if

        calibrated = what_if("replication", profile, cpu_speed=cpu_speed)
        links = _links(link) if link is not None else [calibrated.values["link"]]
    else:
        links = _links(link)
    blocks = parse_sizes(block_kib, "block-kib", BLOCK_SIZE) if block_kib is not None \
        else [family.default("block_kib")]
    depth = _outstanding(outstanding)
    if depth is None:
        depth = family.default("outstanding")
    check_batch_steps(depth, len(blocks) * len(links), "link and block-size pairs")
    points: list[dict[str, Any]] = []
    for name in links:
        system = family.system(name) if calibrated is None else family.profile_system(calibrated.values, name)
        result = replication_model(system, np.asarray(blocks), depth)
        offset = len(points)
        points.extend({"link": name, **result.point(i),
                       **replication_points(system, blocks[i], depth, percentile)}
                      for i in range(len(blocks)))
        if calibrated is not None and name != family.LOCAL:
            band_rows(points, calibrated.bands(lambda v, n=name: {
                k: getattr(replication_model(family.profile_system(v, n), np.asarray(blocks), depth), k)
                for k in ("iops", "throughput_mbps", "latency_us")}), offset)
    notes = [
        *(family.calibration_notes() if calibrated is None and any(n != family.LOCAL for n in links) else []),
        f"from the {calibrated.source}; " + band_note(points, "*_ci_low/_ci_high: 95 % bands from its intervals")
        if calibrated is not None else "",
        f"local: no replica; its flash is modelled as a pure {family.system(family.LOCAL).local_flash_write_us:g} "
        "us latency (the seed gives no flash bandwidth), so it is concurrency-bound at every block size"
        if family.LOCAL in links else "",
        "mbps = 10^6 bytes/s of block data; latency_us = outstanding / IOPS (Little's law)",
        FAMILY_NOTE if percentile else "",
    ]
    emit(
        Report(points, points, title=f"Replicated write-back cache, {depth} outstanding ({SEED})",
               columns=COLUMNS[:6] + [k for k in points[0] if k.startswith("latency_p")] + COLUMNS[6:],
               notes=[n for n in notes if n],
               plot=_figures(blocks, depth, family.LOCAL in links) if plot is not None else None),
        output_format,
        plot,
    )


def _figures(blocks: list[float], depth: int, with_local: bool) -> list[Panel]:
    """IOPS and throughput against block size for every replica link (the seed's figures).

    The swept block sizes (or 4..256 KiB for one size); ``local`` only when
    asked for: without a replica it is so far ahead that it flattens the rest.
    """
    import numpy as np

    from iosizer.calibration import replication as family

    sweep = np.array(sorted(set(blocks) if len(blocks) > 1 else set(PLOT_BLOCKS_KIB) | set(blocks)), dtype=float)
    kind = "linepoints" if sweep.size <= 16 else "line"
    iops, throughput = [], []
    for name in family.link_names():
        if name == family.LOCAL and not with_local:
            continue
        result = family.evaluate(name, sweep, depth)
        iops.append(Series(name, sweep, result.iops, kind))
        throughput.append(Series(name, sweep, result.throughput_mbps, kind))
    return [
        Panel("block size (KiB)", "IOPS", iops, f"Random-write IOPS, {depth} outstanding (cf. figs 85, 86)"),
        Panel("block size (KiB)", "throughput (MB/s)", throughput,
              f"Random-write throughput, {depth} outstanding (cf. figs 83, 84)"),
    ]
