"""A toy family for sizing by a model's own inverse (``Sizing.invert``) under a command of its own name
(``Sizing.command``, :class:`~iosizer.model.family.SizingCommand`): declared outside iosizer's family modules.

lanes x rate of service behind a load: delay_s = 1 / (lanes x rate - load) (an M/M/1 of rate lanes x rate).
``iosizer size pipes``: the fewest lanes within a delay, ceil((load + 1 / target) / rate) (a closed form),
the largest load within a delay at the lanes given, lanes x rate - 1 / target, and on every answer the
capacity of the lanes given (a by-product, no target). ``iosizer size pipe-cap``: the fewest lanes
up to its own ``--max-lanes`` (a setting of the command), the load published as ``--load``, the budget
required.
"""

from __future__ import annotations

import math

import numpy as np

from iosizer.errors import InputError
from iosizer.model.family import (Column, Family, Input, Output, ParameterSpec, Question, Role, Schema, Sizing,
                                  SizingCommand)
from iosizer.model.sizing import UnreachableTargetError


def _solve(values, inputs):
    capacity = inputs["lanes"] * values["rate_per_s"]
    with np.errstate(divide="ignore"):
        delay = np.where(inputs["load_per_s"] < capacity, 1.0 / (capacity - inputs["load_per_s"]), np.inf)
    return {"delay_s": delay}


def _fewest_lanes(values, point, target):
    if not (math.isfinite(target) and target > 0):
        raise InputError(f"--target-delay-s must be a finite number > 0, got {target:g}")
    lanes = math.ceil((point["load_per_s"] + 1.0 / target) / values["rate_per_s"])
    if lanes > 1000:
        raise UnreachableTargetError(f"{target:g} s needs {lanes} lanes, more than 1000")
    return {"lanes_needed": lanes, "delay_at_lanes_s": 1.0 / (lanes * values["rate_per_s"] - point["load_per_s"])}


def _largest_load(values, point, target):
    return {"max_load_per_s": max(point["lanes"] * values["rate_per_s"] - 1.0 / target, 0.0)}


def _capacity(values, point, target):
    assert target is None
    return {"capacity_per_s": point["lanes"] * values["rate_per_s"]}


PIPES = SizingCommand(
    "pipes", "Lanes for a delay, and the load lanes carry within one.",
    needs="give --target-delay-s (or --target-load-delay-s)",
    shape=lambda values, point, record: {"rate_per_s": values["rate_per_s"], **point, **record},
    title=lambda values, record: f"Pipes at {values['rate_per_s']:g} per second",
    notes=("capacity_per_s: lanes x rate",
           lambda values, record: f"{record['lanes_needed']} lanes" if "lanes_needed" in record else None),
    refused={"rate_per_s": "a profile holds its rate; drop --rate-per-s"})

def _capped_lanes(values, point, target):
    lanes = math.ceil((point["load_per_s"] + 1.0 / target) / values["rate_per_s"])
    return {"lanes_needed": lanes if lanes <= values["max_lanes"] else None, "searched_to": values["max_lanes"]}


PIPE_CAP = SizingCommand(
    "pipe-cap", "Lanes for a delay, up to a count.",
    settings=(ParameterSpec("max_lanes", "lanes", 1000, (1, 1000), "assumed", "a test bound",
                            "Search up to this many lanes.", kind="setting", integer=True),),
    flags={"load_per_s": "--load"}, required=("budget_delay_s",))

FAMILIES = (Family(
    name="toy-inverse",
    summary="a toy queue sized by its own inverse",
    source="tests",
    parameters=(ParameterSpec("rate_per_s", "1/s", 100.0, (1e-6, 1e9), "assumed", "a test value"),),
    columns=Schema("toy-inverse", (Column("load_per_s", Role.input, "1/s"), Column("delay_s", Role.observed, "s"))),
    solve=lambda values, inputs: _solve(values, {"lanes": 1.0, **inputs}),
    service_time="exponential",
    questions=(Question(
        "pipe", "delay of a load on lanes",
        inputs=(Input("load_per_s", "1/s", (0.0, 1e9), default=50.0),
                Input("lanes", "lanes", (1, 1000), default=1, integer=True)),
        outputs=(Output("delay_s", "s"),),
        solve=_solve,
        sizing=(Sizing("lanes", "delay_s", target="target_delay_s", command="pipes", invert=_fewest_lanes,
                       report="lanes_needed"),
                Sizing("load_per_s", "delay_s", smallest=False, target="target_load_delay_s", command="pipes",
                       invert=_largest_load, interval=False),
                Sizing("lanes", "delay_s", command="pipes", invert=_capacity, always=True, interval=False),
                Sizing("lanes", "delay_s", target="budget_delay_s", command="pipe-cap", invert=_capped_lanes,
                       report="lanes_needed")),
        sizing_commands=(PIPES, PIPE_CAP)),),
),)
