"""Measure the load-sharing mean-response approximation against simulation; write
data/error_grids/loadshare_response.csv.

Not a test (minutes of CPU). The approximation is iosizer.model.loadshare.evaluate
(formula (4) of docs/validation/loadshare.md with the rule's cores per port); the
reference is iosizer.simulate.loadshare (the same controller, event by event:
Poisson arrivals, exponential service, each port on the cores the model places it
on, FCFS over each core's ports), R replications of n I/Os per cell, 5 % warm-up
dropped. Cells: the switching policies (one-stage, multi-stage; shared and
exclusive are exact) on the seed's three scenarios at 0.3 / 0.6 / 0.9 of the
policy's maximum; issue 28's held-out mixes at 0.9 and at the loads the issue
quotes; RANDOM_MIXES random mixes (2-8 ports, shares uniform in [0.1, 1], 4-8
cores, seeded) at 0.3 / 0.6 / 0.95. ``--before PATH``: also the model of another
checkout (a directory holding the package as ``iosizer``), as column model_before.

    python benchmarks/grid_loadshare_response.py [--quick] [--before PATH]
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from error_grid import cell, write

from iosizer.calibration.loadshare import policy_params, scenario
from iosizer.model.loadshare import evaluate, max_throughput
from iosizer.simulate.loadshare import simulate_points

SWITCHING = ("one-stage", "multi-stage")
RANDOM_MIXES = 16
#: (label, port shares, cores, policy, total load in cores or None for 0.9 of the maximum): issue 28's
#: held-out mixes, at 0.9 of the policy's maximum and at the total loads the issue's figures were read at
#: (0.9 of the maximum the even spread gave: 6, 4.2, 2.492 cores).
HELD_OUT = (("six-equal-7-cores", [1.0] * 6, 7, "multi-stage", 5.4),
            ("0.2-1-1-1-1-on-5", [0.2, 1, 1, 1, 1], 5, "multi-stage", 3.78),
            ("1-2-3-4-on-4", [1, 2, 3, 4], 4, "one-stage", 2.243))


def cases(quick: bool) -> list[dict]:
    out = []
    for name in ("one-port", "system", "skew"):
        chosen = scenario(name)
        for policy in SWITCHING:
            for fraction in (0.3, 0.6, 0.9):
                out.append({"mix": name, "shares": list(chosen.port_shares), "cores": chosen.cores,
                            "policy": policy, "load_fraction": fraction})
    for label, shares, cores, policy, total in HELD_OUT:
        out.append({"mix": label, "shares": shares, "cores": cores, "policy": policy, "load_fraction": 0.9})
        out.append({"mix": label, "shares": shares, "cores": cores, "policy": policy, "total": total})
    rng = np.random.default_rng(28)
    for i in range(4 if quick else RANDOM_MIXES):
        ports, cores = int(rng.integers(2, 9)), int(rng.integers(4, 9))
        shares = np.round(rng.uniform(0.1, 1.0, ports), 2).tolist()
        for policy in SWITCHING:
            for fraction in (0.3, 0.6, 0.95):
                out.append({"mix": f"random-{i}", "shares": shares, "cores": cores, "policy": policy,
                            "load_fraction": fraction})
    for case in out:
        params = policy_params(case["cores"])
        top = max_throughput(case["policy"], case["shares"], params)
        if "total" in case:
            case["load_fraction"] = case["total"] / top
        else:
            case["total"] = case["load_fraction"] * top
    return out


def model_values(rows: list[dict]) -> list[float]:
    """The current model's mean response at each case."""
    return [float(evaluate(r["policy"], r["total"], r["shares"], policy_params(r["cores"])).response[0])
            for r in rows]


def main(quick: bool = False, before: str | None = None) -> None:
    replications, customers = (2, 20_000) if quick else (4, 60_000)
    rows = []
    todo = cases(quick)
    earlier = None
    if before is not None:  # the other checkout's model at the same loads (it may reject some: nan)
        script = ("import json, sys; from iosizer.calibration.loadshare import policy_params; "
                  "from iosizer.model.loadshare import evaluate\n"
                  "out = []\n"
                  "for r in json.load(sys.stdin):\n"
                  "    try: out.append(float(evaluate(r['policy'], r['total'], r['shares'], "
                  "policy_params(r['cores'])).response[0]))\n"
                  "    except Exception: out.append(float('nan'))\n"
                  "print(json.dumps(out))")
        done = subprocess.run([sys.executable, "-c", script], input=json.dumps(todo), capture_output=True, text=True,
                              check=True, env={"PYTHONPATH": before, "PATH": ""})
        earlier = json.loads(done.stdout)
    for n, (case, model) in enumerate(zip(todo, model_values(todo))):
        params = policy_params(case["cores"])
        stage = evaluate(case["policy"], case["total"], case["shares"], params).cores_per_port
        runs = simulate_points(case["policy"], [case["total"]], case["shares"], params, replications=replications,
                               customers=customers * (2 if case["load_fraction"] > 0.9 else 1), seed=n,
                               cores_per_port=stage).runs[0]
        row = {"mix": case["mix"], "shares": ";".join(f"{v:g}" for v in case["shares"]), "cores": case["cores"],
               "policy": case["policy"], "load_fraction": f"{case['load_fraction']:.4g}",
               "total_load_cores": f"{case['total']:.6g}", "cores_per_port": ";".join(str(int(v)) for v in stage[0]),
               **cell(model, runs)}
        if earlier is not None:
            row["model_before"] = f"{earlier[n]:.6g}"
            row["error_before_pct"] = f"{100 * (earlier[n] / float(row['simulated']) - 1):.2f}"
        rows.append(row)
        print(row, flush=True)
    write(rows, "loadshare_response")


if __name__ == "__main__":
    path = sys.argv[sys.argv.index("--before") + 1] if "--before" in sys.argv else None
    main("--quick" in sys.argv, path)
