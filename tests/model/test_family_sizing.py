"""Seed-family sizing answers against brute-force search over candidates on the same models."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iosizer.calibration import latency as latency_family
from iosizer.calibration import pcie as pcie_family
from iosizer.calibration import replication as replication_family
from iosizer.model.latency import max_switch_tiers
from iosizer.model.latency import oltp_degradation_pct
from iosizer.model.pcie import access_pattern, most_ports_within_loss, rmw_throughput
from iosizer.model.replication import (
    largest_protocol_bound_block_kib,
    largest_replication_iops,
    outstanding_for_iops,
    replication,
)
from iosizer.model.sizing import UnreachableTargetError

FEW = settings(max_examples=15, deadline=None, derandomize=True)


# --- seed 000 ---------------------------------------------------------------------------------


@FEW
@given(budget=st.floats(0.5, 40.0), hop=st.floats(20.0, 2000.0))
def test_switch_tiers_are_the_brute_force_count(budget, hop) -> None:
    network = latency_family.oltp_network(latency_family.oltp_profile())
    tiers = max_switch_tiers(latency_family.max_oltp_latency_ns(network, budget), hop)
    losses = np.atleast_1d(oltp_degradation_pct(network, 2 * hop * np.arange(0, 65)))
    brute = int(np.flatnonzero(losses > budget)[0]) - 1 if (losses > budget).any() else 64
    assert tiers == brute


def test_switch_tiers_match_latency_tiers_for_the_catalogue() -> None:
    plan = latency_family.tier_plan(latency_family.switch_catalogue(), 5.0)
    network = latency_family.oltp_network(latency_family.oltp_profile())
    x_max = latency_family.max_oltp_latency_ns(network, 5.0)
    assert [p["max_tiers"] for p in plan] == [max_switch_tiers(x_max, p["hop_ns"]) for p in plan] == [4, 3, 1, 0]
    assert max_switch_tiers(math.inf, 150) == math.inf and max_switch_tiers(100.0, 0.0) == math.inf


# --- seed 001 ---------------------------------------------------------------------------------


@FEW
@given(budget=st.floats(1.0, 90.0), transfer=st.sampled_from([520, 1040, 2080, 4104]))
def test_most_ports_is_the_brute_force_count(budget, transfer) -> None:
    platform = pcie_family.platform()
    pattern = access_pattern(transfer, 256)
    sized = most_ports_within_loss(platform, pattern, budget, 24)
    losses = rmw_throughput(platform, pattern, 8 * np.arange(1, 25)).loss_pct
    within = np.flatnonzero(losses > budget)
    brute = (int(within[0]) if within.size else 24) or None
    assert sized["ports"] == brute
    if sized["ports"]:
        assert sized["lanes"] == 8 * sized["ports"] and sized["loss_pct"] <= budget


def test_aligned_patterns_have_no_port_limit() -> None:
    sized = most_ports_within_loss(pcie_family.platform(), access_pattern(512, 256), 1.0, 32)
    assert sized["ports"] == 32 and sized["next_loss_pct"] is None
    # Seed 001 sec 4: 7 % at 8 lanes, 38 % at 32 lanes for 520 B.
    assert most_ports_within_loss(pcie_family.platform(), access_pattern(520, 256), 38.0)["lanes"] == 32


# --- seed 004 ---------------------------------------------------------------------------------


@FEW
@given(link=st.sampled_from(["1g", "10g", "ipoib56"]), block=st.sampled_from([4.0, 16.0, 64.0]),
       fraction=st.floats(0.05, 0.99))
def test_outstanding_is_the_brute_force_depth(link, block, fraction) -> None:
    system = replication_family.system(link)
    cap = float(min(replication(system, block, 1).protocol_cap_iops, replication(system, block, 1).bandwidth_cap_iops))
    target = fraction * cap
    sized = outstanding_for_iops(system, block, target)
    depths = np.arange(1, sized["outstanding"] + 2)
    iops = replication(system, block, depths).iops
    assert int(np.flatnonzero(iops >= target)[0]) + 1 == sized["outstanding"]


def test_replication_edges() -> None:
    system = replication_family.system("10g")
    with pytest.raises(UnreachableTargetError, match="protocol cap"):
        outstanding_for_iops(system, 4.0, 20_000.0)
    # Seed 004: 4 KiB protocol-bound on 1GbE, 16 KiB bandwidth-bound: the boundary lies between.
    edge = largest_protocol_bound_block_kib(replication_family.system("1g"), 32)
    assert 4.0 < edge < 16.0
    assert str(replication(replication_family.system("1g"), edge * (1 - 1e-6), 32).bound) == "protocol"
    assert str(replication(replication_family.system("1g"), edge * (1 + 1e-6), 32).bound) != "protocol"
    assert largest_protocol_bound_block_kib(replication_family.system("ipoib56"), 32) == math.inf
    within = largest_replication_iops(system, 4.0, 1000.0)
    assert replication(system, 4.0, within["outstanding"]).latency_us <= 1000.0
    assert replication(system, 4.0, within["outstanding"] + 1).latency_us > 1000.0
