"""Laws of the replication network (seed 004 model), on synthetic systems.

The acceptance statements of seed 004 are checked against the calibrated
systems in tests/calibration/test_replication.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iosizer.errors import InputError
from iosizer.model.mva import mva
from iosizer.model.replication import (
    ReplicaPath,
    ReplicationSystem,
    protocol_demand_us,
    replication,
    serialisation_us,
    wire_bytes,
)


def _system(rate_mbps: float = 1250.0, fixed_us: float = 40.0, per_kib_us: float = 3.0,
            residual_us: float = 100.0, flash_us: float = 77.0) -> ReplicationSystem:
    path = ReplicaPath(name="test", link_rate_mbps=rate_mbps, mss_bytes=1448, packet_overhead_bytes=90,
                       switch_round_trip_us=0.4, protocol_fixed_us=fixed_us, protocol_per_kib_us=per_kib_us,
                       residual_delay_us=residual_us)
    return ReplicationSystem(name="test", local_flash_write_us=flash_us, remote_flash_write_us=flash_us,
                             replica=path)


def test_wire_bytes_count_every_packets_overhead() -> None:
    path = _system().replica
    # 4096 B in 1448-byte segments: 3 packets of 90 B overhead each.
    assert wire_bytes(path, 4096) == pytest.approx(4096 + 3 * 90)
    assert wire_bytes(path, 1448) == pytest.approx(1448 + 90)
    assert serialisation_us(path, 4) == pytest.approx((4096 + 270) / 1250.0)


def test_matches_the_general_mva_solver() -> None:
    """The vectorised recursion equals iosizer.model.mva on the same network."""
    system = _system(rate_mbps=125.0)
    path = system.replica
    for block in (4.0, 16.0, 64.0):
        p = float(protocol_demand_us(path, block))
        link = float(serialisation_us(path, block))
        delay = 2 * 77.0 + 0.4 + 100.0
        reference = mva([p, link, p, delay], population=32, servers=[1, 1, 1, math.inf])
        ours = replication(system, block, 32)
        assert float(ours.latency_us) == pytest.approx(reference.response_time, rel=1e-12)
        assert float(ours.iops) == pytest.approx(reference.throughput * 1e6, rel=1e-12)


def test_one_outstanding_io_sees_the_unloaded_latency() -> None:
    result = replication(_system(), 4, 1)
    assert float(result.latency_us) == pytest.approx(float(result.unloaded_latency_us), rel=1e-12)
    assert result.bound == "concurrency"


def test_no_replica_is_the_flash_latency_alone() -> None:
    local = ReplicationSystem(name="local", local_flash_write_us=77, remote_flash_write_us=77)
    result = replication(local, [4, 256], 32)
    np.testing.assert_allclose(result.latency_us, 77.0)
    np.testing.assert_allclose(result.iops, 32 / 77e-6)
    assert list(result.bound) == ["concurrency", "concurrency"]


def test_binding_cap_moves_from_protocol_to_bandwidth_on_a_slow_link() -> None:
    result = replication(_system(rate_mbps=125.0), [4, 64], 256)
    assert list(result.bound) == ["protocol", "bandwidth"]
    # Deep queues approach the binding cap from below.
    caps = np.minimum(result.protocol_cap_iops, result.bandwidth_cap_iops)
    assert np.all(result.iops <= caps)
    np.testing.assert_allclose(result.iops, caps, rtol=0.02)


@settings(max_examples=60, deadline=None)
@given(
    rate=st.floats(10.0, 10_000.0),
    fixed=st.floats(1.0, 200.0),
    per_kib=st.floats(0.0, 10.0),
    block=st.floats(0.5, 1024.0),
    depth=st.integers(1, 200),
)
def test_laws(rate: float, fixed: float, per_kib: float, block: float, depth: int) -> None:
    """Little's law, monotone in outstanding I/Os, throughput within the link, below every cap."""
    system = _system(rate_mbps=rate, fixed_us=fixed, per_kib_us=per_kib)
    result = replication(system, block, np.arange(1, depth + 1))
    np.testing.assert_allclose(result.iops * result.latency_us / 1e6, np.arange(1, depth + 1), rtol=1e-12)
    assert np.all(np.diff(result.iops) >= -1e-9 * result.iops[1:])
    assert np.all(result.throughput_mbps <= rate * (1 + 1e-12))
    caps = np.minimum(np.minimum(result.protocol_cap_iops, result.bandwidth_cap_iops), result.concurrency_cap_iops)
    assert np.all(result.iops <= caps * (1 + 1e-12))
    assert np.all(result.latency_us >= result.unloaded_latency_us * (1 - 1e-12))
    assert np.all((result.protocol_utilization <= 1 + 1e-12) & (result.link_utilization <= 1 + 1e-12))


def test_broadcasts_block_against_outstanding() -> None:
    result = replication(_system(), np.array([[4.0], [16.0]]), np.array([1, 8, 32]))
    assert result.iops.shape == (2, 3)
    single = replication(_system(), 16.0, 8)
    assert float(single.iops) == pytest.approx(result.iops[1, 1], rel=1e-12)


@pytest.mark.parametrize(
    ("block", "depth", "message"),
    [(0, 1, "block_kib must be > 0"), (-4, 1, "block_kib must be > 0"), (4, 0, "outstanding must be"),
     (4, 2.5, "whole number"), (float("nan"), 1, "finite"), (4, 10**7, "at most")],
)
def test_bad_input(block: float, depth: float, message: str) -> None:
    with pytest.raises(InputError, match=message):
        replication(_system(), block, depth)
