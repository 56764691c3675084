"""HBA-core saturation and isolation (seed 002), from the model and the shipped port."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iosizer.calibration.hba import fc_port, frame_efficiency
from iosizer.errors import InputError
from iosizer.model.hba import FcPort, isolation, port_ceiling_iops, response, share_pro_rata

KIB = 1024


@pytest.fixture(scope="module")
def port() -> FcPort:
    return fc_port("16GFC")


def test_shipped_port_reads_the_seed(port: FcPort) -> None:
    # Seed 002 sec 2.2: 2 cores per port; sec 3.1.1 (1): ~300,000 IOPS with both at 4 KB.
    assert port.cores == 2
    assert port.cores * port.core_iops == pytest.approx(300_000)
    # Sec 3.1.2: "1600MB/sec 弱", a little under 1600: full FC frames carry 97 %.
    assert 1500 < port.link_mbps < 1600
    assert port.link_mbps == pytest.approx(1600 * frame_efficiency())


def test_small_blocks_shared_mode_starts_near_300k_and_lpar1_falls(port: FcPort) -> None:
    # Seed 002 sec 3.1.1 (1), fig 3-1 left. Tolerance 10 %: "300,000IOPS 程度".
    sweep = np.linspace(0, 300_000, 13)
    result = isolation(port, "shared", sweep, 4 * KIB)
    assert result.lpar1_iops[0] == pytest.approx(300_000, rel=0.10)
    assert np.all(np.diff(result.lpar1_iops) < 0)
    # Pro rata: the cores are the only full resource, so each LPAR carries its demand share.
    total = result.lpar1_offered_iops + sweep
    assert result.lpar1_iops == pytest.approx(result.lpar1_offered_iops * 300_000 / np.maximum(total, 300_000))


def test_small_blocks_occupancy_mode_isolates_lpar1(port: FcPort) -> None:
    # Seed 002 sec 3.1.1 (1), fig 3-1 right: "性能の変動は殆どありません".
    # Acceptance: within 2 % of one core's ceiling whatever LPAR2 offers.
    sweep = np.linspace(0, 1_000_000, 21)
    result = isolation(port, "occupancy", sweep, 4 * KIB)
    one_core = port.core_iops
    assert result.lpar1_ceiling_iops == pytest.approx(one_core)
    assert np.all(np.abs(result.lpar1_iops / one_core - 1) <= 0.02)


def test_lpar1_within_one_core_barely_degrades(port: FcPort) -> None:
    # Seed 002 sec 3.1.1 (2), fig 3-2: LPAR1 needs less than one core. Shared mode
    # loses little (nothing until the two LPARs together exceed both cores) and
    # far less than at its limit; occupancy mode loses nothing at all.
    light = 0.6 * port.core_iops
    sweep = np.linspace(0, port.core_iops, 11)      # LPAR2 up to one core's worth
    shared = isolation(port, "shared", sweep, 4 * KIB, lpar1_offered_iops=light)
    limit = isolation(port, "shared", sweep, 4 * KIB)
    occupancy = isolation(port, "occupancy", np.linspace(0, 1e6, 11), 4 * KIB, lpar1_offered_iops=light)
    assert np.all(shared.lpar1_iops >= 0.98 * light)
    assert (limit.lpar1_iops[-1] / limit.lpar1_iops[0]) < 0.8
    assert occupancy.lpar1_iops == pytest.approx(np.full(11, light))
    # Heavier disturbance in shared mode does eat into LPAR1, occupancy never.
    heavy = isolation(port, "shared", [1e6], 4 * KIB, lpar1_offered_iops=light)
    assert heavy.lpar1_iops[0] < light


@pytest.mark.parametrize("mode", ["shared", "occupancy"])
def test_large_blocks_share_the_link_in_both_modes(port: FcPort, mode: str) -> None:
    # Seed 002 sec 3.1.2, fig 3-3: 256 KB at "1600MB/sec 弱", "1600MB / 256KB ≒ 6000 IOPS".
    # Tolerance 10 % on the published round figures (approx_pct in the CSV).
    sweep = np.linspace(0, 6_000, 7)
    result = isolation(port, mode, sweep, 256 * KIB)
    total_iops = result.lpar1_iops + result.lpar2_iops
    total_mbps = result.lpar1_mbps + result.lpar2_mbps
    assert total_iops == pytest.approx(np.full(7, 6_000), rel=0.10)
    assert np.all(total_mbps <= 1600) and total_mbps == pytest.approx(np.full(7, 1600), rel=0.10)
    assert np.all(np.diff(result.lpar1_iops) < 0)
    assert result.lpar1_iops[-1] < 0.6 * result.lpar1_iops[0]
    # The cores are nearly idle: occupancy mode makes no difference (sec 3.1.2).
    assert result.lpar1_iops[0] / port.core_iops < 0.05


def test_modes_give_the_same_answer_for_large_blocks(port: FcPort) -> None:
    sweep = np.linspace(0, 8_000, 9)
    a = isolation(port, "shared", sweep, 256 * KIB)
    b = isolation(port, "occupancy", sweep, 256 * KIB)
    assert a.lpar1_iops == pytest.approx(b.lpar1_iops)


@settings(max_examples=60, deadline=None)
@given(
    demand=st.lists(st.floats(0, 1e6), min_size=2, max_size=2),
    kib=st.sampled_from([0.5, 4, 64, 256]),
    mode=st.sampled_from(["shared", "occupancy"]),
)
def test_carried_never_exceeds_capacity_or_demand(demand: list[float], kib: float, mode: str) -> None:
    port = FcPort(link_mbps=1554.0, cores=2, core_iops=150_000)
    result = isolation(port, mode, [demand[1]], kib * KIB, lpar1_offered_iops=demand[0])
    carried = np.array([result.lpar1_iops[0], result.lpar2_iops[0]])
    assert np.all(carried <= np.array(demand) * (1 + 1e-9) + 1e-9)
    assert carried.sum() * kib * KIB / 1e6 <= port.link_mbps * (1 + 1e-9)
    if mode == "shared":
        assert carried.sum() <= 2 * port.core_iops * (1 + 1e-9)
    else:
        assert np.all(carried <= port.core_iops * (1 + 1e-9))
    # Work conserving: if a demand is cut, some resource it uses is full.
    if carried[0] < demand[0] * (1 - 1e-9):
        core_full = carried[0] >= port.core_iops * (1 - 1e-9) if mode == "occupancy" else \
            carried.sum() >= 2 * port.core_iops * (1 - 1e-9)
        link_full = carried.sum() * kib * KIB / 1e6 >= port.link_mbps * (1 - 1e-9)
        assert core_full or link_full


def test_share_pro_rata_is_proportional_at_one_bottleneck() -> None:
    carried = share_pro_rata([[30.0, 10.0]], np.array([[1.0], [1.0]]), np.array([20.0]))
    assert carried[0] == pytest.approx([15.0, 5.0])


def test_share_pro_rata_lets_unconstrained_flows_grow() -> None:
    # Flow 0 uses the small resource; flow 1 only the big one: flow 1 keeps its demand.
    usage = np.array([[1.0, 1.0], [0.0, 1.0]])
    carried = share_pro_rata([10.0, 50.0], usage, np.array([5.0, 100.0]))
    assert carried == pytest.approx([5.0, 50.0])


def test_ceiling(port: FcPort) -> None:
    assert port_ceiling_iops(port, "occupancy", 4 * KIB) == pytest.approx(150_000)
    assert port_ceiling_iops(port, "shared", 256 * KIB) == pytest.approx(port.link_mbps * 1e6 / (256 * KIB))


def test_response_equal_at_one_thread_occupancy_grows_faster(port: FcPort) -> None:
    # Seed 002 sec 3.2, fig 3-4 (512 B, threads 1, 8, 16): occupancy mode's response
    # worsens as multiplicity grows; one thread sees an idle core in both modes.
    shared = response(port, "shared", [1, 8, 16], 512, storage_us=50)
    occupancy = response(port, "occupancy", [1, 8, 16], 512, storage_us=50)
    assert shared.response_us[0] == pytest.approx(occupancy.response_us[0], rel=1e-12)
    expected_one = port.core_us_per_io + 512 / port.link_mbps + 50
    assert shared.response_us[0] == pytest.approx(expected_one)
    assert np.all(occupancy.response_us[1:] > shared.response_us[1:])
    growth_shared = np.diff(shared.response_us)
    growth_occupancy = np.diff(occupancy.response_us)
    assert np.all(growth_occupancy > growth_shared)
    # Little's law on every point: N = X R.
    for r in (shared, occupancy):
        assert r.iops * r.response_us / 1e6 == pytest.approx(r.threads.astype(float))


def test_response_ordering_holds_for_any_storage_delay(port: FcPort) -> None:
    for storage in (0.0, 10.0, 200.0, 1000.0):
        shared = response(port, "shared", [16], 512, storage)
        occupancy = response(port, "occupancy", [16], 512, storage)
        assert occupancy.response_us[0] >= shared.response_us[0]


@pytest.mark.parametrize("bad", [
    dict(mode="both"), dict(threads=[0]), dict(threads=[2.5]), dict(storage_us=-1.0), dict(block=float("nan")),
])
def test_response_rejects_bad_input(port: FcPort, bad: dict) -> None:
    with pytest.raises(InputError):
        response(port, bad.get("mode", "shared"), bad.get("threads", [1]), bad.get("block", 512),
                 bad.get("storage_us", 50.0))


def test_isolation_rejects_bad_input(port: FcPort) -> None:
    with pytest.raises(InputError):
        isolation(port, "shared", [-1.0], 4096)
    with pytest.raises(InputError):
        isolation(port, "pinned", [1.0], 4096)
    with pytest.raises(InputError):
        fc_port("16GFC", core_iops=-5)
