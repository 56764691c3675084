"""Generic sizing features (issue 24) on two toy families (tests/calibration/toy_shared_sizing_family.py):
a searched setting, the first count worth trying, the measure one step past the answer, a target given alone
or bounded, a percentile among several, a known interval bisected at once, published keys, title and notes, an
option under an older name, and one command shared by two families."""

from __future__ import annotations

import json
import math

import pytest

import iosizer
from iosizer.errors import InputError
from iosizer.model import registry

TOY = "tests.calibration.toy_shared_sizing_family"


@pytest.fixture()
def toys(monkeypatch):
    plugins = {**registry._plugins(), "toy-lanepool": TOY, "toy-net": TOY}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    return iosizer.api.ModelFamily(registry.declaration("toy-lanepool")), iosizer.api.ModelFamily(
        registry.declaration("toy-net"))


def test_a_searched_setting_is_the_smallest_count_with_its_published_keys(toys) -> None:
    pool, _ = toys
    for load in (10.0, 95.0, 150.0, 999.0):
        answer = pool.size({"rate_per_s": 100.0}, command="toy-lanes", target_delay_s=0.02, load_per_s=load)
        row = answer.to_data()
        lanes = math.ceil((load + 50.0) / 100.0)  # 1 / (lanes x 100 - load) <= 0.02
        assert list(row) == ["lanes", "load", "rate", "target_delay_s", "delay_s", "delay_s_one_fewer",
                             "fewest_stable"]
        assert row["lanes"] == lanes and row["load"] == load and row["rate"] == 100.0
        assert row["fewest_stable"] == math.floor(load / 100.0) + 1
        if lanes - 1 >= row["fewest_stable"]:
            assert row["delay_s_one_fewer"] == pytest.approx(1 / ((lanes - 1) * 100.0 - load))
        else:  # one fewer is not stable: null
            assert row["delay_s_one_fewer"] is None
        assert answer.title == "Fewest toy lanes" and answer.notes == ("lanes: the fewest with delay_s within the "
                                                                       "target",)


def test_a_percentile_target_takes_the_declared_quantity(toys) -> None:
    pool, _ = toys
    row = pool.size({"rate_per_s": 100.0}, command="toy-lanes", target_delay_s=0.05, percentile=99,
                    load_per_s=150.0).to_data()
    # -ln(0.01) / (lanes x 100 - 150) <= 0.05: lanes x 100 >= 150 + 92.1
    assert row["lanes"] == 3 and row["percentile"] == 99.0 and "delay_s_p99" in row


def test_targets_alone_bounded_and_out_of_reach(toys) -> None:
    pool, _ = toys
    with pytest.raises(InputError, match="give one target: --target-delay-s or --target-busy"):
        pool.size({"rate_per_s": 100.0}, command="toy-lanes", target_delay_s=0.1, target_busy=0.5, load_per_s=5)
    with pytest.raises(InputError, match=r"--target-busy must lie in \(0, 1\], got 2"):
        pool.size({"rate_per_s": 100.0}, command="toy-lanes", target_busy=2, load_per_s=5)
    with pytest.raises(InputError, match="below any delay"):
        pool.size({"rate_per_s": 100.0}, command="toy-lanes", target_delay_s=1e-12, load_per_s=5)
    with pytest.raises(InputError, match="--percentile goes with --target-delay-s, not --target-busy"):
        pool.size({"rate_per_s": 100.0}, command="toy-lanes", target_busy=0.5, percentile=99, load_per_s=5)
    assert pool.size({"rate_per_s": 100.0}, command="toy-lanes", target_busy=0.5, load_per_s=150).to_data()[
        "lanes"] == 3


def test_a_known_interval_is_bisected_at_once(toys) -> None:
    pool, _ = toys
    row = pool.size({"rate_per_s": 100.0, "lanes": 3}, command="toy-load", target_delay_s=0.05).to_data()
    assert row["load_per_s"] == pytest.approx(280.0, rel=1e-10)


def test_one_command_for_two_families(toys, cli) -> None:
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    try:
        pool = cli("size", "toy-lanes", "--load-per-s", "150", "--rate", "100", "--target-delay-s", "0.02",
                   "--format", "json")
        assert pool.exit_code == 0, pool.stderr
        assert json.loads(pool.stdout)["lanes"] == 2  # ceil((150 + 1 / 0.02) / 100)
        by_pool = cli("size", "toy-load", "--lanes", "3", "--rate-per-s", "100", "--target-delay-s", "0.05",
                      "--format", "json")
        assert by_pool.exit_code == 0, by_pool.stderr
        assert json.loads(by_pool.stdout)["load_per_s"] == pytest.approx(280.0, rel=1e-10)
        by_net = cli("size", "toy-load", "--step-s", "0.01", "--target-delay-s", "0.05", "--format", "json")
        assert by_net.exit_code == 0, by_net.stderr
        assert json.loads(by_net.stdout)["jobs"] == 5
        mixed = cli("size", "toy-load", "--lanes", "3", "--step-s", "0.01", "--target-delay-s", "0.05")
        assert mixed.exit_code == 2
        assert "--lanes and --step-s belong to different systems of 'size toy-load'" in mixed.stderr
    finally:
        root_command.cache_clear()
