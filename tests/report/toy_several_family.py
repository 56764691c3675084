"""Two toy families and a scenario table that asks both (ScenarioTable): a wire of ``hops`` hops adds a delay
(family toy-wire), and a queue behind it answers at that delay (family toy-queue): one row's output is the
next question's input."""

from __future__ import annotations

import numpy as np

from iosizer.errors import InputError
from iosizer.model.family import (Ask, Column, Family, FitPlan, Input, Output, ParameterSpec, Question, Role,
                                  ScenarioTable, Schema, TableKey, TableRow)


def _wire(values, inputs):
    return {"delay_us": 2.0 * values["hop_us"] * np.asarray(inputs["hops"], dtype=float)}


def _queue(values, inputs):
    return {"response_us": np.asarray(inputs["delay_us"], dtype=float) + values["service_us"]}


def _family(name, parameter, column, output, solve):
    question_input = Input(column, "us" if column == "delay_us" else "1", (0, 1e6), default=(1.0,),
                           integer=column == "hops")
    return Family(
        name=name, summary=f"a toy {name} for the tables of several questions", source="tests",
        parameters=(ParameterSpec(parameter, "us", 10.0, (1e-6, 1e6), "assumed", "a test value"),),
        columns=Schema(name, (Column(column, Role.input, question_input.unit), Column(output, Role.observed, "us"))),
        solve=solve, fit=FitPlan(lambda data, settings: {parameter: 1.0}), service_time="deterministic",
        questions=(Question(name, f"the toy {name}", inputs=(question_input,), outputs=(Output(output, "us", output),),
                            solve=solve),))


FAMILIES = (_family("toy-wire", "hop_us", "hops", "delay_us", _wire),
            _family("toy-queue", "service_us", "delay_us", "response_us", _queue))


def _check(keys):
    if keys["hops"] == 0 and keys["extra_us"] == 0:
        raise InputError("nothing between the server and its queue: give hops or extra_us")


def _rows(state):
    (wire,) = state.answered["wire"].records
    rows = [TableRow.of(wire, "delay_us", "wire delay", "us", f"{state.keys['hops']} hops")]
    if "queue" in state.answered:
        (queue,) = state.answered["queue"].records
        note = state.sources["toy-queue"] if state.calibrated("toy-queue") else "shipped"
        rows.append(TableRow.of(queue, "response_us", "response behind the wire", "us", note))
    return rows


TABLES = (ScenarioTable(
    "toy-chain", "a wire feeding a queue", ("toy-wire", "toy-queue"),
    keys=(TableKey("hops", int, 1, ge=0, le=10), TableKey("extra_us", float, 0.0, ge=0),
          TableKey("queue", bool, True)),
    asks=(Ask("wire", "toy-wire", "toy-wire", lambda state: {"hops": state.keys["hops"]}, profile="profile"),
          Ask("queue", "toy-queue", "toy-queue", lambda state: {
              "delay_us": state.answered["wire"].records[0]["delay_us"] + state.keys["extra_us"]},
              when=lambda state: state.keys["queue"])),
    rows=_rows, check=_check),)
