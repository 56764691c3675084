"""``iosizer simulate`` commands generated from a question's :class:`~iosizer.model.family.Simulation`.

A toy family (tests/simulate/toy_simulation_family.py, registered here as a plugin would be) declares
a one-word command with options of its own, a group of two-word commands and a refused question; the
CLI, the HTTP fields and ``iosizer.simulate.simulate`` come from those declarations alone.
"""

from __future__ import annotations

import json

import pytest

from iosizer.errors import InputError
from iosizer.model import registry

RUN = ("--replications", "3", "--run-length", "500", "--seed", "1", "--workers", "1")


@pytest.fixture()
def toy(monkeypatch):
    from iosizer.cli.catalogue import root_command

    plugins = {**registry._plugins(), "toy-sim": "tests.simulate.toy_simulation_family"}
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    root_command.cache_clear()
    yield
    root_command.cache_clear()


def test_the_python_api_builds_the_declared_system(toy) -> None:
    from iosizer.simulate import experiment, simulate

    built = experiment("toy-sim", "pipe", load_per_s=50.0, lanes=[2])
    assert built.metrics[0].analytic == pytest.approx(1 / 150)
    assert experiment("toy-sim", load_per_s=50.0).metrics[0].analytic == pytest.approx(1 / 50)  # first runnable
    rows = simulate("toy-sim", "pipe", load_per_s=50.0, replications=3, seed=1, workers=1, run_length=500).rows()
    assert rows[0]["metric"] == "delay_s" and rows[0]["replications"] == 3
    with pytest.raises(InputError, match="^flat is not random$"):
        experiment("toy-sim", "flat")
    with pytest.raises(InputError, match="no question 'nope' to simulate; choose flat, line, pipe, wide"):
        experiment("toy-sim", "nope")


def test_a_one_word_command_takes_its_declared_options(toy, cli) -> None:
    result = cli("simulate", "toy-pipe", "--load", "50", "--lane", "1", "--lane", "1", *RUN, "--format", "json")
    assert result.exit_code == 0, result.stderr
    row = json.loads(result.stdout)[0]
    assert row["metric"] == "delay_s" and row["analytic"] == pytest.approx(1 / 150)
    same = cli("simulate", "toy-pipe", "--load", "50", "--lane", "1", "--lane", "1", *RUN, "--format", "json")
    assert same.stdout == result.stdout  # same seed, same answer
    missing = cli("simulate", "toy-pipe", "--format", "json")
    assert missing.exit_code == 2 and "Missing option '--load'" in missing.stdout
    unstable = cli("simulate", "toy-pipe", "--load", "500", "--format", "json")
    assert unstable.exit_code == 2 and json.loads(unstable.stdout)["error"] == "--load must lie in (0, 100), got 500"


def test_a_group_of_two_word_commands_and_a_refused_one(toy, cli) -> None:
    listing = cli("simulate", "toy-sim", "--help")
    assert listing.exit_code == 0
    assert "Toy groups: simulate 'wide'." in listing.stdout
    assert listing.stdout.index("wide") < listing.stdout.index("flat")  # what runs lists first
    wide = cli("simulate", "toy-sim", "wide", "--load", "50", "--wide", "3", *RUN, "--format", "json")
    assert wide.exit_code == 0, wide.stderr
    assert json.loads(wide.stdout)[0]["analytic"] == pytest.approx(1 / 250)
    both = cli("simulate", "toy-sim", "wide", "--load", "50", "--wide", "3", "--lane", "2", "--format", "json")
    assert both.exit_code == 2 and json.loads(both.stdout)["error"] == "give --lane or --wide, not both"
    flat = cli("simulate", "toy-sim", "flat")
    assert flat.exit_code == 2 and "flat is not random" in flat.stderr
    assert "--replications" not in cli("simulate", "toy-sim", "flat", "--help").stdout  # a refusal has no run


def test_the_served_fields_are_the_declared_options(toy) -> None:
    from iosizer.catalogue import command_spec

    spec = command_spec("simulate toy-pipe")
    fields = {f.key: f for f in spec.fields}
    assert fields["load"].required and fields["lane"].many and fields["rate"].default == 100.0
    assert {"replications", "seed", "max_seconds", "run_length"} <= set(fields)


def test_a_declared_system_answers_through_the_question(toy, cli) -> None:
    """A Simulation with a ``system`` and ``metrics`` and no builder: ``iosizer simulate`` takes the analytic
    value from the question's own answer, and the question's ``--simulate`` puts the simulated means beside its
    outputs (the adapter from replications to output keys), on every surface."""
    import iosizer

    result = cli("simulate", "toy-line", "--load", "50", "--rate", "150", *RUN, "--format", "json")
    assert result.exit_code == 0, result.stderr
    row = json.loads(result.stdout)[0]
    assert row["metric"] == "delay_s" and row["analytic"] == pytest.approx(1 / 100) and row["replications"] == 3
    bad = cli("simulate", "toy-line", "--load", "-1", "--format", "json")
    assert bad.exit_code == 2 and "load_per_s" in json.loads(bad.stdout)["error"]

    answer = cli("toy-sim", "line", "--load-per-s", "50,60", "--simulate", "--format", "json")
    assert answer.exit_code == 0, answer.stderr
    first, second = json.loads(answer.stdout)
    assert first["delay_s_model"] == pytest.approx(1 / 50) and second["delay_s_model"] == pytest.approx(1 / 40)
    for record in (first, second):
        assert record["delay_s_sim_low"] < record["delay_s"] < record["delay_s_sim_high"]
        assert record["delay_s"] == pytest.approx(record["delay_s_model"], rel=0.3)
    again = cli("toy-sim", "line", "--load-per-s", "50,60", "--simulate", "--format", "json")
    assert again.stdout == answer.stdout  # seed 0: the same answer
    plain = cli("toy-sim", "line", "--load-per-s", "50", "--format", "json")
    assert "delay_s_model" not in plain.stdout
    assert "--simulate" not in cli("toy-sim", "pipe", "--help").stdout  # a builder of its own: no adapter
    asked = iosizer.family("toy-sim").ask("line", load_per_s=[50.0], simulate=True)
    assert asked.records()[0]["delay_s_model"] == pytest.approx(1 / 50)
    assert any("simulated means" in note for note in asked.notes)


def test_a_simulation_keeps_its_older_question_name() -> None:
    """loadshare's simulation moved from its curve question to its load question (one road to the analytic
    value); the library still takes 'curve' (Simulation.aliases) and answers the same run."""
    from iosizer.simulate import simulate

    asked = dict(load_fraction=0.7, replications=2, run_length=2000, seed=1, workers=1)
    assert simulate("loadshare", "curve", **asked).rows() == simulate("loadshare", "load", **asked).rows()
