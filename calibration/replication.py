"""The replication family's shipped, calibrated systems (seed 004).

Where every number of :class:`~iosizer.model.replication.ReplicationSystem`
comes from (``data/profiles/interconnects.json`` holds each with its source
and a ``_status``: published, derived, assumed or fitted):

- published (seed 004 intro, approximate; the seed prints "ms", the values
  are microseconds): local flash write 77 us; remote flash over 10GbE 325 us
  (``data/measurements/seed004_latency.csv``);
- standard (IEEE 802.3, InfiniBand FDR 4x, RFC 4391) or derived from them:
  link data rates, per-packet overhead, segment sizes; seed 000 table 3-3
  for the switch hop;
- assumed: the peer's flash write equals the local one, a 1500-byte MTU, a
  2048-byte IB MTU (IPoIB datagram mode), the benchmark's 32 outstanding
  I/Os, the 4 KiB unloaded round trip behind the 325 us, and the per-KiB
  protocol cost: 8 CPU cycles per byte (the "1 Hz per bit/s" TCP rule of
  thumb) at an assumed 2.6 GHz core, the same for every stack (data copies);
- fitted (:func:`protocol_calibration`): the fixed per-I/O protocol cost of
  the Ethernet stack (1GbE and 10GbE share it) and of IPoIB, by bounded
  least squares (:func:`iosizer.calibration.fit.fit`) to the seed's gains of
  IPoIB over 10GbE at 32 outstanding I/Os: 4 KiB IOPS ~20 %, 4 KiB
  throughput ~15 % (one quantity at one block size, so the fit splits the
  difference) and 16 KiB ~10 %. Three statements, two parameters: the fit
  has one degree of freedom and its 95 % intervals say how well the
  statements agree;
- derived during the fit: the residual delay, whatever of the 325 us the
  stations do not explain (325 - remote flash - 2 x protocol(4 KiB) -
  serialisation - switch round trip), the same for every link.

The statements the fit does not use (1GbE ~ 10GbE at 4 KiB, both
protocol-bound; 1GbE bandwidth-bound at 16 KiB) are checks, in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from iosizer.calibration.fit import FitResult, Parameter, fit
from iosizer.calibration.shipped import hardware_profile, read_measurement
from iosizer.errors import CalibrationError, InputError
from iosizer.model.replication import (
    ReplicaPath,
    ReplicationResult,
    ReplicationSystem,
    protocol_demand_us,
    replication,
    serialisation_us,
)

SEED = "seed 004"
LATENCY_TABLE = "seed004_latency"
GAINS_TABLE = "seed004_relative_gains"
FINDINGS_TABLE = "seed004_block_size_findings"
#: The configuration without a replica (write-back, no peer).
LOCAL = "local"
#: The interconnect every relative statement of the seed is measured against.
BASELINE = "10g"


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


def _profile() -> dict[str, Any]:
    return hardware_profile("interconnects")


def _settings() -> dict[str, Any]:
    return _profile()["replication_model"]


def _items() -> dict[str, dict[str, Any]]:
    return {item["cli_name"]: item for item in _profile()["items"]}


def link_names() -> list[str]:
    """Names ``--link`` accepts: the interconnects, then ``local`` (no replica)."""
    return [*_items(), LOCAL]


def resolve_link(name: str) -> str:
    """A link's short name from its short name, profile name or label (case-insensitive)."""
    key = name.strip().lower()
    for short, item in _items().items():
        if key in {short, item["name"].lower(), item["label"].lower()}:
            return short
    if key == LOCAL:
        return LOCAL
    raise InputError(f"unknown link '{name}'; known links: {', '.join(link_names())}")


def _published_latency_us(path: str) -> float:
    rows = {row["path"]: row for row in read_measurement(LATENCY_TABLE)}
    return float(rows[path]["latency_us"])


def protocol_per_kib_us() -> float:
    """CPU time per KiB of block on one host, us: cycles/byte x 1024 / clock (assumed)."""
    settings = _settings()
    return settings["protocol_cycles_per_byte"] * 1024 / (settings["cpu_clock_ghz"] * 1000.0)


def _path(short: str, fixed_us: float, residual_us: float) -> ReplicaPath:
    item = _items()[short]
    return ReplicaPath(
        name=item["label"],
        link_rate_mbps=item["data_rate_gbit_s"] * 1000.0 / 8.0,
        mss_bytes=item["mss_bytes"],
        packet_overhead_bytes=item["packet_overhead_bytes"],
        switch_round_trip_us=2.0 * item["switch_hop_us"],
        protocol_fixed_us=fixed_us,
        protocol_per_kib_us=protocol_per_kib_us(),
        residual_delay_us=residual_us,
    )


def _flash() -> tuple[float, float]:
    local = _published_latency_us("local_host_flash_access")
    settings = _settings()
    if not math.isclose(settings["local_flash_write_us"], local):
        raise CalibrationError("interconnects.json local_flash_write_us disagrees with seed004_latency.csv")
    return local, float(settings["remote_flash_write_us"])


def residual_delay_us(ethernet_fixed_us: float) -> float:
    """Residual delay implied by the 325 us remote access over 10GbE, us.

    325 = remote flash + 2 x protocol(4 KiB) + serialisation(10GbE, 4 KiB)
    + switch round trip + residual, for one unloaded round trip.
    """
    block = _settings()["reference_block_kib"]
    remote_access = _published_latency_us("remote_host_flash_access")
    probe = _path(BASELINE, ethernet_fixed_us, 0.0)
    explained = (_flash()[1] + 2 * float(protocol_demand_us(probe, block))
                 + float(serialisation_us(probe, block)) + probe.switch_round_trip_us)
    return remote_access - explained


def _system(short: str, fixed: Mapping[str, float], residual_us: float) -> ReplicationSystem:
    local, remote = _flash()
    if short == LOCAL:
        return ReplicationSystem(name="local (no replica)", local_flash_write_us=local,
                                 remote_flash_write_us=remote, replica=None)
    stack = _items()[short]["protocol_stack"]
    return ReplicationSystem(name=f"cache {_items()[short]['label']}", local_flash_write_us=local,
                             remote_flash_write_us=remote, replica=_path(short, fixed[stack], residual_us))


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
    outstanding = int(_settings()["benchmark_outstanding"])
    blocks = np.array([r["block_kib"] for r in observations])

    def gains(params: Mapping[str, float], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        fixed = {"ethernet": params["ethernet_fixed_us"], "ipoib": params["ipoib_fixed_us"]}
        residual = residual_delay_us(fixed["ethernet"])
        if residual < 0:
            raise CalibrationError(f"protocol cost leaves a negative residual delay ({residual:.3g} us)")
        base = replication(_system(BASELINE, fixed, residual), inputs["block_kib"], outstanding).iops
        ipoib = replication(_system("ipoib56", fixed, residual), inputs["block_kib"], outstanding).iops
        # IOPS and throughput gains are equal at one block size (same bytes per I/O).
        return {"gain_pct": 100.0 * (ipoib / base - 1.0)}

    # Neither cost may exceed half of what the 325 us leaves after the remote flash write.
    ceiling = (_published_latency_us("remote_host_flash_access") - _flash()[1]) / 2
    parameters = [
        Parameter("ethernet_fixed_us", 40.0, 0.0, ceiling, unit="us",
                  description="fixed CPU cost per I/O per host, TCP/IP over Ethernet"),
        Parameter("ipoib_fixed_us", 30.0, 0.0, ceiling, unit="us",
                  description="fixed CPU cost per I/O per host, TCP/IP over IPoIB"),
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


def system(link: str) -> ReplicationSystem:
    """The calibrated write-back cache replicating over ``link`` (or ``local``)."""
    short = resolve_link(link)
    if short == LOCAL:
        return _system(LOCAL, {}, 0.0)
    calibration = protocol_calibration()
    return _system(short, calibration.protocol_fixed_us, calibration.residual_delay_us)


def evaluate(link: str, block_kib: object, outstanding: object = 32) -> ReplicationResult:
    """IOPS, throughput, latency and binding cap of the calibrated cache over ``link``.

    ``block_kib`` (KiB) and ``outstanding`` (I/Os in flight) broadcast; compare
    with ``seed004_relative_gains.csv`` and ``seed004_block_size_findings.csv``.
    """
    return replication(system(link), block_kib, outstanding)


def published_latencies() -> list[dict[str, Any]]:
    """The seed's latencies, us (printed as ms in the seed; microseconds in fact)."""
    return [{"path": r["path"], "interconnect": r["interconnect"], "latency_us": float(r["latency_us"])}
            for r in read_measurement(LATENCY_TABLE)]


def calibration_notes() -> list[str]:
    """Short lines saying where the protocol costs come from, for command output."""
    c = protocol_calibration()
    eth, ib = c.intervals["ethernet"], c.intervals["ipoib"]
    return [
        f"protocol CPU cost per I/O per host: ethernet {c.protocol_fixed_us['ethernet']:.3g} us "
        f"[{eth[0]:.3g}, {eth[1]:.3g}], ipoib {c.protocol_fixed_us['ipoib']:.3g} us [{ib[0]:.3g}, {ib[1]:.3g}] "
        f"(95 %), + {c.protocol_per_kib_us:.3g} us/KiB; fitted to {SEED}'s IPoIB-over-10GbE gains at "
        f"{c.outstanding} outstanding (no absolute IOPS are published)",
        f"residual delay {c.residual_delay_us:.3g} us derived from {SEED}'s ~325 us remote flash access over 10GbE "
        "(the seed prints ms; the values are microseconds)",
    ]
