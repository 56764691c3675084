"""The quick lane's fast paths answer exactly what the slow ones did (issue 26: speed without new answers).

- a command is its spec's function called with the request's validated
  values (:mod:`iosizer.catalogue`), no command line: it answers what the
  CLI prints;
- the answer's JSON is written in one pass (:func:`iosizer.serve.worker.json_text`),
  byte for byte what ``--format json`` prints;
- ``predict`` reads its bands only when asked, with the same numbers.

No timings here: speed is measured in benchmarks/bench_serve.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import iosizer
from iosizer.catalogue import command_specs
from iosizer.commands import body_values
from iosizer.cli.output import to_json
from iosizer.serve import worker
from iosizer.serve.examples import STARTING_INPUTS

SPECS = {spec.name: spec for spec in command_specs()[0]}
#: Every what-if the page opens with, and bodies that take other roads (a profile, a list, a flag, a choice).
BODIES = [(name, body) for name, body in STARTING_INPUTS.items()
          if name in SPECS and not SPECS[name].heavy and worker.direct(SPECS[name])] + [
    ("size load", {"demand": [0.005, 0.003], "servers": ["4", "delay"], "target_response_s": 0.5}),
    ("latency budget", {"budget_pct": 5, "device": "bcm5700", "show_formula": True}),
    ("hba response", {"threads": "1,8,16", "port": "32GFC", "percentile": [99]}),
]
BODIES = [(name, body) for name, body in BODIES if name in SPECS]  # a declared question has its own route


def _printed(spec: Any, values: dict[str, Any]) -> str:
    """What ``iosizer ... --format json`` prints for the request's values (the CLI run in this process)."""
    from typer.testing import CliRunner

    from iosizer.cli.app import app

    printed = CliRunner().invoke(app, spec.argv(values))
    assert printed.exit_code == 0, printed.output
    return printed.stdout


@pytest.mark.parametrize(("name", "body"), BODIES, ids=[f"{n} {i}" for i, (n, _) in enumerate(BODIES)])
def test_the_quick_lane_answers_what_the_cli_prints(name: str, body: dict[str, Any]) -> None:
    spec = SPECS[name]
    values = body_values(spec.model.model_validate(body))
    answer = worker.answer_quick(spec.path, dict(values))
    assert answer["status"] == 200, answer
    assert answer["json"] == _printed(spec, values)
    viewed = worker.answer_quick(spec.path, dict(values), view=True)
    assert viewed["json"] == answer["json"] and viewed["view"]["title"]


def test_a_missing_required_value_is_clicks_error() -> None:
    spec = SPECS["size lanes"]  # a generated command
    answer = worker.answer_quick(spec.path, {})
    assert answer["status"] == 422 and answer["field"] == "budget_pct", answer
    # a declared command (iosizer.commands) says it in click's words, naming the field
    answer = worker.answer_quick(SPECS["extrapolate"].path, {"cpu_speed": 2.0})
    assert answer["status"] == 422 and answer["field"] == "profiles", answer
    assert answer["error"] == "Missing argument 'profiles'.", answer


@pytest.mark.parametrize("data", [
    {"a": 1.5, "b": 3, "c": [math.nan, math.inf, 1e-05, 1e16, -0.0, 5e-324], "d": {}, "e": [], "f": "é\"\n\t/",
     "g": (1, True, None, False), "nested": [{"x": [1, [2, {}]]}, []]},
    {"numpy": np.float64(1.5), "int": np.int64(3), "array": np.array([[1.0, np.nan], [2.5, 3.0]]),
     "flag": np.bool_(True), "float32": np.float32(0.1)},
    [1, {"x": {1: 2}}],  # a key that is not text: left to json.dumps
    "text", 1.25, None, [], {},
], ids=["plain", "numpy", "int key", "text", "number", "null", "empty list", "empty object"])
def test_json_text_is_to_json_byte_for_byte(data: Any) -> None:
    assert worker.json_text(data) == to_json(data)


def test_json_text_refuses_what_to_json_refuses() -> None:
    with pytest.raises(TypeError):
        to_json({"p": object()})
    with pytest.raises(TypeError):
        worker.json_text({"p": object()})


def test_a_declared_questions_json_is_its_answers() -> None:
    answer = iosizer.family("device").ask("curve", outstanding=[1, 8, 64])
    assert worker.json_text(answer.to_data()) == answer.to_json()
    served = worker.answer_question("device", "curve", {"outstanding": [1, 8, 64]}, ["outstanding"])
    assert served["json"] == answer.to_json() + "\n"


@pytest.mark.parametrize("name", iosizer.families())
def test_predict_reads_its_band_when_asked_with_the_same_numbers(name: str) -> None:
    from iosizer.calibration.profile import profile_values
    from iosizer.calibration.family_modules import complete_values
    from iosizer.calibration.uncertainty import propagate

    family = iosizer.family(name)
    point = {c.name: max(c.minimum, 1) if c.integer else (c.minimum + min(c.maximum, c.minimum + 10)) / 2
             for c in family.columns.inputs}
    prediction = family.predict(**point)
    first = next(iter(prediction.outputs))
    assert np.array_equal(getattr(prediction, first), prediction.outputs[first])
    lazy = getattr(prediction.bands, "_bands", "eager")
    assert lazy is None or prediction.bands == {}  # not computed by reading an output
    shipped = family.shipped()
    values = complete_values(name, profile_values(shipped))
    arrays = family._inputs(point)
    expected = {}
    if any(e.vary for e in shipped.parameters.values()):
        expected = dict(propagate(shipped, lambda fitted: family.declaration.solve({**values, **fitted}, arrays)))
    assert set(prediction.bands) == set(expected)
    for key, (low, high) in expected.items():
        assert np.array_equal(prediction.bands[key][0], low) and np.array_equal(prediction.bands[key][1], high)
    again = family.predict(shipped, **point)  # the profile given: the same numbers, the same road
    assert again.to_dict() == prediction.to_dict()


@pytest.mark.parametrize(("path", "values"), [
    (("simulate", "device"), {"outstanding": "1,4"}),  # a simulate hook's command
    (("simulate", "mmc"), {"arrival_rate": 3.0, "service_rate": 1.0, "servers": 4}),  # a declared Simulation's
])
def test_a_simulation_job_hears_its_progress(path: tuple[str, ...], values: dict[str, Any]) -> None:
    """The job's progress comes from the command's own run (CommandSpec.progress), whatever builds it."""
    heard: list[tuple[int, int]] = []
    answer = worker.answer_quick(path, {**values, "replications": 2, "run_length": 300, "workers": 1},
                                 progress=lambda done, total: heard.append((done, total)))
    assert answer["status"] == 200, answer
    assert heard and heard[-1] == (2, 2)


def test_an_unknown_command_is_a_422_not_a_dead_worker() -> None:
    answer = worker.answer_quick(("size", "no-such-command"), {})
    assert (answer["status"], answer["kind"]) == (422, "InputError"), answer
    assert answer["error"].startswith("no command 'iosizer size no-such-command'")
