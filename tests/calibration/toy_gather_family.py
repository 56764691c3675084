"""A toy family for a sizing command of by-products alone gathered into one record (``Sizing.always``,
``Sizing.once``, ``Sizing.unbounded``, ``SizingCommand.gather``) and answered on a catalogue entry
(``Question.catalogue``): declared outside iosizer's family modules.

A route of hops behind a queue of rate r: a budget b of delay leaves slack b - 1 / r for the hops, so hops
of h each fit floor(slack / h) times. ``iosizer size route``: the slack once, then the most hops of each
``--hop-s`` listed under ``hops``; the budget is the question's setting (a default: no target to give).
A link of the catalogue (``--link``, found by the family's calibration module: a test patches it in)
brings its own extra delay, or none at all (``free``: any number of hops fits).
"""

from __future__ import annotations

import math

import numpy as np

from iosizer.model.family import (Column, Family, Input, Output, ParameterSpec, Question, Role, Schema, Sizing,
                                  SizingCommand)

BUDGET = ParameterSpec("budget_s", "s", 0.05, (0.0, 10.0), "assumed", "a test value", "delay budget",
                       kind="setting")
LINK = ParameterSpec("link", "", None, (0.0, 0.0), "assumed", "a test catalogue", "a link of the catalogue",
                     kind="setting", parse=lambda value, label: str(value))
#: The catalogue a test patches in as the family's calibration module's (profile None: the declared values).
CATALOGUE = {"slow": {"extra_delay_s": 0.02}, "free": {"free": 1.0}}


def catalogue_entry(family, setting, name):
    return None, dict(CATALOGUE[name])


def _slack(values):
    if values.get("free"):
        return math.inf
    return values["budget_s"] - values.get("extra_delay_s", 0.0) - 1.0 / values["rate_per_s"]


def _solve(values, inputs):
    slack = _slack(values)
    return {"max_hops": np.floor(slack / inputs["hop_s"]) if math.isfinite(slack) else np.full_like(
        inputs["hop_s"], np.inf)}


def _route_slack(values, point, target):
    assert point == {} and target is None
    return {"budget_s": values["budget_s"], "slack_s": _slack(values)}


def _route_hops(values, point, target):
    slack = _slack(values)
    return {"hop_s": point["hop_s"], "max_hops": int(slack // point["hop_s"]) if math.isfinite(slack) else slack}


ROUTE = SizingCommand(
    "route", "The slack a delay budget leaves, and the most hops of each length.",
    shape=lambda values, point, record: record, gather="hops",
    notes=(lambda values, record: f"slack {record['slack_s']} s for {record['hop_s']:g} s hops",),
    title=lambda values, record: f"Hops within {record['budget_s']:g} s")

FAMILIES = (Family(
    name="toy-gather",
    summary="a toy route of hops behind a queue",
    source="tests",
    parameters=(ParameterSpec("rate_per_s", "1/s", 100.0, (1e-6, 1e9), "assumed", "a test value"),),
    columns=Schema("toy-gather", (Column("hop_s", Role.input, "s"), Column("max_hops", Role.observed, "hops"))),
    solve=_solve,
    service_time="exponential",
    questions=(Question(
        "route", "the most hops within a delay budget",
        inputs=(Input("hop_s", "s", (1e-9, 1.0), default=(0.001, 0.004), repeatable=True),),
        outputs=(Output("max_hops", "hops", band=False),),
        solve=_solve, settings=(BUDGET, LINK), optional=("link",), catalogue="link",
        sizing=(Sizing("slack_s", "max_hops", command="route", invert=_route_slack, always=True, once=True,
                       report="slack_s"),
                Sizing("hop_s", "max_hops", command="route", invert=_route_hops, always=True, report="max_hops",
                       unbounded=False)),
        sizing_commands=(ROUTE,)),),
),)
