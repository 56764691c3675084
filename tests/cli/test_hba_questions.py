"""``iosizer hba isolation | response`` are declared questions (issue 24): one road answers the CLI, HTTP and
``iosizer.ask`` alike, with the old option names (``--lpar2-iops``, ``--lpar1-iops``, ``--mode both``) kept."""

from __future__ import annotations

import pytest

import iosizer


def test_cli_http_and_ask_answer_the_same(cli) -> None:
    testclient = pytest.importorskip("fastapi.testclient")
    from iosizer.serve.app import create_app

    args = ("--mode", "both", "--lpar2-iops", "0,100000", "--lpar1-iops", "120000", "--port", "8GFC")
    body = {"mode": "both", "lpar2_iops": "0,100000", "lpar1_iops": 120000, "port": "8GFC"}
    printed = cli.json("hba", "isolation", *args)
    assert [r["mode"] for r in printed] == ["shared", "shared", "occupancy", "occupancy"]
    assert all(r["lpar1_offered_iops"] == 120000 for r in printed)
    assert iosizer.ask("hba isolation", **body) == printed
    with testclient.TestClient(create_app(workers=1, heavy_workers=1), base_url="http://localhost") as client:
        answered = client.post("/api/hba/isolation", json=body)
        assert answered.status_code == 200, answered.text
        assert answered.json() == printed
        refused = client.post("/api/hba/isolation", json={"mode": "pinned"})
        assert refused.status_code == 422 and refused.json()["field"] == "mode"


def test_the_port_sets_the_link_rate_and_is_refused_beside_a_profile(cli, tmp_path) -> None:
    from iosizer.calibration.frozen import shipped
    from iosizer.calibration.profile import save_profile
    from iosizer.model.hba import frame_limited_mbps

    # 256 KiB is link-bound: 8GFC carries half of 16GFC's usable rate (800 MB/s x 2048 / 2108).
    eight = cli.json("hba", "isolation", "--port", "8GFC", "--block-kib", "256", "--mode", "shared",
                     "--lpar2-iops", "0")
    assert eight[0]["lpar1_mbps"] == pytest.approx(frame_limited_mbps(800.0), rel=1e-12)
    path = save_profile(shipped("hba"), tmp_path / "hba.json")
    line = cli.fails("hba", "isolation", "--profile", str(path), "--port", "16GFC")
    assert "--port" in line and "profile" in line


@pytest.mark.parametrize("args, named", [
    (("isolation", "--mode", "bad"), "--mode"),
    (("isolation", "--lpar1-iops", "-5"), "lpar1"),
    (("isolation", "--lpar2-block-kib", "0"), "lpar2"),
    (("response", "--threads", "2.5"), "threads"),
    (("response", "--service-scv", "0.5", "--percentile", "99"), "--percentile"),
])
def test_bad_input_names_the_option(cli, args, named) -> None:
    assert named in cli.fails("hba", *args)


def test_simulated_percentiles_carry_the_model_and_the_interval(cli) -> None:
    row, = cli.json("hba", "response", "--percentile", "99", "--simulate", "--threads", "8", "--mode", "shared")
    assert list(row)[-4:] == ["response_p99_us", "response_p99_us_model", "response_p99_us_sim_low",
                              "response_p99_us_sim_high"]
    # The mixture is within 2 % of simulation on this port (data/error_grids/hba_percentiles.csv).
    assert row["response_p99_us_model"] == pytest.approx(row["response_p99_us"], rel=0.03)
    assert row["response_p99_us_sim_low"] <= row["response_p99_us"] <= row["response_p99_us_sim_high"]


def test_a_list_of_one_all_or_both_sweeps_every_mode() -> None:
    # The page sends a swept setting as a list: ["both"] is 'both', every mode.
    both = iosizer.ask("hba response", threads="1,8")
    assert [r["mode"] for r in both] == ["shared", "shared", "occupancy", "occupancy"]
    assert iosizer.ask("hba response", threads="1,8", mode=["both"]) == both
    assert iosizer.ask("hba response", threads="1,8", mode=["all"]) == both
