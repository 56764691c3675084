"""PCIe write path (seed 001): link arithmetic, table 2, the RMW network's laws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iosizer.errors import InputError
from iosizer.model.pcie import (
    PcieLink,
    RmwPlatform,
    access_pattern,
    link_bandwidth,
    rmw_throughput,
    tlp_sizes,
)


def test_link_arithmetic_by_hand() -> None:
    # Gen3 x8: 8 GT/s x 8 lanes x 128/130 / 8 bits = 7.877 GB/s.
    link = PcieLink(generation=3, lanes=8, mps_bytes=256)
    assert link.raw_gbyte_s == pytest.approx(8 * 8 * 128 / 130 / 8)
    # Per TLP: 16 B header (4 DW) + 4 B STP token (carrying the sequence number) + 4 B LCRC.
    assert link.tlp_overhead_bytes == 24
    result = link_bandwidth(link, 520)
    assert result.tlps_per_transfer == 3
    assert result.wire_bytes_per_transfer == 520 + 3 * 24
    # A pure write stream: its DLLPs travel on rx, so tx carries TLPs only.
    assert result.effective_gbyte_s == pytest.approx(link.raw_gbyte_s * (1 - 16 / (372 * 16)) * 520 / 592)
    assert result.effective_gbyte_s == result.effective_gbyte_s
    assert result.effective_gbit_s == pytest.approx(8 * result.effective_gbyte_s)
    assert result.tx_dllp_share_pct == 0
    # Ack + UpdateFC, one each per 203 symbol times (Base Spec 3.0 table 3-9, x8, MPS 256),
    # 8 B each over 8 lanes: 2 x 8 / (203 x 8) = 0.985 % of rx (pcie-model: 2 x 8 / 203 = 7.9 %).
    assert result.rx_dllp_share_pct == pytest.approx(100 * 2 * 8 / (203 * 8) / (1 - 1 / 372))
    assert link.raw_gbyte_s * 8 == pytest.approx(63.015, abs=1e-3)
    gen1 = PcieLink(generation=1, lanes=4, mps_bytes=128, header_dw=3)
    assert gen1.raw_gbyte_s == pytest.approx(1.0)  # 2.5 GT/s x 4 x 8/10 / 8
    assert gen1.tlp_overhead_bytes == 12 + 8  # STP 1 + sequence 2 + LCRC 4 + END 1


def test_reads_by_hand() -> None:
    """4096 B read, MRRS 512, MPS 256: 8 MRd (24 B each) on tx, 16 CplD of 256 B (20 B each) on rx."""
    link = PcieLink(generation=3, lanes=8, mps_bytes=256, mrrs_bytes=512)
    result = link_bandwidth(link, 4096, "read", dllps=False)
    assert (result.read_requests_per_transfer, result.completions_per_transfer) == (8, 16)
    assert result.effective_gbyte_s == pytest.approx(link.tlp_gbyte_s * 4096 / (4096 + 16 * 20))
    rcb = PcieLink(generation=3, lanes=8, mps_bytes=256, completions="rcb", rcb_bytes=64)
    assert link_bandwidth(rcb, 4096, "read").completions_per_transfer == 64
    both = link_bandwidth(link, 4096, "both", dllps=False)
    # tx: 4096 + 16 x 24 + 8 x 24 = 4672 B per unit binds; 2 x 4096 B of payload per unit.
    assert both.effective_gbyte_s == pytest.approx(link.tlp_gbyte_s * 2 * 4096 / 4672)
    assert link_bandwidth(link, 4096, "both").tx_dllp_share_pct > 0


def test_gen6_flit_mode() -> None:
    """64 GT/s x16: 128 GB/s raw, 236 of 256 flit bytes carry TLPs, a TLP costs only its header."""
    link = PcieLink(generation=6, lanes=16, mps_bytes=256)
    assert link.raw_gbyte_s == pytest.approx(128.0)
    assert link.tlp_overhead_bytes == 16
    result = link_bandwidth(link, 4096)
    assert result.effective_gbyte_s == pytest.approx(128 * (1 - 1 / 372) * 236 / 256 * 4096 / (4096 + 16 * 16))
    assert result.rx_dllp_share_pct == 0


GENERATION_GT_S = {1: (2.5, 0.8), 2: (5.0, 0.8), 3: (8.0, 128 / 130), 4: (16.0, 128 / 130), 5: (32.0, 128 / 130)}


@pytest.mark.parametrize("generation", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("lanes", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("mps", [128, 256, 512])
def test_agrees_with_pcie_model_tlp_arithmetic(generation: int, lanes: int, mps: int) -> None:
    """Issue 15 acceptance: DLLPs set aside, within 0.5 % of pcie-bench/pcie-model's TLP-level arithmetic.

    The reference, written here from its published rules: a write of L bytes moves
    L / (L + n x 24 B) of the TLP bandwidth (64-bit MWr: 16 B header + 8 B framing/DLL,
    n = ceil(L / MPS)); a read is limited by its completions of 20 B overhead each
    (cut at MPS within MRRS 512 requests) on rx and by its 24 B requests on tx. The TLP
    bandwidth is raw x (1 - 4 / 1538 SKP), its SKP share for every generation.
    """
    rate, code = GENERATION_GT_S[generation]
    tlp_bw = rate * code * lanes / 8 * (1 - 4 / 1538)
    link = PcieLink(generation=generation, lanes=lanes, mps_bytes=mps, mrrs_bytes=512)
    for size in (64, 128, 256, 512, 520, 1040, 1500, 2048, 2080, 4096, 4104, 4160):
        n_tlp = -(-size // mps)
        write_ref = tlp_bw * size / (size + n_tlp * 24)
        n_req = -(-size // 512)
        n_cpl = (size // 512) * -(-512 // mps) + -(-(size % 512) // mps)
        read_ref = min(tlp_bw * size / (size + n_cpl * 20), tlp_bw * size / (n_req * 24))
        write = link_bandwidth(link, size, "write", dllps=False).effective_gbyte_s
        read = link_bandwidth(link, size, "read", dllps=False).effective_gbyte_s
        assert write == pytest.approx(write_ref, rel=0.005), (size, "write")
        assert read == pytest.approx(read_ref, rel=0.005), (size, "read")


@pytest.mark.parametrize(
    ("transfer_bytes", "tlps", "unaligned_per_kib"),
    [  # seed 001 table 2, to two decimals
        (512, [256, 256], 0.00),
        (520, [256, 256, 8], 8.86),
        (1040, [256] * 4 + [16], 6.89),
        (2080, [256] * 8 + [32], 4.43),
        (4104, [256] * 16 + [8], 7.24),
        (4160, [256] * 16 + [64], 0.00),  # (F): 8 sectors, DIFs gathered at the end
    ],
)
def test_table_2_exactly(transfer_bytes: int, tlps: list[int], unaligned_per_kib: float) -> None:
    pattern = access_pattern(transfer_bytes, 256)
    assert list(pattern.tlp_bytes) == tlps
    assert round(pattern.unaligned_per_kib, 2) == unaligned_per_kib


def test_the_layout_rule_is_what_the_table_demands() -> None:
    # Had every transfer started 64-byte aligned, 520 B would make one
    # partial line per transfer: 1024/520 = 1.97 per KiB, not 8.86.
    assert round(1024 / 520, 2) == 1.97
    assert access_pattern(520).unaligned_per_transfer == 4.5  # 36 partial lines per 8 transfers


@settings(max_examples=100, deadline=None)
@given(size=st.integers(1, 5_000), mps=st.sampled_from([128, 256, 512]))
def test_shared_line_boundaries_match_a_walk_over_every_tlp(size: int, mps: int) -> None:
    # Brute force over one alignment cycle: lay the transfers back to back, cut each at MPS from
    # its own start, and count TLP ends that are not on a 64 B line boundary.
    period = 64 // math.gcd(size, 64)
    ends, address = 0, 0
    for _ in range(period):
        for payload in access_pattern(size, mps).tlp_bytes:
            address += payload
            ends += address % 64 != 0
    assert access_pattern(size, mps).shared_line_boundaries_per_transfer == pytest.approx(ends / period)


def test_split_at_64_removes_unaligned_accesses() -> None:
    split = access_pattern(520, 256, split_at_line=True)
    assert split.unaligned_per_kib == 0
    assert split.shared_line_boundaries_per_kib == 0
    assert split.full_lines_per_transfer == pytest.approx(520 / 64)


@settings(max_examples=200, deadline=None)
@given(size=st.integers(1, 20_000), mps=st.sampled_from([128, 256, 512]))
def test_bytes_are_conserved_and_aligned_multiples_are_clean(size: int, mps: int) -> None:
    pattern = access_pattern(size, mps)
    assert sum(pattern.tlp_bytes) == size
    assert pattern.unaligned_per_transfer >= 0
    # Every byte is in a whole line or a partial one: lines touched >= bytes / 64.
    assert pattern.full_lines_per_transfer * 64 <= size + 1e-9
    if size % 64 == 0:
        assert pattern.unaligned_per_transfer == 0
    assert tlp_sizes(size, mps)[0] == min(size, mps)


PLATFORM = RmwPlatform(rmw_service_ns=6.0, posted_credits=3.0)


def test_aligned_patterns_scale_with_lanes() -> None:
    result = rmw_throughput(PLATFORM, access_pattern(512), [8, 16, 24, 32])
    assert np.all(result.loss_pct == 0)
    per_port = result.throughput_gbyte_s / result.ports
    # The shared line path adds a little queueing with 4 ports: within 2 %.
    assert per_port == pytest.approx(np.full(4, per_port[0]), rel=0.02)


@settings(max_examples=25, deadline=None)
@given(service=st.floats(0.5, 20.0), credits=st.floats(1.0, 12.0))
def test_loss_grows_with_lanes_and_with_unaligned_frequency(service: float, credits: float) -> None:
    platform = RmwPlatform(rmw_service_ns=service, posted_credits=credits)
    losses = []
    for size in (2080, 1040, 4104, 520):  # 4.43 < 6.89 < 7.24 < 8.86 per KiB
        result = rmw_throughput(platform, access_pattern(size), [8, 16, 24, 32])
        assert np.all(np.diff(result.loss_pct) >= -1e-6)
        assert np.all(result.rmw_utilization <= 1 + 1e-9)
        losses.append(result.loss_pct)
    assert np.all(np.diff(np.array(losses), axis=0) >= -1e-6)


def test_fractional_credits_interpolate_between_whole_numbers() -> None:
    pattern = access_pattern(520)
    at = {c: rmw_throughput(RmwPlatform(rmw_service_ns=6.0, posted_credits=c), pattern, [16]).throughput_gbyte_s[0]
          for c in (2.0, 2.5, 3.0)}
    assert at[2.5] == pytest.approx((at[2.0] + at[3.0]) / 2)


def test_bad_inputs() -> None:
    with pytest.raises(InputError, match="whole multiples of 8"):
        rmw_throughput(PLATFORM, access_pattern(520), [12])
    with pytest.raises(InputError, match="Max Payload Size"):
        tlp_sizes(520, 300)
    with pytest.raises(ValueError, match="generation must be one of 1..6"):
        PcieLink(generation=7)
    assert math.isclose(PcieLink(generation=5, lanes=16).raw_gbyte_s, 32 * 16 * 128 / 130 / 8)


def _brute_force_lines(size: int, mps: int) -> tuple[float, float]:
    """Every TLP of one alignment cycle walked one by one (the definition)."""
    from iosizer.model.pcie import _partial_lines

    full, tail = divmod(size, mps)
    sizes = [mps] * full + ([tail] if tail else [])
    period = 64 // math.gcd(size, 64)
    partial = whole = 0
    for i in range(period):
        start = i * size
        for tlp in sizes:
            partial += _partial_lines(start, start + tlp)
            whole += max((start + tlp) // 64 - -(-start // 64), 0)
            start += tlp
    return partial / period, whole / period


@settings(max_examples=150, deadline=None)
@given(size=st.integers(1, 70_000), mps=st.sampled_from([128, 256, 512, 1024, 2048, 4096]))
def test_the_closed_form_counts_what_walking_every_tlp_counts(size: int, mps: int) -> None:
    pattern = access_pattern(size, mps)
    assert (pattern.unaligned_per_transfer, pattern.full_lines_per_transfer) == _brute_force_lines(size, mps)
    assert pattern.tlps_per_transfer == len(tlp_sizes(size, mps))


def test_huge_transfers_cost_nothing_and_build_no_list() -> None:
    # Issue 13 (4): a 10^11-byte pattern ran for minutes, 10^12 bytes ran out of memory.
    from iosizer.model.pcie import TRANSFER_BYTES, tlp_count

    pattern = access_pattern(10**11 + 8, 256)
    assert pattern.tlps_per_transfer == tlp_count(10**11 + 8, 256) == 10**11 // 256 + 1
    assert pattern.unaligned_per_transfer > 0
    assert link_bandwidth(PcieLink(), 10**12).tlps_per_transfer == 10**12 // 256
    with pytest.raises(InputError, match="16777216"):
        tlp_sizes(TRANSFER_BYTES.bounds[1] + 1, 256)


@settings(max_examples=200, deadline=None)
@given(generation=st.integers(1, 6), lanes=st.sampled_from([1, 2, 4, 8, 12, 16, 32]),
       mps=st.sampled_from([128, 256, 512, 1024, 2048, 4096]), mrrs=st.sampled_from([128, 512, 4096]),
       rcb=st.sampled_from([64, 128]), split=st.sampled_from(["mps", "rcb"]), size=st.integers(1, 1 << 20))
def test_link_laws(generation, lanes, mps, mrrs, rcb, split, size) -> None:
    """Payload never exceeds the TLP bandwidth of the directions counted; DLLPs only cost; both >= either
    (TLP level)."""
    link = PcieLink(generation=generation, lanes=lanes, mps_bytes=mps, mrrs_bytes=mrrs, rcb_bytes=rcb,
                    completions=split)
    answers = {}
    for direction, counted in (("write", 1), ("read", 1), ("both", 2)):
        with_dllps = link_bandwidth(link, size, direction)
        without = link_bandwidth(link, size, direction, dllps=False)
        assert 0 < with_dllps.effective_gbyte_s <= without.effective_gbyte_s <= counted * link.tlp_gbyte_s
        assert with_dllps.tx_utilization <= 1 + 1e-9 and with_dllps.rx_utilization <= 1 + 1e-9
        answers[direction] = without.effective_gbyte_s
    # Set the DLLPs aside (one Ack per TLP can cost tiny transfers more on the reverse direction), and below
    # 64 B a read is request-bound on tx, where the write stream of "both" then competes.
    if size >= 64:
        assert answers["both"] >= max(answers["write"], answers["read"]) * (1 - 1e-9)


def test_posted_credits_admit_tlps_by_their_payload_mix() -> None:
    from iosizer.model.pcie import posted_tlps_in_flight

    # Datasheet x8 root port: 32 header, 160 data credits of 16 B.
    assert posted_tlps_in_flight(512, 256) == 160 / 16  # two full TLPs: data-credit bound, 10
    assert posted_tlps_in_flight(520, 256) == pytest.approx(160 / 11)  # 16 + 16 + 1 credits per 3 TLPs
    assert posted_tlps_in_flight(64, 256) == 32  # 4 data credits each: the 32 headers bind first
    assert posted_tlps_in_flight(512, 256, header_credits=4) == 4
# --- service-time variability (service_scv, SCV_APPROXIMATION in mva_multiclass) ------------------


def test_exponential_service_is_the_default_bit_for_bit() -> None:
    pattern = access_pattern(520)
    plain = rmw_throughput(PLATFORM, pattern, [8, 16, 32])
    explicit = rmw_throughput(PLATFORM.model_copy(update={"service_scv": 1.0}), pattern, [8, 16, 32])
    assert np.array_equal(plain.throughput_gbyte_s, explicit.throughput_gbyte_s)
    assert np.array_equal(plain.loss_pct, explicit.loss_pct)


def test_constant_service_loses_nothing_until_the_rmw_unit_saturates() -> None:
    """cv^2 = 0, 6 ns, 3 credits: the credit loops keep each link busy (the corrected MVA holds it at
    its bound), so one and two ports lose nothing; with four the RMW unit is held at utilisation 1."""
    constant = PLATFORM.model_copy(update={"service_scv": 0.0})
    result = rmw_throughput(constant, access_pattern(520), [8, 16, 32])
    assert result.loss_pct[:2] == pytest.approx([0.0, 0.0], abs=1e-9)
    assert result.rmw_utilization[-1] == pytest.approx(1.0, abs=1e-12)
    # The aligned reference is the link bound: payload per TLP over its wire time.
    link = constant.link
    pattern = access_pattern(520)
    bound = pattern.payload_per_tlp / ((pattern.payload_per_tlp + link.tlp_overhead_bytes) / link.tlp_gbyte_s)
    assert result.aligned_throughput_gbyte_s == pytest.approx(bound * result.ports, rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(service=st.floats(0.5, 20.0), credits=st.floats(1.0, 8.0), scv=st.floats(0.0, 1.0))
def test_variability_keeps_the_laws(service: float, credits: float, scv: float) -> None:
    """At any cv^2 in [0, 1]: loss in [0, 100) and growing with lanes, utilisation <= 1, and less
    variability never loses more than exponential service."""
    platform = RmwPlatform(rmw_service_ns=service, posted_credits=credits, service_scv=scv)
    exponential = RmwPlatform(rmw_service_ns=service, posted_credits=credits)
    for size in (520, 1040):
        result = rmw_throughput(platform, access_pattern(size), [8, 16, 24, 32])
        assert np.all(result.loss_pct >= -1e-9) and np.all(result.loss_pct < 100)
        assert np.all(np.diff(result.loss_pct) >= -1e-6)
        assert np.all(result.rmw_utilization <= 1 + 1e-9)
        assert np.all(result.throughput_gbyte_s
                      >= rmw_throughput(exponential, access_pattern(size), [8, 16, 24, 32]).throughput_gbyte_s
                      * (1 - 1e-9))


def test_service_scv_is_bounded_by_its_declaration() -> None:
    import iosizer
    from iosizer.errors import IosizerError

    with pytest.raises(ValueError, match="less than or equal to 1"):
        RmwPlatform(rmw_service_ns=6.0, posted_credits=3.0, service_scv=2.0)
    with pytest.raises(IosizerError, match="service_scv"):
        iosizer.family("rmw").predict({"service_scv": 2.0}, lanes=[8], transfer_bytes=[520])
    # The Python API: the shipped fit at constant service.
    loss = iosizer.family("rmw").predict({"service_scv": 0.0}, lanes=[8, 32], transfer_bytes=[520, 520])
    assert loss.outputs["loss_pct"] == pytest.approx([0.0, saturated_rmw_loss_pct(4)], abs=1e-6)


def saturated_rmw_loss_pct(ports: int) -> float:
    """Case B at constant service with the RMW unit the bottleneck: the unit passes 1 / (unaligned per
    TLP x RMW time) TLPs per ns against the ports' 1 / link time each, so the loss is
    1 - link time / (ports x unaligned per TLP x RMW time) (the shipped fit's values)."""
    import iosizer
    from iosizer.model.pcie import access_pattern

    values = {k: e.value for k, e in iosizer.family("rmw").shipped().parameters.items()}
    link = PcieLink(lanes=8, mps_bytes=256)
    pattern = access_pattern(520, 256)
    link_ns = (pattern.payload_per_tlp + link.tlp_overhead_bytes) / link.tlp_gbyte_s
    return 100.0 * (1.0 - link_ns / (ports * pattern.unaligned_per_tlp * values["rmw_service_ns"]))
