"""A toy family for tests/calibration/test_question_shapes.py: the declaration's answer shapes.

y = a x. At x = 1 a "published" figure exists (an optional key); ``--show-formula`` adds the formula
(an object output); ``--label`` is a setting of the question alone; the answer is always a list and
its published shape names y ``y_scaled`` after the label.
"""

from __future__ import annotations

import numpy as np

from iosizer.model.family import Column, Family, Input, Output, ParameterSpec, Question, Role, Schema

LABEL = ParameterSpec("label", "", "first", (0, 0), "assumed", "a test name", "which one", kind="setting",
                      choices=("first", "second"))
SHOW = ParameterSpec("show_formula", "", None, (0, 1), "assumed", "a test switch", "add the formula",
                     kind="setting", integer=True)
POWER = ParameterSpec("power", "1", None, (0, 4), "assumed", "a test exponent", "x scaled by s^power",
                      kind="setting")


def _solve(values, inputs):
    x = inputs["x"] * values.get("cpu_speed_factor", 1.0) ** values.get("power", 0.0)
    return {"y": values["a"] * x,
            "published": np.where(inputs["x"] == 1.0, 7.0, np.nan),
            "formula": {"text": "a*x", "symbols": {"a": "slope"}} if values.get("show_formula") else None}


def _shape(records, values):
    return [{"label": values["label"], "x": r["x"], "y_scaled": r["y"],
             **{k: r[k] for k in ("published", "formula") if k in r}} for r in records]


FAMILIES = (Family(
    name="toy-shapes",
    summary="a toy line for the generic answer-shape tests",
    source="tests",
    parameters=(ParameterSpec("a", "1", 2.0, (0.0, 10.0), "assumed", "a test value"),),
    columns=Schema("toy-shapes", (Column("x", Role.input, "1"), Column("y", Role.observed, "1"))),
    solve=lambda values, inputs: {"y": values["a"] * inputs["x"]},
    service_time="none",
    questions=(Question(
        "line", "y = a x",
        inputs=(Input("x", "1", (0.0, 100.0)),),
        outputs=(Output("y", "1"), Output("published", "1", optional=True),
                 Output("formula", "", optional=True, kind="object")),
        solve=_solve, settings=(LABEL, SHOW, POWER), always_list=True, shape=_shape, own_cpu=("power",),
        optional=("show_formula", "power"), several_profiles=True),
        Question("plain", "y = a x, generic records", inputs=(Input("x", "1", (0.0, 100.0)),),
                 outputs=(Output("y", "1"), Output("published", "1", optional=True),
                          Output("formula", "", optional=True, kind="object")),
                 solve=_solve, settings=(LABEL, SHOW, POWER), optional=("show_formula", "power")),
    ),
),)
