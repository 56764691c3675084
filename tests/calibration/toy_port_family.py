"""A toy family for the computed-default and variant tests: a load offered to a port of some speed.

carried_per_s = min(load_per_s, link_per_s); the ``speed`` setting names a shipped profile (slow: a link of
30/s, fast: 120/s), and the load's default sweep runs from 0 to the port's link rate.
"""

from __future__ import annotations

import numpy as np

from iosizer.model.family import Column, Family, Input, Output, ParameterSpec, Question, Role, Schema

LINKS = {"slow": 30.0, "fast": 120.0}


def up_to_the_link(values, given):
    """0 to the link rate in 4 steps."""
    return tuple(np.linspace(0.0, values["link_per_s"], 5).tolist())


def _solve(values, inputs):
    return {"carried_per_s": np.minimum(inputs["load_per_s"], values["link_per_s"])}


def shipped_profile(family, variant=None):
    """The calibration module's hook: the declared profile at the named speed's link rate."""
    from iosizer.calibration.profile import declared_profile

    chosen = variant or "slow"
    return declared_profile(family, {"speed": chosen}, overrides={"link_per_s": LINKS[chosen]})


FAMILIES = (Family(
    name="toy-port",
    summary="a toy port for the computed-default and variant tests",
    source="tests",
    parameters=(ParameterSpec("link_per_s", "1/s", LINKS["slow"], (1e-6, 1e9), "assumed", "a test value"),
                ParameterSpec("speed", "", "slow", (0.0, 0.0), "assumed", "a test value", "the port's speed",
                              kind="setting", choices=tuple(LINKS), variant=True)),
    columns=Schema("toy-port", (Column("load_per_s", Role.input, "1/s"),
                                Column("carried_per_s", Role.observed, "1/s"))),
    solve=_solve,
    service_time="deterministic",
    questions=(Question(
        "carry", "what the port carries of a load",
        inputs=(Input("load_per_s", "1/s", (0, 1e9), default=up_to_the_link, description="offered load"),),
        outputs=(Output("carried_per_s", "1/s", "the carried load"),),
        solve=_solve,
    ),),
),)
