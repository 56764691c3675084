"""A toy family for tests/calibration/test_declared_sizing.py: declared outside iosizer's family modules.

lanes x rate of service behind a load: delay_s = 1 / (lanes x rate - load) (an M/M/1 of rate
lanes x rate). Two sizings with closed-form answers: the largest load within a delay
(lanes x rate - 1 / target) and the smallest lanes within it (ceil((load + 1 / target) / rate)).
"""

from __future__ import annotations

import numpy as np

from iosizer.model.family import Column, Family, Input, Output, ParameterSpec, Question, Role, Schema, Sizing


def _solve(values, inputs):
    capacity = inputs["lanes"] * values["rate_per_s"]
    with np.errstate(divide="ignore"):
        delay = np.where(inputs["load_per_s"] < capacity, 1.0 / (capacity - inputs["load_per_s"]), np.inf)
    return {"delay_s": delay, "spare_per_s": capacity - inputs["load_per_s"]}


FAMILIES = (Family(
    name="toy-sizing",
    summary="a toy queue for the generic sizing tests",
    source="tests",
    parameters=(ParameterSpec("rate_per_s", "1/s", 100.0, (1e-6, 1e9), "assumed", "a test value"),),
    columns=Schema("toy-sizing", (Column("load_per_s", Role.input, "1/s"), Column("delay_s", Role.observed, "s"))),
    solve=lambda values, inputs: {"delay_s": _solve(values, {"lanes": 1.0, **inputs})["delay_s"]},
    service_time="exponential",
    questions=(Question(
        "pipe", "delay of a load on lanes",
        inputs=(Input("load_per_s", "1/s", (0.0, 1e9), default=50.0),
                Input("lanes", "lanes", (1, 1000), default=1, integer=True)),
        outputs=(Output("delay_s", "s"), Output("spare_per_s", "1/s")),
        solve=_solve,
        sizing=(Sizing("load_per_s", "delay_s", at_most=True, smallest=False),
                Sizing("lanes", "delay_s", at_most=True, smallest=True, target="target_lanes_delay_s")),
    ),),
),)
