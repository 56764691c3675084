"""PCIe write path: link bandwidth, unaligned memory accesses, RMW contention (seed 001).

Seed 001 (Okada, Takada, Arai) drives a Xeon E5-2698 v4 with 1-4 FPGAs
(PCIe Gen3 x8 each, Max Payload Size 256 B) issuing sequential posted
writes of storage sectors: 512 B of user data plus an 8 B T10-DIF (520 B).
The processor writes memory in 64-byte lines; a write that does not cover a
whole line forces a read-modify-write (RMW) in the root complex.

Link (PCI Express Base Specification). Per lane: Gen1 2.5 GT/s and Gen2
5.0 GT/s with 8b/10b encoding; Gen3 8.0, Gen4 16.0, Gen5 32.0 GT/s with
128b/130b. A write of L bytes is cut into TLPs of at most MPS bytes; each
TLP carries on the wire its payload plus a 3 or 4 DW header (12/16 B), an
optional 4 B ECRC, the data-link layer's 2 B sequence number and 4 B LCRC,
and physical framing (8b/10b: STP and END symbols, 2 B; 128b/130b: the 4 B
STP token). SKP ordered sets take a small share of every lane; DLLPs (ACK,
UpdateFC, 8 B each) take a share of the direction they travel in: for a
one-way write stream they go the other way, so ``dllps_per_tlp`` is 0 by
default and a parameter for mixed traffic.

Unaligned accesses (table 2, derived from first principles). A storage
controller lays sectors out back to back, so transfer i of L bytes starts at
byte i L; the device cuts each transfer into TLPs at MPS counted from the
transfer's own start. A TLP [s, e) writes every 64 B line it touches; a line
it touches but does not cover whole is an unaligned access (an RMW). The
offsets of the transfers cycle with period 64 / gcd(L, 64), so the count per
KiB is exact over one cycle: 520 B -> 8.86, 1040 -> 6.89, 2080 -> 4.43,
4104 -> 7.24, and 0 for 512 B and for 4160 B (8 sectors with their DIFs
gathered at the end, 16 x 256 + 64). "kB" in the table is 1024 bytes; a
64-byte-aligned start for every transfer would give 1.97 per KiB for 520 B,
not the table's 8.86, which is how the layout rule is pinned down.

RMW contention (section 5). The RMW unit is shared by every port, and each
port's posted-write flow-control credits make it a closed loop: a TLP holds
a credit from the moment it enters the link until its memory write is done.
So each port is one class of a closed network whose population is its
credits (TLPs in flight); every TLP visits the port's own link, the shared
RMW unit (one service per unaligned access it makes) and the full-line
memory path (a delay: four DDR4-2133 channels carry four x8 ports at about
40 % utilisation, so its queueing is second order), solved by exact
multi-class MVA: four ports of a few credits each span a few hundred
population vectors (``mva_multiclass(method="auto")``, exact up to 20,000;
Bard-Schweitzer only beyond). Schweitzer was 2.6-4.9 % low against a
simulation of this network; refitted with exact MVA the shipped parameters
moved from 6.52 ns / 2.83 credits (Schweitzer) to 6.70 ns / 2.61 credits
(same link accounting). Stalls at the RMW unit
cost throughput through the credit loop before the unit saturates (8
lanes), and its saturation dominates as ports are added (32 lanes).
A fractional credit count is evaluated by linear interpolation between the
neighbouring whole numbers, so the count can be calibrated continuously.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from iosizer.errors import InputError
from iosizer.model.family import Column, CpuScaling, Family, FitPlan, ParameterSpec, Question, Role, Schema

__all__ = [
    "AccessPattern",
    "LinkBandwidth",
    "PcieLink",
    "RmwPlatform",
    "RmwResult",
    "access_pattern",
    "link_bandwidth",
    "rmw_throughput",
    "tlp_count",
    "tlp_sizes",
]

#: Per-lane transfer rate (GT/s) and line-code efficiency, by generation.
#: PCIe Base Spec 1.0a/2.0 (8b/10b), 3.0 section 4.2.2 (128b/130b), 4.0, 5.0.
GENERATIONS: dict[int, tuple[float, float]] = {
    1: (2.5, 8 / 10),
    2: (5.0, 8 / 10),
    3: (8.0, 128 / 130),
    4: (16.0, 128 / 130),
    5: (32.0, 128 / 130),
}
#: Physical framing per TLP: STP + END symbols (8b/10b) or the 4-symbol STP
#: token of 128b/130b (Base Spec 3.0 section 4.2.2.3.1), in bytes.
FRAMING_BYTES = {1: 2, 2: 2, 3: 4, 4: 4, 5: 4}
#: Data-link layer per TLP: 2 B sequence number + 4 B LCRC (Base Spec 3.3.x).
DLL_BYTES = 6
#: TLP header: 3 DW (32-bit address) or 4 DW (64-bit address) (Base Spec 2.2).
HEADER_BYTES = {3: 12, 4: 16}
#: End-to-end CRC digest when enabled (Base Spec 2.7).
ECRC_BYTES = 4
#: One DLLP on the wire: 6 B (type, payload, CRC-16) + 2 B framing.
DLLP_BYTES = 8
#: SKP ordered-set share of each lane: 4 symbols per 1538 (8b/10b, longest
#: interval) or one 16-symbol set per 372 128b/130b blocks of 16 symbols.
SKP_SHARE = {1: 4 / 1538, 2: 4 / 1538, 3: 16 / (372 * 16), 4: 16 / (372 * 16), 5: 16 / (372 * 16)}
#: Memory access granule of the processor: one 64-byte line (seed 001 section 1).
LINE_BYTES = 64
#: Max Payload Sizes the spec allows.
MPS_BYTES = (128, 256, 512, 1024, 2048, 4096)


_SEED = "001_d40d32e9911dac6f.txt"
#: The link of seed 001 (table 1: Gen3 x8 FPGAs, MPS 256) and the spec's
#: header and DLLP conventions; every default of :class:`PcieLink` is one of these.
GENERATION = ParameterSpec("generation", "gen", 3, (1, 5), "published", f"{_SEED} table 1: PCIe Gen3",
                           "PCIe generation", kind="setting", integer=True, choices=tuple(range(1, 6)))
LINK_LANES = ParameterSpec("lanes", "lanes", 8, (1, 32), "published", f"{_SEED} table 1: x8 FPGAs",
                           "lanes of the link", kind="setting", integer=True, choices=(1, 2, 4, 8, 12, 16, 32))
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
DLLPS_PER_TLP = ParameterSpec("dllps_per_tlp", "1", 0.0, (0.0, 16.0), "derived",
                              "a one-way write stream's ACK/UpdateFC DLLPs travel the other direction",
                              "DLLPs sharing the data direction per data TLP")
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
LINE_SERVICE = ParameterSpec("line_service_ns", "ns", 64 / 68.256, (1e-3, 1e3), "derived",
                             f"{_SEED} table 1: 64 B per line / (DDR4-2133 x 4 channels = 68.3 GB/s)",
                             "memory write path time per whole 64 B line")


class PcieLink(BaseModel):
    """One PCIe link's configuration."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    generation: int = Field(GENERATION.value, description="PCIe generation 1..5")
    lanes: int = Field(LINK_LANES.value, description="lane count: 1, 2, 4, 8, 12, 16 or 32")
    mps_bytes: int = Field(MPS.value, description="Max Payload Size, bytes")
    header_dw: int = Field(HEADER_DW.value, description="TLP header: 3 DW (32-bit address) or 4 DW (64-bit)")
    ecrc: bool = bool(ECRC.value)
    dllps_per_tlp: float = Field(DLLPS_PER_TLP.value, ge=0, description="DLLPs sharing this direction per data TLP")

    @field_validator("generation")
    @classmethod
    def _generation(cls, value: int) -> int:
        if value not in GENERATIONS:
            raise ValueError(f"generation must be one of 1..5, got {value}")
        return value

    @field_validator("lanes")
    @classmethod
    def _lanes(cls, value: int) -> int:
        if value not in (1, 2, 4, 8, 12, 16, 32):
            raise ValueError(f"lanes must be 1, 2, 4, 8, 12, 16 or 32, got {value}")
        return value

    @field_validator("mps_bytes")
    @classmethod
    def _mps(cls, value: int) -> int:
        if value not in MPS_BYTES:
            raise ValueError(f"Max Payload Size must be one of {MPS_BYTES}, got {value}")
        return value

    @field_validator("header_dw")
    @classmethod
    def _header(cls, value: int) -> int:
        if value not in HEADER_BYTES:
            raise ValueError(f"header must be 3 or 4 DW, got {value}")
        return value

    @property
    def raw_gbps(self) -> float:
        """Line rate after encoding, GB/s (gigabytes per second): GT/s x lanes x efficiency / 8."""
        rate, efficiency = GENERATIONS[self.generation]
        return rate * self.lanes * efficiency / 8.0

    @property
    def tlp_overhead_bytes(self) -> int:
        """Wire bytes each TLP adds to its payload."""
        return (HEADER_BYTES[self.header_dw] + (ECRC_BYTES if self.ecrc else 0) + DLL_BYTES
                + FRAMING_BYTES[self.generation])

    @property
    def tlp_gbps(self) -> float:
        """Bandwidth left for TLPs after SKP ordered sets, GB/s."""
        return self.raw_gbps * (1.0 - SKP_SHARE[self.generation])


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


@dataclass(frozen=True)
class LinkBandwidth:
    raw_gbps: float
    effective_gbps: float
    tlps_per_transfer: int
    efficiency_pct: float
    wire_bytes_per_transfer: int


def link_bandwidth(link: PcieLink, transfer_bytes: int) -> LinkBandwidth:
    """Payload bandwidth of back-to-back writes of ``transfer_bytes``.

    effective = tlp_gbps x payload / (wire bytes + DLLP bytes), per transfer,
    with ceil(payload / MPS) TLPs each adding its overhead (closed form).
    """
    tlps = tlp_count(transfer_bytes, link.mps_bytes)
    wire = int(transfer_bytes) + tlps * link.tlp_overhead_bytes
    dllp = tlps * link.dllps_per_tlp * DLLP_BYTES
    effective = link.tlp_gbps * transfer_bytes / (wire + dllp)
    return LinkBandwidth(link.raw_gbps, effective, tlps, effective / link.raw_gbps * 100.0, wire)


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

    @property
    def tlp_bytes(self) -> tuple[int, ...]:
        """Each TLP's payload (one entry per TLP: see :func:`tlp_sizes` for the size bound)."""
        return tuple(tlp_sizes(self.transfer_bytes, self.mps_bytes))

    @property
    def unaligned_per_kib(self) -> float:
        return self.unaligned_per_transfer / self.transfer_bytes * 1024.0

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
    for i in range(period):
        partial, whole = _lines_of_transfer(i * size % LINE_BYTES, size, mps_bytes)
        unaligned += partial
        full += whole
    return AccessPattern(size, mps_bytes, unaligned / period, full / period,
                         float(tlp_count(size, mps_bytes)), "packed")


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


@dataclass(frozen=True)
class RmwResult:
    """Per lane count: total throughput, the aligned reference and the loss."""

    lanes: np.ndarray
    ports: np.ndarray
    throughput_gbps: np.ndarray
    aligned_throughput_gbps: np.ndarray
    loss_pct: np.ndarray
    rmw_utilization: np.ndarray


def _port_throughputs(
    platform: RmwPlatform, pattern: AccessPattern, ports: int, credits: int
) -> float:
    """TLPs per ns of all ports together (exact multi-class MVA, one class per port)."""
    from iosizer.model.mva import mva_multiclass

    link_ns = (pattern.payload_per_tlp + platform.link.tlp_overhead_bytes
               + platform.link.dllps_per_tlp * DLLP_BYTES) / platform.link.tlp_gbps
    rmw_ns = pattern.unaligned_per_tlp * platform.rmw_service_ns
    line_ns = pattern.full_lines_per_tlp * platform.line_service_ns
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
    result = mva_multiclass(demands, np.zeros(ports), np.full(ports, credits), servers, method="auto")
    return float(np.sum(result.throughput))


def rmw_throughput(platform: RmwPlatform, pattern: AccessPattern, lanes: object) -> RmwResult:
    """Write throughput at each total lane count (ports = lanes / lanes per port).

    ``aligned_throughput_gbps`` is the same transfers with their RMW demand
    removed (the link-limited reference), so ``loss_pct`` isolates the RMW
    contention and is never negative.
    """
    lane_counts = np.atleast_1d(np.asarray(lanes))
    per_port = platform.link.lanes
    if np.any(lane_counts % per_port) or np.any(lane_counts < per_port):
        raise InputError(f"lanes must be whole multiples of {per_port} (one x{per_port} port each), got {lanes}")
    # The reference is the same traffic without its RMW demand: removing a
    # demand never lowers a product-form network's throughput, so loss >= 0.
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
        throughput_gbps=throughput,
        aligned_throughput_gbps=aligned,
        loss_pct=(aligned - throughput) / aligned * 100.0,
        rmw_utilization=np.array(out["utilization"]),
    )


# --- family declarations: pcie-link and rmw -------------------------------------------


def _link(values, lanes: str = "lanes") -> PcieLink:
    return PcieLink(generation=values["generation"], lanes=values[lanes], mps_bytes=values["mps_bytes"],
                    header_dw=values["header_dw"], ecrc=bool(values["ecrc"]),
                    dllps_per_tlp=values["dllps_per_tlp"])


def _link_solve(values, inputs):
    link = _link(values)
    sizes = np.asarray(inputs["transfer_bytes"]).astype(np.int64)
    effective = [link_bandwidth(link, int(size)).effective_gbps for size in sizes.ravel()]
    return {"write_gbyte_s": np.asarray(effective, dtype=np.float64).reshape(sizes.shape)}


def _rmw_solve(values, inputs):
    platform = RmwPlatform(link=_link(values, "lanes_per_port"), rmw_service_ns=values["rmw_service_ns"],
                           posted_credits=values["posted_credits"], line_service_ns=values["line_service_ns"])
    lanes = np.asarray(inputs["lanes"]).astype(int)
    sizes = np.asarray(inputs["transfer_bytes"]).astype(int)
    loss = [float(rmw_throughput(platform, access_pattern(int(b), values["mps_bytes"]), [int(l)]).loss_pct[0])
            for l, b in zip(lanes.ravel(), sizes.ravel())]
    return {"loss_pct": np.asarray(loss).reshape(lanes.shape)}


def _link_start(data, settings):
    """Start with the spec's one-way write stream (no DLLPs in the data direction)."""
    return {"dllps_per_tlp": 0.5}


def _rmw_start(data, settings):
    return {"rmw_service_ns": 5.0, "posted_credits": 4.0}


_LINK_SETTINGS = (GENERATION, MPS, HEADER_DW, ECRC, DLLPS_PER_TLP)

FAMILIES = (
    Family(
        name="pcie-link",
        summary="PCIe link payload bandwidth of posted writes per the Base Specification",
        source="PCI Express Base Specification 3.0 secs 2.2, 3.5, 4.2; " + _SEED,
        parameters=(LINK_LANES, *_LINK_SETTINGS),
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
        questions=(
            Question("pcie link", "payload bandwidth and efficiency of a transfer size",
                     ("transfer_bytes",), ("effective_gbps", "efficiency_pct", "tlps_per_transfer")),
            Question("pcie pattern", "TLPs and unaligned 64 B accesses of a transfer size",
                     ("transfer_bytes",), ("unaligned_per_kib",)),
        ),
        example="pcie-link.csv",
        measurements=("seed001_table2_patterns", "seed001_table1_platform"),
    ),
    Family(
        name="rmw",
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
            LANES_PER_PORT,
            *_LINK_SETTINGS,
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
        service_time="exponential (product-form) link and RMW stations; exact multi-class MVA "
                     "(Bard-Schweitzer beyond 20,000 population vectors)",
        questions=(
            Question("pcie rmw", "write throughput and loss against lanes for a transfer pattern",
                     ("transfer_bytes", "lanes"), ("throughput_gbps", "loss_pct", "rmw_utilization")),
        ),
        fit=FitPlan(_rmw_start),
        example="rmw.csv",
        measurements=("seed001_sec4_losses",),
    ),
)
