"""Sizing by a model's own inverse under a command of its own name (``Sizing.invert``, ``Sizing.command``,
``Sizing.always``, :class:`~iosizer.model.family.SizingCommand`), on a toy family with closed forms
(tests/calibration/toy_inverse_family.py, registered as a plugin would be). ``size outstanding`` (replication)
is the built-in user."""

from __future__ import annotations

import json
import math

import pytest

import iosizer
from iosizer.errors import InputError
from iosizer.model import registry
from iosizer.model.sizing import UnreachableTargetError


@pytest.fixture()
def toy(monkeypatch):
    plugins = {**registry._plugins(), "toy-inverse": "tests.calibration.toy_inverse_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    return iosizer.api.ModelFamily(registry.declaration("toy-inverse"))


def test_the_inverse_answers_every_target_given_and_the_by_product(toy) -> None:
    answer = toy.size(command="pipes", target_delay_s=0.01, target_load_delay_s=0.05, load_per_s=150, lanes=3)
    assert answer.to_data() == {"rate_per_s": 100.0, "load_per_s": 150.0, "lanes": 3,
                                "lanes_needed": math.ceil((150 + 100) / 100), "delay_at_lanes_s": 1 / (300 - 150),
                                "max_load_per_s": 300 - 20.0, "capacity_per_s": 300.0}
    assert answer.title == "Pipes at 100 per second"
    assert answer.notes == ("capacity_per_s: lanes x rate", "3 lanes")
    # One target alone: the by-product still answers; a note that reads an answer not asked is left out.
    alone = toy.size(command="pipes", target_load_delay_s=0.05, lanes=[1, 2]).records()
    assert [r["max_load_per_s"] for r in alone] == [80.0, 180.0]
    assert all("lanes_needed" not in r and "capacity_per_s" in r for r in alone)


def test_its_errors_are_the_declarations(toy) -> None:
    with pytest.raises(InputError, match=r"^give --target-delay-s \(or --target-load-delay-s\)$"):
        toy.size(command="pipes")
    with pytest.raises(InputError, match="must be a finite number > 0, got nan"):  # the inverse checks its target
        toy.size(command="pipes", target_delay_s=float("nan"))
    with pytest.raises(UnreachableTargetError, match="more than 1000"):
        toy.size(command="pipes", target_delay_s=1e-9)
    profile = toy.shipped()
    with pytest.raises(InputError, match="^a profile holds its rate; drop --rate-per-s$"):
        toy.size(profile, command="pipes", target_delay_s=0.01, rate_per_s=5)
    with pytest.raises(InputError, match="declares no sizing command 'nope'"):
        toy.size(command="nope", target_delay_s=0.01)


def test_the_command_is_named_by_the_declaration(toy, cli) -> None:
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    try:
        result = cli("size", "pipes", "--target-delay-s", "0.01", "--load-per-s", "150", "--format", "json")
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout)["lanes_needed"] == 3
        table = cli("size", "pipes", "--target-delay-s", "0.01", "--load-per-s", "150")
        assert "Pipes at 100 per second" in table.stdout and "capacity_per_s: lanes x rate" in table.stdout
        refused = cli("size", "pipes")
        assert refused.exit_code == 2 and "give --target-delay-s (or --target-load-delay-s)" in refused.stderr
        assert "toy-inverse" not in cli("size", "--help").stdout  # the family's name is no command of its own
    finally:
        root_command.cache_clear()


def test_a_command_s_own_settings_published_flags_and_required_target(toy, cli) -> None:
    from iosizer.catalogue import command_spec
    from iosizer.cli.catalogue import root_command

    root_command.cache_clear()
    try:
        fields = {f.key: f for f in command_spec("size pipe-cap").fields}
        assert {"load", "max_lanes", "budget_delay_s"} <= set(fields) and "load_per_s" not in fields
        assert fields["budget_delay_s"].required
        capped = cli("size", "pipe-cap", "--budget-delay-s", "0.01", "--load", "150", "--max-lanes", "2",
                     "--format", "json")
        assert capped.exit_code == 0, capped.stderr
        assert json.loads(capped.stdout) == {"load_per_s": 150.0, "lanes_needed": None, "searched_to": 2}
        declared = cli("size", "pipe-cap", "--budget-delay-s", "0.01", "--load-per-s", "150", "--format", "json")
        assert json.loads(declared.stdout)["lanes_needed"] == 3  # the declared flag stays an alias
        for args, message in ((["--load", "150"], "Missing option '--budget-delay-s'"),
                              (["--budget-delay-s", "0.01", "--max-lanes", "0"], "--max-lanes must lie in [1, 1000]"),
                              (["--budget-delay-s", "0.01", "--load", "-1"], "--load must lie in")):
            refused = cli("size", "pipe-cap", *args)
            assert refused.exit_code == 2 and message in refused.stderr, refused.stderr
    finally:
        root_command.cache_clear()


def test_size_outstanding_is_declared_and_banded_by_a_profile(tmp_path) -> None:
    from iosizer.calibration.profile import save_profile

    replication = iosizer.family("replication")
    plain = replication.size(command="outstanding", target_iops=15000, target_latency_us=1000, link="10g")
    data = plain.to_data()
    assert list(data)[:3] == ["link", "block_kib", "outstanding"] and "outstanding_ci_low" not in data
    path = tmp_path / "rep.json"
    save_profile(replication.shipped("1g"), path)
    banded = replication.size(iosizer.load_profile(path), command="outstanding", target_iops=15000).to_data()
    assert banded["outstanding_ci_low"] <= banded["outstanding"] and banded["outstanding_ci_high"] is None
    with pytest.raises(InputError, match="--profile names its link; drop --link"):
        replication.size(iosizer.load_profile(path), command="outstanding", target_iops=15000, link="10g")
