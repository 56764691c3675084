"""Seed 002's sizing (``iosizer size hba``), declared on the question 'hba tenants' and answered by the
generic search (iosizer.calibration.declared_sizing): against brute force over the same open model."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iosizer
from iosizer.calibration import hba as hba_family
from iosizer.errors import InputError
from iosizer.model.hba import FcPort, hba_response_us
from iosizer.model.sizing import UnreachableTargetError

FEW = settings(max_examples=15, deadline=None, derandomize=True)


def _size(**given):
    return iosizer.family("hba").size(**given).to_data()


@FEW
@given(mix=st.lists(st.floats(1_000.0, 400_000.0), min_size=1, max_size=4), block=st.sampled_from([4, 16, 64]),
       target=st.floats(120.0, 2000.0), mode=st.sampled_from(["shared", "occupancy"]),
       scv=st.sampled_from([0.0, 0.5, 1.0]))
def test_hba_ports_and_cores_are_the_brute_force_counts(mix, block, target, mode, scv) -> None:
    port = hba_family.fc_port()
    sizes = [block * 1024.0]

    def worst(ports: int, cores: int) -> float:
        chosen = FcPort(link_mbps=port.link_mbps, cores=cores, core_iops=port.core_iops)
        return float(hba_response_us(chosen, mode, mix, sizes, ports, 50.0, scv).max())

    try:
        sized, = _size(target_response_us=target, tenant_iops=",".join(map(repr, mix)), block_kib=block,
                       mode=mode, ports=2, service_scv=scv)
    except UnreachableTargetError:
        assert worst(4096, port.cores) > target
        return
    brute_ports = next(n for n in range(1, 4097) if worst(n, port.cores) <= target)
    assert sized["ports"] == brute_ports
    brute_cores = next((k for k in range(1, 1025) if worst(2, k) <= target), None)
    assert sized["cores_needed"] == brute_cores
    assert (sized["cores_reason"] == "") == (brute_cores is not None)


@pytest.mark.parametrize("mode", ["shared", "occupancy"])
def test_hba_service_variability_scales_every_wait_by_one_plus_scv_over_two(mode: str) -> None:
    # Exponential service is the M/M/k cores and P-K link with E[S^2] = 2 s^2, computed here from
    # Erlang C directly; any other cv^2 multiplies each queue's wait by (1 + cv^2) / 2 (P-K for the
    # link and one core, Allen-Cunneen for k cores), so the no-wait part stays put.
    from iosizer.model.queueing import mmc

    port = hba_family.fc_port()
    mix, sizes, storage_us = [90_000.0, 60_000.0], [8192.0, 4096.0], 50.0
    iops = np.array(mix)
    transfer_s = np.array(sizes) / (port.link_mbps * 1e6)
    link_wait_s = float(iops @ transfer_s**2) / (1 - float(iops @ transfer_s))
    if mode == "shared":
        core_wait_s = np.full(2, float(mmc(iops.sum(), port.core_iops, port.cores).mean_wait))
    else:  # tenant i alone on core i
        core_wait_s = np.array([float(mmc(v, port.core_iops, 1).mean_wait) for v in mix])
    no_wait_us = (1 / port.core_iops + transfer_s) * 1e6 + storage_us
    for scv in (0.0, 0.25, 0.5, 1.0):
        expected = no_wait_us + (core_wait_s + link_wait_s) * 1e6 * (1 + scv) / 2
        got = hba_response_us(port, mode, mix, sizes, 1, storage_us, scv)
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_hba_constant_service_needs_no_more_ports_than_exponential() -> None:
    exponential, = _size(target_response_us=60.0, tenant_iops="250000,120000", mode="shared")
    constant, = _size(target_response_us=60.0, tenant_iops="250000,120000", mode="shared", service_scv=0.0)
    assert constant["ports"] < exponential["ports"] and constant["service_scv"] == 0.0
    with pytest.raises(InputError, match="service_scv"):
        _size(target_response_us=60.0, tenant_iops="250000,120000", service_scv=-1.0)


def test_hba_unreachable_and_reasons() -> None:
    with pytest.raises(UnreachableTargetError, match="one I/O alone"):
        _size(target_response_us=50.0, tenant_iops="1000", mode="shared")
    occupancy, = _size(target_response_us=200.0, tenant_iops="250000,120000", mode="occupancy")
    assert occupancy["cores_needed"] is None and "one core" in occupancy["cores_reason"]
    large, = _size(target_response_us=2000.0, tenant_iops="10000", block_kib=256, mode="shared")
    assert large["cores_needed"] is None and large["cores_reason"].startswith("link-bound")


@pytest.mark.parametrize(("given", "message"), [
    ({"storage_us": -1.0}, "storage_us must lie in [0, 1000000] (us), got -1"),
    ({"block_kib": 0}, "--block-kib must lie in [0.000976562, 16384] (KiB), got 0"),
    ({"block_kib": "4,8,16"}, "--block-kib: give one size or one per tenant (1), got 3"),
    ({"target_response_us": float("nan")}, "--target-response-us must be a finite number > 0, got nan"),
    ({"tenant_iops": "0,0"}, "--tenant-iops needs at least one tenant and a positive total"),
])
def test_hba_sizing_checks_its_inputs_against_the_declaration(given, message) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        _size(**{"target_response_us": 100.0, "tenant_iops": "100000", "mode": "shared", **given})
