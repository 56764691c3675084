"""Speed of ``iosizer simulate`` against SimPy and Ciw run directly, on the same system and precision.

Run: ``python benchmarks/bench_simulate.py [--budget SECONDS] [--no-library]``.
Not part of the test run: timings depend on the machine and on what else
runs on it, so every contender is timed in the same run.

The system (issues 17 and 29): an M/M/4 queue at 80 % load (arrival rate
3.2, service rate 1), its mean response estimated to +/- 1 % (the 95 %
interval's half-width within 1 % of the mean). Goal (issue 29): the
command ``iosizer simulate mmc --arrival-rate 3.2 --service-rate 1
--servers 4 --target-ci-pct 1``, start-up included, in at most 0.1x the
time SimPy written directly needs for the same half-width.

Contenders, each adding replications until its 95 % interval meets the
target (or the budget runs out, then it says how far it got):

* the command as a user runs it (a new process: imports and all), numpy
  engine (the default): every replication of a batch advanced at once;
  a replication is a run of 20,000 measured customers and its antithetic
  twin, warm-up by the stated rule, the plain Student-t interval over
  replications, stopping at the smallest qualifying prefix;
* the same in-process (``iosizer.simulate.simulate``), numpy and Ciw
  engines (Ciw: replications in 2 local processes);
* Ciw directly, as its documentation runs it, and SimPy directly (a
  ``Resource`` of capacity 4, a process per customer), both one
  replication after another, plain t interval.

Then the numpy engine's scaling, in-process: time against servers (at 80
% load), load (4 servers) and the target.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import subprocess
import sys
import time

ARRIVAL_RATE = 3.2
SERVICE_RATE = 1.0
SERVERS = 4
TARGET_PCT = 1.0
CUSTOMERS = 40_000
WARMUP_SHARE = 0.05


def t_half_width(values: list[float]) -> float:
    from scipy.stats import t

    return float(t.ppf(0.975, len(values) - 1)) * statistics.stdev(values) / math.sqrt(len(values))


def until_target(replicate, budget_s: float) -> dict[str, float]:
    """Replications one after another until the plain t interval meets the target."""
    values: list[float] = []
    started = time.perf_counter()
    seed = 0
    while True:
        values.append(replicate(seed))
        seed += 1
        elapsed = time.perf_counter() - started
        if len(values) >= 10:
            mean = statistics.fmean(values)
            relative = 100 * t_half_width(values) / mean
            if relative <= TARGET_PCT:
                return {"seconds": elapsed, "replications": len(values), "mean": mean, "half_width_pct": relative,
                        "reached": True}
        if elapsed > budget_s:
            mean = statistics.fmean(values)
            relative = 100 * t_half_width(values) / mean if len(values) > 1 else math.inf
            return {"seconds": elapsed, "replications": len(values), "mean": mean, "half_width_pct": relative,
                    "reached": False}


def ciw_replication(seed: int) -> float:
    import ciw

    network = ciw.create_network(arrival_distributions=[ciw.dists.Exponential(ARRIVAL_RATE)],
                                 service_distributions=[ciw.dists.Exponential(SERVICE_RATE)],
                                 number_of_servers=[SERVERS])
    ciw.seed(seed)
    simulation = ciw.Simulation(network)
    horizon = CUSTOMERS / ARRIVAL_RATE / (1 - WARMUP_SHARE)
    simulation.simulate_until_max_time(horizon)
    warm = WARMUP_SHARE * horizon
    return statistics.fmean(r.waiting_time + r.service_time for r in simulation.get_all_records()
                            if r.arrival_date > warm)


def simpy_replication(seed: int) -> float:
    import simpy

    rng = random.Random(seed)
    env = simpy.Environment()
    servers = simpy.Resource(env, capacity=SERVERS)
    horizon = CUSTOMERS / ARRIVAL_RATE / (1 - WARMUP_SHARE)
    warm = WARMUP_SHARE * horizon
    responses: list[float] = []

    def customer():
        arrived = env.now
        with servers.request() as request:
            yield request
            yield env.timeout(rng.expovariate(SERVICE_RATE))
        if arrived > warm:
            responses.append(env.now - arrived)

    def source():
        while True:
            yield env.timeout(rng.expovariate(ARRIVAL_RATE))
            env.process(customer())

    env.process(source())
    env.run(until=horizon)
    return statistics.fmean(responses)


def iosizer_run(workers: int, budget_s: float, engine: str = "numpy", arrival_rate: float = ARRIVAL_RATE,
                servers: int = SERVERS, target_pct: float = TARGET_PCT) -> dict[str, float]:
    from iosizer.simulate import simulate

    started = time.perf_counter()
    answer = simulate("mmc", arrival_rate=arrival_rate, service_rate=SERVICE_RATE, servers=servers,
                      target_ci_pct=target_pct, max_seconds=budget_s, seed=1, workers=workers, engine=engine)
    row = answer.rows()[0]
    return {"seconds": time.perf_counter() - started, "replications": row["replications"],
            "mean": row["simulated"], "half_width_pct": row["half_width_pct"],
            "reached": answer.run.stopped == "target", "within_ci": row["within_ci"]}


def command_run(budget_s: float) -> dict[str, float]:
    """The command a user types, in a new process, timed from start to exit."""
    import json

    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "iosizer.cli", "simulate", "mmc", "--arrival-rate", str(ARRIVAL_RATE),
                           "--service-rate", str(SERVICE_RATE), "--servers", str(SERVERS), "--target-ci-pct",
                           str(TARGET_PCT), "--max-seconds", str(budget_s), "--format", "json"],
                          capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    row = json.loads(done.stdout)[0]
    return {"seconds": seconds, "replications": row["replications"], "mean": row["simulated"],
            "half_width_pct": row["half_width_pct"], "reached": row["stopped"] == "target"}


def _line(name: str, found: dict[str, float]) -> None:
    print(f"{name:<52}{found['seconds']:9.2f}{found['replications']:6d}{found['mean']:10.4f}"
          f"{found['half_width_pct']:8.3f}  {'met' if found['reached'] else 'NOT MET'}")


def scaling(budget_s: float) -> None:
    """The numpy engine's time, in-process, as servers, load and the target grow."""
    print("\nnumpy engine scaling (in-process, seconds to the target; replications):")
    for servers in (1, 4, 16, 64):
        found = iosizer_run(1, budget_s, arrival_rate=0.8 * servers, servers=servers)
        print(f"  servers {servers:>3} at 80 % load, +/- 1 %:   {found['seconds']:7.2f} s  {found['replications']:5d}")
    for load in (0.5, 0.8, 0.9, 0.95):
        found = iosizer_run(1, budget_s, arrival_rate=load * SERVERS)
        print(f"  load {load:4.2f}, 4 servers, +/- 1 %:     {found['seconds']:7.2f} s  {found['replications']:5d}")
    for target in (2.0, 1.0, 0.5):
        found = iosizer_run(1, budget_s, target_pct=target)
        print(f"  target +/- {target:g} %, M/M/4 at 80 %:   {found['seconds']:7.2f} s  {found['replications']:5d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=float, default=240.0, help="seconds each contender may take")
    parser.add_argument("--no-library", action="store_true", help="skip Ciw (iosizer's and direct); SimPy stays")
    args = parser.parse_args()
    from iosizer.model.queueing import mmc

    exact = float(mmc(ARRIVAL_RATE, SERVICE_RATE, SERVERS).mean_response)
    print(f"M/M/{SERVERS} at utilisation {ARRIVAL_RATE / SERVERS / SERVICE_RATE:.0%}: exact mean response "
          f"{exact:.5f}; target: 95 % half-width <= {TARGET_PCT:g} % of the mean; {CUSTOMERS:,} customers "
          "per replication (iosizer: a run of half as many and its antithetic twin)")
    print(f"{'contender':<52}{'seconds':>9}{'reps':>6}{'mean':>10}{'half %':>8}  target")
    command = command_run(args.budget)
    _line("iosizer simulate mmc ... (command, numpy engine)", command)
    _line("simulate() in-process, numpy engine", iosizer_run(1, args.budget))
    if not args.no_library:
        _line("simulate() in-process, Ciw engine, 2 processes", iosizer_run(2, args.budget, engine="ciw"))
        _line("Ciw directly (1 process, plain t)", until_target(ciw_replication, args.budget))
    simpy = until_target(simpy_replication, args.budget)
    _line("SimPy directly (1 process, plain t)", simpy)
    print(f"\ncommand / SimPy: {command['seconds'] / simpy['seconds']:.3f}x (goal: at most 0.1x)")
    scaling(args.budget)


if __name__ == "__main__":
    main()
