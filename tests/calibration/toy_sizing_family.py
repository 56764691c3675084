"""A toy family for the generic size and simulate tests: declared outside iosizer's family modules.

lanes x rate of service behind a load: delay_s = 1 / (lanes x rate - load) (an M/M/1 of rate
lanes x rate). Two sizings with closed-form answers: the largest load within a delay
(lanes x rate - 1 / target) and the smallest lanes within it (ceil((load + 1 / target) / rate)).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from iosizer.model.family import Column, Family, Input, Output, ParameterSpec, Question, Role, Schema, Sizing


def _solve(values, inputs):
    capacity = inputs["lanes"] * values["rate_per_s"]
    with np.errstate(divide="ignore"):
        delay = np.where(inputs["load_per_s"] < capacity, 1.0 / (capacity - inputs["load_per_s"]), np.inf)
    return {"delay_s": delay, "spare_per_s": capacity - inputs["load_per_s"]}


@dataclass(frozen=True)
class _Pipes:
    """One M/M/1 per point (Poisson arrivals of ``load``, service rate ``capacity``), simulated by
    Lindley's recursion in closed form: W = P - min(0, running min P), P the prefix sums of S - T."""

    capacity: tuple[float, ...]
    load: tuple[float, ...]
    customers: int

    def run(self, streams):
        from iosizer.simulate.stats import Sample

        started, metrics = time.perf_counter(), {}
        for k, (mu, lam) in enumerate(zip(self.capacity, self.load)):
            draw = streams.generator(k)
            gaps, services = draw.exponential(1 / lam, self.customers), draw.exponential(1 / mu, self.customers)
            steps = np.cumsum(services[:-1] - gaps[1:])
            waits = np.concatenate([[0.0], steps - np.minimum(0.0, np.minimum.accumulate(steps))])
            metrics[f"delay_s_at_{k}"] = float(np.mean((waits + services)[self.customers // 10:]))
            metrics[f"spare_per_s_at_{k}"] = mu - lam
        return Sample(metrics, time.perf_counter() - started, self.customers)


def _simulate(values, inputs, *, run_length=None, percentiles=()):
    capacity = np.asarray(inputs["lanes"]).reshape(-1) * values["rate_per_s"]
    return _Pipes(tuple(capacity), tuple(np.asarray(inputs["load_per_s"]).reshape(-1)), run_length or 20_000)


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
        simulate=_simulate,
        sizing=(Sizing("load_per_s", "delay_s", at_most=True, smallest=False),
                Sizing("lanes", "delay_s", at_most=True, smallest=True, target="target_lanes_delay_s")),
    ),),
),)
