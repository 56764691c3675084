"""Seed 001's declared questions (pcie link, pcie pattern, pcie rmw): each answer is the model's own function
at the same values, exactly (the question only arranges it), and the declared constants equal the shipped data."""

from __future__ import annotations

import pytest

import iosizer
from iosizer.calibration import pcie as shipped
from iosizer.model.pcie import (MEASURED_LANES, TABLE2_CASES, WORST_CASE_BYTES, PcieLink, access_pattern,
                                link_bandwidth, rmw_throughput)


def test_declared_cases_and_lanes_are_the_shipped_data() -> None:
    assert TABLE2_CASES == {c["case"]: c["transfer_bytes"] for c in shipped.table2()}
    assert list(MEASURED_LANES) == shipped.measured_lanes()
    assert WORST_CASE_BYTES == 520  # section 4's maxima belong to case B (the highest unaligned frequency)


@pytest.mark.parametrize("direction", ["write", "read", "both"])
def test_link_question_is_link_bandwidth(direction) -> None:
    answer = iosizer.family("pcie-link").ask("pcie link", transfer_bytes=[520, 4096], direction=direction,
                                              generation=4, lanes=16, mps_bytes=512)
    link = PcieLink(generation=4, lanes=16, mps_bytes=512)
    for row in answer.to_data():
        expected = link_bandwidth(link, row["transfer_bytes"], direction)
        assert row["effective_gbyte_s"] == expected.effective_gbyte_s  # exact: the same function
        assert row["tlps_per_transfer"] == expected.tlps_per_transfer and isinstance(row["tlps_per_transfer"], int)
        assert (row["direction"], row["generation"], row["raw_gbps"]) == (direction, 4, expected.raw_gbyte_s)


def test_pattern_question_is_access_pattern_with_table2() -> None:
    family = iosizer.family("pcie-link")
    rows = family.ask("pcie pattern", transfer_bytes=[512, 520, 1000]).to_data()
    for row in rows:
        assert row["unaligned_per_kib"] == access_pattern(row["transfer_bytes"], 256).unaligned_per_kib
    assert [r.get("table2_case") for r in rows] == ["A", "B", None]
    assert rows[1]["table2_unaligned_per_kib"] == 8.86 and rows[1]["tlp_bytes"] == [256, 256, 8]
    # A case letter names its size; off the seed's MPS, or split, there is no published value to show.
    assert family.ask("pcie pattern", transfer_bytes="b").to_data()["transfer_bytes"] == 520
    assert "table2_case" not in family.ask("pcie pattern", transfer_bytes=520, mps_bytes=512).to_data()
    split = family.ask("pcie pattern", transfer_bytes=520, split_at_64=1).to_data()
    assert (split["layout"], split["unaligned_per_kib"]) == ("split-at-64", 0.0) and "table2_case" not in split


def test_rmw_question_is_rmw_throughput() -> None:
    points = iosizer.family("rmw").ask("pcie rmw", mitigation="gather-dif").to_data()
    platform = shipped.platform()
    base = rmw_throughput(platform, access_pattern(520), list(MEASURED_LANES))
    fixed = rmw_throughput(platform, access_pattern(4160), list(MEASURED_LANES))
    assert [p["lanes"] for p in points] == list(MEASURED_LANES)
    assert [p["loss_pct"] for p in points] == list(base.loss_pct)
    assert [p["recovered_gbyte_s"] for p in points] == list(fixed.throughput_gbyte_s - base.throughput_gbyte_s)
    assert all(p["mitigation"] == "gather-dif" and p["throughput_gbps"] == p["throughput_gbyte_s"] for p in points)
    (one,) = iosizer.family("rmw").ask("pcie rmw", lanes=16).to_data()  # always a list, as published
    assert "mitigation" not in one and "throughput_error_pct" not in one
    # Several sizes: each record names its size (one size keeps the published keys).
    both = iosizer.family("rmw").ask("pcie rmw", lanes=32, transfer_bytes="B,F").to_data()
    assert [(p["lanes"], p["transfer_bytes"]) for p in both] == [(32, 520), (32, 4160)]
    assert both[1]["loss_pct"] == 0.0 and "transfer_bytes" not in one
