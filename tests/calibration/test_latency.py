"""The latency family against seed 000's published figures.

Every expected number here is the seed's (table or text), and every model
value is computed from the shipped measurements through the calibration
loop; tolerances are the issue's acceptance bands.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from iosizer.calibration import latency as family
from iosizer.calibration.calibrate import calibrate
from iosizer.calibration.dataset import load_dataset
from iosizer.calibration.extrapolate import extrapolate
from iosizer.model.registry import declaration

OLTP_SCHEMA = declaration("oltp").columns
from iosizer.model.latency import OltpNetwork, dma, oltp_degradation_pct


@pytest.mark.parametrize(
    ("device", "throughput_mbps", "degradation_pct", "interval_ns", "measured_pct"),
    [
        # seed 000 table 4-1: bcm5700 3,640 -> 6,768 ns, 140.7 -> 75.7 MB/s, -46 % (measured -48.1 %)
        ("bcm5700", 75.7, 46.0, 6768.0, 48.1),
        # e1000 512 B x 3: 12,000 -> 13,800 ns, 128.0 -> 111.3 MB/s, -13 % (measured -12.4 %)
        ("e1000", 111.3, 13.0, 13800.0, 12.4),
    ],
)
def test_table_4_1(device, throughput_mbps, degradation_pct, interval_ns, measured_pct) -> None:
    # Acceptance (issue 4): throughput +/- 0.5 MB/s (the table's rounding is
    # 0.1), PD +/- 1 point (the table rounds to whole percent), interval
    # +/- 10 ns.
    result = dma(family.device(device), 2100.0)
    assert result.throughput_mbps == pytest.approx(throughput_mbps, abs=0.5)
    assert result.degradation_pct == pytest.approx(degradation_pct, abs=1.0)
    assert result.issue_interval_ns == pytest.approx(interval_ns, abs=10.0)
    published = family.published_dma(device)
    assert published.measured_degradation_pct == measured_pct
    # The model is the table's own estimate; the measurement differs by
    # 0.6 (e1000) and 1.9 (bcm5700) points.
    assert abs(result.degradation_pct - measured_pct) < 2.5


def test_device_profiles_come_from_the_calibration_loop() -> None:
    calibration = family.device_calibration("bcm5700")
    assert calibration.profile.model == "dma"
    assert calibration.fit.params["exposed_round_trips"] == pytest.approx(3128 / 2100)
    # Two points, two parameters: an exact fit with no error estimate.
    assert any("too few points" in w for w in calibration.fit.warnings)
    assert calibration.profile.dataset.sha256


def test_posted_devices_lose_nothing() -> None:
    # Seed 000 section 4.1, figure 4-1: HBA write and NIC receive are flat.
    for name in ("nic-recv", "hba-write"):
        assert np.all(dma(family.device(name), np.linspace(0, 2100, 8)).degradation_pct == 0)


def within_two_points(model_pct: float, value: float, relation: str, approx_pct: str) -> bool:
    """'Within 2 points of a transcribed point', read by its relation.

    eq/approx: |model - value| <= 2. le (an upper bound, "5 % or less"):
    model <= value + 2. approx_under ("a little under"): distance to the
    band [value (1 - approx_pct/100), value] at most 2.
    """
    if relation in ("eq", "approx"):
        return abs(model_pct - value) <= 2.0
    if relation in ("le", "lt"):
        return model_pct <= value + 2.0
    if relation == "ge":  # "at least about": the band's lower edge less 2
        return model_pct >= value * (1 - float(approx_pct or 0) / 100) - 2.0
    if relation == "approx_under":
        low = value * (1 - float(approx_pct) / 100)
        return low - 2.0 <= model_pct <= value + 2.0
    raise AssertionError(relation)


def test_oltp_curve_meets_the_tpcc_description() -> None:
    network = family.oltp_network(family.oltp_profile())
    x = np.linspace(0, 2100, 211)
    curve = oltp_degradation_pct(network, x)
    assert np.all(np.diff(curve) >= 0), "monotone"
    assert np.all(curve[x <= 1200] < 5.0), "under 5 % at and below 1200 ns (abstract, sec 6.1)"
    from iosizer.calibration.shipped import read_measurement

    for row in read_measurement("seed000_tpcc_degradation"):
        model = float(oltp_degradation_pct(network, float(row["added_latency_ns"])))
        assert within_two_points(model, float(row["degradation_pct"]), row["relation"], row["approx_pct"]), row
    # The bottleneck shift sits where the seed puts its knee (ASI 5 stages,
    # 1500 ns, sec 4.3 / 6.1), to within one ASI stage (300 ns): with constant
    # service (the shipped cv^2 = 0) PD leaves 0 at the shift and reaches 5 % at 1500 ns.
    knee = family.oltp_profile().parameters["knee_latency_ns"]
    assert abs(knee.value - 1500) <= 300


def test_tier_planner_reproduces_section_4_4() -> None:
    # 150-300 ns hops: 2 tiers within 5 %; FC 400 ns: 2 tiers exceed 5 %;
    # FCoE 3200 ns: none.
    plan = {p["switch"]: p for p in family.tier_plan(family.switch_catalogue(), 5.0)}
    assert plan["asi"]["hop_ns"] == 150 and plan["asi"]["max_tiers"] >= 2
    assert plan["infiniband"]["max_tiers"] >= 2
    assert plan["fc"]["loss_pct"][1] > 5.0 and plan["fc"]["max_tiers"] == 1
    assert plan["fcoe"]["max_tiers"] == 0
    (three_hundred,) = family.tier_plan([{"switch": "x", "hop_ns": 300.0}], 5.0)
    assert three_hundred["max_tiers"] == 2
    # The loss at t tiers is the OLTP curve at 2 t h.
    network = family.oltp_network(family.oltp_profile())
    assert three_hundred["loss_pct"][1] == pytest.approx(float(oltp_degradation_pct(network, 1200.0)))


def test_budget_is_the_root_of_the_curve() -> None:
    network = family.oltp_network(family.oltp_profile())
    answer = family.max_oltp_latency_ns(network, 5.0)
    assert float(oltp_degradation_pct(network, answer)) == pytest.approx(5.0, abs=1e-6)
    assert float(oltp_degradation_pct(network, answer + 1.0)) > 5.0
    bcm = family.device("bcm5700")
    x = family.max_dma_latency_ns(bcm, 5.0)
    assert float(dma(bcm, x).degradation_pct) == pytest.approx(5.0, rel=1e-12)
    assert math.isinf(family.max_dma_latency_ns(family.device("hba-write"), 5.0))


def test_one_cpu_band_spans_both_bounding_assumptions() -> None:
    import iosizer

    profile = family.oltp_profile()
    points = iosizer.family("oltp").ask("latency oltp", cpu_speed=2.0, added_latency_ns=[1200.0, 2100.0]).to_data()
    base = family.oltp_network(profile)
    for point in points:
        x = point["added_latency_ns"]
        stall = float(oltp_degradation_pct(base, x * 2.0))  # a = 1, b = 0: loss grows
        hiding = float(oltp_degradation_pct(base, x / 2.0))  # a = 0, b = 1: loss shrinks
        assert point["degradation_pct_low"] <= hiding <= stall <= point["degradation_pct_high"]


def test_two_cpus_identify_the_net_exponent(tmp_path: Path) -> None:
    # Synthetic curves on two CPUs with knee(s) = 1400 s^-0.5 (stall
    # amplification outweighs DMA hiding by half a power). Fitting each and
    # extrapolating must recover the exponent and predict a third CPU.
    rng = np.random.default_rng(4)
    x = np.linspace(300, 2400, 15)
    profiles = []
    for speed in (1.0, 2.0):
        net = OltpNetwork(knee_latency_ns=1400.0 * speed**-0.5, serial_share=0.6)
        pd = np.maximum(0.0, oltp_degradation_pct(net, x) + rng.normal(0, 0.05, x.size))  # a loss is never < 0
        path = tmp_path / f"cpu{speed:g}.csv"
        path.write_text("added_latency_ns,degradation_pct\n" + "".join(f"{a},{b}\n" for a, b in zip(x, pd)))
        profiles.append(calibrate("oltp", path, cpu_name=f"cpu{speed:g}", cpu_speed=speed).profile)
    result = extrapolate(profiles, 3.0)
    knee = next(p for p in result.parameters if p.name == "knee_latency_ns")
    assert knee.exponent == pytest.approx(-0.5, abs=0.05)
    assert knee.ci_low <= 1400.0 * 3**-0.5 <= knee.ci_high


def test_relations_in_the_shipped_tpcc_file() -> None:
    from importlib import resources

    with resources.as_file(resources.files("iosizer.data") / "measurements" / "seed000_tpcc_degradation.csv") as p:
        data = load_dataset(p, OLTP_SCHEMA)
    assert data.bounds.tolist() == [0, 1, 1, 1, 0, -1]  # 2100 ns: at least about 15 % (sec 6.1)
    # "a little under 10 %" with a 10 % band: target the band's middle, 9.5.
    assert data.values["degradation_pct"][4] == pytest.approx(9.5)
