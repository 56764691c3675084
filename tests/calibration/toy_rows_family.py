"""A toy family for the model-picked rows tests (Question.rows): an M/M/1 queue's response curve whose points
the model chooses (``points`` loads up to 0.9 of the service rate), with the other declarations rows need:
integer, vector, optional, ``only_with`` and unbanded outputs, a setting that replaces another (``excludes``)
and one never read from a profile (``from_profile=False``)."""

from __future__ import annotations

import numpy as np

from iosizer.errors import InputError
from iosizer.model.family import Column, Family, FitPlan, Output, ParameterSpec, Question, Role, Schema


def _mix(value, label="mix"):
    text = str(value).strip()
    if text and not all(part.strip().isdigit() for part in text.split(",")):
        raise InputError(f"{label} must be whole numbers separated by commas, got {value!r}")
    return text


def _solve(values, rows):
    mu = float(values["service_rate_per_s"])
    if rows:  # the answer's own rows at moved values: the response at the same arrival rates
        return {"response_s": 1.0 / (mu - np.asarray(rows["arrival_rate_per_s"], dtype=float))}
    rate = np.linspace(0.9 * mu / values["points"], 0.9 * mu, int(values["points"]))
    out = {"preset": np.array([values["mix"] or values["preset"]] * rate.size, dtype=object),
           "arrival_rate_per_s": rate, "response_s": 1.0 / (mu - rate),
           "in_system": np.floor(rate / (mu - rate)), "loads_below": [rate[:i] / mu for i in range(rate.size)]}
    if rate[-1] > 0.8 * mu:
        out["busy_warning_pct"] = np.where(rate > 0.8 * mu, 100 * rate / mu, 0.0)
    out["capacity_per_s"] = np.full(rate.size, mu)
    return out


def _percentiles(values, rows, ps):
    mu, lam = float(values["service_rate_per_s"]), np.asarray(rows["arrival_rate_per_s"], dtype=float)
    return {f"response_p{p:g}_s": -np.log(1 - p / 100) / (mu - lam) for p in ps}


FAMILIES = (Family(
    name="toy-rows",
    summary="a toy M/M/1 response curve whose rows the model picks",
    source="tests",
    parameters=(ParameterSpec("service_rate_per_s", "1/s", 10.0, (1e-6, 1e9), "assumed", "a test value"),
                ParameterSpec("points", "points", 4, (2, 50), "assumed", "a test value", kind="setting",
                              integer=True, from_profile=False),
                ParameterSpec("preset", "name", "small", (0, 0), "assumed", "a test value", kind="setting",
                              choices=("small", "large"), from_profile=False),
                ParameterSpec("mix", "1", "", (0, 0), "assumed", "a test value", kind="setting", parse=_mix,
                              excludes=("preset",))),
    columns=Schema("toy-rows", (Column("arrival_rate_per_s", Role.input, "1/s"),
                                Column("response_s", Role.observed, "s"))),
    solve=lambda values, inputs: {"response_s": 1.0 / (values["service_rate_per_s"] - inputs["arrival_rate_per_s"])},
    fit=FitPlan(lambda data, settings: {"service_rate_per_s": 12.0}),
    service_time="exponential",
    questions=(Question(
        "curve", "the response curve up to 0.9 of the service rate", rows=True, always_list=True,
        outputs=(Output("preset", "name", "the preset, or the mix given", text=True),
                 Output("arrival_rate_per_s", "1/s", "the load", band=False),
                 Output("response_s", "s", "mean response"),
                 Output("in_system", "1", "whole customers in the system, rounded down", band=False, integer=True),
                 Output("loads_below", "1", "the loads of the rows before", vector=True),
                 Output("busy_warning_pct", "%", "the load where it passes 80 %", band=False, optional=True),
                 Output("capacity_per_s", "1/s", "the service rate", band=False, only_with="service_rate_per_s")),
        solve=_solve, percentiles=_percentiles, percentile_bands=False,
    ),),
),)
