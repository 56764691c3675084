"""A toy family for the text-output tests (Output.text): a rate capped by the slower of a CPU and a link.

rate_per_s = min(cpu_per_s, link_per_s x block_count); ``bound`` names the one that limits it. Its
question ``published`` is the same answer in a hand-written command's published form: the input
positional and named (``four``), an on/off setting (``doubled``: twice the link), a shape with a
deprecated key (``rate``) shown in the table and CSV (``shape_table``).
"""

from __future__ import annotations

import numpy as np

from iosizer.model.family import Column, Family, FitPlan, Input, Output, ParameterSpec, Question, Role, Schema


def _rates(values, inputs):
    link = values["link_per_s"] * (2 if values.get("doubled") else 1)
    return values["cpu_per_s"] + 0 * inputs["blocks"], link * inputs["blocks"]


def _published(records, values):
    return [{"blocks": r["blocks"], "doubled": values["doubled"], "rate_per_s": r["rate_per_s"],
             "rate": r["rate_per_s"], "bound": r["bound"]} for r in records]


def _solve(values, inputs):
    cpu, link = _rates(values, inputs)
    return {"rate_per_s": np.minimum(cpu, link), "bound": np.where(cpu <= link, "cpu", "link")}


FAMILIES = (Family(
    name="toy-text",
    summary="a toy capped rate for the text-output tests",
    source="tests",
    parameters=(ParameterSpec("cpu_per_s", "1/s", 100.0, (1e-6, 1e9), "assumed", "a test value"),
                ParameterSpec("link_per_s", "1/s", 30.0, (1e-6, 1e9), "assumed", "a test value"),
                ParameterSpec("doubled", "1", 0, (0, 1), "assumed", "a test switch", kind="setting", integer=True)),
    columns=Schema("toy-text", (Column("blocks", Role.input, "1"), Column("rate_per_s", Role.observed, "1/s"))),
    solve=lambda values, inputs: {"rate_per_s": _solve(values, inputs)["rate_per_s"]},
    fit=FitPlan(lambda data, settings: {"link_per_s": 20.0}),
    service_time="deterministic",
    questions=(Question(
        "cap", "the capped rate and what caps it",
        inputs=(Input("blocks", "1", (1, 100), default=(1, 2, 3, 4), integer=True),),
        outputs=(Output("rate_per_s", "1/s", "the rate"),
                 Output("bound", "", "what limits the rate: cpu or link", text=True)),
        solve=_solve,
    ), Question(
        "published", "the capped rate as a hand-written command published it",
        inputs=(Input("blocks", "1", (1, 100), integer=True, named={"four": 4}, argument=True),),
        outputs=(Output("rate_per_s", "1/s", "the rate"),
                 Output("bound", "", "what limits the rate: cpu or link", text=True)),
        solve=_solve, shape=_published, shape_table=True, aliases={"rate_per_s": ("rate",)},
    )),
),)
