"""Analytic against simulation for every family at three load levels: what ``iosizer report --simulate`` adds.

For each family the shipped configuration is simulated at a low load, at
its knee and near saturation, and each approximation's error is measured as
``gap_pct`` = (analytic - simulated) / simulated x 100 with the simulated
mean's 95 % interval beside it:

==============  ==================================  ====================================================
family          load measure                        low / knee / near saturation
==============  ==================================  ====================================================
mmc             utilisation of the shipped M/M/4    0.3 / 0.75 / 0.9
closed-network  population of the shipped network   N*/4 / N* / 2 N* (N* the knee, asymptotic bounds)
oltp            added latency, ns                   300 / the fitted knee / 2,100 (seed 000's range)
dma             added latency, ns (bcm5700)         300 / 1,200 / 2,100
rmw             lanes of x8 ports (520 B writes)    8 / 16 / 32 (seed 001's range)
hba             threads, shared mode                1 / N* / 2 N*
loadshare       skew scenario, multi-stage policy   0.3 / 0.6 / 0.9 of its maximum throughput
replication     outstanding writes, 10GbE, 4 KiB    1 / N* / 32 (the declared depth)
==============  ==================================  ====================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["LEVELS", "Comparison", "compare", "points"]

LEVELS = ("low", "knee", "near saturation")
#: Replications per point in the report (each of the system's default length).
REPORT_REPLICATIONS = 10


@dataclass(frozen=True)
class Point:
    family: str
    question: str | None
    level: str
    load: str
    options: dict[str, Any]


@dataclass
class Comparison:
    """One family's table: a row per load level and metric."""

    family: str
    simulator: str
    analytic_method: str
    rows: list[dict[str, Any]]


def _knee(demands: list[float], think: float, servers: list[float] | None = None) -> float:
    from iosizer.model.mva import knee_population

    return knee_population(demands, think, servers)


def points() -> list[Point]:
    """The three load levels of every family, from the shipped configurations."""
    from iosizer.simulate import systems

    out: list[Point] = []

    def add(family: str, question: str | None, loads: list[tuple[str, dict[str, Any]]]) -> None:
        out.extend(Point(family, question, level, load, options) for level, (load, options) in zip(LEVELS, loads))

    mmc = systems._shipped("mmc")
    rate, servers = float(mmc["service_rate_per_s"]), int(mmc["servers"])
    add("mmc", "mmc", [(f"utilization {u:g}", {"arrival_rate": u * servers * rate}) for u in (0.3, 0.75, 0.9)])

    closed = systems._shipped("closed-network")
    demands = [closed[f"demand_{k + 1}_s"] for k in range(int(closed["stations"]))]
    knee = _knee(demands, closed["think_time_s"])
    add("closed-network", None, [(f"N = {n}", {"population": n})
                                 for n in (max(1, round(knee / 4)), round(knee), round(2 * knee))])

    oltp = systems._shipped("oltp")
    add("oltp", None, [(f"+{x:g} ns", {"added_latency_ns": x})
                       for x in (300.0, round(float(oltp["knee_latency_ns"])), 2100.0)])
    add("dma", None, [(f"+{x:g} ns", {"device": "bcm5700", "added_latency_ns": x}) for x in (300.0, 1200.0, 2100.0)])
    add("rmw", None, [(f"{lanes} lanes", {"lanes": lanes}) for lanes in (8, 16, 32)])

    hba = systems._shipped("hba")
    core_us = 1e6 / hba["core_iops"]
    link_us = hba["block_bytes"] / hba["link_mbps"]
    knee = _knee([core_us, link_us, hba["storage_us"]], 0.0, [hba["cores"], 1, math.inf])
    add("hba", "response", [(f"{n} threads", {"threads": n, "mode": "shared"})
                            for n in (1, round(knee), round(2 * knee))])

    add("loadshare", None, [(f"{f:g} of max", {"scenario": "skew", "policy": "multi-stage", "load_fraction": f})
                            for f in (0.3, 0.6, 0.9)])

    from iosizer.calibration import replication as shipped
    from iosizer.model.replication import protocol_demand_us, serialisation_us

    system = shipped.system(shipped.baseline_link())
    block = float(shipped.default("block_kib"))
    path = system.replica
    protocol = float(protocol_demand_us(path, block))
    rest = system.local_flash_write_us + system.remote_flash_write_us + path.switch_round_trip_us \
        + path.residual_delay_us
    knee = _knee([protocol, float(serialisation_us(path, block)), protocol, rest], 0.0, [1, 1, 1, math.inf])
    add("replication", None, [(f"{n} outstanding", {"outstanding": n})
                              for n in (1, round(knee), int(shipped.default("outstanding")))])
    return out


def compare(*, seed: int = 0, replications: int = REPORT_REPLICATIONS, workers: int | None = None,
            scheduler: str | None = None, run_length: int | None = None,
            progress: Callable[[str], None] | None = None) -> list[Comparison]:
    """Every family's table (see the module docstring), one simulation per point.

    ``run_length`` None keeps each system's default (customers or cycles per run).
    """
    from iosizer.simulate import simulate

    tables: dict[str, Comparison] = {}
    for point in points():
        if progress is not None:
            progress(f"simulating {point.family} ({point.level})")
        options = dict(point.options) if run_length is None else {**point.options, "run_length": run_length}
        result = simulate(point.family, point.question, replications=replications, seed=seed, workers=workers,
                          scheduler=scheduler, **options)
        table = tables.setdefault(point.family, Comparison(point.family, result.experiment.simulator,
                                                           result.experiment.analytic_method, []))
        for row in result.rows():
            table.rows.append({"level": point.level, "load": point.load, **{k: row[k] for k in (
                "metric", "analytic", "simulated", "ci_low", "ci_high", "within_ci", "gap_pct", "replications")}})
    return list(tables.values())
