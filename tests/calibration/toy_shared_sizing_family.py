"""Two toy families whose sizings share a command, for the generic sizing features of issue 24.

``toy-lanepool``: ``lanes`` (a whole-number setting) of ``rate_per_s`` each behind a load: delay_s = 1 / (lanes x
rate - load), busy = load / (lanes x rate); the delay's percentiles are an exponential's (-ln(1 - q) x delay),
beside an ``other_pP`` the sizing must not take. ``toy-net``: a delay of ``step_s`` per job, wait_s = jobs x
step_s. Sizings with closed-form answers: ``toy-lanes`` (the smallest lanes: a searched setting, the stable
count first, each target alone, a bounded target, a percentile among others, published keys, title and notes,
an option under an older name) and ``toy-load`` (the largest load of a pool, bisected on (0, lanes x rate); or
the most jobs of a net): one command for two families.
"""

from __future__ import annotations

import math

import numpy as np

from iosizer.model.family import (Column, Family, Input, Output, ParameterSpec, Question, Role, Schema, Sizing,
                                  SizingCommand)


def _pool(values, inputs):
    capacity = inputs.get("lanes", values["lanes"]) * values["rate_per_s"]  # the sizing searches lanes
    load = inputs["load_per_s"]
    return {"delay_s": 1.0 / (capacity - load), "busy": load / capacity}


def _pool_percentiles(values, inputs, percentiles):
    delay = _pool(values, inputs)["delay_s"]
    out = {}
    for p in percentiles:
        key = f"p{p:g}".replace(".", "_")
        out[f"delay_s_{key}"] = -math.log1p(-p / 100) * delay
        out[f"other_{key}"] = np.zeros_like(delay)
    return out


def _stable(values, inputs):
    return np.floor(inputs["load_per_s"] / values["rate_per_s"]) + 1.0


def _too_small(values, target, percentile):  # out_of_reach
    return f"target {target:g} is below any delay this toy reaches" if target < 1e-9 else None


_KEYS = (("lanes", "lanes"), ("load_per_s", "load"), ("rate_per_s", "rate"), ("target", "{target}"),
         ("percentile", "percentile"), ("measure", "{measure}"), ("one_fewer", "{measure}_one_fewer"),
         ("lowest", "fewest_stable"))


def _lanes(output, target, **more):
    keys = tuple((k, v.replace("{target}", target)) for k, v in _KEYS)
    return Sizing("lanes", output, target=target, command="toy-lanes", alone=True, lowest=_stable, keys=keys,
                  title=lambda values, targets, inputs: "Fewest toy lanes",
                  notes=lambda values, records, inputs: [f"lanes: the fewest with {values['measure']} within the "
                                                         "target"],
                  **more)


POOL = Family(
    name="toy-lanepool",
    summary="a toy pool of lanes",
    source="tests",
    parameters=(ParameterSpec("rate_per_s", "1/s", 100.0, (1e-6, 1e9), "assumed", "a test value"),
                ParameterSpec("lanes", "lanes", 1, (1, 1000), "assumed", "a test value", kind="setting",
                              integer=True)),
    columns=Schema("toy-lanepool", (Column("load_per_s", Role.input, "1/s"), Column("delay_s", Role.observed, "s"))),
    solve=lambda values, inputs: {"delay_s": _pool(values, inputs)["delay_s"]},
    service_time="exponential",
    questions=(Question(
        "pool", "delay of a load on lanes",
        inputs=(Input("load_per_s", "1/s", (0.0, 1e9), default=50.0),),
        outputs=(Output("delay_s", "s"), Output("busy", "1")),
        solve=_pool, percentiles=_pool_percentiles,
        sizing_commands=(SizingCommand("toy-lanes", flags={"rate_per_s": "--rate"}),),
        sizing=(_lanes("delay_s", "target_delay_s", percentile="delay_s", out_of_reach=_too_small),
                _lanes("busy", "target_busy", target_bounds=(0.0, 1.0)),
                Sizing("load_per_s", "delay_s", smallest=False, command="toy-load", target="target_delay_s",
                       bracket=True, stop=lambda values: values["lanes"] * values["rate_per_s"])),
    ),),
)

NET = Family(
    name="toy-net",
    summary="a toy net of jobs",
    source="tests",
    parameters=(ParameterSpec("step_s", "s", 0.01, (1e-9, 1e9), "assumed", "a test value"),),
    columns=Schema("toy-net", (Column("jobs", Role.input, "jobs"), Column("wait_s", Role.observed, "s"))),
    solve=lambda values, inputs: {"wait_s": inputs["jobs"] * values["step_s"]},
    service_time="constant",
    questions=(Question(
        "net", "wait of jobs in a net",
        inputs=(Input("jobs", "jobs", (1, 1000), default=1, integer=True),),
        outputs=(Output("wait_s", "s"),),
        solve=lambda values, inputs: {"wait_s": inputs["jobs"] * values["step_s"]},
        sizing=(Sizing("jobs", "wait_s", smallest=False, command="toy-load", target="target_delay_s"),),
    ),),
)

FAMILIES = (POOL, NET)
