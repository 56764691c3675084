"""The PCIe family's shipped, calibrated platform (seed 001).

The RMW service time and the per-port credit count are fitted through the
calibration loop to section 4's two figures for unaligned patterns: the
loss is at most 7 % at 8 lanes and up to 38 % at 32 lanes. Both are maxima
over the unaligned cases B-E; the largest loss belongs to the largest
unaligned frequency (section 4: "the degradation grows with the frequency"),
case B, 520 B at 8.86 per KiB, so they are fitted as B's losses. Two points
fix two parameters exactly: the fit has no error estimate. The aligned rows
(A, F: throughput roughly proportional to lanes) are checks, not fit data:
the model gives them zero loss by construction.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from iosizer.calibration.calibrate import Calibration, calibrate_dataset
from iosizer.calibration.dataset import Dataset
from iosizer.calibration.profile import Profile
from iosizer.calibration.shipped import measurement_sha256, read_measurement
from iosizer.model.registry import declaration
from iosizer.errors import InputError
from iosizer.model.pcie import (WORST_CASE_BYTES, PcieLink, RmwPlatform, gathered_transfer_bytes,  # noqa: F401
                                link_of)

LOSSES = "seed001_sec4_losses"
PATTERNS = "seed001_table2_patterns"
#: Table 2's case A: the same sectors without their DIF (512 B, two whole 256 B TLPs), the aligned reference.
ALIGNED_CASE_BYTES = 512
SEED_CPU = "Xeon E5-2698 v4 (x2)"


#: How ``iosizer pcie`` spells the link settings.
LINK_FLAGS = {"generation": "--gen", "mps_bytes": "--mps", "lanes": "--lanes", "header_dw": "--header-dw",
              "ecrc": "--ecrc", "mrrs_bytes": "--mrrs", "rcb_bytes": "--rcb"}


def link_config(labels: dict[str, str] | None = None, **given: Any) -> PcieLink:
    """A link from the planner's options; every option left None takes its declared value.

    Values are checked against the ``pcie-link`` declarations (bounds, allowed
    values), so an error names the option (as ``labels`` spell it; the CLI's
    flags by default) and its range.
    """
    family = declaration("pcie-link")
    values = family.check_settings({k: v for k, v in given.items() if k != "dllps_per_tlp"},
                                   LINK_FLAGS if labels is None else labels)
    dllps = given.get("dllps_per_tlp")
    values["dllps_per_tlp"] = family.default("dllps_per_tlp") if dllps is None else \
        family.spec("dllps_per_tlp").check(dllps, "--dllps-per-tlp")
    return link_of(values)


def complete_values(family: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """What ``pcie pattern``'s solve reads from the shipped measurements: table 2's published values."""
    completed = dict(values)
    if family == "pcie-link":
        completed["table2"] = {c["case"]: c["unaligned_per_kib"] for c in table2()}
        completed["table2_composition"] = {c["case"]: c["composition"] for c in table2()}
    return completed


def table2_mps() -> int:
    """The MPS table 2 was computed at: the seed's platform (table 1), as declared."""
    return int(declaration("pcie-link").default("mps_bytes"))


def measured_lanes() -> list[int]:
    """Total lane counts section 4 measured (the default sweep of ``pcie rmw``)."""
    return sorted({int(r["total_lanes"]) for r in read_measurement(LOSSES)})


def table2() -> list[dict[str, Any]]:
    """Table 2's cases: name, transfer bytes, composition, published unaligned per KiB."""
    return [
        {"case": r["case"], "transfer_bytes": int(r["transfer_bytes"]), "composition": r["composition"],
         "unaligned_per_kib": float(r["unaligned_per_kib"])}
        for r in read_measurement(PATTERNS)
    ]


def resolve_pattern(text: str) -> int:
    """A pattern given as bytes (520) or as table 2's case letter (B)."""
    key = text.strip()
    for case in table2():
        if key.upper() == case["case"]:
            return case["transfer_bytes"]
    try:
        value = int(key)
    except ValueError:
        raise InputError(f"pattern must be a byte count or a table 2 case A-F, got {text!r}") from None
    if value < 1:
        raise InputError(f"pattern must be >= 1 byte, got {value}")
    return value


@lru_cache(maxsize=4)
def rmw_calibration(mps_bytes: int | None = None, service_scv: float | None = None) -> Calibration:
    """The ``rmw`` family fitted to section 4's unaligned (case B) losses at ``mps_bytes`` [declared].

    ``service_scv`` None keeps the declared 1 (exponential, the shipped fit);
    0 fits the same two figures with constant service.
    """
    mps_bytes = table2_mps() if mps_bytes is None else mps_bytes
    settings: dict[str, Any] = {"mps_bytes": mps_bytes}
    if service_scv is not None:
        settings["service_scv"] = service_scv
    rows = [r for r in read_measurement(LOSSES) if r["pattern_class"] == "unaligned"]
    lanes = np.array([float(r["total_lanes"]) for r in rows])
    dataset = Dataset(
        path=f"iosizer.data/measurements/{LOSSES}.csv (unaligned rows as case B)",
        sha256=measurement_sha256(LOSSES),
        schema=declaration("rmw").columns,
        values={"lanes": lanes, "transfer_bytes": np.full(lanes.size, float(WORST_CASE_BYTES)),
                "loss_pct": np.array([float(r["loss_pct"]) for r in rows])},
        lines=np.arange(2, 2 + lanes.size),
        sources=tuple(r["source"] for r in rows),
    )
    return calibrate_dataset("rmw", dataset, settings, cpu_name=SEED_CPU, cpu_speed=1.0)


@lru_cache(maxsize=1)
def rmw_bound_prediction() -> dict[str, float]:
    """Seed 001's 8-lane figure read as an upper bound on the loss against case A, predicted from published
    numbers only (issue 28).

    Section 4 says the loss at 8 lanes is *at most* 7 % (高々) and measures
    every case against the aligned ones; case A (512 B, two 256 B TLPs) is the
    aligned transfer case B (520 B) differs from by its DIF, so the loss is
    1 - X_B / X_A in payload bytes per second (the seed counts packets
    over time). The credit loop is a datasheet x8 root port's posted credits
    (:func:`~iosizer.model.pcie.posted_tlps_in_flight`, 14.5 TLPs of case B's
    mix), closed by the spec's UpdateFC latency as the credit-return time
    (:data:`~iosizer.model.pcie.CREDIT_RETURN`, 203 ns); the RMW time alone
    is fitted (brentq) to the 38 % at 32 lanes, at the family's declared
    service_scv (1). The 8-lane loss is then a prediction, to hold to <= 7 %.
    Also: the same without the credit-return time, the user-data-only loss
    (512 of case B's 520 bytes count), and case B's tail-TLP framing alone.
    """
    from scipy.optimize import brentq

    from iosizer.model.pcie import (CREDIT_RETURN, access_pattern, link_bandwidth, posted_tlps_in_flight,
                                    rmw_throughput)

    losses = {(r["lanes"], r["pattern_class"]): r["loss_pct"] for r in published_losses()}
    low, high = measured_lanes()[0], measured_lanes()[-1]
    shipped = platform()
    case_b = access_pattern(WORST_CASE_BYTES, shipped.link.mps_bytes)
    case_a = access_pattern(ALIGNED_CASE_BYTES, shipped.link.mps_bytes)
    credits = posted_tlps_in_flight(WORST_CASE_BYTES, shipped.link.mps_bytes)

    def loss(service_ns: float, lanes: int, credit_return_ns: float, user_data: bool = False) -> float:
        chosen = shipped.model_copy(update={"rmw_service_ns": service_ns, "posted_credits": credits,
                                            "credit_return_ns": credit_return_ns})
        b = float(rmw_throughput(chosen, case_b, [lanes]).throughput_gbyte_s[0])
        a = float(rmw_throughput(chosen, case_a, [lanes]).throughput_gbyte_s[0])
        counted = ALIGNED_CASE_BYTES / WORST_CASE_BYTES if user_data else 1.0
        return 100.0 * (1.0 - counted * b / a)

    out: dict[str, float] = {"posted_credits": credits, "credit_return_ns": CREDIT_RETURN.value,
                             "fit_lanes": float(high), "fit_loss_pct": losses[(high, "unaligned")],
                             "predicted_lanes": float(low), "published_loss_pct": losses[(low, "unaligned")]}
    for suffix, back in (("", CREDIT_RETURN.value), ("_no_return", 0.0)):
        service = float(brentq(lambda s: loss(s, high, back) - out["fit_loss_pct"], 1e-2, 1e3, xtol=1e-9))
        out[f"rmw_service_ns{suffix}"] = service
        out[f"predicted_loss_pct{suffix}"] = loss(service, low, back)
        out[f"predicted_user_data_loss_pct{suffix}"] = loss(service, low, back, user_data=True)
    out["tail_tlp_framing_pct"] = 100.0 * (1.0 - link_bandwidth(shipped.link, WORST_CASE_BYTES).effective_gbyte_s
                                           / link_bandwidth(shipped.link, ALIGNED_CASE_BYTES).effective_gbyte_s)
    return out


def platform(
    mps_bytes: int | None = None, generation: int | None = None, lanes_per_port: int | None = None,
    profile: Profile | None = None, service_scv: float | None = None,
) -> RmwPlatform:
    """The seed's root complex, calibrated (or a user's ``rmw`` profile); link options for what-ifs.

    Options left None take their declared values (seed 001 table 1);
    ``service_scv`` None takes the profile's (a profile calibrated with
    ``--set service_scv=0`` keeps it), else the declared 1.
    """
    from iosizer.calibration.profile import profile_values

    params = profile_values(profile if profile is not None else shipped_profile("rmw"))
    if service_scv is None:
        service_scv = params.get("service_scv", declaration("rmw").default("service_scv"))
    else:
        service_scv = declaration("rmw").spec("service_scv").check(service_scv, "--service-scv")
    return RmwPlatform(
        link=link_config(generation=generation, lanes=lanes_per_port, mps_bytes=mps_bytes),
        rmw_service_ns=params["rmw_service_ns"],
        posted_credits=params["posted_credits"],
        line_service_ns=params["line_service_ns"],
        service_scv=service_scv,
    )


def published_losses() -> list[dict[str, Any]]:
    return [
        {"lanes": int(r["total_lanes"]), "pattern_class": r["pattern_class"],
         "loss_pct": float(r["loss_pct"]), "relation": r["relation"]}
        for r in read_measurement(LOSSES)
    ]


def shipped_profile(family: str, variant: str | None = None) -> Profile:
    """Seed 001's shipped profiles: ``rmw`` fitted to section 4's losses at the
    declared MPS, ``pcie-link`` the declared (specification) link."""
    from iosizer.calibration.profile import declared_profile

    if variant is not None:
        raise InputError(f"family '{family}' ships one profile; it has no variant '{variant}'")
    if family == "pcie-link":
        return declared_profile("pcie-link")
    return rmw_calibration().profile
