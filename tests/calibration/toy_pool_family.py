"""A toy family for the generic sizing features a seed family's published command needs: several
sizings on one target, a search over a whole-number parameter, the measure one step short, a reason
instead of an error, the floor's own words, a swept setting, and the command's own presentation.

A pool of ``ports`` x ``cores`` servers of ``rate_per_s`` each (doubled for kind ``fast``) behind the
sum of the tenants' loads, plus a fixed overhead: delay_s = overhead_s + 1 / (capacity - load).
Smallest ports within a target T: ceil((load + 1 / (T - overhead)) / (cores x rate)); cores likewise
at the given ports (at most 8: past that, a reason).
"""

from __future__ import annotations

import numpy as np

from iosizer.errors import InputError
from iosizer.model.family import (Column, Family, Input, Output, ParameterSpec, Question, Role, Schema, Sizing,
                                  parse_grid)

OVERHEAD_S = 0.01
LOAD = ParameterSpec("load_per_s", "1/s", None, (0.0, 1e6), "assumed", "a test value", kind="setting")


def _loads(value, label):
    loads = tuple(value) if isinstance(value, (tuple, list)) else tuple(parse_grid(str(value), "loads", LOAD))
    if not sum(loads) > 0:
        raise InputError("--loads needs a positive total")
    return loads


def _rate(values):
    return values["rate_per_s"] * (2.0 if values["kind"] == "fast" else 1.0)


def _solve(values, inputs):
    ports = np.asarray(inputs["ports"], dtype=np.float64)
    cores = np.asarray(inputs.get("cores", values["cores"]), dtype=np.float64)
    spare = ports * cores * _rate(values) - sum(values["loads"])
    with np.errstate(divide="ignore"):
        return {"delay_s": np.where(spare > 0, OVERHEAD_S + 1.0 / spare, np.inf)}


def _reason(values, point):
    return f"{int(point['ports'][0])} port(s) of 8 cores carry too little"


FAMILIES = (Family(
    name="toy-pool",
    summary="a toy pool for the generic sizing tests",
    source="tests",
    parameters=(ParameterSpec("rate_per_s", "1/s", 10.0, (1e-6, 1e9), "assumed", "a test value"),
                ParameterSpec("cores", "cores", 2, (1, 8), "assumed", "a test value", integer=True),
                ParameterSpec("kind", "", "slow", (0.0, 0.0), "assumed", "a test value", kind="setting",
                              choices=("slow", "fast")),
                ParameterSpec("loads", "1/s", 50.0, (0.0, 1e6), "assumed", "one load, the family's",
                              kind="setting")),
    columns=Schema("toy-pool", (Column("ports", Role.input, "ports"), Column("delay_s", Role.observed, "s"))),
    solve=lambda values, inputs: _solve({**values, "loads": (values["loads"],)}, inputs),
    service_time="exponential",
    questions=(Question(
        "pool", "delay of the tenants' loads on a pool of ports",
        inputs=(Input("ports", "ports", (1, 1000), default=1, integer=True),),
        outputs=(Output("delay_s", "s"),),
        solve=_solve, sweeps=("kind",), sweep_all=("kind",), always_list=True,
        takes=("rate_per_s", "cores", "kind"),
        settings=(ParameterSpec("loads", "1/s", None, (0.0, 0.0), "assumed", "the tenants' loads: 30,20",
                                kind="setting", parse=_loads),),
        sizing=(
            Sizing("ports", "delay_s", target="target_delay_s", command="pools", limit=lambda values: OVERHEAD_S,
                   unreachable="target {target:g} s is below the overhead {limit:g} s",
                   keys=(("target", "target_delay_s"), ("ports", "ports"), ("measure", "delay_s"),
                         ("one_fewer", "one_fewer_delay_s"), ("cores", "cores"),
                         ("capacity_per_s", "capacity_per_s")),
                   title=lambda values, targets, inputs: f"Pool for {len(values['loads'])} tenant(s)",
                   notes=lambda values, records, inputs: (f"rate {_rate(values):g}/s",),
                   at_answer=lambda values, point, answer, target: {
                       "capacity_per_s": None if answer is None else answer * values["cores"] * _rate(values)},
                   words=(("capacity_per_s", lambda value: f"{value:g} per s"),),
                   columns=("kind", "ports", "cores_needed", "capacity_per_s")),
            Sizing("cores", "delay_s", target="target_delay_s", command="pools", reason=_reason, interval=False,
                   keys=(("ports", "given_ports"), ("cores", "cores_needed"), ("reason", "why"),
                         ("rate_per_s", "rate_per_s"))),
        ),
    ),),
),)
