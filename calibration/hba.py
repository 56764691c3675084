"""Shipped FC-port and HBA-core parameters for :mod:`iosizer.model.hba` (seed 002).

The ``hba`` family's declaration (:mod:`iosizer.model.hba`) states the
measured 16GFC port's numbers once; this module reads the hardware profiles
(``fc_ports.json``, ``hbas.json``) to build a port of any shipped FC speed,
and :func:`shipped_profile` hands the declaration out as a profile.

Where each number comes from:

* link rate: the FC speed's nominal rate (``fc_ports.json``) times the
  framing efficiency of full data frames, 2048 / (2048 + 36 + 24): a
  2048-byte payload carries SOF, a 24-byte header, CRC and EOF (36 bytes,
  FC-FS) and at least six idle words (24 bytes) between frames; for 16GFC
  this is the declared ``link_mbps``, the seed's "1600MB/sec 弱" (a little
  under 1600);
* cores per port: ``hbas.json``'s measured board (seed 002 section 2.2
  footnote, Hitachi 16G board), the declared ``cores``;
* per-core capacity: the board's ~300,000 IOPS with both cores at 4 KB
  (section 3.1.1 (1)) divided by its cores, the declared ``core_iops``.

A test holds the declaration and these profile-derived values equal. The 8G
and 32G ports reuse the 16G board's cores and per-core capacity: the seed
measured only 16GFC, so that is an assumption, stated in every answer built
on them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from iosizer.calibration.shipped import hardware_profile
from iosizer.errors import InputError, ProfileError

if TYPE_CHECKING:
    from iosizer.calibration.profile import Profile

#: The board the seed measured; its cores are the default for every speed.
MEASURED_BOARD = "hitachi_16g_fc"
MEASURED_SPEED = "16GFC"


def _named(kind: str, name: str) -> dict[str, Any]:
    items = {item["name"].lower(): item for item in hardware_profile(kind)["items"]}
    key = name.lower()
    if key not in items:
        raise InputError(f"unknown {kind[:-1].replace('_', ' ')} '{name}'; "
                         f"choose one of {', '.join(item['name'] for item in items.values())}")
    return items[key]


def frame_efficiency() -> float:
    """Share of the nominal FC rate that carries data in full frames (declared in the model)."""
    from iosizer.model.hba import FULL_FRAME_EFFICIENCY

    return FULL_FRAME_EFFICIENCY


def port_parameters(speed: str | None = None, cores: int | None = None,
                    core_iops: float | None = None, link_mbps: float | None = None) -> dict[str, Any]:
    """Keyword arguments for :class:`~iosizer.model.hba.FcPort` (``values``) and the port's name
    (``speed``): the shipped port of ``speed`` (None: the speed the seed measured, 16GFC) on the
    measured board, each value given instead where given. 8GFC and 32GFC reuse the 16G board's cores
    and per-core capacity (assumed: only 16GFC was measured)."""
    from iosizer.model.hba import frame_limited_mbps

    port = _named("fc_ports", MEASURED_SPEED if speed is None else speed)
    board = _named("hbas", MEASURED_BOARD)
    try:
        board_cores = int(board["cores_per_port"])
        values: dict[str, Any] = {"link_mbps": frame_limited_mbps(float(port["nominal_mbps"])),
                                  "cores": board_cores,
                                  "core_iops": float(board["iops_4k_shared_both_cores"]) / board_cores}
    except (KeyError, ValueError) as error:
        raise ProfileError(f"shipped FC profiles lack {error}") from None
    for key, given in (("cores", cores), ("core_iops", core_iops), ("link_mbps", link_mbps)):
        if given is not None:
            values[key] = given
    return {"values": values, "speed": port["name"]}


def fc_port(speed: str | None = None, cores: int | None = None,
            core_iops: float | None = None, link_mbps: float | None = None) -> Any:
    """A validated :class:`~iosizer.model.hba.FcPort` from the shipped profiles and overrides."""
    from pydantic import ValidationError

    from iosizer.model.hba import FcPort

    values = port_parameters(speed, cores, core_iops, link_mbps)["values"]
    try:
        return FcPort(**values)
    except ValidationError as error:
        first = error.errors()[0]
        raise InputError(f"{first['loc'][0]}: {first['msg']}, got {first.get('input')!r}") from None


def shipped_profile(family: str = "hba", variant: str | None = None) -> Profile:
    """The ``hba`` family's declared values as a profile (every parameter fixed, no interval).

    ``variant``: an FC speed with a shipped profile (8GFC, 16GFC, 32GFC);
    its link rate, cores and per-core capacity come from :func:`port_parameters`
    (for 16GFC, the declared values). None is the declaration as it stands.
    """
    from iosizer.calibration.profile import declared_profile

    if variant is None:
        return declared_profile("hba")
    described = port_parameters(variant)
    return declared_profile("hba", {"port": described["speed"]}, overrides=described["values"])
