"""A toy family for the swept-choice tests (Question.sweeps) and a question at the family's own path.

A link of medium ``copper`` carries ``copper_per_s`` blocks per second (fitted), ``fibre`` a fixed
1000 (no fitted value moves it); ``iosizer toy-sweep --medium all`` answers both.
"""

from __future__ import annotations

import numpy as np

from iosizer.model.family import Column, Family, FitPlan, Input, Output, ParameterSpec, Question, Role, Schema

FIBRE_PER_S = 1000.0


def _rate(values, inputs):
    per_block = values["copper_per_s"] if values["medium"] == "copper" else FIBRE_PER_S
    return {"rate_per_s": per_block * np.asarray(inputs["blocks"], dtype=float)}


def _medium(value: object, label: str) -> str:
    key = str(value).strip().lower()
    key = {"cu": "copper"}.get(key, key)  # another name a planner may use
    if key not in ("copper", "fibre"):
        from iosizer.errors import InputError

        raise InputError(f"{label}: unknown medium '{value}'; known: copper, fibre")
    return key


FAMILIES = (Family(
    name="toy-sweep",
    summary="a toy link rate for the swept-choice tests",
    source="tests",
    parameters=(ParameterSpec("copper_per_s", "1/s", 30.0, (1e-6, 1e9), "assumed", "a test value"),
                ParameterSpec("medium", "", "copper", (0.0, 0.0), "assumed", "a test value", kind="setting",
                              choices=("copper", "fibre"), parse=_medium)),
    columns=Schema("toy-sweep", (Column("blocks", Role.input, "1"), Column("rate_per_s", Role.observed, "1/s"))),
    solve=_rate,
    fit=FitPlan(lambda data, settings: {"copper_per_s": 20.0}),
    service_time="deterministic",
    questions=(Question(
        "toy-sweep", "the link's rate for each medium",
        inputs=(Input("blocks", "1", (1, 100), default=(1, 2), integer=True),),
        outputs=(Output("rate_per_s", "1/s", "the rate"),),
        solve=_rate, sweeps=("medium",), always_list=True,
    ),),
),)
