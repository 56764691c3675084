"""The latency model (seed 000): laws it must obey, symbolic forms against numeric."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iosizer.errors import InputError
from iosizer.model.latency import (
    DmaDevice,
    OltpNetwork,
    dma,
    effective_latency_ns,
    oltp_degradation_pct,
    round_trip_latency_ns,
)
from iosizer.model.mva import mva
from iosizer.model.symbolic import dma_budget_expression, dma_functions


def test_round_trip_of_switch_tiers() -> None:
    # Seed 000 section 3.2: one ASI stage is 150 ns one way, 300 ns round trip;
    # 7 stages give the 2,100 ns of table 4-1.
    assert round_trip_latency_ns(1, 150) == 300
    assert round_trip_latency_ns(7, 150) == 2100


def test_dma_is_littles_law() -> None:
    # Three 512-byte reads per 12,000 ns: 1536 B / 12 us = 128 MB/s (table 4-1).
    nic = DmaDevice(name="n", burst_bytes=1536, local_issue_interval_ns=12_000, exposed_round_trips=0.5)
    result = dma(nic, np.array([0.0, 1000.0]))
    assert result.throughput_mbps[0] == pytest.approx(128.0)
    assert result.issue_interval_ns[1] == pytest.approx(12_500)
    assert result.degradation_pct[1] == pytest.approx(500 / 12_500 * 100)


def test_link_caps_throughput() -> None:
    nic = DmaDevice(name="n", burst_bytes=1536, local_issue_interval_ns=12_000, exposed_round_trips=0.5,
                    link_mbps=100.0)
    assert dma(nic, 0.0).throughput_mbps == 100.0


def test_posted_paths_lose_nothing() -> None:
    posted = DmaDevice(name="w", burst_bytes=512, local_issue_interval_ns=1000, exposed_round_trips=3, posted=True)
    assert np.all(dma(posted, np.linspace(0, 10_000, 11)).degradation_pct == 0)
    assert dma(DmaDevice(name="hba", posted=True), 2100.0).degradation_pct == 0


@settings(max_examples=200, deadline=None)
@given(
    interval=st.floats(10, 1e6), k=st.floats(0, 10), x=st.floats(0, 1e5), dx=st.floats(0, 1e4),
)
def test_dma_degradation_laws(interval: float, k: float, x: float, dx: float) -> None:
    nic = DmaDevice(name="n", burst_bytes=512, local_issue_interval_ns=interval, exposed_round_trips=k)
    low, high = dma(nic, np.array([x, x + dx])).degradation_pct
    assert 0 <= low <= high * (1 + 1e-12) + 1e-12 < 100
    assert dma(nic, 0.0).degradation_pct == 0


def test_symbolic_forms_match_the_numeric_model() -> None:
    f = dma_functions()
    nic = DmaDevice(name="n", burst_bytes=512, local_issue_interval_ns=3640, exposed_round_trips=1.49)
    x = np.linspace(0, 5000, 11)
    assert f["degradation_pct"](x, 3640, 1.49) == pytest.approx(dma(nic, x).degradation_pct, rel=1e-12)
    h = 1e-3
    numeric = (dma(nic, 1000 + h).degradation_pct - dma(nic, 1000 - h).degradation_pct) / (2 * h)
    assert f["d_degradation_d_latency"](1000, 3640, 1.49) == pytest.approx(numeric, rel=1e-6)
    answer = f["max_latency_ns"](5.0, 3640, 1.49)
    assert dma(nic, answer).degradation_pct == pytest.approx(5.0, rel=1e-12)
    assert str(dma_budget_expression()) == "-B*I_0/(k*(B - 100))"


def test_the_calibration_jacobian_is_sympys_gradient() -> None:
    """The dma fit's Jacobian (numpy) is sympy's dI/dI_local, dI/dk."""
    from iosizer.calibration.models import get_model

    x = np.linspace(0, 5000, 11)
    numpy_columns = get_model("dma").jacobian({})({"local_issue_interval_ns": 3640.0, "exposed_round_trips": 1.49},
                                                  {"added_latency_ns": x})["issue_interval_ns"]
    sympy_columns = dma_functions()["issue_interval_gradient"](x, 3640.0, 1.49)
    assert numpy_columns == pytest.approx(np.column_stack([np.broadcast_to(c, x.shape) for c in sympy_columns]))


def test_oltp_curve_is_mva_of_the_shifted_network() -> None:
    # Independent check: the same network built by hand and solved by mva().
    net = OltpNetwork(knee_latency_ns=1400.0, serial_share=0.6, service_scv=1.0)  # exact MVA is exponential
    x = 1800.0
    serial = 0.6 + (1 - 0.6) * x / 1400.0
    expected = (1 - mva([1.0, serial], 0.0, 16).throughput / mva([1.0, 0.6], 0.0, 16).throughput) * 100
    assert oltp_degradation_pct(net, x) == pytest.approx(expected, rel=1e-12)
    assert oltp_degradation_pct(net, 0.0) == 0.0


@settings(max_examples=60, deadline=None)
@given(knee=st.floats(50, 1e5), share=st.floats(0.01, 0.99), terminals=st.integers(1, 64))
def test_oltp_degradation_is_non_decreasing_and_zero_at_zero(knee: float, share: float, terminals: int) -> None:
    net = OltpNetwork(knee_latency_ns=knee, serial_share=share, terminals=terminals)
    curve = oltp_degradation_pct(net, np.linspace(0, 4 * knee, 40))
    assert curve[0] == 0
    assert np.all(np.diff(curve) >= -1e-9)
    assert np.all(curve < 100)


def test_cpu_generation_rescales_the_latency() -> None:
    # knee(s) = knee s^(b - a): stall amplification alone (a = 1) makes a
    # twice-faster core feel 2x the latency; DMA hiding alone (b = 1) half.
    assert effective_latency_ns(1000.0, 2.0, 1.0, 0.0) == pytest.approx(2000.0)
    assert effective_latency_ns(1000.0, 2.0, 0.0, 1.0) == pytest.approx(500.0)
    assert effective_latency_ns(1000.0, 2.0, 1.0, 1.0) == pytest.approx(1000.0)
    with pytest.raises(InputError, match="stall_exponent must lie in"):
        effective_latency_ns(1.0, 2.0, 1.5, 0.0)


def test_bad_inputs() -> None:
    with pytest.raises(InputError, match="added_latency_ns must be >= 0"):
        oltp_degradation_pct(OltpNetwork(knee_latency_ns=1000, serial_share=0.5), -1.0)
    with pytest.raises(ValueError, match="needs local_issue_interval_ns"):
        DmaDevice(name="x")
