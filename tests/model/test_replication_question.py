"""``iosizer replication`` as a declared question: each link on its own shipped values, the seed's
published relations through the one road, and the catalogue's link names."""

from __future__ import annotations

import pytest

import iosizer


def test_each_link_answers_on_its_own_shipped_values() -> None:
    """resolve('replication', link=ipoib56) takes IPoIB's rate and protocol cost, not 10GbE's: the README's
    'IPoIB leads 10GbE by 17.5 % at 4 KiB and by 10 % at 16 KiB' (seed 004: ~20 % / ~10 %, fitted) computed
    here through the one road; 0.05 points: the README prints one decimal."""
    from iosizer.calibration.questions import resolve
    from iosizer.calibration.replication import link_settings

    ten, _, _ = resolve("replication", None, None, {"link": "10g"})
    ipoib, _, _ = resolve("replication", None, None, {"link": "ipoib56"})
    assert ipoib["link_rate_mbps"] == link_settings("ipoib56")["link_rate_mbps"] > 6000
    assert ten["link_rate_mbps"] == 10e3 / 8
    assert ipoib["protocol_fixed_us"] < ten["protocol_fixed_us"]
    rows = iosizer.family("replication").ask("replication", link="10g,ipoib56", block_kib=[4, 16]).records()
    iops = {(r["link"], r["block_kib"]): r["iops"] for r in rows}
    assert 100 * (iops["ipoib56", 4.0] / iops["10g", 4.0] - 1) == pytest.approx(17.5, abs=0.05)
    assert 100 * (iops["ipoib56", 16.0] / iops["10g", 16.0] - 1) == pytest.approx(10.0, abs=0.05)


def test_link_names_are_the_catalogue_s() -> None:
    from iosizer.calibration.shipped import hardware_profile
    from iosizer.model.replication import LINK_NAMES, LINKS, link_name

    items = hardware_profile("interconnects")["items"]
    assert [i["cli_name"] for i in items] + ["local"] == list(LINKS)
    for item in items:
        for name in (item["cli_name"], item["name"], item["label"], item["label"].upper()):
            assert link_name(name) == item["cli_name"]
    assert set(LINK_NAMES) == {n.lower() for i in items for n in (i["name"], i["label"])}


def test_shipped_answers_carry_no_band_and_a_carried_profile_does() -> None:
    family = iosizer.family("replication")
    assert not any(k.endswith("_ci_low") for k in family.ask("replication", link="all").records()[0])
    ten, local = family.ask("replication", cpu_speed=1.2, link="10g,local").records()
    # One CPU: the declared exponent range, unbounded as the shipped fit has no interval for the residual.
    assert "iops_ci_low" in ten and "iops_ci_low" not in local  # no replica: nothing fitted moves it


def test_one_point_is_a_list_and_percentiles_follow_the_outputs() -> None:
    data = iosizer.ask("replication", link="local", percentile=[99])
    assert isinstance(data, list) and len(data) == 1
    assert list(data[0])[-1] == "latency_p99_us" and data[0]["latency_p99_us"] == 77.0
