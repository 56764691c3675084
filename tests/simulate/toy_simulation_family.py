"""A toy family for the generic ``iosizer simulate`` commands: simulations declared with options of their own.

One M/M/1 queue (``rate_per_s``): question ``pipe`` is simulated at one load by the command
``iosizer simulate toy-pipe`` (a required option, a default, a repeatable one, one renamed for the
builder, and a ``prepare`` that refuses two options together); ``wide`` and ``flat`` sit in a group of
two-word commands, ``flat`` refused with its reason. The builder is declared here, as a plugin does.
``line`` declares no builder: its system at an answer's values and one point, and the output its metric
estimates; ``iosizer simulate toy-line`` and ``iosizer toy-sim line --simulate`` both take the question's
own answer as the analytic side (no copy of the formula).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from iosizer.errors import InputError
from iosizer.model.family import (Column, Family, Input, Output, ParameterSpec, Question, Role, Schema,
                                  SimulateOption, Simulation)


@dataclass(frozen=True)
class _Queue:
    """An M/M/1 queue by Lindley's recursion: ``delay_s`` is the mean response of the measured customers."""

    load_per_s: float
    rate_per_s: float
    customers: int

    def run(self, streams):
        from iosizer.simulate.stats import Sample

        started, draw = time.perf_counter(), streams.generator(0)
        gaps = draw.exponential(1 / self.load_per_s, self.customers)
        services = draw.exponential(1 / self.rate_per_s, self.customers)
        steps = np.cumsum(services[:-1] - gaps[1:])
        waits = np.concatenate([[0.0], steps - np.minimum(0.0, np.minimum.accumulate(steps))])
        delay = float(np.mean((waits + services)[self.customers // 10:]))
        return Sample({"delay_s": delay}, time.perf_counter() - started, self.customers)


def build(*, load_per_s, rate_per_s=100.0, lanes=None, run_length=None):
    """The queue of ``sum(lanes)`` x ``rate_per_s`` at ``load_per_s``, the analytic 1 / (mu - lambda) beside it."""
    from iosizer.simulate.systems import Experiment, Metric

    lanes = lanes or [1]  # an option left out is None
    mu = float(rate_per_s) * sum(lanes)
    if not 0 < load_per_s < mu:
        raise InputError(f"--load must lie in (0, {mu:g}), got {load_per_s:g}")
    model = _Queue(float(load_per_s), mu, run_length or 2000)
    return Experiment("toy-sim", "pipe", f"toy pipe at {load_per_s:g}", model,
                      (Metric("delay_s", 1.0 / (mu - load_per_s)),), "exact (M/M/1)", "SimPy",
                      (f"lanes {', '.join(map(str, lanes))}",))


def _system(values, point, *, run_length=None, service_scv=None):
    """The queue of the answer's ``rate_per_s`` at the point's load (``line``'s declared system)."""
    return _Queue(float(point["load_per_s"]), float(values["rate_per_s"]), run_length or 2000)


def _prepare(given):
    if given.get("lanes") and given.get("wide"):
        raise InputError("give --lane or --wide, not both")
    lanes = [given["wide"]] if given.get("wide") else given.get("lanes") or [1]
    return {"load_per_s": given["load"], "rate_per_s": given["rate"], "lanes": lanes}


_OPTIONS = (SimulateOption("load", "--load", "Arrivals per second.", required=True, keyword="load_per_s"),
            SimulateOption("rate", "--rate", "Completions per second of one lane.", default=100.0,
                           keyword="rate_per_s"),
            SimulateOption("lanes", "--lane", "Lanes of one server (repeatable).", kind=int, many=True))
_GROUP = "Toy groups: simulate 'wide'."


def _solve(values, inputs):
    return {"delay_s": 1.0 / (values["rate_per_s"] - inputs["load_per_s"])}


def _question(command, simulate):
    return Question(command, f"the toy's {command}", inputs=(Input("load_per_s", "1/s", (0.0, 1e9), default=50.0),),
                    outputs=(Output("delay_s", "s"),), solve=_solve, simulate=simulate)


FAMILIES = (Family(
    name="toy-sim",
    summary="a toy queue for the generic simulate commands",
    source="tests",
    parameters=(ParameterSpec("rate_per_s", "1/s", 100.0, (1e-6, 1e9), "assumed", "a test value"),),
    columns=Schema("toy-sim", (Column("load_per_s", Role.input, "1/s"), Column("delay_s", Role.observed, "s"))),
    solve=_solve,
    service_time="exponential",
    questions=(
        _question("flat", Simulation("toy-sim flat", "Not simulated (says why).", refused="flat is not random",
                                     group=_GROUP)),
        _question("pipe", Simulation("toy-pipe", "The toy pipe at one load.", _OPTIONS, build=build)),
        _question("wide", Simulation("toy-sim wide", "The toy pipe, one wide lane.",
                                     _OPTIONS + (SimulateOption("wide", "--wide", "Lanes of one server.", kind=int),),
                                     prepare=_prepare, build=build, group=_GROUP)),
        _question("line", Simulation("toy-line", "The toy queue through its question's own answer.", (
            SimulateOption("load_per_s", "--load", "Arrivals per second.", required=True),
            SimulateOption("rate_per_s", "--rate", "Completions per second.")), metrics=("delay_s",), system=_system)),
    ),
),)
