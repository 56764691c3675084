"""Shipped FC-port and HBA-core parameters for :mod:`iosizer.model.hba` (seed 002).

Where each number comes from:

* link rate: the FC speed's nominal rate (``fc_ports.json``: 800 / 1600 /
  3200 MB/s) times the framing efficiency of full data frames, 2048 / (2048
  + 36 + 24): a 2048-byte payload carries SOF, a 24-byte header, CRC and EOF
  (36 bytes, FC-FS) and at least six idle words (24 bytes) between frames.
  16GFC gives 1555 MB/s, the seed's "1600MB/sec 弱" (a little under 1600);
* cores per port: 2 (seed 002 section 2.2 footnote, Hitachi 16G board);
* per-core capacity: the seed's ~300,000 IOPS with both cores at 4 KB
  (section 3.1.1 (1)) divided by the 2 cores: 150,000 IOPS per core.

The 8G and 32G ports reuse the 16G board's cores and per-core capacity:
the seed measured only 16GFC, so that is an assumption, stated in every
answer built on them.
"""

from __future__ import annotations

from typing import Any

from iosizer.calibration.shipped import hardware_profile
from iosizer.errors import InputError, ProfileError

#: Bytes on the wire around one full 2048-byte FC data frame: SOF 4 + header
#: 24 + CRC 4 + EOF 4 (FC-FS-3 section 9) + 6 idle ordered sets of 4 bytes.
FRAME_PAYLOAD_BYTES = 2048
FRAME_OVERHEAD_BYTES = 36 + 24
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


def speeds() -> list[str]:
    """FC speeds with a shipped profile (8GFC, 16GFC, 32GFC)."""
    return [item["name"] for item in hardware_profile("fc_ports")["items"]]


def frame_efficiency() -> float:
    """Share of the nominal FC rate that carries data in full frames."""
    return FRAME_PAYLOAD_BYTES / (FRAME_PAYLOAD_BYTES + FRAME_OVERHEAD_BYTES)


def port_parameters(speed: str = MEASURED_SPEED, cores: int | None = None,
                    core_iops: float | None = None, link_mbps: float | None = None) -> dict[str, Any]:
    """Keyword arguments for :class:`~iosizer.model.hba.FcPort` and where each came from."""
    port = _named("fc_ports", speed)
    board = _named("hbas", MEASURED_BOARD)
    try:
        board_cores = int(board["cores_per_port"])
        per_core = float(board["iops_4k_shared_both_cores"]) / board_cores
        nominal = float(port["nominal_mbps"])
    except (KeyError, ValueError) as error:
        raise ProfileError(f"shipped FC profiles lack {error}") from None
    sources = {
        "link_mbps": (f"{port['name']} nominal {nominal:g} MB/s x frame efficiency "
                      f"{frame_efficiency():.4f} (FC-FS framing)"),
        "cores": f"{board['model']}: {board_cores} cores per port (seed 002 sec 2.2)",
        "core_iops": (f"~{board['iops_4k_shared_both_cores']:,} IOPS at 4 KB with both cores "
                      f"/ {board_cores} (seed 002 sec 3.1.1 (1))"),
    }
    if port["name"] != MEASURED_SPEED:
        sources["cores"] += f"; assumed for {port['name']} (only 16GFC was measured)"
        sources["core_iops"] += f"; assumed for {port['name']}"
    values: dict[str, Any] = {
        "link_mbps": nominal * frame_efficiency(),
        "cores": board_cores,
        "core_iops": per_core,
    }
    for key, given in (("cores", cores), ("core_iops", core_iops), ("link_mbps", link_mbps)):
        if given is not None:
            values[key] = given
            sources[key] = "given"
    return {"values": values, "sources": sources, "speed": port["name"]}


def fc_port(speed: str = MEASURED_SPEED, cores: int | None = None,
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
