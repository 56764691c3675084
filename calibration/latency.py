"""The I/O-latency family's shipped, calibrated models (seed 000).

Everything here is calibrated at first use from the published figures in
``data/measurements`` through the generic calibration loop, so the numbers a
command prints always trace back to the seed's tables:

- NIC send devices (e1000, bcm5700): the ``dma`` model fitted to the two
  issue intervals of table 4-1 (local and +2,100 ns). Two points fix two
  parameters exactly, so their intervals are undefined: the table gives no
  repeat measurements to estimate an error from.
- Posted devices (NIC receive, HBA write): DMA writes, latency-insensitive
  (section 4.1, figure 4-1); the seed gives no throughput for them.
- The OLTP network: the ``oltp`` model fitted to the TPC-C degradation
  description (sections 4.3, 4.4, 6.1), bounds honoured.
- The switch catalogue of table 3-3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

import numpy as np

from iosizer.calibration.calibrate import Calibration, calibrate, calibrate_dataset
from iosizer.calibration.dataset import Dataset
from iosizer.calibration.profile import Profile
from iosizer.calibration.shipped import hardware_profile, measurement_sha256, read_measurement
from iosizer.model.registry import declaration
from iosizer.errors import InputError
from iosizer.model.latency import (  # noqa: F401  (the budget and tier figures, re-exported for their users)
    MAX_TIERS_SEARCHED, SERVICE_SCV, SHOWN_TIERS, DmaDevice, OltpNetwork, check_budget_pct, max_dma_latency_ns,
    max_oltp_latency_ns, oltp_degradation_pct, oltp_slope_pct_per_ns, tier_losses)

#: The seed's server: the reference CPU of every shipped profile.
SEED_CPU_NAME = "Pentium 4 3.0GHz (FSB 800MHz)"
SEED_CPU_SPEED = 1.0

DMA_TABLE = "seed000_table4_1_dma"
TPCC_CURVE = "seed000_tpcc_degradation"
#: Posted (DMA write) paths of figure 4-1: no completion to wait for.
POSTED_DEVICES = {
    "nic-recv": "NIC receive (DMA write, posted)",
    "hba-write": "HBA write (DMA write, posted; many outstanding transactions)",
}


@dataclass(frozen=True)
class PublishedDma:
    """What table 4-1 states for a device at its added latency."""

    added_latency_ns: float
    issue_interval_ns: float
    throughput_mbps: float
    estimated_degradation_pct: float
    measured_degradation_pct: float


def _dma_rows() -> dict[str, dict[str, str]]:
    return {row["nic"]: row for row in read_measurement(DMA_TABLE)}


def device_names() -> list[str]:
    return sorted(_dma_rows()) + sorted(POSTED_DEVICES)


@lru_cache(maxsize=None)
def device_calibration(name: str) -> Calibration:
    """The ``dma`` model fitted to table 4-1's two issue intervals of ``name``."""
    rows = _dma_rows()
    if name not in rows:
        raise InputError(f"no DMA measurements for device '{name}'; calibrated devices: {', '.join(sorted(rows))}")
    row = rows[name]
    x = np.array([0.0, float(row["added_latency_ns"])])
    interval = np.array([float(row["issue_interval_local_ns"]), float(row["issue_interval_added_ns"])])
    dataset = Dataset(
        path=f"iosizer.data/measurements/{DMA_TABLE}.csv ({name})",
        sha256=measurement_sha256(DMA_TABLE),
        schema=declaration("dma").columns,
        values={"added_latency_ns": x, "issue_interval_ns": interval},
        lines=np.array([2, 2]),
        sources=(row["source"], row["source"]),
    )
    return calibrate_dataset("dma", dataset, cpu_name=SEED_CPU_NAME, cpu_speed=SEED_CPU_SPEED)


def device(name: str) -> DmaDevice:
    """A catalogue device: calibrated NIC send paths, or a posted path."""
    if name in POSTED_DEVICES:
        return DmaDevice(name=name, posted=True)
    rows = _dma_rows()
    if name not in rows:
        raise InputError(f"unknown device '{name}'; known devices: {', '.join(device_names())}")
    params = device_calibration(name).fit.params
    return DmaDevice(
        name=name,
        burst_bytes=float(rows[name]["transfer_bytes"]),
        local_issue_interval_ns=params["local_issue_interval_ns"],
        exposed_round_trips=params["exposed_round_trips"],
    )


def device_from_profile(profile: Profile, burst_bytes: float | None) -> DmaDevice:
    """A device from a user's ``dma`` profile; the burst size is needed for throughput."""
    return DmaDevice(
        name=profile.cpu_name or "profile",
        burst_bytes=burst_bytes,
        local_issue_interval_ns=profile.value("local_issue_interval_ns"),
        exposed_round_trips=profile.value("exposed_round_trips"),
    )


def published_dma(name: str) -> PublishedDma | None:
    row = _dma_rows().get(name)
    if row is None:
        return None
    return PublishedDma(
        float(row["added_latency_ns"]), float(row["issue_interval_added_ns"]),
        float(row["throughput_added_mbps"]), float(row["estimated_degradation_pct"]),
        float(row["measured_degradation_pct"]),
    )


def complete_values(family: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """What a solve needs beyond a profile: table 3-3's switches (``latency tiers``' default hops)."""
    switches = switch_catalogue()
    return {**values, "switch_names": [s["switch"] for s in switches],
            "switch_hop_ns": [s["hop_ns"] for s in switches]}


def catalogue_entry(family: str, setting: str, name: str) -> tuple[Profile | None, dict[str, Any]]:
    """A device of ``latency dma --device``: a table 4-1 NIC (its fitted profile, burst size and published
    figures at the table's added latency) or a posted path (no profile: it loses nothing); a ``switch`` of
    table 3-3 (the ``[latency]`` table's key): no profile, its one-way hop."""
    if setting == "switch":
        hops = {s["switch"]: s["hop_ns"] for s in switch_catalogue()}
        if name not in hops:
            raise InputError(f"unknown switch '{name}'; table 3-3 has {', '.join(hops)}")
        return None, {"hop_ns": hops[name]}
    if name in POSTED_DEVICES:
        return None, {"posted": 1.0}
    rows = _dma_rows()
    if name not in rows:
        raise InputError(f"unknown device '{name}'; known devices: {', '.join(device_names())}")
    published = published_dma(name)
    assert published is not None  # a row of table 4-1
    return device_calibration(name).profile, {
        "posted": 0.0, "burst_bytes": float(rows[name]["transfer_bytes"]),
        "published_added_latency_ns": published.added_latency_ns,
        "published_throughput_mbps": published.throughput_mbps,
        "published_estimate_pct": published.estimated_degradation_pct,
        "measured_degradation_pct": published.measured_degradation_pct}


@lru_cache(maxsize=1)
def oltp_calibration() -> Calibration:
    """The ``oltp`` model fitted to the transcribed TPC-C degradation curve (``service_scv`` held at
    its declared value, :data:`iosizer.model.latency.SERVICE_SCV`; the file's bounds are one-sided in the fit)."""
    resource = resources.files("iosizer.data").joinpath("measurements", f"{TPCC_CURVE}.csv")
    with resources.as_file(resource) as path:
        return calibrate("oltp", path, {}, cpu_name=SEED_CPU_NAME,
                         cpu_speed=SEED_CPU_SPEED)


def oltp_profile() -> Profile:
    return oltp_calibration().profile


def oltp_network(profile: Profile, service_scv: float | None = None) -> OltpNetwork:
    """The OLTP network of a profile; what the profile leaves out takes its declared value.

    ``service_scv`` given overrides the profile's (declared: 1, exponential).
    """
    from iosizer.calibration.profile import profile_values

    values = profile_values(profile)
    if service_scv is not None:
        values = {**values, "service_scv": service_scv}
    return OltpNetwork(terminals=values["terminals"], knee_latency_ns=values["knee_latency_ns"],
                       serial_share=values["serial_share"], think_share=values["think_share"],
                       service_scv=values.get("service_scv", SERVICE_SCV.value))


def switch_catalogue() -> list[dict[str, Any]]:
    """Table 3-3: name, one-way hop latency (ns), protocol, product."""
    return [
        {"switch": item["name"], "hop_ns": float(item["hop_ns"]), "protocol": item["protocol"],
         "product": f"{item['vendor']} {item['product']}"}
        for item in hardware_profile("switches")["items"]
    ]


def loss_source(profile: Profile | None, device_name: str | None) -> tuple[str, Any]:
    """What a budget or tier question is asked of: ('oltp', network) or ('dma', device).

    A user's ``oltp`` or ``dma`` profile, a catalogue device, or by default the
    OLTP network calibrated from seed 000.
    """
    if profile is not None and device_name is not None:
        raise InputError("give either --profile FILE or --device NAME")
    if profile is None:
        if device_name is not None:
            return "dma", device(device_name)
        return "oltp", oltp_network(oltp_profile())
    if profile.model == "oltp":
        return "oltp", oltp_network(profile)
    if profile.model == "dma":
        return "dma", device_from_profile(profile, None)
    raise InputError(f"a '{profile.model}' profile does not describe a latency loss; use an oltp or dma profile")


def tier_plan(
    switches: list[dict[str, Any]], budget_pct: float, device_name: str | None = None,
    profile: Profile | None = None,
) -> list[dict[str, Any]]:
    """Loss at 1..4 tiers and the most tiers within ``budget_pct``, per switch.

    Round trip of t tiers of one-way hop h: 2 t h (seed 000 section 3.2).
    The loss comes from the OLTP curve, or from a device's DMA model.
    """
    from iosizer.model.latency import dma

    check_budget_pct(budget_pct)
    kind, source = loss_source(profile, device_name)
    if kind == "oltp":
        loss = lambda x: np.asarray(oltp_degradation_pct(source, x))  # noqa: E731
    else:
        loss = lambda x: np.asarray(dma(source, x).degradation_pct)  # noqa: E731
    hops = np.array([switch["hop_ns"] for switch in switches], dtype=np.float64)
    for hop in hops:
        if not (math.isfinite(hop) and hop >= 0):
            raise InputError(f"--hop-ns must be >= 0, got {hop:g}")
    losses, max_tiers = tier_losses(loss, hops, budget_pct)
    shown = np.array(SHOWN_TIERS)
    plan = [{"switch": switch["switch"], "hop_ns": switch["hop_ns"], "tiers": shown.tolist(),
             "round_trip_ns": (2 * shown * switch["hop_ns"]).tolist(), "loss_pct": losses[i, shown - 1].tolist(),
             "max_tiers": int(max_tiers[i])} for i, switch in enumerate(switches)]
    return plan


def oltp_points(profile: Profile, latencies: list[float], felt_ns: Any = None,
                service_scv: float | None = None) -> list[dict[str, Any]]:
    """PD at each added latency with its 95 % band, from an ``oltp`` profile.

    ``felt_ns`` is the latency as the modelled CPU feels it (x s^(a-b) for an
    explicit CPU-generation assumption); by default the latencies themselves.
    The band comes from the profile's intervals by endpoint propagation; a
    loss lies between 0 and 100 % of the local throughput, so the band's
    edges are clipped to [0, 100] (propagated far from the fit, an edge can
    leave that range; :func:`band_clipped` tells whether one did).
    """
    from iosizer.calibration.uncertainty import propagate

    network = oltp_network(profile, service_scv)
    felt = np.asarray(latencies if felt_ns is None else felt_ns, dtype=np.float64)

    def curve(params: Mapping[str, float]) -> dict[str, np.ndarray]:
        shifted = network.model_copy(update={"knee_latency_ns": params["knee_latency_ns"],
                                             "serial_share": params["serial_share"]})
        return {"degradation_pct": np.atleast_1d(oltp_degradation_pct(shifted, felt))}

    centre = curve(profile.values())["degradation_pct"]
    low, high = propagate(profile, curve)["degradation_pct"]
    return [
        {"added_latency_ns": x, "degradation_pct": min(max(float(centre[i]), 0.0), 100.0),
         "degradation_pct_low": min(max(float(low[i]), 0.0), 100.0),
         "degradation_pct_high": min(max(float(high[i]), 0.0), 100.0)}
        for i, x in enumerate(latencies)
    ]


def shipped_profile(family: str, variant: str | None = None) -> Profile:
    """The shipped profiles of seed 000: ``dma`` per device of table 4-1 (the first
    device unless ``variant`` names one), ``oltp`` from the TPC-C description."""
    if family == "oltp":
        if variant is not None:
            raise InputError(f"family 'oltp' ships one profile; it has no variant '{variant}'")
        return oltp_profile()
    calibrated = sorted(_dma_rows())
    name = calibrated[0] if variant is None else variant
    if name not in calibrated:
        raise InputError(f"no shipped dma profile '{name}'; calibrated devices: {', '.join(calibrated)}")
    return device_calibration(name).profile
