"""The replication family's shipped, calibrated systems (seed 004).

Every number of the model is declared once, in the ``replication`` family of
:mod:`iosizer.model.replication` (``iosizer params replication`` lists them
with their status and source); this module reads that declaration and adds
only what the declaration cannot hold:

- the link catalogue, ``data/profiles/interconnects.json``: the physical
  facts of every link (data rate, segment size, per-packet overhead, switch
  hop; IEEE 802.3, InfiniBand FDR 4x, RFC 4391, seed 000 table 3-3), each
  with its source. :func:`link_settings` turns an entry into the family's
  link settings (the declared defaults are the 10GbE entry);
- the seed's published latencies (``data/measurements/seed004_latency.csv``)
  and the assumption that the ~325 us remote access is one unloaded 4 KiB
  round trip (the catalogue's ``replication_model.reference_block_kib``);
- fitted (:func:`protocol_calibration`): the fixed per-I/O protocol cost of
  the Ethernet stack (1GbE and 10GbE share it) and of IPoIB, by bounded
  least squares (:func:`iosizer.calibration.fit.fit`) to the seed's gains of
  IPoIB over 10GbE at the declared outstanding I/Os: 4 KiB IOPS ~20 %, 4 KiB
  throughput ~15 % (one quantity at one block size, so the fit splits the
  difference) and 16 KiB ~10 %. Three statements, two parameters: the fit
  has one degree of freedom and its 95 % intervals say how well the
  statements agree;
- derived during the fit: the residual delay, whatever of the 325 us the
  stations do not explain (325 - remote flash - 2 x protocol(4 KiB) -
  serialisation - switch round trip), the same for every link.

:func:`shipped_profile` is the family's shipped form for one link: the
declared values with the fitted costs and their intervals. The statements
the fit does not use (1GbE ~ 10GbE at 4 KiB, both protocol-bound; 1GbE
bandwidth-bound at 16 KiB) are checks, in the tests and the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from iosizer.calibration.fit import CpuScaling, FitResult, Parameter, fit
from iosizer.calibration.profile import ParameterEstimate, Profile, declared_profile
from iosizer.calibration.shipped import hardware_profile, read_measurement
from iosizer.errors import CalibrationError, InputError
from iosizer.model.family import Family
from iosizer.model.registry import declaration
from iosizer.model.replication import (
    LOCAL,
    link_name,
    ReplicationResult,
    ReplicationSystem,
    protocol_demand_us,
    replication,
    replication_system,
    serialisation_us,
)

SEED = "seed 004"
FAMILY = "replication"
LATENCY_TABLE = "seed004_latency"
GAINS_TABLE = "seed004_relative_gains"
FINDINGS_TABLE = "seed004_block_size_findings"
#: The link whose protocol cost is fitted against the baseline's.
COMPARED = "ipoib56"

__all__ = [
    "LOCAL",
    "ProtocolCalibration",
    "baseline_link",
    "default",
    "evaluate",
    "link_names",
    "link_settings",
    "protocol_calibration",
    "published_latencies",
    "resolve_link",
    "shipped_profile",
    "system",
    "variant_profile",
]


@dataclass(frozen=True)
class ProtocolCalibration:
    """The fitted per-I/O protocol costs and the derived residual delay."""

    fit: FitResult
    #: Fixed per-I/O CPU cost per host, us, by protocol stack (ethernet, ipoib).
    protocol_fixed_us: dict[str, float]
    #: 95 % intervals of the fixed costs, us.
    intervals: dict[str, tuple[float, float]]
    protocol_per_kib_us: float
    residual_delay_us: float
    outstanding: int
    #: The seed's statements the fit used: block_kib, metric, gain_pct.
    observations: tuple[dict[str, Any], ...]


def _family() -> Family:
    return declaration(FAMILY)


def default(name: str) -> Any:
    """The declared value of setting or parameter ``name`` (``None`` for a fitted parameter)."""
    return _family().default(name)


def baseline_link() -> str:
    """The link every relative statement of the seed is measured against: the declared default (10g)."""
    return default("link")


def _catalogue() -> dict[str, Any]:
    return hardware_profile("interconnects")


def _items() -> dict[str, dict[str, Any]]:
    return {item["cli_name"]: item for item in _catalogue()["items"]}


def link_names() -> list[str]:
    """Names ``--link`` accepts: the interconnects, then ``local`` (no replica)."""
    return [*_items(), LOCAL]


def resolve_link(name: str) -> str:
    """A link's short name from its short name, profile name or label (case-insensitive): the declared
    setting's own check (:func:`iosizer.model.replication.link_name`)."""
    return link_name(name)


def link_settings(link: str) -> dict[str, Any]:
    """The family's settings for ``link``: its name and its catalogue entry's physical facts.

    link_rate_mbps = data_rate_gbit_s x 1000 / 8 (10^6 bytes/s);
    switch_round_trip_us = 2 x switch_hop_us (there and back). ``local`` has
    no link: only its name is set, the physical settings keep their declared
    values and its network does not use them.
    """
    short = resolve_link(link)
    if short == LOCAL:
        return {"link": LOCAL}
    item = _items()[short]
    return {
        "link": short,
        "link_rate_mbps": item["data_rate_gbit_s"] * 1000.0 / 8.0,
        "mss_bytes": item["mss_bytes"],
        "packet_overhead_bytes": item["packet_overhead_bytes"],
        "switch_round_trip_us": 2.0 * item["switch_hop_us"],
    }


def _published_latency_us(path: str) -> tuple[float, str]:
    """A latency of the seed, us, and the interconnect it was measured over ('' if none)."""
    rows = {row["path"]: row for row in read_measurement(LATENCY_TABLE)}
    return float(rows[path]["latency_us"]), rows[path]["interconnect"]


def protocol_per_kib_us() -> float:
    """CPU time per KiB of block on one host, us: the declared (assumed) value."""
    return float(default("protocol_per_kib_us"))


def _values(short: str, fixed_us: float | None = None, residual_us: float | None = None) -> dict[str, Any]:
    """Declared values over link ``short``, with the two fitted numbers when given."""
    overrides = {name: value for name, value in
                 (("protocol_fixed_us", fixed_us), ("residual_delay_us", residual_us)) if value is not None}
    return _family().values(link_settings(short), overrides)


def residual_delay_us(ethernet_fixed_us: float) -> float:
    """Residual delay implied by the 325 us remote access over 10GbE, us.

    325 = remote flash + 2 x protocol(4 KiB) + serialisation(10GbE, 4 KiB)
    + switch round trip + residual, for one unloaded round trip over the
    link the seed measured it on. The 4 KiB is the catalogue's assumed
    ``reference_block_kib``.
    """
    block = float(_catalogue()["replication_model"]["reference_block_kib"])
    remote_access, interconnect = _published_latency_us("remote_host_flash_access")
    values = _values(resolve_link(interconnect), ethernet_fixed_us, 0.0)
    probe = replication_system(values).replica
    assert probe is not None  # the seed measured it over a network
    explained = (values["remote_flash_write_us"] + 2 * float(protocol_demand_us(probe, block))
                 + float(serialisation_us(probe, block)) + probe.switch_round_trip_us)
    return remote_access - explained


def _system(short: str, fixed: Mapping[str, float], residual_us: float) -> ReplicationSystem:
    if short == LOCAL:
        return replication_system(_values(LOCAL))
    item = _items()[short]
    return replication_system(_values(short, fixed[item["protocol_stack"]], residual_us),
                              name=f"cache {item['label']}")


def _gain_rows() -> list[dict[str, Any]]:
    """The seed's IPoIB-over-10GbE gains at a stated block size (measured, not inferred)."""
    rows = []
    for row in read_measurement(GAINS_TABLE):
        if row["compared"] != "ipoib_56g" or row["baseline"] != "10gbe" or not row["block_kib"]:
            continue
        if row["metric"] == "latency":  # the author infers it from IOPS: not a separate measurement
            continue
        rows.append({"block_kib": float(row["block_kib"]), "metric": row["metric"],
                     "gain_pct": float(row["gain_pct"])})
    return rows


@lru_cache(maxsize=1)
def protocol_calibration() -> ProtocolCalibration:
    """Fit the fixed per-I/O protocol costs (ethernet, ipoib) to the seed's gains."""
    observations = _gain_rows()
    family = _family()
    outstanding = int(family.default("outstanding"))
    baseline = baseline_link()
    blocks = np.array([r["block_kib"] for r in observations])

    def gains(params: Mapping[str, float], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        fixed = {"ethernet": params["ethernet_fixed_us"], "ipoib": params["ipoib_fixed_us"]}
        residual = residual_delay_us(fixed["ethernet"])
        if residual < 0:
            raise CalibrationError(f"protocol cost leaves a negative residual delay ({residual:.3g} us)")
        base = replication(_system(baseline, fixed, residual), inputs["block_kib"], outstanding).iops
        ipoib = replication(_system(COMPARED, fixed, residual), inputs["block_kib"], outstanding).iops
        # IOPS and throughput gains are equal at one block size (same bytes per I/O).
        return {"gain_pct": 100.0 * (ipoib / base - 1.0)}

    # Neither cost may exceed half of what the 325 us leaves after the remote flash write.
    ceiling = (_published_latency_us("remote_host_flash_access")[0] - family.default("remote_flash_write_us")) / 2
    spec = family.spec("protocol_fixed_us")
    declared = {"unit": spec.unit, "cpu_scaling": CpuScaling(spec.cpu_scaling.value),
                "exponent_bounds": spec.exponent_bounds}
    parameters = [
        Parameter("ethernet_fixed_us", 40.0, 0.0, ceiling,
                  description="fixed CPU cost per I/O per host, TCP/IP over Ethernet", **declared),
        Parameter("ipoib_fixed_us", 30.0, 0.0, ceiling,
                  description="fixed CPU cost per I/O per host, TCP/IP over IPoIB", **declared),
    ]
    result = fit(gains, parameters, {"block_kib": blocks},
                 {"gain_pct": np.array([r["gain_pct"] for r in observations])},
                 model_name="replication-protocol")
    fixed = {"ethernet": result.params["ethernet_fixed_us"], "ipoib": result.params["ipoib_fixed_us"]}
    return ProtocolCalibration(
        fit=result,
        protocol_fixed_us=fixed,
        intervals={"ethernet": result.intervals["ethernet_fixed_us"],
                   "ipoib": result.intervals["ipoib_fixed_us"]},
        protocol_per_kib_us=protocol_per_kib_us(),
        residual_delay_us=residual_delay_us(fixed["ethernet"]),
        outstanding=outstanding,
        observations=tuple(observations),
    )


def shipped_profile(family: str = "replication", variant: str | None = None) -> Profile:
    """The family's shipped form over link ``variant`` (default the seed's baseline, 10g).

    The declared values; the link's catalogue facts as its settings; the
    fixed protocol cost of the link's stack as :func:`protocol_calibration`
    fitted it, with its 95 % interval and standard error (the profile's
    statistics are that fit's); the residual delay derived in the same fit,
    without an interval of its own: it is 325 us minus what the Ethernet cost
    explains, so its uncertainty is that cost's, doubled and of opposite
    sign. ``local`` has no replica: its profile carries the Ethernet cost and
    the residual delay, which its network does not use.
    """
    from iosizer.calibration.calibrate import profile_from_fit

    short = baseline_link() if variant is None else resolve_link(variant)
    stack = "ethernet" if short == LOCAL else _items()[short]["protocol_stack"]
    calibration = protocol_calibration()
    fitted = profile_from_fit(calibration.fit, "replication-protocol", {})
    name = f"{stack}_fixed_us"
    residual = _family().spec("residual_delay_us")
    estimates = {
        "protocol_fixed_us": fitted.parameters[name],
        "residual_delay_us": ParameterEstimate(
            value=calibration.residual_delay_us, unit=residual.unit, vary=False,
            cpu_scaling=residual.cpu_scaling.value, exponent_bounds=residual.exponent_bounds),
    }
    variance = None
    if fitted.covariance is not None and name in fitted.covariance_parameters:
        index = fitted.covariance_parameters.index(name)
        variance = fitted.covariance[index][index]
    profile = declared_profile(FAMILY, link_settings(short), fitted=estimates)
    return profile.model_copy(update={
        "statistics": fitted.statistics,
        "covariance": [[variance]] if variance is not None else None,
        "covariance_parameters": ["protocol_fixed_us"] if variance is not None else [],
    })


def system(link: str) -> ReplicationSystem:
    """The calibrated write-back cache replicating over ``link`` (or ``local``)."""
    short = resolve_link(link)
    if short == LOCAL:
        return _system(LOCAL, {}, 0.0)
    calibration = protocol_calibration()
    return _system(short, calibration.protocol_fixed_us, calibration.residual_delay_us)


def evaluate(link: str, block_kib: object, outstanding: object | None = None) -> ReplicationResult:
    """IOPS, throughput, latency and binding cap of the calibrated cache over ``link``.

    ``block_kib`` (KiB) and ``outstanding`` (I/Os in flight; ``None``: the
    declared benchmark depth) broadcast; compare with
    ``seed004_relative_gains.csv`` and ``seed004_block_size_findings.csv``.
    """
    depth = default("outstanding") if outstanding is None else outstanding
    return replication(system(link), block_kib, depth)


def published_latencies() -> list[dict[str, Any]]:
    """The seed's latencies, us (printed as ms in the seed; microseconds in fact)."""
    return [{"path": r["path"], "interconnect": r["interconnect"], "latency_us": float(r["latency_us"])}
            for r in read_measurement(LATENCY_TABLE)]


def variant_profile(family: str, profile: Profile, link: str) -> Profile:
    """A planner's ``replication`` profile asked about ``link``: the link's catalogue facts as its settings.

    The protocol cost stays the profile's, so ``link`` must use the same
    protocol stack as the link the profile was calibrated on (an Ethernet
    stack's cost says nothing of IPoIB's). ``local`` needs no stack.
    """
    short = resolve_link(link)
    calibrated = profile.options.get("link")
    if short != LOCAL and calibrated not in (None, LOCAL):
        stacks = {name: item["protocol_stack"] for name, item in _items().items()}
        own = stacks.get(resolve_link(str(calibrated)))
        if own is not None and stacks[short] != own:
            raise InputError(f"the profile's protocol cost is for the {own} stack ({calibrated}); "
                             f"{short} uses {stacks[short]}: calibrate a profile on that link")
    return profile.model_copy(update={"options": {**profile.options, **link_settings(short)}})
