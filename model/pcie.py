"""PCIe write path: link bandwidth, unaligned memory accesses, RMW contention (seed 001).

System: seed 001 drives 1-4 FPGAs (PCIe Gen3 x8, MPS 256 B) writing 520 B
sectors (512 B + 8 B T10-DIF) into a Xeon E5-2698 v4; a write that does not
cover a whole 64 B line costs a read-modify-write (RMW) in the root complex.

- Link (PCI Express Base Specification): a transfer of L bytes is
  ceil(L / MPS) TLPs, each its payload + header (+ ECRC) + 8 B framing/DLL
  (0 in Gen6 flit mode, where 236 of 256 flit bytes carry TLPs); Ack and
  UpdateFC DLLPs cost 8 / (L_ack N) of the reverse direction; SKP deducted.
- Unaligned accesses per KiB (table 2) from the back-to-back sector layout,
  exact over the offsets' period 64 / gcd(L, 64).
- RMW contention (section 5): each port is one class of a closed network
  whose population is its posted-write credits (link -> shared RMW unit ->
  memory delay), solved by exact multi-class MVA; ``service_scv`` < 1 by
  the residual-service correction.

The derivations, the comparison with pcie-bench's pcie-model and the
scv correction's error against simulation (within 1e-4 % at cv^2 = 0,
0.2-2.8 % at 0.25-0.5): docs/validation/pcie.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from iosizer.errors import InputError
from iosizer.units import KIB
from iosizer.model.family import (DECLARED_OR_SHIPPED, SIMULATED_SCV, Ask, Column, CpuScaling, Family, FitPlan,
                                  Input, Output, ParameterSpec, Plot, Question, Role, ScenarioTable, Schema,
                                  SimulateOption, Simulation, Sizing, SizingCommand, TableKey, TableRow)
from iosizer.model.mva import SERVICE_SCV

__all__ = [
    "MAX_PORTS_SEARCHED",
    "most_ports_within_loss",
    "AccessPattern",
    "LinkBandwidth",
    "PcieLink",
    "RmwPlatform",
    "RmwResult",
    "access_pattern",
    "ack_limit_symbols",
    "link_bandwidth",
    "link_of",
    "posted_tlps_in_flight",
    "read_split",
    "rmw_throughput",
    "tlp_count",
    "tlp_sizes",
]

#: Per-lane transfer rate (GT/s) and line-code efficiency, by generation.
#: PCIe Base Spec 1.0a/2.0 (8b/10b), 3.0 section 4.2.2 (128b/130b), 4.0, 5.0;
#: 6.0 (64 GT/s PAM4) carries bits 1:1 and pays its overhead in the flit.
GENERATIONS: dict[int, tuple[float, float]] = {
    1: (2.5, 8 / 10),
    2: (5.0, 8 / 10),
    3: (8.0, 128 / 130),
    4: (16.0, 128 / 130),
    5: (32.0, 128 / 130),
    6: (64.0, 1.0),
}
#: Generations that send TLPs in 256-byte flits (Base Spec 6.0, flit mode).
FLIT_GENERATIONS = frozenset({6})
#: Framing and data-link bytes each TLP adds beyond its header, non-flit mode.
#: 8b/10b (Base Spec 2.0 secs 4.2.1-4.2.2, 3.5.2): STP 1 + sequence number 2 +
#: LCRC 4 + END 1 = 8. 128b/130b (Base Spec 3.0 sec 4.2.2.3, framing tokens,
#: the STP token): the 4-symbol STP token carries the TLP length, its parity and
#: the 12-bit sequence number, so STP 4 + LCRC 4 = 8, the same 8 bytes (the
#: sequence number must not be counted twice).
TLP_FRAMING_BYTES = {1: 8, 2: 8, 3: 8, 4: 8, 5: 8, 6: 0}
#: Flit of Base Spec 6.0 (flit mode): 256 bytes = 236 TLP + 6 DLP + 8 CRC + 6 FEC.
FLIT_BYTES = 256
FLIT_TLP_BYTES = 236
#: TLP header: 3 DW (32-bit address) or 4 DW (64-bit address) (Base Spec 2.2).
HEADER_BYTES = {3: 12, 4: 16}
#: Completion header: always 3 DW (Base Spec 2.2.9, figure 2-30).
CPL_HEADER_BYTES = 12
#: End-to-end CRC digest when enabled (Base Spec 2.7).
ECRC_BYTES = 4
#: One DLLP on the wire: 6 B (type, payload, CRC-16) + 2 B framing (SDP + END
#: in 8b/10b, the 2-symbol SDP token in 128b/130b; Base Spec 3.0 sec 4.2.2.3).
DLLP_BYTES = 8
#: SKP ordered-set share of each lane: 4 symbols per 1538 (8b/10b, longest
#: interval) or one 16-symbol set per 372 128b/130b blocks of 16 symbols. Gen6
#: flit mode keeps SKP ordered sets; the 128b/130b share is assumed for it.
SKP_SHARE = {1: 4 / 1538, 2: 4 / 1538, 3: 16 / (372 * 16), 4: 16 / (372 * 16), 5: 16 / (372 * 16),
             6: 16 / (372 * 16)}
#: Memory access granule of the processor: one 64-byte line (seed 001 section 1).
LINE_BYTES = 64
#: Max Payload Sizes the spec allows; Max Read Request Sizes are the same set.
MPS_BYTES = (128, 256, 512, 1024, 2048, 4096)
MRRS_CHOICES = MPS_BYTES
#: Read Completion Boundary: 64 or 128 bytes (Base Spec 2.3.1.1, Link Control RCB bit).
RCB_CHOICES = (64, 128)
LANE_CHOICES = (1, 2, 4, 8, 12, 16, 32)
#: Lanes as the spec's Ack and UpdateFC tables list them (x12 is read from the x8 column, see below).
_TABLE_LANES = (1, 2, 4, 8, 16, 32)
#: Ack transmission latency limit, symbol times, per lanes (rows) and MPS 128..4096
#: (columns): Base Spec 5.0 tables 3-7 (2.5 GT/s), 3-8 (5.0 GT/s) and 3-9 (8.0 GT/s
#: and above). The UpdateFC transmission latency guidelines (5.0 tables 2-46..2-48)
#: carry the same values for every entry but two x32 ones (as pcie-bench's pcie-model
#: transcribes them), so this table serves both. One symbol time on an xN link carries
#: N bytes (one symbol per lane), so an 8-byte DLLP sent once per L symbol times takes
#: 8 / (L N) of that direction. x12 is not transcribed: its x8 entry (longer
#: interval, slightly fewer DLLPs) is used, an assumption.
ACK_LIMIT_SYMBOLS: dict[str, dict[int, tuple[int, ...]]] = {
    "8b10b_2.5": {1: (237, 416, 559, 1071, 2095, 4143), 2: (128, 217, 289, 545, 1057, 2081),
                  4: (73, 118, 154, 282, 538, 1050), 8: (67, 107, 86, 150, 278, 534),
                  16: (48, 72, 86, 150, 278, 534), 32: (33, 45, 52, 84, 148, 276)},
    "8b10b_5.0": {1: (288, 467, 610, 1122, 2146, 4194), 2: (179, 268, 340, 596, 1108, 2132),
                  4: (124, 169, 205, 333, 589, 1101), 8: (118, 158, 137, 201, 329, 585),
                  16: (99, 123, 137, 201, 329, 585), 32: (84, 96, 103, 135, 199, 237)},
    "128b130b": {1: (333, 512, 655, 1167, 2191, 4239), 2: (224, 313, 385, 641, 1153, 2177),
                 4: (169, 214, 250, 378, 634, 1146), 8: (163, 203, 182, 246, 374, 630),
                 16: (144, 168, 182, 246, 374, 630), 32: (129, 141, 148, 180, 244, 372)},
}
_TABLE_OF_GENERATION = {1: "8b10b_2.5", 2: "8b10b_5.0", 3: "128b130b", 4: "128b130b", 5: "128b130b"}
#: Read completions: split at MPS, or at the Read Completion Boundary.
COMPLETION_SPLITS = ("mps", "rcb")
#: Traffic of ``pcie link``: the device's writes, its reads, or both at once.
DIRECTIONS = ("write", "read", "both")


def ack_limit_symbols(generation: int, lanes: int, mps_bytes: int) -> int:
    """The spec's Ack latency limit (= UpdateFC guideline), symbol times; 0 in flit mode.

    Base Spec 5.0 tables 3-7..3-9 (see :data:`ACK_LIMIT_SYMBOLS`): x12 reads the x8 entry.
    """
    if generation in FLIT_GENERATIONS:
        return 0
    row = ACK_LIMIT_SYMBOLS[_TABLE_OF_GENERATION[generation]][8 if lanes == 12 else lanes]
    return row[MPS_BYTES.index(mps_bytes)]


_SEED = "001_d40d32e9911dac6f.txt"
#: The link of seed 001 (table 1: Gen3 x8 FPGAs, MPS 256) and the spec's
#: header and DLLP conventions; every default of :class:`PcieLink` is one of these.
GENERATION = ParameterSpec("generation", "gen", 3, (1, 6), "published", f"{_SEED} table 1: PCIe Gen3",
                           "PCIe generation (6: 64 GT/s flit mode)", kind="setting", integer=True,
                           choices=tuple(range(1, 7)))
LINK_LANES = ParameterSpec("lanes", "lanes", 8, (1, 32), "published", f"{_SEED} table 1: x8 FPGAs",
                           "lanes of the link", kind="setting", integer=True, choices=LANE_CHOICES)
#: The same link lanes, named for the RMW platform where "lanes" is the total over ports.
LANES_PER_PORT = replace(LINK_LANES, name="lanes_per_port", description="lanes of each port's link")
MPS = ParameterSpec("mps_bytes", "bytes", 256, (128, 4096), "published", f"{_SEED} table 1: MPS 256",
                    "Max Payload Size", kind="setting", integer=True, choices=MPS_BYTES)
HEADER_DW = ParameterSpec("header_dw", "DW", 4, (3, 4), "assumed",
                          "64-bit addressing (4 DW header) for memory above 4 GiB; PCIe Base Spec 2.2.1",
                          "TLP header length", kind="setting", integer=True, choices=(3, 4))
ECRC = ParameterSpec("ecrc", "1", 0, (0, 1), "assumed",
                     "end-to-end CRC off, the usual default (PCIe Base Spec 2.7)", "ECRC present (1) or not (0)",
                     kind="setting", integer=True)
MRRS = ParameterSpec("mrrs_bytes", "bytes", 512, (128, 4096), "published",
                     "PCIe Base Spec 3.0 sec 7.8.4, Device Control register: Max_Read_Request_Size "
                     "resets to 010b = 512 bytes",
                     "Max Read Request Size", kind="setting", integer=True, choices=MRRS_CHOICES)
RCB = ParameterSpec("rcb_bytes", "bytes", 64, (64, 128), "published",
                    "PCIe Base Spec 3.0 secs 2.3.1.1 and 7.8.7: a Root Port's Read Completion Boundary "
                    "is 64 B (Link Control RCB bit 0, its reset value) or 128 B",
                    "Read Completion Boundary", kind="setting", integer=True, choices=RCB_CHOICES)
COMPLETIONS = ParameterSpec("completions", "1", "mps", (0, 0), "assumed",
                            "completers return the largest completions allowed (MPS); 'rcb' models one "
                            "that splits every read at the Read Completion Boundary (Base Spec 2.3.1.1)",
                            "how read completions are split: mps or rcb", kind="setting",
                            choices=COMPLETION_SPLITS)
DIRECTION = ParameterSpec("direction", "1", "write", (0, 0), "assumed",
                          f"{_SEED} sec 3: the FPGAs issue posted writes; read and both are what-ifs",
                          "traffic: write, read or both (a read and a write stream of one size)",
                          kind="setting", choices=DIRECTIONS)
DLLPS_PER_TLP = ParameterSpec("dllps_per_tlp", "1", 0.0, (0.0, 16.0), "derived",
                              "the spec's Ack/UpdateFC DLLPs are counted in the direction they travel "
                              "(ack_limit_symbols); this adds extra ones per TLP, none by default",
                              "extra DLLPs sharing the data direction per data TLP, beyond the spec's "
                              "Ack/UpdateFC rates (mixed traffic)")
#: Largest transfer the model describes: one DMA transfer is one I/O, and hosts
#: split larger I/Os before they reach the device (Linux caps a request at the
#: queue's max_hw_sectors_kb, NVMe at its MDTS, SCSI HBAs at a few MiB).
TRANSFER_BYTES = ParameterSpec(
    "transfer_bytes", "bytes", 512, (1, 2**24), "published",
    f"{_SEED} sec 1: 512 B sectors; the upper bound (16 MiB) is assumed: one transfer is one I/O and "
    "hosts split larger I/Os (Linux max_hw_sectors_kb, NVMe MDTS, SCSI HBA limits are all at or below it)",
    "bytes per write transfer", kind="setting", integer=True)
#: Total lanes behind one root complex (the ports that share its RMW unit).
TOTAL_LANES = ParameterSpec(
    "lanes", "lanes", 32, (1, 128), "assumed",
    f"{_SEED} sec 4 measured up to 32 lanes (four x8 FPGAs) on a Xeon E5-2698 v4 (40 lanes, table 1); "
    "the bound 128 is the most lanes one processor socket offers today (AMD EPYC): ports beyond it sit "
    "behind another root complex with its own RMW unit",
    "total PCIe lanes of the ports sharing one root complex's RMW unit", kind="setting", integer=True)
#: A root port's posted-write credits from a public datasheet, for the prediction
#: check (fit the RMW time on one seed-001 figure, predict the other). The
#: E5-2698 v4 datasheet does not list its credits; the earlier IIO's x8 figures
#: are assumed to carry over.
_CREDITS_SOURCE = ("Intel Xeon Processor C5500/C3500 Series Datasheet vol. 1 (323103-001) table 76: an x8 IIO "
                   "root port advertises 32 posted header and 160 posted data credits")
ROOT_PORT_POSTED_HEADER_CREDITS = ParameterSpec(
    "root_port_posted_header_credits", "credits", 32, (1, 4096), "published", _CREDITS_SOURCE,
    "posted request header credits of an x8 root port (one per TLP, PCIe Base Spec 2.6.1)", integer=True)
ROOT_PORT_POSTED_DATA_CREDITS = ParameterSpec(
    "root_port_posted_data_credits", "credits", 160, (1, 4096), "published", _CREDITS_SOURCE,
    "posted request data credits of an x8 root port (one per 16 B of payload, PCIe Base Spec 2.6.1)",
    integer=True)
LINE_SERVICE = ParameterSpec("line_service_ns", "ns", 64 / 68.256, (1e-3, 1e3), "derived",
                             f"{_SEED} table 1: 64 B per line / (DDR4-2133 x 4 channels = 68.3 GB/s)",
                             "memory write path time per whole 64 B line")


#: Service-time variability at the links and the RMW unit: the mva module's declaration, with this
#: family's reason for its value and a range the approximation holds on this network.
RMW_SERVICE_SCV = replace(
    SERVICE_SCV, bounds=(0.0, 1.0),
    source="assumed exponential (cv^2 = 1), the product-form assumption under which MVA is exact and the one "
           f"rmw_service_ns and posted_credits are fitted under ({_SEED} sec 4's 7 % and 38 %). Serialising a TLP "
           "on a link and an RMW are nearly constant in hardware (cv^2 near 0), and at the shipped parameters "
           "the 8-lane loss then vanishes (simulation and SCV_APPROXIMATION agree, module docstring): refit "
           "with --set service_scv=0 to use constant service. Values below 1 apply SCV_APPROXIMATION "
           "(iosizer.model.mva). The bound 1: above it the approximation misses on this network (cv^2 = 2, "
           "8 lanes: loss 5.7 % against 12.1 % simulated, the aligned reference 14 % low; from cv^2 = 3 "
           "some losses turn negative)",
    description="squared coefficient of variation of service times at the links and the RMW unit "
                "(1 exponential, 0 constant); the memory line path is a delay")


#: PcieLink's fields checked against their declarations.
_LINK_FIELD_SPECS = {"lanes": LINK_LANES, "mps_bytes": MPS, "header_dw": HEADER_DW, "mrrs_bytes": MRRS,
                     "rcb_bytes": RCB, "completions": COMPLETIONS}


class PcieLink(BaseModel):
    """One PCIe link's configuration."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    generation: int = Field(GENERATION.value, description="PCIe generation 1..6 (6: flit mode)")
    lanes: int = Field(LINK_LANES.value, description="lane count: 1, 2, 4, 8, 12, 16 or 32")
    mps_bytes: int = Field(MPS.value, description="Max Payload Size, bytes")
    header_dw: int = Field(HEADER_DW.value, description="TLP header: 3 DW (32-bit address) or 4 DW (64-bit)")
    ecrc: bool = bool(ECRC.value)
    dllps_per_tlp: float = Field(DLLPS_PER_TLP.value, ge=0,
                                 description="extra DLLPs sharing this direction per data TLP")
    mrrs_bytes: int = Field(MRRS.value, description="Max Read Request Size, bytes")
    rcb_bytes: int = Field(RCB.value, description="Read Completion Boundary, bytes")
    completions: str = Field(COMPLETIONS.value, description="read completions split at 'mps' or 'rcb'")

    @field_validator("generation")
    @classmethod
    def _generation(cls, value: int) -> int:
        if value not in GENERATIONS:
            raise ValueError(f"generation must be one of 1..6, got {value}")
        return value

    @field_validator("lanes", "mps_bytes", "header_dw", "mrrs_bytes", "rcb_bytes", "completions")
    @classmethod
    def _declared(cls, value: Any, info: Any) -> Any:
        """Inside the setting's declared values (an InputError is a ValueError: pydantic reports it)."""
        return _LINK_FIELD_SPECS[info.field_name].check(value, info.field_name)

    @property
    def flit_mode(self) -> bool:
        return self.generation in FLIT_GENERATIONS

    @property
    def raw_gbyte_s(self) -> float:
        """Line rate after encoding, GB/s (gigabytes per second): GT/s x lanes x efficiency / 8."""
        rate, efficiency = GENERATIONS[self.generation]
        return rate * self.lanes * efficiency / 8.0

    @property
    def raw_gbps(self) -> float:
        """Deprecated name of :attr:`raw_gbyte_s` (it reads as gigabits)."""
        return self.raw_gbyte_s

    def _overhead(self, header_bytes: int) -> int:
        return header_bytes + (ECRC_BYTES if self.ecrc else 0) + TLP_FRAMING_BYTES[self.generation]

    @property
    def tlp_overhead_bytes(self) -> int:
        """Wire bytes each request TLP (MWr, MRd) adds to its payload: header + ECRC + 8 B framing/DLL.

        8 B in 8b/10b and 128b/130b alike (:data:`TLP_FRAMING_BYTES`); 0 B in flit mode, where the
        flit's DLP, CRC and FEC bytes replace per-TLP framing and LCRC (counted in :attr:`tlp_gbyte_s`).
        """
        return self._overhead(HEADER_BYTES[self.header_dw])

    @property
    def cpl_overhead_bytes(self) -> int:
        """Wire bytes each completion with data (CplD, 3 DW header) adds to its payload."""
        return self._overhead(CPL_HEADER_BYTES)

    @property
    def tlp_gbyte_s(self) -> float:
        """Bandwidth one direction leaves for TLP bytes, GB/s: raw x (1 - SKP share), x 236/256 in flit mode."""
        flit = FLIT_TLP_BYTES / FLIT_BYTES if self.flit_mode else 1.0
        return self.raw_gbyte_s * (1.0 - SKP_SHARE[self.generation]) * flit

    @property
    def completion_bytes(self) -> int:
        """Largest completion payload: MPS, or the RCB when completions are split at it."""
        return min(self.mps_bytes, self.rcb_bytes) if self.completions == "rcb" else self.mps_bytes

    @property
    def dllp_rate_per_ns(self) -> float:
        """Ack plus UpdateFC DLLPs per ns that a direction receiving TLPs sends back, at most.

        One of each per L symbol times (L = :func:`ack_limit_symbols`); one symbol time moves one byte
        per lane, i.e. ``lanes`` bytes of the encoded stream, so the rate is 2 raw / (L lanes) per ns
        (GB/s = bytes per ns). 0 in flit mode: DLLPs travel in each flit's 6 DLP bytes.
        """
        limit = ack_limit_symbols(self.generation, self.lanes, self.mps_bytes)
        return 0.0 if limit == 0 else 2.0 * self.raw_gbyte_s / (limit * self.lanes)


def _check_transfer(transfer_bytes: int, mps_bytes: int) -> int:
    if transfer_bytes < 1 or int(transfer_bytes) != transfer_bytes:
        raise InputError(f"transfer_bytes must be a whole number >= 1, got {transfer_bytes}")
    if mps_bytes not in MPS_BYTES:
        raise InputError(f"Max Payload Size must be one of {MPS_BYTES}, got {mps_bytes}")
    return int(transfer_bytes)


def tlp_count(transfer_bytes: int, mps_bytes: int) -> int:
    """TLPs of one transfer cut at MPS: ceil(transfer / MPS)."""
    return -(-_check_transfer(transfer_bytes, mps_bytes) // mps_bytes)


def tlp_sizes(transfer_bytes: int, mps_bytes: int) -> list[int]:
    """A transfer cut into TLP payloads of at most MPS, from its own start.

    The list has one entry per TLP, so the transfer must be one a host can
    issue (``TRANSFER_BYTES.bounds``); :func:`tlp_count` and
    :func:`access_pattern` need no list and take any size.
    """
    size = _check_transfer(transfer_bytes, mps_bytes)
    TRANSFER_BYTES.check(size, "transfer_bytes")
    full, tail = divmod(size, mps_bytes)
    return [mps_bytes] * full + ([tail] if tail else [])


def posted_tlps_in_flight(transfer_bytes: int, mps_bytes: int,
                          header_credits: float = ROOT_PORT_POSTED_HEADER_CREDITS.value,
                          data_credits: float = ROOT_PORT_POSTED_DATA_CREDITS.value) -> float:
    """Posted TLPs a receiver's credits admit for a stream of ``transfer_bytes`` writes (TLPs).

    Each TLP takes one header credit and ceil(payload / 16 B) data credits
    (PCIe Base Spec 2.6.1), so with the transfer's TLP mix the limit is
    min(header credits, data credits / mean data credits per TLP). Datasheet
    x8 root port (32, 160) at MPS 256: 10 full TLPs; 520 B writes (256, 256
    and 8 B TLPs, 11 data credits each on average): 14.5.
    """
    sizes = tlp_sizes(transfer_bytes, mps_bytes)
    per_tlp = sum(-(-size // 16) for size in sizes) / len(sizes)
    return min(float(header_credits), float(data_credits) / per_tlp)


@dataclass(frozen=True)
class LinkBandwidth:
    """Payload bandwidth of a stream of transfers and how each direction of the link is used.

    ``tx`` is the device's (requester's) transmit direction: writes (MWr) and read
    requests (MRd); ``rx`` its receive direction: read completions (CplD). Every
    bandwidth is in GB/s (gigabytes per second); ``raw_gbps`` and ``effective_gbps``
    are the deprecated old names of the ``_gbyte_s`` fields (they read as gigabits).
    """

    raw_gbyte_s: float
    effective_gbyte_s: float
    tlps_per_transfer: int
    efficiency_pct: float
    wire_bytes_per_transfer: int
    direction: str = "write"
    read_requests_per_transfer: int = 0
    completions_per_transfer: int = 0
    tx_utilization: float = 0.0
    rx_utilization: float = 0.0
    tx_dllp_share_pct: float = 0.0
    rx_dllp_share_pct: float = 0.0

    @property
    def effective_gbit_s(self) -> float:
        return self.effective_gbyte_s * 8.0

    @property
    def raw_gbps(self) -> float:
        """Deprecated name of ``raw_gbyte_s`` (it reads as gigabits)."""
        return self.raw_gbyte_s

    @property
    def effective_gbps(self) -> float:
        """Deprecated name of ``effective_gbyte_s`` (it reads as gigabits)."""
        return self.effective_gbyte_s


def read_split(link: PcieLink, transfer_bytes: int) -> tuple[int, int]:
    """(MRd requests, CplD completions) of one read of ``transfer_bytes``.

    Requests are cut at MRRS from the transfer's start; each request of r bytes
    is answered by ceil(r / c) completions, c = MPS or the RCB
    (:attr:`PcieLink.completion_bytes`), the start assumed aligned (Base Spec 2.3.1.1).
    """
    size = _check_transfer(transfer_bytes, link.mps_bytes)
    full, tail = divmod(size, link.mrrs_bytes)
    per = link.completion_bytes
    return full + (1 if tail else 0), full * -(-link.mrrs_bytes // per) + -(-tail // per)


def _units_per_ns(capacity: float, tlp_bytes: float, opposite_tlps: float, dllp_cap: float) -> float:
    """Largest rate R (units per ns) with R B + 8 (Ack + UpdateFC) <= C on one direction.

    The other direction's R n TLPs are answered by at most one Ack and one
    UpdateFC each, and at least once per the spec's latency limit: DLLPs per ns
    = 2 min(R n, r), r = ``dllp_cap`` / 2 (:attr:`PcieLink.dllp_rate_per_ns`).
    Solved in closed form on the two pieces of the min.
    """
    if tlp_bytes <= 0:
        return math.inf
    each = dllp_cap / 2.0
    rate = capacity / (tlp_bytes + 2 * DLLP_BYTES * opposite_tlps)
    if rate * opposite_tlps <= each:
        return rate
    return (capacity - 2 * DLLP_BYTES * each) / tlp_bytes


def link_bandwidth(link: PcieLink, transfer_bytes: int, direction: str = "write",
                   dllps: bool = True) -> LinkBandwidth:
    """Payload bandwidth of back-to-back transfers of ``transfer_bytes`` (closed form).

    One unit is a write (n_w = ceil(L / MPS) MWr TLPs on tx), a read (n_r MRd on
    tx, n_c CplD on rx, :func:`read_split`) or both (one of each, 2 L of
    payload). Per direction, with C = :attr:`PcieLink.tlp_gbyte_s`:

        tx bytes per unit = L_w + n_w o + n_r o       (o = header + ECRC + 8 B framing/DLL)
        rx bytes per unit = L_r + n_c o_cpl           (o_cpl = 12 B CplD header + ECRC + 8 B)

    and each direction also carries the Ack and UpdateFC DLLPs of the other
    direction's TLPs (:func:`_units_per_ns`; ``dllps=False`` sets them aside).
    The rate is the smaller of the two directions' and
    effective = rate x payload; efficiency = effective / (raw x directions counted).
    ``dllps_per_tlp`` adds 8 B per TLP to each TLP's own direction (mixed traffic).
    """
    size = _check_transfer(transfer_bytes, link.mps_bytes)
    if direction not in DIRECTIONS:
        raise InputError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    writes = direction in ("write", "both")
    reads = direction in ("read", "both")
    n_w = tlp_count(size, link.mps_bytes) if writes else 0
    n_r, n_c = read_split(link, size) if reads else (0, 0)
    extra = link.dllps_per_tlp * DLLP_BYTES
    tx_tlps, rx_tlps = n_w + n_r, n_c
    tx_bytes = (size if writes else 0) + tx_tlps * (link.tlp_overhead_bytes + extra)
    rx_bytes = (size if reads else 0) + rx_tlps * (link.cpl_overhead_bytes + extra)
    cap = link.tlp_gbyte_s
    dllp_cap = link.dllp_rate_per_ns if dllps else 0.0
    rate = min(_units_per_ns(cap, tx_bytes, rx_tlps, dllp_cap), _units_per_ns(cap, rx_bytes, tx_tlps, dllp_cap))
    payload = size * (2 if direction == "both" else 1)
    effective = rate * payload

    def dllp_share(opposite: int) -> float:
        return 2 * DLLP_BYTES * min(rate * opposite, dllp_cap / 2.0) / cap * 100.0

    counted = 2 if direction == "both" else 1
    return LinkBandwidth(
        link.raw_gbyte_s, effective, n_w + n_c, effective / (link.raw_gbyte_s * counted) * 100.0,
        int(round(tx_bytes + rx_bytes)), direction, n_r, n_c,
        rate * tx_bytes / cap + dllp_share(rx_tlps) / 100.0, rate * rx_bytes / cap + dllp_share(tx_tlps) / 100.0,
        dllp_share(rx_tlps), dllp_share(tx_tlps))


def _partial_lines(start: int, end: int) -> int:
    """Lines of ``LINE_BYTES`` that [start, end) touches without covering."""
    partial = 0
    if start % LINE_BYTES:
        partial += 1
    if end % LINE_BYTES and (end // LINE_BYTES != start // LINE_BYTES or start % LINE_BYTES == 0):
        partial += 1  # a tail in another line than a partial head
    return partial


@dataclass(frozen=True)
class AccessPattern:
    """Memory accesses of a stream of transfers as a storage controller lays them out."""

    transfer_bytes: int
    mps_bytes: int
    unaligned_per_transfer: float
    full_lines_per_transfer: float
    tlps_per_transfer: float
    layout: str
    #: TLP boundaries inside a 64 B line per transfer: two consecutive TLPs of the stream that
    #: both partially write one line (see :attr:`shared_line_boundaries_per_kib`).
    shared_line_boundaries_per_transfer: float = 0.0

    @property
    def tlp_bytes(self) -> tuple[int, ...]:
        """Each TLP's payload (one entry per TLP: see :func:`tlp_sizes` for the size bound)."""
        return tuple(tlp_sizes(self.transfer_bytes, self.mps_bytes))

    @property
    def unaligned_per_kib(self) -> float:
        return self.unaligned_per_transfer / self.transfer_bytes * KIB

    @property
    def shared_line_boundaries_per_kib(self) -> float:
        """Consecutive TLPs meeting inside a 64 B line, per KiB of transfers.

        Each such pair writes parts of one line back to back, and Intel's
        optimization manual ("Maximizing PCIe performance") warns that
        concurrent accesses to one cache line serialise and that a partial
        write may delay the requests behind it: a per-port cost that the
        shared RMW unit of :func:`rmw_throughput` does not carry. 520 B at
        MPS 256: 5.17 per KiB (21 of the 24 TLP ends in one 8-transfer cycle).
        """
        return self.shared_line_boundaries_per_transfer / self.transfer_bytes * KIB

    @property
    def unaligned_per_tlp(self) -> float:
        return self.unaligned_per_transfer / self.tlps_per_transfer

    @property
    def full_lines_per_tlp(self) -> float:
        return self.full_lines_per_transfer / self.tlps_per_transfer

    @property
    def payload_per_tlp(self) -> float:
        return self.transfer_bytes / self.tlps_per_transfer


def _lines_of_transfer(offset: int, transfer_bytes: int, mps_bytes: int) -> tuple[int, int]:
    """(partial, whole) 64 B lines one transfer starting ``offset`` bytes into a line touches.

    Every TLP starts at the same offset in its line, since MPS is a multiple
    of 64: a full TLP touches 2 partial lines and MPS/64 - 1 whole ones when
    unaligned, none and MPS/64 when aligned; the tail TLP is counted directly.
    Closed form: no loop over the TLPs.
    """
    full, tail = divmod(transfer_bytes, mps_bytes)
    per_mps = mps_bytes // LINE_BYTES
    partial = full * (2 if offset else 0)
    whole = full * (per_mps - (1 if offset else 0))
    if tail:
        partial += _partial_lines(offset, offset + tail)
        whole += max((offset + tail) // LINE_BYTES - -(-offset // LINE_BYTES), 0)
    return partial, whole


def _shared_line_ends(offset: int, transfer_bytes: int, mps_bytes: int) -> int:
    """TLP ends of one transfer (starting ``offset`` into a line) that fall inside a line.

    The stream is contiguous, so every TLP end is the next TLP's start; a
    full TLP ends at ``offset`` in its line (MPS is a multiple of 64) and the
    tail at ``offset + tail``. Closed form, like :func:`_lines_of_transfer`.
    """
    full, tail = divmod(transfer_bytes, mps_bytes)
    ends = full if offset % LINE_BYTES else 0
    if tail and (offset + tail) % LINE_BYTES:
        ends += 1
    return ends


@lru_cache(maxsize=256)
def access_pattern(transfer_bytes: int, mps_bytes: int = MPS.value, split_at_line: bool = False) -> AccessPattern:
    """Unaligned and whole-line accesses per transfer, averaged over the alignment cycle.

    Transfer i starts at byte i L, so the offsets in a 64 B line repeat with
    period 64 / gcd(L, 64) transfers (at most 64); each transfer is counted in
    closed form (:func:`_lines_of_transfer`), so any size costs the same.

    ``split_at_line``: the device buffers the stream and cuts its writes at
    64-byte address boundaries (seed 001 section 5, second mitigation): every
    write then covers whole lines and TLPs are MPS-sized pieces of the
    continuous stream.
    """
    size = _check_transfer(transfer_bytes, mps_bytes)
    if split_at_line:
        return AccessPattern(size, mps_bytes, 0.0, size / LINE_BYTES, size / mps_bytes, "split-at-64")
    period = LINE_BYTES // math.gcd(size, LINE_BYTES)
    unaligned = 0
    full = 0
    shared = 0
    for i in range(period):
        offset = i * size % LINE_BYTES
        partial, whole = _lines_of_transfer(offset, size, mps_bytes)
        unaligned += partial
        full += whole
        shared += _shared_line_ends(offset, size, mps_bytes)
    return AccessPattern(size, mps_bytes, unaligned / period, full / period,
                         float(tlp_count(size, mps_bytes)), "packed", shared / period)


#: UpdateFC's latency as the credit-return time of a posted-write loop: the spec's
#: UpdateFC transmission guideline for Gen3 x8 at MPS 256 is 203 symbol times
#: (:func:`ack_limit_symbols`), and one symbol time at 8 GT/s is 8 UI of 0.125 ns.
CREDIT_RETURN = ParameterSpec(
    "credit_return_ns", "ns", float(ack_limit_symbols(3, 8, 256)) * 1.0, (0.0, 1e4), "published",
    "PCI Express Base Specification 3.0 tables 2-46..2-48 (UpdateFC transmission latency guideline, Gen3 x8, "
    "MPS 256: 203 symbol times; 1 ns each at 8 GT/s)",
    "time for a posted TLP's credits to return to its port after its write (a delay in the credit loop)")


class RmwPlatform(BaseModel):
    """Root complex with a shared RMW unit and ports of posted-write credit loops."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    link: PcieLink = PcieLink()
    rmw_service_ns: float = Field(gt=0, description="RMW unit time per unaligned access, ns")
    posted_credits: float = Field(ge=1, description="TLPs a port keeps in flight (its credit loop)")
    line_service_ns: float = Field(
        LINE_SERVICE.value, gt=0,
        description="memory write path per whole 64 B line, ns (DDR4-2133 x 4 channels = 68.3 GB/s, "
                    "seed 001 table 1)",
    )
    credit_return_ns: float = Field(
        0.0, ge=CREDIT_RETURN.bounds[0], le=CREDIT_RETURN.bounds[1],
        description="time from a TLP's memory write to its credits back at the port (CREDIT_RETURN), ns; "
                    "0 in the shipped fit",
    )
    service_scv: float = Field(
        RMW_SERVICE_SCV.value, ge=RMW_SERVICE_SCV.bounds[0], le=RMW_SERVICE_SCV.bounds[1],
        description="service-time scv at the links and the RMW unit (1 exponential: exact MVA; "
                    "others: SCV_APPROXIMATION); the line path is a delay",
    )


@dataclass(frozen=True)
class RmwResult:
    """Per lane count: total throughput, the aligned reference and the loss."""

    lanes: np.ndarray
    ports: np.ndarray
    throughput_gbyte_s: np.ndarray
    aligned_throughput_gbyte_s: np.ndarray
    loss_pct: np.ndarray
    rmw_utilization: np.ndarray

    @property
    def throughput_gbps(self) -> np.ndarray:
        """Deprecated name of :attr:`throughput_gbyte_s` (GB/s; it reads as gigabits)."""
        return self.throughput_gbyte_s

    @property
    def aligned_throughput_gbps(self) -> np.ndarray:
        """Deprecated name of :attr:`aligned_throughput_gbyte_s`."""
        return self.aligned_throughput_gbyte_s


def _port_throughputs(
    platform: RmwPlatform, pattern: AccessPattern, ports: int, credits: int
) -> float:
    """TLPs per ns of all ports together (exact multi-class MVA, one class per port)."""
    from iosizer.model.mva import mva_multiclass

    link_ns = (pattern.payload_per_tlp + platform.link.tlp_overhead_bytes
               + platform.link.dllps_per_tlp * DLLP_BYTES) / platform.link.tlp_gbyte_s
    rmw_ns = pattern.unaligned_per_tlp * platform.rmw_service_ns
    line_ns = pattern.full_lines_per_tlp * platform.line_service_ns
    line_ns += platform.credit_return_ns  # a delay too: credits come back after the write (UpdateFC)
    # Stations: one link per port, then the shared RMW unit and line path.
    demands = np.zeros((ports, ports + 2))
    demands[np.arange(ports), np.arange(ports)] = link_ns
    demands[:, ports] = rmw_ns
    demands[:, ports + 1] = line_ns
    # The line path is a delay: 64 B x 4 DDR4-2133 channels (68 GB/s) carry
    # four x8 ports at about 40 % utilisation, and sharing it would make the
    # aligned reference itself degrade with ports; the RMW unit is the
    # contended resource of section 5.
    servers = [1.0] * (ports + 1) + [math.inf]
    result = mva_multiclass(demands, np.zeros(ports), np.full(ports, credits), servers, method="auto",
                            service_scv=platform.service_scv)
    return float(np.sum(result.throughput))


def rmw_throughput(platform: RmwPlatform, pattern: AccessPattern, lanes: object) -> RmwResult:
    """Write throughput at each total lane count (ports = lanes / lanes per port).

    ``aligned_throughput_gbyte_s`` is the same transfers with their RMW demand
    removed (the link-limited reference), at the platform's ``service_scv``
    too, so ``loss_pct`` isolates the RMW contention and is never negative
    (with ``service_scv`` < 1, where the approximation is used, held over
    [0, 1] in tests to rounding: 1e-13 points where both sit on a bound).
    """
    lane_counts = np.atleast_1d(np.asarray(lanes))
    per_port = platform.link.lanes
    if np.any(lane_counts % per_port) or np.any(lane_counts < per_port):
        raise InputError(f"lanes must be whole multiples of {per_port} (one x{per_port} port each), got {lanes}")
    # The reference is the same traffic without its RMW demand: removing a
    # demand never lowers a product-form network's throughput, so loss >= 0
    # (nor a real FCFS network's, whose completion times are monotone in
    # service times; the residual-service correction keeps it for cv^2 <= 1).
    aligned_pattern = AccessPattern(pattern.transfer_bytes, pattern.mps_bytes, 0.0,
                                    pattern.full_lines_per_transfer, pattern.tlps_per_transfer, pattern.layout)
    credits = platform.posted_credits
    low, high = math.floor(credits), math.ceil(credits)
    weight = credits - low
    out = {k: [] for k in ("throughput", "aligned", "utilization")}
    for total in lane_counts:
        ports = int(total // per_port)

        def interpolated(p: AccessPattern) -> float:
            at_low = _port_throughputs(platform, p, ports, low)
            return at_low if high == low else (1 - weight) * at_low + weight * _port_throughputs(platform, p, ports, high)

        tlps_per_ns = interpolated(pattern)
        aligned = interpolated(aligned_pattern)
        out["throughput"].append(tlps_per_ns * pattern.payload_per_tlp)
        out["aligned"].append(aligned * pattern.payload_per_tlp)
        out["utilization"].append(tlps_per_ns * pattern.unaligned_per_tlp * platform.rmw_service_ns)
    throughput = np.array(out["throughput"])  # bytes per ns = GB/s
    aligned = np.array(out["aligned"])
    return RmwResult(
        lanes=lane_counts.astype(int),
        ports=(lane_counts // per_port).astype(int),
        throughput_gbyte_s=throughput,
        aligned_throughput_gbyte_s=aligned,
        loss_pct=(aligned - throughput) / aligned * 100.0,
        rmw_utilization=np.array(out["utilization"]),
    )


# --- family declarations: pcie-link and rmw -------------------------------------------


def _link(values, lanes: str = "lanes") -> PcieLink:
    return PcieLink(generation=values["generation"], lanes=values[lanes], mps_bytes=values["mps_bytes"],
                    header_dw=values["header_dw"], ecrc=bool(values["ecrc"]),
                    dllps_per_tlp=values["dllps_per_tlp"], mrrs_bytes=values.get("mrrs_bytes", MRRS.value),
                    rcb_bytes=values.get("rcb_bytes", RCB.value))


def _link_solve(values, inputs):
    """The family's solve (what calibration fits): back-to-back writes, :func:`_link_question`'s bandwidth."""
    return {"write_gbyte_s": _link_question({**values, "direction": "write"}, inputs)["effective_gbyte_s"]}


def _rmw_solve(values, inputs):
    """The family's solve (what calibration fits): :func:`_rmw_question`'s loss, no mitigation."""
    return {"loss_pct": _rmw_question({**values, "mitigation": "none"}, inputs)["loss_pct"]}


def _link_start(data, settings):
    """Start with the spec's one-way write stream (no DLLPs in the data direction)."""
    return {"dllps_per_tlp": 0.5}


def _rmw_start(data, settings):
    """Start below 2 credits: with service_scv < 1 the loss at few ports is flat zero in the credits
    once the link saturates (from about 2 credits at cv^2 = 0), so a start there has no gradient; from
    1.5 the fit reaches the same root at cv^2 = 1 as from 4 (seed 001: 6.630 ns, 2.611 credits)."""
    return {"rmw_service_ns": 5.0, "posted_credits": 1.5}



# --- the questions: pcie link, pcie pattern, pcie rmw ----------------------------------

#: A planner's what-ifs beside the link settings: the traffic, how completions split, the device's
#: 64-byte cut and the RMW mitigations of section 5.
SPLIT_AT_64 = ParameterSpec("split_at_64", "1", 0, (0, 1), "assumed",
                            f"{_SEED} sec 5, second mitigation: off unless the device buffers its writes",
                            "the device cuts writes at 64-byte boundaries (1) or not (0)", kind="setting",
                            integer=True)
MITIGATIONS = ("none", "gather-dif", "split-at-64")
MITIGATION = ParameterSpec("mitigation", "1", "none", (0, 0), "assumed",
                           f"{_SEED} sec 5: gather the DIFs at the end (pattern F) or split writes at 64-byte "
                           "boundaries in a device buffer; none unless asked",
                           "RMW mitigation compared with the plain pattern: none, gather-dif or split-at-64",
                           kind="setting", choices=MITIGATIONS)
#: Seed 001 table 2's cases by letter (the published rows: data/measurements/seed001_table2_patterns.csv,
#: held equal to this by tests/model/test_pcie_questions.py): a transfer size may be named by its case.
TABLE2_CASES = {"A": 512, "B": 520, "C": 1040, "D": 2080, "E": 4104, "F": 4160}
#: The case the section-4 losses belong to (the highest unaligned frequency), the rmw question's default.
WORST_CASE_BYTES = TABLE2_CASES["B"]
#: Total lanes seed 001 section 4 measured (1-4 x8 FPGAs): the rmw question's default sweep (tests hold it
#: equal to data/measurements/seed001_sec4_losses.csv).
MEASURED_LANES = (8, 16, 24, 32)
_WHOLE = frozenset({"tlps_per_transfer", "tlp_overhead_bytes", "cpl_overhead_bytes", "read_requests_per_transfer",
                    "completions_per_transfer", "ports"})


def _whole(row: dict, keys: tuple[str, ...]) -> dict:
    """``keys`` of a generic record, whole counts as int (the record holds every number as a float)."""
    return {k: _value(row, k) for k in keys}


def _value(row: dict, key: str) -> Any:
    return int(row[key]) if key in _WHOLE and row[key] is not None else row[key]


def link_of(values) -> PcieLink:
    """The link of a family's values (settings by name; the link's own lanes)."""
    return _link(values).model_copy(update={"completions": values.get("completions", COMPLETIONS.value)})


_LINK_OUT = ("raw_gbyte_s", "effective_gbyte_s", "effective_gbit_s", "tlps_per_transfer", "efficiency_pct",
             "read_requests_per_transfer", "completions_per_transfer", "tx_utilization", "rx_utilization",
             "tx_dllp_share_pct", "rx_dllp_share_pct")


def _link_question(values, inputs):
    """``pcie link``: :func:`link_bandwidth` at each transfer size."""
    link = link_of(values)
    sizes = np.asarray(inputs["transfer_bytes"])
    found = [link_bandwidth(link, int(size), values.get("direction", DIRECTION.value)) for size in sizes.ravel()]
    out = {k: np.asarray([getattr(f, k) for f in found], dtype=np.float64).reshape(sizes.shape) for k in _LINK_OUT}
    out["tlp_overhead_bytes"] = np.full(sizes.shape, float(link.tlp_overhead_bytes))
    out["cpl_overhead_bytes"] = np.full(sizes.shape, float(link.cpl_overhead_bytes))
    return out


#: ``pcie link``'s published keys in order: the link used (from the values), the transfer, the answer, the
#: deprecated ``*_gbps`` names beside their ``_gbyte_s`` keys, the effective bandwidth's band last.
_LINK_USED = ("generation", "lanes", "mps_bytes", "direction", "mrrs_bytes", "rcb_bytes", "completions")
_LINK_KEYS = (*_LINK_USED[:3], "transfer_bytes", *_LINK_USED[3:], *_LINK_OUT[:3], "raw_gbps", "effective_gbps",
              *_LINK_OUT[3:5], "tlp_overhead_bytes", "cpl_overhead_bytes", *_LINK_OUT[5:],
              "effective_gbyte_s_ci_low", "effective_gbyte_s_ci_high")
_OLD_LINK_KEYS = {"raw_gbps": "raw_gbyte_s", "effective_gbps": "effective_gbyte_s"}


def _link_shape(records, values):
    """The published ``pcie link`` record (:data:`_LINK_KEYS`)."""
    return [{k: values[k] if k in _LINK_USED else _value(row, _OLD_LINK_KEYS.get(k, k))
             for k in _LINK_KEYS if k in _LINK_USED or _OLD_LINK_KEYS.get(k, k) in row} for row in records]


def _link_notes(values, outputs):
    link = link_of(values)
    limit = ack_limit_symbols(link.generation, link.lanes, link.mps_bytes)
    return (f"per TLP: {link.tlp_overhead_bytes} B (MWr/MRd) or {link.cpl_overhead_bytes} B (CplD) of header, DLL "
            "and framing; SKP ordered sets deducted\n"
            "tx = the device's transmit side (MWr, MRd), rx = its receive side (CplD); each carries the other's "
            "Ack/UpdateFC DLLPs"
            + (f" (one of each per {limit} symbol times at most, 8 B each over {link.lanes} lanes)" if limit else
               " (flit mode: in each flit's DLP bytes; 236 of 256 flit bytes carry TLPs)"))


def _both_note(values, outputs):
    if values.get("direction") == "both":
        return "both: a read and a write of the same size; efficiency over both directions' capacity"
    return None


def _pattern_question(values, inputs):
    """``pcie pattern``: :func:`access_pattern` at each transfer size, with table 2's published value where the
    size is one of its cases at the seed's MPS (``values['table2']``: case -> published per KiB, from the
    shipped measurement)."""
    sizes = np.asarray(inputs["transfer_bytes"])
    split = bool(values.get("split_at_64", 0))
    found = [access_pattern(int(size), int(values["mps_bytes"]), split) for size in sizes.ravel()]
    published = values.get("table2", {}) if not split and values["mps_bytes"] == MPS.value else {}
    cases = {size: case for case, size in TABLE2_CASES.items() if case in published}

    def column(get, dtype=np.float64):
        return np.asarray([get(f) for f in found], dtype=dtype).reshape(sizes.shape)

    return {"tlp_bytes": [f.tlp_bytes for f in found],
            "unaligned_per_kib": column(lambda f: f.unaligned_per_kib),
            "unaligned_per_transfer": column(lambda f: f.unaligned_per_transfer),
            "full_lines_per_transfer": column(lambda f: f.full_lines_per_transfer),
            "layout": column(lambda f: f.layout, object),
            "table2_case": column(lambda f: cases.get(f.transfer_bytes, ""), object),
            "table2_unaligned_per_kib": column(lambda f: published.get(cases.get(f.transfer_bytes), math.nan))}


def _pattern_shape(records, values):
    """The published ``pcie pattern`` record: each TLP's payload listed, table 2's case only where it is one."""
    shaped = []
    for row in records:
        size, mps = row["transfer_bytes"], values["mps_bytes"]
        out = {"transfer_bytes": size, "mps_bytes": mps, "tlp_bytes": [int(b) for b in row["tlp_bytes"]]}
        out.update(_whole(row, ("unaligned_per_kib", "unaligned_per_transfer", "full_lines_per_transfer", "layout")))
        if row["table2_case"]:
            out.update(table2_case=row["table2_case"], table2_unaligned_per_kib=row["table2_unaligned_per_kib"])
        shaped.append(out)
    return shaped


def _table2_note(values, outputs):
    cases = [c for c in outputs["table2_case"] if c]
    if not cases:
        return None
    composition = values.get("table2_composition", {})
    return "; ".join(f"seed 001 table 2 case ({c}) {composition.get(c, '')}: "
                     f"{values['table2'][c]:.2f} per kB (1 kB = 1024 B)" for c in dict.fromkeys(cases))


def _rmw_platform(values) -> RmwPlatform:
    return RmwPlatform(link=_link(values, "lanes_per_port"), rmw_service_ns=values["rmw_service_ns"],
                       posted_credits=values["posted_credits"], line_service_ns=values["line_service_ns"],
                       service_scv=values.get("service_scv", RMW_SERVICE_SCV.value))


def gathered_transfer_bytes(transfer_bytes: int) -> int:
    """Pattern F generalised: the fewest whole transfers, DIFs gathered at the end, whose size is a multiple of
    the 64 B line (8 x 520 = 4160)."""
    return transfer_bytes * (LINE_BYTES // math.gcd(transfer_bytes, LINE_BYTES))


def _mitigated(size: int, mps: int, mitigation: str) -> AccessPattern:
    """Section 5's mitigations: the DIFs gathered at the end, or writes cut at 64 B in a device buffer."""
    if mitigation == "gather-dif":
        return access_pattern(gathered_transfer_bytes(size), mps)
    return access_pattern(size, mps, split_at_line=True)


def _rmw_question(values, inputs):
    """``pcie rmw``: :func:`rmw_throughput` at each (lanes, transfer size), the chosen mitigation beside it, and
    where service_scv is not 1 the correction's error measured against simulation (the shipped grid
    rmw_service_scv), NaN where no point of a size exceeds :data:`ERROR_RULE_PCT` (% or points)."""
    from iosizer.data.error_grids import ERROR_RULE_PCT, load
    from iosizer.model.percentiles import percentile_approximation_error

    platform = _rmw_platform(values)
    lanes, sizes = np.asarray(inputs["lanes"]), np.asarray(inputs["transfer_bytes"])
    names = ("ports", "throughput_gbyte_s", "aligned_throughput_gbyte_s", "loss_pct", "rmw_utilization",
             "mitigated_throughput_gbyte_s", "recovered_gbyte_s", "mitigated_loss_pct", "throughput_error_pct",
             "loss_error_points")
    out = {k: np.full(lanes.shape, np.nan) for k in names}
    mps, mitigation = int(values["mps_bytes"]), values.get("mitigation", MITIGATION.value)
    grid = load("rmw_service_scv") if platform.service_scv != 1 else None
    for size in np.unique(sizes):
        at = sizes == size
        base = rmw_throughput(platform, access_pattern(int(size), mps), lanes[at].astype(int))
        for key in ("ports", "throughput_gbyte_s", "aligned_throughput_gbyte_s", "loss_pct", "rmw_utilization"):
            out[key][at] = getattr(base, key)
        if mitigation != "none":
            fixed = rmw_throughput(platform, _mitigated(int(size), mps, mitigation), lanes[at].astype(int))
            out["mitigated_throughput_gbyte_s"][at] = fixed.throughput_gbyte_s
            out["recovered_gbyte_s"][at] = fixed.throughput_gbyte_s - base.throughput_gbyte_s
            out["mitigated_loss_pct"][at] = fixed.loss_pct
        if grid is not None:
            query = [{"transfer_bytes": float(size), "lanes": float(n), "service_scv": platform.service_scv}
                     for n in lanes[at]]
            loss_grid = {**grid, "error_pct": grid["loss_error_points"], "half_width_pct": grid["loss_half_width_points"]}
            throughput = np.array([percentile_approximation_error(grid, q) for q in query])
            loss = np.array([percentile_approximation_error(loss_grid, q) for q in query])
            if max(np.max(np.abs(throughput)), np.max(np.abs(loss))) > ERROR_RULE_PCT:  # stated past it (issue 28)
                out["throughput_error_pct"][at], out["loss_error_points"][at] = throughput, loss
    return out


#: ``pcie rmw``'s JSON keys before they carried their unit: deprecated name -> its ``_gbyte_s`` name.
RMW_DEPRECATED_KEYS = {"throughput_gbps": "throughput_gbyte_s", "aligned_throughput_gbps": "aligned_throughput_gbyte_s",
                       "mitigated_throughput_gbps": "mitigated_throughput_gbyte_s",
                       "recovered_gbps": "recovered_gbyte_s"}


def _rmw_shape(records, values):
    """The published ``pcie rmw`` records (always a list; ``transfer_bytes`` after ``lanes`` when several sizes
    are asked): the mitigation's keys where one is asked, the error
    keys where stated, the deprecated ``*_gbps`` names of the ``*_gbyte_s`` keys, then the throughput's and
    the loss's 95 % bands where a profile bounds them."""
    shaped = []
    sizes = ("transfer_bytes",) if len({row["transfer_bytes"] for row in records}) > 1 else ()  # a sweep of sizes
    for row in records:
        out = _whole(row, ("lanes", *sizes, "ports", "throughput_gbyte_s", "aligned_throughput_gbyte_s", "loss_pct",
                           "rmw_utilization"))
        if values.get("mitigation", "none") != "none":
            out["mitigation"] = values["mitigation"]
            out.update(_whole(row, ("mitigated_throughput_gbyte_s", "recovered_gbyte_s")))
        if row["throughput_error_pct"] is not None:
            out.update(_whole(row, ("throughput_error_pct", "loss_error_points")))
        out.update({old: out[new] for old, new in RMW_DEPRECATED_KEYS.items() if new in out})
        out.update({k: v for k, v in row.items() if k.endswith(("_ci_low", "_ci_high")) and v is not None
                    and k.rsplit("_ci_", 1)[0] in ("throughput_gbyte_s", "loss_pct")})
        shaped.append(out)
    return shaped


def _rmw_notes(values, outputs):
    scv = values.get("service_scv", RMW_SERVICE_SCV.value)
    return (f"RMW {values['rmw_service_ns']:.3g} ns per unaligned access, {values['posted_credits']:.3g} TLPs in "
            "flight per port\n"
            + ("service times exponential (cv^2 = 1): exact multi-class MVA" if scv == 1 else
               f"service-time cv^2 = {scv:g} at the links and RMW unit: multi-class MVA with the residual-service "
               "correction (approximate; see 'iosizer params rmw'); its error against simulation is measured on a "
               "grid (iosizer/data/error_grids/rmw_service_scv.csv) and stated past 2 % as throughput_error_pct "
               "and loss_error_points"))


_TRANSFER = dict(unit="bytes", bounds=(1, TRANSFER_BYTES.bounds[1]), integer=True)
_NAMED_CASES = "; a table 2 case A-F names its size (B = 520)"
LINK_QUESTION = Question(
    "pcie link", "payload bandwidth of a link for writes, reads (MRd + CplD) or both, per the Base Specification",
    inputs=(Input("transfer_bytes", default=TRANSFER_BYTES.value, description="bytes per transfer", **_TRANSFER),),
    outputs=(Output("raw_gbyte_s", "GB/s", "line rate after encoding, per direction", band=False),
             Output("effective_gbyte_s", "GB/s", "payload bandwidth", measured="write_gbyte_s"),
             Output("effective_gbit_s", "Gb/s", "payload bandwidth in gigabits", band=False),
             Output("tlps_per_transfer", "TLPs", "data TLPs (MWr, CplD, band=False) per transfer"),
             Output("efficiency_pct", "%", "payload over raw capacity of the directions counted", band=False),
             Output("tlp_overhead_bytes", "bytes", "header, ECRC and framing per MWr/MRd", band=False),
             Output("cpl_overhead_bytes", "bytes", "header, ECRC and framing per CplD", band=False),
             Output("read_requests_per_transfer", "1", "MRd requests per read", band=False),
             Output("completions_per_transfer", "1", "CplD completions per read", band=False),
             Output("tx_utilization", "1", "the device's transmit side busy share", band=False),
             Output("rx_utilization", "1", "the device's receive side busy share", band=False),
             Output("tx_dllp_share_pct", "%", "Ack/UpdateFC DLLPs' share of transmit", band=False),
             Output("rx_dllp_share_pct", "%", "Ack/UpdateFC DLLPs' share of receive", band=False)),
    solve=_link_question, shape=_link_shape, shape_table=True,
    notes=("raw_gbyte_s and effective_gbyte_s are gigabytes per second (raw_gbps, effective_gbps: deprecated "
           "aliases); raw = GT/s x lanes x encoding / 8, per direction", _link_notes, _both_note),
    plot=Plot("transfer_bytes", ("effective_gbyte_s",)),
    aliases={"generation": ("gen",), "mps_bytes": ("mps",), "mrrs_bytes": ("mrrs",), "rcb_bytes": ("rcb",),
             "raw_gbyte_s": ("raw_gbps",), "effective_gbyte_s": ("effective_gbps",)},
    simulate=Simulation("", refused="pcie-link is arithmetic on the wire format (no queueing, nothing random to "
                                    "simulate)"))
PATTERN_QUESTION = Question(
    "pcie pattern", "TLP split and 64-byte-unaligned memory accesses per KiB (table 2)",
    inputs=(Input("transfer_bytes", description="bytes per transfer" + _NAMED_CASES, named=TABLE2_CASES,
                  argument=True, **_TRANSFER),),
    outputs=(Output("tlp_bytes", "bytes", "each TLP's payload", vector=True),
             Output("unaligned_per_kib", "per KiB", "64 B lines written partly (an RMW each), per KiB"),
             Output("unaligned_per_transfer", "1", "partly written lines per transfer"),
             Output("full_lines_per_transfer", "1", "whole lines written per transfer"),
             Output("layout", "", "packed (back to back) or split-at-64", text=True),
             Output("table2_case", "", "seed 001 table 2's case of this size, if it is one", text=True),
             Output("table2_unaligned_per_kib", "per KiB", "table 2's published value")),
    solve=_pattern_question, shape=_pattern_shape, shape_table=True,
    notes=("transfers laid out back to back, each cut into TLPs at MPS from its own start; an access is unaligned "
           "when a TLP touches a 64 B line without covering it", _table2_note),
    aliases={"mps_bytes": ("mps",)})
# --- sizing: the most x8 ports within a loss budget --------------------------------------------------
# The RMW loss of a transfer pattern grows with the ports sharing the unit (multi-class MVA of rmw_throughput),
# so the most ports is the last before the first over budget (iosizer.model.sizing.smallest_integer). An
# aligned pattern (no unaligned access) loses nothing at any width.

#: The most ports the RMW search goes to. Each step solves a multi-class MVA with one class per port:
#: 128 ports (1,024 lanes at x8, eight times the lanes of the largest socket, TOTAL_LANES) answer in
#: seconds; a search let run to 2,558 ports took two minutes and 1.8 GB.
MAX_PORTS_SEARCHED = 128


def most_ports_within_loss(platform: RmwPlatform, pattern: AccessPattern, budget_pct: float,
                           max_ports: int = MAX_PORTS_SEARCHED) -> dict[str, Any]:
    """Most ports sharing the RMW unit with loss <= ``budget_pct`` (monotone search on the MVA model): the
    ports, their lanes and loss, the loss one port more, the budget and the search's end.

    ``ports`` None: even one port exceeds the budget. ``ports`` equal to
    ``max_ports`` with ``next_loss_pct`` None: no limit up to the search's end.
    """
    from iosizer.model.sizing import smallest_integer

    if not 0 <= budget_pct < 100:
        raise InputError(f"--budget-pct must lie in [0, 100), got {budget_pct:g}")
    if not 1 <= max_ports <= MAX_PORTS_SEARCHED:
        raise InputError(f"max_ports must lie in [1, {MAX_PORTS_SEARCHED}], got {max_ports}")
    per_port = platform.link.lanes
    cache: dict[int, float] = {}

    def loss(ports: int) -> float:
        if ports not in cache:
            cache[ports] = float(rmw_throughput(platform, pattern, [ports * per_port]).loss_pct[0])
        return cache[ports]

    first_over = smallest_integer(lambda n: loss(n) > budget_pct * (1 + 1e-12), 1, max_ports)
    if first_over == 1:
        most, following = None, loss(1)
    else:
        most = max_ports if first_over is None else first_over - 1
        following = None if first_over is None else loss(first_over)
    return {"ports": most, "lanes": None if most is None else most * per_port,
            "loss_pct": None if most is None else loss(most), "next_loss_pct": following,
            "budget_pct": budget_pct, "max_ports_searched": max_ports}


def _size_ports(values, point, target):
    """``size lanes``: the most ports within the loss budget for the transfer size (and mitigation)."""
    platform = _rmw_platform(values)
    per_port, max_lanes = platform.link.lanes, int(values["max_lanes"])
    if max_lanes < per_port:
        raise InputError(f"--max-lanes must be at least one x{per_port} port, got {max_lanes}")
    if max_lanes > MAX_PORTS_SEARCHED * per_port:  # 10^9 lanes searched 2,558 ports for two minutes
        raise InputError(f"--max-lanes must lie in [{per_port}, {MAX_PORTS_SEARCHED * per_port}] "
                         f"({MAX_PORTS_SEARCHED} x{per_port} ports), got {max_lanes}")
    size, mps, mitigation = int(point["transfer_bytes"]), int(values["mps_bytes"]), values["mitigation"]
    pattern = access_pattern(size, mps) if mitigation == "none" else _mitigated(size, mps, mitigation)
    return {**most_ports_within_loss(platform, pattern, target, max_lanes // per_port),
            "unaligned_per_kib": pattern.unaligned_per_kib}


def _ports_shape(values, point, record):
    """The published record: the transfer, MPS and mitigation (null when none) first."""
    mitigation = values["mitigation"]
    return {"transfer_bytes": point["transfer_bytes"], "mps_bytes": values["mps_bytes"],
            "mitigation": None if mitigation == "none" else mitigation, "budget_pct": record["budget_pct"],
            **record}


def _ports_notes(values, record):
    per_port, top = values["lanes_per_port"], record["max_ports_searched"]
    return (f"ports: the most x{per_port} ports with RMW loss within {record['budget_pct']:g} % "
            f"(next_loss_pct: one port more); searched up to {top} ports")


def _ports_limit_note(values, record):
    if record["ports"] is None:
        return f"even one port loses {record['next_loss_pct']:.3g} %: no width meets the budget"
    if record["next_loss_pct"] is None:
        return (f"no limit up to {record['max_ports_searched'] * values['lanes_per_port']} lanes: the pattern "
                "loses nothing to RMW contention")
    return None


MAX_LANES = ParameterSpec("max_lanes", "lanes", MAX_PORTS_SEARCHED * LINK_LANES.value, (1, 1e9), "assumed",
                          "a bound on the search's work (MAX_PORTS_SEARCHED x8 ports)",
                          "Search up to this many lanes.", kind="setting", integer=True)
#: ``iosizer size lanes``: the rmw question's sizing, the most ports by the model's own monotone search.
SIZE_LANES = SizingCommand(
    "lanes", "Seed 001: the most x8 ports (lanes) a root complex feeds within a throughput-loss budget.",
    shape=_ports_shape, notes=(_ports_notes, _ports_limit_note), settings=(MAX_LANES,),
    title=lambda values, record: (f"Most x{values['lanes_per_port']} ports for {record['transfer_bytes']} B "
                                  f"writes within {record['budget_pct']:g} % loss"),
    flags={"transfer_bytes": "--pattern", "mps_bytes": "--mps"}, required=("budget_pct",))

RMW_QUESTION = Question(
    "pcie rmw", "write throughput against lanes with a shared RMW unit (closed network, MVA)",
    inputs=(Input("lanes", "lanes", TOTAL_LANES.bounds, default=MEASURED_LANES, integer=True,
                  description="total lanes of x8 ports (the seed measured 8-32)"),
            Input("transfer_bytes", default=WORST_CASE_BYTES, named=TABLE2_CASES,
                  description="bytes per transfer (the seed's worst case, 520 B)" + _NAMED_CASES, **_TRANSFER)),
    outputs=(Output("ports", "ports", "x8 ports", band=False),
             Output("throughput_gbyte_s", "GB/s", "write throughput of all ports"),
             Output("aligned_throughput_gbyte_s", "GB/s", "the same transfers without RMW demand", band=False),
             Output("loss_pct", "%", "throughput lost to RMW contention", measured="loss_pct"),
             Output("rmw_utilization", "1", "busy share of the RMW unit", band=False),
             Output("mitigated_throughput_gbyte_s", "GB/s", "write throughput with the mitigation"),
             Output("recovered_gbyte_s", "GB/s", "throughput the mitigation recovers", band=False),
             Output("mitigated_loss_pct", "%", "the mitigated pattern's loss against its own aligned reference"),
             Output("throughput_error_pct", "%", "measured error of the scv correction (stated past 2 %, band=False)"),
             Output("loss_error_points", "points", "measured error of the loss (stated past 2 points, band=False)")),
    solve=_rmw_question, shape=_rmw_shape, shape_table=True, shipped_bands=False, always_list=True,
    notes=(
        "aligned_throughput_gbyte_s: the same transfers without RMW demand (GB/s); JSON also carries the "
        "deprecated *_gbps names of the *_gbyte_s keys", _rmw_notes),
    plot=Plot("lanes", ("throughput_gbyte_s",), series="transfer_bytes"),
    aliases={"transfer_bytes": ("pattern",), "mps_bytes": ("mps",),
             **{new: (old,) for old, new in RMW_DEPRECATED_KEYS.items()}},
    sizing=(Sizing("lanes", "loss_pct", smallest=False, target="budget_pct", report="ports", command="lanes",
                   invert=_size_ports),),
    sizing_commands=(SIZE_LANES,),
    simulate=Simulation(
        "rmw", "PCIe ports' posted-write credit loops sharing the RMW unit (seed 001; numpy; --engine simpy).", (
            SimulateOption("transfer_bytes", "--transfer-bytes", "Bytes per write transfer.", kind=int, default=520),
            SimulateOption("lanes", "--lanes", "Total lanes of x8 ports.", kind=int, default=8),
            SimulateOption("mps", "--mps", f"Max Payload Size, bytes {DECLARED_OR_SHIPPED}.", kind=int,
                           keyword="mps_bytes"),
            SIMULATED_SCV), metrics=("throughput_gbyte_s", "aligned_throughput_gbyte_s", "loss_pct")))


_LINK_SETTINGS = (GENERATION, MPS, HEADER_DW, ECRC, DLLPS_PER_TLP)

FAMILIES = (
    Family(
        name="pcie-link",
        # The planner's page offers the rmw question's declared 'size lanes' beside the link's questions too.
        sizing_command="size lanes",
        formula=("efficiency = payload / wire bytes, wire bytes = sum over TLPs of (payload + header "
                 "12/16 B + ECRC 4 B if on + framing 8 B) [Gen6 flit mode: TLP bytes x 256 / 236, no "
                 "framing]; effective = lanes x GT/s x line code (8b/10b, 128b/130b) x (1 - SKP share) "
                 "x efficiency; Ack and UpdateFC DLLPs cost 8 / (L N) each of the opposite direction "
                 "(L the spec's latency limit in symbol times, N lanes)"),
        summary="PCIe link payload bandwidth of writes, reads or both per the Base Specification",
        source="PCI Express Base Specification 3.0 secs 2.2, 2.3.1.1, 3.5, 4.2; 5.0 tables 3-7..3-9; "
               "6.0 flit mode; " + _SEED,
        parameters=(LINK_LANES, *_LINK_SETTINGS, MRRS, RCB, DIRECTION, COMPLETIONS, SPLIT_AT_64),
        columns=Schema("pcie-link", (
            Column("transfer_bytes", Role.input, "bytes", "bytes per write transfer", minimum=1, integer=True,
                   maximum=TRANSFER_BYTES.bounds[1]),
            Column("write_gbyte_s", Role.observed, "GB/s", "payload bandwidth of back-to-back writes",
                   minimum=0, minimum_inclusive=False),
        )),
        solve=_link_solve,
        # Measured write bandwidth against transfer size pins the per-TLP
        # overhead beyond the spec's framing: DLLPs sharing the direction.
        fit=FitPlan(_link_start, relative=True),
        service_time="deterministic: wire bytes over the line rate (no queueing)",
        questions=(LINK_QUESTION, PATTERN_QUESTION),
        example="pcie-link.csv",
        measurements=("seed001_table2_patterns", "seed001_table1_platform"),
    ),
    Family(
        name="rmw",
        formula=("closed multi-class network, one class per x8 port of population posted_credits: the "
                 "port's link (wire bytes per TLP / link rate), the shared RMW unit (rmw_service_ns x "
                 "unaligned accesses per TLP) and the memory line path (a delay, line_service_ns x "
                 "whole lines per TLP); exact multi-class MVA; loss = 1 - X(pattern) / X(aligned "
                 "reference)"),
        summary="PCIe write loss from a shared RMW unit behind per-port credit loops (seed 001)",
        source=f"{_SEED} secs 4-5",
        parameters=(
            ParameterSpec("rmw_service_ns", "ns", None, (0.01, 1e4), "fitted",
                          f"{_SEED} sec 4: fitted to the 7 % (8 lanes) and 38 % (32 lanes) losses",
                          "RMW unit time per unaligned 64 B access",
                          cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0)),
            ParameterSpec("posted_credits", "TLPs", None, (1.0, 256.0), "fitted",
                          f"{_SEED} sec 4: fitted with rmw_service_ns",
                          "TLPs a port keeps in flight in its credit loop"),
            LINE_SERVICE,
            RMW_SERVICE_SCV,
            LANES_PER_PORT,
            *_LINK_SETTINGS,
            MITIGATION,
        ),
        columns=Schema("rmw", (
            Column("lanes", Role.input, "lanes", "total PCIe lanes (x8 ports)", minimum=8, integer=True,
                   maximum=TOTAL_LANES.bounds[1]),
            Column("transfer_bytes", Role.input, "bytes", "bytes per write transfer", minimum=1, integer=True,
                   maximum=TRANSFER_BYTES.bounds[1]),
            Column("loss_pct", Role.observed, "%", "throughput loss against the aligned reference",
                   maximum=100.0),
        )),
        solve=_rmw_solve,
        service_time=("exponential (product-form) link and RMW stations, service_scv = 1: exact multi-class "
                      "MVA (Bard-Schweitzer beyond 20,000 population vectors); the memory line path a delay. "
                      "Other service_scv values use the residual-service correction of iosizer.model.mva "
                      "(SCV_APPROXIMATION, multi-class form). Hardware service is close to constant: at "
                      "service_scv = 0 the shipped parameters lose nothing at 8 and 16 lanes and 36.9 % at 32 "
                      "(case B, 520 B), which a simulation with constant service reproduces (module docstring); "
                      "the shipped fit is made at service_scv = 1"),
        questions=(RMW_QUESTION,),
        fit=FitPlan(_rmw_start, holdable=("service_scv",)),
        example="rmw.csv",
        measurements=("seed001_sec4_losses", "seed001_text_facts"),
    ),
)


# --- the [pcie] scenario table: the link's answer feeding the pattern and the RMW network -------------


def _declared(family: str, name: str):
    """A default reading family ``family``'s declared value of ``name`` when the table leaves the key out."""
    return lambda: next(f for f in FAMILIES if f.name == family).default(name)


#: The table's link keys as the link's settings name them.
_TABLE_LINK = {"generation": "generation", "lanes": "lanes_per_port", "mps_bytes": "mps_bytes"}


def _table_check(keys):
    """The link the keys describe exists (a Gen6 link in flit mode takes any MPS, ...)."""
    link = next(f for f in FAMILIES if f.name == "pcie-link")
    values = link.check_settings({k: keys[key] for k, key in _TABLE_LINK.items()}, _TABLE_LINK)
    link_of({**values, "dllps_per_tlp": link.default("dllps_per_tlp")})


def _table_link(state):
    """As ``iosizer pcie link --profile`` runs: a pcie-link profile's link changed by the keys the file sets."""
    own = "pcie-link" in state.profiles
    return {"transfer_bytes": state.keys["transfer_bytes"], **{
        k: state.keys[key] if not own or key in state.given else None for k, key in _TABLE_LINK.items()}}


def _table_rmw(state):
    """``pcie rmw`` on the link answered (its DLLPs and header too): every port's lanes, split at 64 B
    as rmw's mitigation where the table says so."""
    used = state.answered["link"].values
    return {"lanes": state.keys["ports"] * used["lanes"], "transfer_bytes": state.keys["transfer_bytes"],
            "lanes_per_port": used["lanes"], "mitigation": "split-at-64" if state.keys["split_at_64"] else "none",
            **{k: used[k] for k in ("generation", "mps_bytes", "header_dw", "ecrc", "dllps_per_tlp")}}


def _table_rows(state):
    keys, used = state.keys, state.answered["link"].values
    (bandwidth,), (pattern,), (contention,) = (state.answered[a].records for a in ("link", "pattern", "rmw"))
    split = "mitigated_" if keys["split_at_64"] else ""
    link_note = f"; {state.sources['pcie-link']}" if "pcie-link" in state.profiles else ""
    where = f"Gen{used['generation']} x{used['lanes']}, MPS {used['mps_bytes']}"
    rmw = state.sources["rmw"] if state.calibrated("rmw") else "calibrated to seed 001 sec 4 (Xeon E5-2698 v4)"
    return [
        TableRow.of(bandwidth, "effective_gbyte_s", "effective write bandwidth per port", "GB/s",
                    f"{where}, {keys['transfer_bytes']} B transfers{link_note}"),
        TableRow("64-byte-unaligned accesses", pattern["unaligned_per_kib"], "per KiB",
                 "seed 001 table 2 layout" + (", split at 64 B" if keys["split_at_64"] else "")),
        TableRow.of(contention, f"{split}throughput_gbyte_s",
                    f"write throughput, {keys['ports']} ports ({keys['ports'] * used['lanes']} lanes)", "GB/s",
                    "shared RMW unit, credit loops (MVA)"),
        TableRow.of(contention, f"{split}loss_pct", "loss to read-modify-write contention", "%", rmw),
    ]


#: ``[pcie]``: devices writing through PCIe ports into the root complex (seed 001). ``ports`` x ``lanes_per_port``
#: lanes of PCIe ``generation``, Max Payload Size ``mps_bytes``, sequential writes of ``transfer_bytes`` each (520
#: for 512 B sectors with an 8 B T10-DIF); ``split_at_64``: the device cuts writes at 64-byte boundaries.
#: ``profile``: an ``rmw`` profile (the RMW unit), a ``pcie-link`` one (its link stands for the link keys the table
#: leaves out), or both.
TABLES = (ScenarioTable(
    "pcie", "PCIe write path and RMW contention (seed 001)", ("rmw", "pcie-link"),
    keys=(TableKey("generation", int, _declared("pcie-link", "generation"), description="PCIe generation"),
          TableKey("lanes_per_port", int, _declared("rmw", "lanes_per_port"), description="lanes of each port"),
          TableKey("ports", int, 1, ge=1, le=16, description="ports sharing the root complex"),
          TableKey("mps_bytes", int, _declared("pcie-link", "mps_bytes"), description="Max Payload Size"),
          TableKey("transfer_bytes", int, 512, ge=1, le=TRANSFER_BYTES.bounds[1],
                   description=TRANSFER_BYTES.description),
          TableKey("split_at_64", bool, False, description="the device cuts writes at 64-byte boundaries")),
    asks=(Ask("link", "pcie-link", "pcie link", _table_link, profile="profile"),
          Ask("pattern", "pcie-link", "pcie pattern", lambda state: {
              "transfer_bytes": state.keys["transfer_bytes"], "mps_bytes": state.answered["link"].values["mps_bytes"],
              "split_at_64": int(state.keys["split_at_64"])}, profile="none"),
          Ask("rmw", "rmw", "pcie rmw", _table_rmw)),
    rows=_table_rows, check=_table_check),)
