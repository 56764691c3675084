"""``iosizer device ...`` and ``iosizer size device``: a storage device calibrated from a fio sweep.

``iosizer device curve`` is generated from the family's declared question
(:mod:`iosizer.cli.questions` attaches it to this group); ``size device``
calls :func:`iosizer.calibration.device.size` and renders its answer.
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


def _profile(path: Path | None) -> Any:
    if path is None:
        return None
    from iosizer.calibration.profile import load_profile

    return load_profile(path, "device")


def _profile_note(profile: Any) -> str:
    """Which profile answered, with its fitted floor, count of units (and plausible counts) and unit service."""
    from iosizer.calibration.device import device_profile

    chosen = device_profile(profile)
    units = chosen.parameters["parallel_units"]
    source = "shipped profile (the real sweep in data/examples/device)" if profile is None else "the profile"
    plausible = "" if units.ci_low is None else f", 95 % plausible {units.ci_low:g}-{units.ci_high:g}"
    return (f"{source}: floor {chosen.value('latency_floor_us'):.4g} us, {units.value:g} parallel units"
            f"{plausible}, unit service {chosen.value('unit_service_us'):.4g} us")


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
    notes = [_profile_note(loaded), "_ci_low/_ci_high: the answer at the corners of the floor's and unit service's "
                                  "95 % intervals at the fitted count of units (empty, null in JSON: out of "
                                  "reach there)"]
    _emit(data, "Device sizing", notes, output_format)
