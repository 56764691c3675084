"""``iosizer device curve`` and ``iosizer size device``: a storage device calibrated from a fio sweep.

Thin: each command parses, calls one function of :mod:`iosizer.calibration.device`
and renders its rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, Report, emit

app = typer.Typer(help="Storage device from a fio queue-depth sweep: latency floor, parallel units, unit service.",
                  no_args_is_help=True)

DeviceProfile = Annotated[
    Path | None,
    typer.Option("--profile", help="A 'device' profile from 'iosizer calibrate device FILES'; its 95 % intervals "
                                   "give the bands. Default: the shipped one, fitted to the real sweep in "
                                   "data/examples/device."),
]
Percentiles = Annotated[
    list[float] | None,
    typer.Option("--percentile", metavar="P", help="Also the P-th percentile of latency (repeatable: 99, 99.9); "
                                                   "keys latency_pP_us (latency_p99_9_us)."),
]


def _profile(path: Path | None) -> Any:
    if path is None:
        return None
    from iosizer.calibration.profile import load_profile

    return load_profile(path, "device")


def _notes(profile: Any) -> list[str]:
    from iosizer.calibration.device import device_profile

    chosen = device_profile(profile)
    units = chosen.parameters["parallel_units"]
    source = "shipped profile (the real sweep in data/examples/device)" if profile is None else "the profile"
    plausible = "" if units.ci_low is None else f", 95 % plausible {units.ci_low:g}-{units.ci_high:g}"
    return [f"{source}: floor {chosen.value('latency_floor_us'):.4g} us, {units.value:g} parallel units"
            f"{plausible}, unit service {chosen.value('unit_service_us'):.4g} us",
            "_ci_low/_ci_high: 95 % bands from the floor's and unit service's intervals at the fitted count of "
            "units (empty, null in JSON: the profile cannot bound them)"]


@app.command()
def curve(
    outstanding: Annotated[str, typer.Option("--outstanding", metavar="LIST",
                                             help="I/Os in flight (fio iodepth x numjobs): 8, a list 1,2,4,8 or a "
                                                  "range 1:64:1.")],
    profile: DeviceProfile = None,
    percentile: Percentiles = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """IOPS, mean latency and latency percentiles against outstanding I/Os, with 95 % bands.

    A closed network of N = outstanding I/Os: a latency floor, then FCFS over the device's parallel units
    (exact for exponential unit service; percentiles exact by the arrival theorem).
    """
    from iosizer.calibration.device import curve as solve
    from iosizer.cli.params import parse_grid
    from iosizer.model.device import _OUTSTANDING

    loaded = _profile(profile)
    rows = solve(loaded, parse_grid(outstanding, "outstanding", _OUTSTANDING), percentile or [])
    emit(Report(data=rows, rows=rows, title="Device curve against outstanding I/Os", notes=_notes(loaded)),
         output_format)


def size_device(
    target_iops: Annotated[float | None, typer.Option("--target-iops", help="IOPS to reach: the smallest "
                                                      "outstanding I/Os that do.")] = None,
    target_latency_us: Annotated[float | None, typer.Option("--target-latency-us", help="Latency to keep within "
                                                            "(the mean, or --percentile): the largest IOPS "
                                                            "and its outstanding I/Os.")] = None,
    percentile: Annotated[float | None, typer.Option("--percentile", metavar="P",
                                                     help="Apply --target-latency-us to the P-th percentile.")] = None,
    profile: DeviceProfile = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """A storage device: outstanding I/Os needed for an IOPS target, and the largest IOPS within a latency.

    IOPS and latency both rise with the outstanding I/Os (towards units / unit service): each answer is a
    monotone search on the model; with --profile, solved again at the corners of its 95 % intervals.
    """
    from iosizer.calibration.device import size
    from iosizer.cli.size import _emit

    loaded = _profile(profile)
    data = size(loaded, target_iops, target_latency_us, percentile)
    notes = _notes(loaded)[:1] + ["_ci_low/_ci_high: the answer at the corners of the floor's and unit service's "
                                  "95 % intervals at the fitted count of units (empty, null in JSON: out of "
                                  "reach there)"]
    _emit(data, "Device sizing", notes, output_format)
