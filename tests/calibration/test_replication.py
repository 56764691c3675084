"""The calibrated replication systems against seed 004's statements.

The seed publishes no absolute IOPS, only relative findings and latencies
(data/measurements/seed004_*.csv). Every check below computes the model's
answer from the calibrated systems at the benchmark's assumed 32
outstanding I/Os; tolerances are the seed's own words ("about", "10-20 %").
"""

from __future__ import annotations

import numpy as np
import pytest

from iosizer.calibration import replication as family
from iosizer.calibration.shipped import read_measurement
from iosizer.errors import InputError

DEPTH = 32


def _at(link: str, block: float):
    return family.evaluate(link, block, DEPTH)


def _gain_pct(link: str, base: str, block: float) -> float:
    return 100.0 * (float(_at(link, block).iops) / float(_at(base, block).iops) - 1.0)


def test_4k_is_protocol_bound_and_1g_matches_10g() -> None:
    """Fig83_3/Fig85_2: at 4 KiB 1G and 10G do not differ ('さして変わらない'); within 10 %."""
    one, ten = _at("1g", 4), _at("10g", 4)
    assert one.bound == ten.bound == "protocol"
    assert abs(float(one.iops) / float(ten.iops) - 1.0) < 0.10


def test_16k_1g_is_bandwidth_bound_while_10g_and_ipoib_keep_scaling() -> None:
    """Fig84_3/Fig86_2: 1G stops at its bandwidth, 10G and IPoIB improve."""
    assert _at("1g", 16).bound == "bandwidth"
    for link in ("10g", "ipoib56"):
        assert _at(link, 16).bound != "bandwidth"
        # "clearly above": at least 1.5 x the 4 KiB throughput.
        assert float(_at(link, 16).throughput_mbps) > 1.5 * float(_at(link, 4).throughput_mbps)
    # 1G at 16 KiB and above carries nearly its whole link rate (125 MB/s).
    for block in (16, 64, 256):
        assert float(_at("1g", block).throughput_mbps) == pytest.approx(125.0, rel=0.07)


def test_ipoib_gain_over_10gbe() -> None:
    """考察: IPoIB 10-20 % ahead at 4 KiB (15 % throughput, 20 % IOPS), about 10 % at 16 KiB (5-15 %)."""
    assert 10.0 <= _gain_pct("ipoib56", "10g", 4) <= 20.0
    assert 5.0 <= _gain_pct("ipoib56", "10g", 16) <= 15.0
    # Lower latency too, by Little's law at fixed depth (the author's inference).
    assert float(_at("ipoib56", 4).latency_us) < float(_at("10g", 4).latency_us)


def test_gains_match_the_transcribed_table_within_its_tolerance() -> None:
    """Every measured IPoIB-over-10GbE gain of seed004_relative_gains.csv, within +/- 5 points.

    The seed states 15 % and 20 % for the same 4 KiB runs (one quantity: the
    same bytes per I/O), so no model can meet both; 5 points covers both.
    """
    rows = [r for r in read_measurement(family.GAINS_TABLE)
            if r["compared"] == "ipoib_56g" and r["block_kib"]]
    assert rows
    for row in rows:
        assert _gain_pct("ipoib56", "10g", float(row["block_kib"])) == pytest.approx(float(row["gain_pct"]), abs=5.0)


def test_local_is_fastest() -> None:
    for block in (4, 16, 256):
        local = _at("local", block)
        assert all(float(local.iops) > float(_at(link, block).iops) for link in ("1g", "10g", "ipoib56"))
        assert float(local.latency_us) == pytest.approx(77.0)


def test_unloaded_remote_access_reproduces_325_us() -> None:
    """The derived residual delay makes one unloaded 4 KiB replica round trip 325 us (intro)."""
    system = family.system("10g")
    unloaded = float(family.evaluate("10g", 4, 1).latency_us)
    assert unloaded - system.local_flash_write_us == pytest.approx(325.0, rel=1e-9)


def test_fit_is_the_calibration_loop() -> None:
    c = family.protocol_calibration()
    assert c.fit.n_points == 3 and c.fit.dof == 1
    assert c.protocol_fixed_us["ipoib"] < c.protocol_fixed_us["ethernet"]  # offload, no MAC processing
    for name, (low, high) in c.intervals.items():
        assert low <= c.protocol_fixed_us[name] <= high
    assert c.residual_delay_us > 0


@pytest.mark.parametrize("name", ["1g", "1GbE", "ipoib_56g_fdr", "56G IPoIB (FDR)", "LOCAL"])
def test_link_names_resolve(name: str) -> None:
    assert family.resolve_link(name) in family.link_names()


def test_unknown_link() -> None:
    with pytest.raises(InputError, match="unknown link 'token-ring'"):
        family.evaluate("token-ring", 4)


def test_evaluate_broadcasts() -> None:
    result = family.evaluate("10g", np.array([4, 16, 256]), 32)
    assert result.iops.shape == (3,)
