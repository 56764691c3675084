"""One road from a declared :class:`~iosizer.model.family.Simulation` to its analytic value and ``--simulate``.

Every built-in simulation names the outputs its metrics estimate, its builder takes the analytic column
from the question's own answer, and its system (``SYSTEMS_AT``) runs at an answer's values for the
question's ``--simulate``. Fixed seeds, few replications.
"""

from __future__ import annotations

import pytest

from iosizer.model.family import Simulation
from iosizer.model.registry import declaration, family_names


def _simulated():
    for name in family_names():
        for question in declaration(name).questions:
            if isinstance(question.simulate, Simulation) and not question.simulate.refused:
                yield name, question


def test_every_simulated_metric_names_an_output_of_its_question() -> None:
    from iosizer.simulate.systems import SYSTEMS_AT

    seen = 0
    for name, question in _simulated():
        outputs = question.simulate.outputs
        assert outputs, f"{name} {question.command}: no metrics declared"
        assert set(outputs.values()) <= set(question.output_names), (name, question.command)
        if (name, question.command) in SYSTEMS_AT:
            seen += 1
    assert seen >= 12  # five open queues, closed-network, oltp, dma, rmw, hba response, loadshare load, replication


@pytest.mark.parametrize(("family", "question", "options", "asked", "given"), [
    ("mmc", "mg1", {"arrival_rate": 0.7, "service_rate": 1.0, "service_scv": 0.5}, "queue mg1",
     {"arrival_rate": [0.7], "service_rate_per_s": 1.0, "service_scv": 0.5}),
    ("closed-network", None, {"population": 8, "demands": [0.005, 0.003], "think_time": 0.05}, "queue mva",
     {"population": [8], "demand_s": [0.005, 0.003], "think_time_s": 0.05}),
    ("replication", None, {"link": "1g", "block_kib": 16.0, "outstanding": 8}, "replication",
     {"link": "1g", "block_kib": [16.0], "outstanding": [8]}),
    ("hba", "response", {"threads": 8, "mode": "occupancy"}, "hba response",
     {"threads": [8], "mode": "occupancy", "service_scv": 1.0}),
    ("loadshare", None, {"scenario": "skew", "policy": "one-stage", "load_cores": 2.0, "cores": 6}, "load",
     {"scenario": "skew", "policy": "one-stage", "load_cores": [2.0], "cores": 6}),
    ("loadshare", None, {"port_shares": [3.0, 1.0, 1.0, 1.0], "policy": "multi-stage", "load_cores": 2.5}, "load",
     {"shares": "3,1,1,1", "policy": "multi-stage", "load_cores": [2.5]}),
])
def test_the_analytic_column_is_the_questions_answer(family, question, options, asked, given) -> None:
    from iosizer.calibration.questions import answer
    from iosizer.simulate import experiment

    built = experiment(family, question, **options)
    answered = answer(family, asked, **given)
    part = answered.parts[0][1] if answered.parts else answered
    for metric, output in declaration(family).question(asked).simulate.outputs.items():
        found = next(m for m in built.metrics if m.name == metric)
        assert found.analytic == float(part.outputs[output][0])


def test_a_built_in_question_simulates_its_outputs_at_its_own_values() -> None:
    import iosizer

    asked = iosizer.family("replication").ask("replication", link="10g", block_kib=[4.0], outstanding=[8],
                                              simulate=True)
    record = asked.records()[0]
    for key in ("iops", "latency_us"):
        assert record[f"{key}_sim_low"] <= record[key] <= record[f"{key}_sim_high"]
        assert record[key] == pytest.approx(record[f"{key}_model"], rel=0.05)
    assert "throughput_mbps_model" not in record  # only what the simulation estimates


def test_loadshare_load_simulates_its_response_at_each_load() -> None:
    """The load question's --simulate runs the system ``iosizer simulate loadshare`` runs, at its own values."""
    import iosizer

    asked = iosizer.family("loadshare").ask("load", scenario="one-port", policy="shared", load_cores=[1.0],
                                            simulate=True)
    record = asked.records()[0]
    key = "response_service_times"
    assert record[f"{key}_sim_low"] <= record[key] <= record[f"{key}_sim_high"]
    assert record[key] == pytest.approx(record[f"{key}_model"], rel=0.05)
