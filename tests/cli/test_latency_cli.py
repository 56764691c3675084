"""``iosizer latency ...``: the issue's command lines, keys and errors."""

from __future__ import annotations

import pytest

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_dma_acceptance_command(cli) -> None:
    data = cli.json("latency", "dma", "--device", "bcm5700", "--added-latency-ns", "2100")
    assert data["throughput_mbps"] == pytest.approx(75.7, abs=0.5)
    assert data["degradation_pct"] == pytest.approx(46, abs=1)
    assert data["issue_interval_ns"] == pytest.approx(6768, abs=10)
    assert data["measured_degradation_pct"] == 48.1
    e1000 = cli.json("latency", "dma", "--device", "e1000", "--added-latency-ns", "2100")
    assert e1000["throughput_mbps"] == pytest.approx(111.3, abs=0.5)
    assert e1000["degradation_pct"] == pytest.approx(13, abs=1)
    assert cli.json("latency", "dma", "--device", "hba-write", "--added-latency-ns", "2100")["degradation_pct"] == 0


def test_dma_sweep_csv_and_formula(cli) -> None:
    result = cli("latency", "dma", "--device", "bcm5700", "--added-latency-ns", "0:2100:300", "--format", "csv")
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1 + 8 and lines[0].startswith("device,")
    data = cli.json("latency", "dma", "--device", "bcm5700", "--added-latency-ns", "1000", "--show-formula")
    assert data["formula"]["text"] == "100*k*x/(I_0 + k*x)"
    assert data["d_degradation_d_latency_pct_per_ns"] > 0
    table = cli("latency", "dma", "--device", "bcm5700", "--added-latency-ns", "2100", "--show-formula")
    assert "measured -48.1 %" in table.stdout and "LaTeX" in table.stdout


def test_oltp_and_cpu_speed(cli) -> None:
    curve = cli.json("latency", "oltp", "--added-latency-ns", "0:2100:300")
    assert [p["added_latency_ns"] for p in curve] == [0, 300, 600, 900, 1200, 1500, 1800, 2100]
    # Under 5 % through 1200 ns; at 2100 ns at least about 15 % (sec 6.1: the drop to ~15 % happens within
    # the measured range, which ends at 2100 ns).
    assert curve[4]["degradation_pct"] < 5 and curve[-1]["degradation_pct"] >= 12
    faster = cli.json("latency", "oltp", "--added-latency-ns", "2100", "--cpu-speed", "2")
    assert faster["degradation_pct_low"] < curve[-1]["degradation_pct"] < faster["degradation_pct_high"]
    stall = cli.json("latency", "oltp", "--added-latency-ns", "2100", "--cpu-speed", "2",
                     "--stall-exponent", "1", "--issue-rate-exponent", "0")
    assert stall["degradation_pct"] > curve[-1]["degradation_pct"]


def test_budget_and_tiers(cli) -> None:
    answer = cli.json("latency", "budget", "--budget-pct", "5")
    assert 1200 < answer["max_added_latency_ns"] <= 1500 + 1
    device = cli.json("latency", "budget", "--budget-pct", "5", "--device", "bcm5700", "--show-formula")
    assert device["max_added_latency_ns"] == pytest.approx(5 * 3640 / ((3128 / 2100) * 95))
    assert "B" in device["formula"]["text"]
    tiers = cli.json("latency", "tiers", "--budget-pct", "5")
    by_name = {t["switch"]: t for t in tiers}
    assert set(by_name["asi"]) >= {"switch", "hop_ns", "tiers", "loss_pct", "max_tiers"}
    assert by_name["fc"]["max_tiers"] == 1 and by_name["fcoe"]["max_tiers"] == 0
    (custom,) = cli.json("latency", "tiers", "--budget-pct", "5", "--hop-ns", "300")
    assert custom["hop_ns"] == 300 and custom["max_tiers"] == 2


@pytest.mark.parametrize("command", [
    ["latency", "dma", "--device", "bcm5700", "--added-latency-ns", "0:2100:100"],
    ["latency", "oltp", "--added-latency-ns", "0:2400:100"],
    ["latency", "tiers"],
])
def test_plots(cli, tmp_path, command) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "p.png"
    assert cli(*command, "--plot", str(target)).exit_code == 0
    assert target.read_bytes().startswith(PNG_MAGIC)


@pytest.mark.parametrize(("args", "fragment"), [
    (["dma", "--device", "nope", "--added-latency-ns", "1"], "unknown device 'nope'"),
    (["dma", "--added-latency-ns", "1"], "give either --device NAME or --profile FILE"),
    (["dma", "--device", "e1000", "--added-latency-ns", "-5"], "--added-latency-ns must lie in [0, 10000000] (ns), got -5"),
    (["dma", "--device", "e1000", "--added-latency-ns", "nan"], "must be finite"),
    (["budget", "--budget-pct", "120"], "--budget-pct must lie in [0, 100] (%), got 120"),
    (["budget", "--budget-pct", "0"], "--budget-pct must lie in (0, 100), got 0"),
    (["tiers", "--hop-ns", "-3"], "--hop-ns must lie in [0, 1000000] (ns), got -3"),
    (["oltp", "--added-latency-ns", "100", "--stall-exponent", "1"], "need --cpu-speed"),
    (["oltp", "--added-latency-ns", "100", "--cpu-speed", "2", "--stall-exponent", "3"], "--stall-exponent must lie in [0, 1]"),
    (["oltp", "--added-latency-ns", "100", "--cpu-speed", "0"], "--cpu-speed must lie in [0.015625, 64]"),
])
def test_bad_input(cli, args, fragment) -> None:
    assert fragment in cli.fails("latency", *args)


def test_two_cpu_profiles_through_the_cli(cli, tmp_path) -> None:
    import numpy as np

    from iosizer.model.latency import OltpNetwork, oltp_degradation_pct

    x = np.linspace(300, 2400, 12)
    paths = []
    for speed in (1.0, 2.0):
        pd = oltp_degradation_pct(OltpNetwork(knee_latency_ns=1400 * speed**-0.5, serial_share=0.6), x)
        data = tmp_path / f"c{speed:g}.csv"
        data.write_text("added_latency_ns,degradation_pct\n" + "".join(f"{a},{b}\n" for a, b in zip(x, pd)))
        profile = tmp_path / f"c{speed:g}.json"
        cli.json("calibrate", "oltp", str(data), "--terminals", "16", "--cpu-speed", str(speed), "-o", str(profile))
        paths += ["--profile", str(profile)]
    predicted = cli.json("latency", "oltp", "--added-latency-ns", "1500", *paths, "--cpu-speed", "4")
    truth = float(oltp_degradation_pct(OltpNetwork(knee_latency_ns=1400 * 4**-0.5, serial_share=0.6), 1500.0))
    assert predicted["degradation_pct"] == pytest.approx(truth, rel=1e-3)
    assert "several profiles need --cpu-speed" in cli.fails("latency", "oltp", "--added-latency-ns", "1", *paths)


def test_budget_and_tiers_from_profiles(cli, tmp_path) -> None:
    data = tmp_path / "dma.csv"
    data.write_text("added_latency_ns,issue_interval_ns\n0,3640\n2100,6768\n")
    profile = tmp_path / "dma.json"
    cli.json("calibrate", "dma", str(data), "-o", str(profile))
    answer = cli.json("latency", "budget", "--budget-pct", "5", "--profile", str(profile))
    catalogue = cli.json("latency", "budget", "--budget-pct", "5", "--device", "bcm5700")
    assert answer["max_added_latency_ns"] == pytest.approx(catalogue["max_added_latency_ns"], rel=1e-9)
    (tier,) = cli.json("latency", "tiers", "--hop-ns", "150", "--profile", str(profile))
    assert tier["max_tiers"] == 0  # bcm5700 loses 5 % within 129 ns: not even one 150 ns tier
    assert "give either --device NAME or --profile FILE" in cli.fails(
        "latency", "budget", "--budget-pct", "5", "--profile", str(profile), "--device", "e1000")
