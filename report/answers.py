"""The report's evaluators: one per family question a published figure asks, named as the question.

A row of ``report/figures/SEED.toml`` names a question (``"latency dma"``)
and its inputs; :func:`answer` runs the question's evaluator once per
distinct set of inputs and returns its outputs by name (numbers, arrays,
the texts notes quote). Every evaluator calls the family's library
functions with the shipped, calibrated profiles, as the CLI commands do: no
model value is typed in here. The outputs beyond a question's declared ones
are the derived quantities a figure states (a gain, a largest deviation),
each computed from the same answer.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable
from iosizer.units import KIB

Outputs = dict[str, Any]

#: Question name -> evaluator (keyword inputs -> outputs by name).
QUESTIONS: dict[str, Callable[..., Outputs]] = {}


def question(name: str) -> Callable[[Callable[..., Outputs]], Callable[..., Outputs]]:
    def register(function: Callable[..., Outputs]) -> Callable[..., Outputs]:
        QUESTIONS[name] = function
        return function

    return register


def answer(name: str, inputs: dict[str, Any]) -> Outputs:
    """The outputs of question ``name`` at ``inputs`` (computed once per distinct inputs)."""
    if name not in QUESTIONS:
        raise KeyError(f"no report evaluator for question '{name}'; known: {', '.join(sorted(QUESTIONS))}")
    return _cached(name, tuple(sorted(inputs.items())))


@lru_cache(maxsize=None)
def _cached(name: str, inputs: tuple[tuple[str, Any], ...]) -> Outputs:
    return QUESTIONS[name](**dict(inputs))


# -- latency (seed 000) ------------------------------------------------------------


@question("latency dma")
def latency_dma(device: str, added_latency_ns: Any = 0.0) -> Outputs:
    """A calibrated DMA device at added latency, and its issue interval with none."""
    from iosizer.calibration.latency import device as calibrated
    from iosizer.model.latency import dma

    chosen = calibrated(device)
    local, added = dma(chosen, 0.0), dma(chosen, float(added_latency_ns))
    return {"issue_interval_ns": added.issue_interval_ns, "local_issue_interval_ns": local.issue_interval_ns,
            "issue_interval_increase_ns": None if added.issue_interval_ns is None  # a posted path has none
            else added.issue_interval_ns - local.issue_interval_ns,
            "throughput_mbps": added.throughput_mbps, "local_throughput_mbps": added.local_throughput_mbps,
            "degradation_pct": added.degradation_pct}


@lru_cache(maxsize=None)
def oltp() -> tuple[Any, Any]:
    """The shipped oltp profile and its closed network."""
    from iosizer.calibration.latency import oltp_network, oltp_profile

    profile = oltp_profile()
    return profile, oltp_network(profile)


@question("latency oltp")
def latency_oltp(added_latency_ns: Any = 0.0) -> Outputs:
    """The calibrated OLTP network's degradation, its configuration and the fitted knee."""
    from iosizer.model.latency import oltp_degradation_pct

    profile, network = oltp()
    knee = profile.parameters["knee_latency_ns"]
    return {"degradation_pct": oltp_degradation_pct(network, float(added_latency_ns)),
            "service_scv": network.service_scv, "terminals": network.terminals, "think_share": network.think_share,
            "knee_latency_ns": knee.value, "knee_ci_low": knee.ci_low, "knee_ci_high": knee.ci_high}


@question("latency tiers")
def latency_tiers(switch: str, hop_ns: Any, tiers: Any, budget_pct: float) -> Outputs:
    """The tier planner for one hop latency: the loss at ``tiers`` and the most tiers within the budget."""
    from iosizer.calibration.latency import tier_plan

    (plan,) = tier_plan([{"switch": switch, "hop_ns": float(hop_ns)}], float(budget_pct))
    return {"degradation_pct": plan["loss_pct"][int(tiers) - 1], "max_tiers": plan["max_tiers"]}


@lru_cache(maxsize=None)
def switches() -> list[dict[str, Any]]:
    """The switch catalogue the tier planner uses (data/profiles/switches.json)."""
    from iosizer.calibration.shipped import hardware_profile

    return list(hardware_profile("switches")["items"])


@question("latency switch")
def latency_switch(vendor: str, stages: int = 1) -> Outputs:
    """One catalogue switch: its one-way hop and the round trip of ``stages`` stages (2 x stages x hop)."""
    from iosizer.model.latency import round_trip_latency_ns

    hop = next(item["hop_ns"] for item in switches() if item["vendor"] == vendor)
    return {"hop_ns": hop, "round_trip_ns": round_trip_latency_ns(int(stages), hop)}


@question("latency switches")
def latency_switches() -> Outputs:
    """The catalogue's I/O-switch hop range and the network (FCoE) switch against it."""
    io_hops = [item["hop_ns"] for item in switches() if "FCoE" not in item["protocol"]]
    fcoe = max(item["hop_ns"] for item in switches() if "FCoE" in item["protocol"])
    return {"shortest_io_hop_ns": min(io_hops), "longest_io_hop_ns": max(io_hops),
            "fcoe_over_longest": fcoe / max(io_hops), "fcoe_over_shortest": fcoe / min(io_hops)}


# -- pcie (seed 001) ---------------------------------------------------------------


@lru_cache(maxsize=None)
def rmw() -> tuple[Any, list[int], list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """(platform, lanes, table 2's cases, each case's access pattern, its RMW throughput over the lanes)."""
    from iosizer.calibration import pcie
    from iosizer.model.pcie import access_pattern, rmw_throughput

    platform = pcie.platform()
    lanes = pcie.measured_lanes()
    cases = pcie.table2()
    patterns = {c["case"]: access_pattern(c["transfer_bytes"], platform.link.mps_bytes) for c in cases}
    return platform, lanes, cases, patterns, {k: rmw_throughput(platform, p, lanes) for k, p in patterns.items()}


@question("pcie pattern")
def pcie_pattern(case: str) -> Outputs:
    """Table 2's case split into TLPs at the platform's MPS."""
    platform, _, _, patterns, _ = rmw()
    pattern, mps = patterns[case], platform.link.mps_bytes
    return {"tlp_count": len(pattern.tlp_bytes), "tail_tlp_bytes": pattern.tlp_bytes[-1] if pattern.tlp_bytes[-1] < mps
            else 0, "unaligned_per_kib": pattern.unaligned_per_kib, "mps_bytes": mps}


@question("pcie rmw")
def pcie_rmw(cases: str, total_lanes: Any) -> Outputs:
    """The largest loss over the named cases at ``total_lanes``."""
    _, lanes, _, _, results = rmw()
    index = lanes.index(int(total_lanes))
    return {"largest_loss_pct": max(float(results[c].loss_pct[index]) for c in cases.split())}


def _unaligned() -> list[str]:
    """Cases with unaligned accesses, by frequency (per KiB)."""
    _, _, _, patterns, _ = rmw()
    return sorted((k for k, p in patterns.items() if p.unaligned_per_kib > 0), key=lambda k: patterns[k].unaligned_per_kib)


@question("pcie rmw trends")
def pcie_rmw_trends() -> Outputs:
    """Losses of the unaligned cases: by lane count across cases (sorted by frequency), by case across lanes."""
    _, lanes, _, _, results = rmw()
    unaligned = _unaligned()
    by_frequency = [[float(results[k].loss_pct[i]) for k in unaligned] for i in range(len(lanes))]
    by_lanes = [[float(v) for v in results[k].loss_pct] for k in unaligned]
    return {"loss_by_frequency": by_frequency, "loss_by_lanes": by_lanes, "lanes": lanes, "order": " < ".join(unaligned),
            "most_lanes": lanes[-1], "least_frequent": unaligned[0], "losses_at_most_lanes": by_frequency[-1],
            "least_frequent_losses": by_lanes[0], "most_frequent_loss_pct": by_frequency[-1][-1],
            "least_frequent_loss_pct": by_lanes[0][-1]}


@question("pcie rmw ranking")
def pcie_rmw_ranking(unaligned_per_kib: Any) -> Outputs:
    """The case at a frequency (per KiB, to 2 decimals) and its rank by loss at the most lanes."""
    _, lanes, cases, patterns, results = rmw()
    ranked = sorted((c for c in cases if patterns[c["case"]].unaligned_per_kib > 0),
                    key=lambda c: float(results[c["case"]].loss_pct[-1]), reverse=True)
    by_frequency = {round(patterns[c["case"]].unaligned_per_kib, 2): c for c in ranked}
    case = by_frequency.get(round(float(unaligned_per_kib), 2))
    return {"loss_pct": float(results[case["case"]].loss_pct[-1]) if case else float("nan"),
            "rank": ranked.index(case) + 1 if case else float("nan"), "most_lanes": lanes[-1],
            "ranking": ", ".join(f"{c['case']} {float(results[c['case']].loss_pct[-1]):.1f} %" for c in ranked)}


@question("pcie rmw bound")
def pcie_rmw_bound() -> Outputs:
    """Section 4's 8-lane loss, an upper bound against case A, predicted from published numbers
    (:func:`iosizer.calibration.pcie.rmw_bound_prediction`)."""
    from iosizer.calibration.pcie import rmw_bound_prediction

    return dict(rmw_bound_prediction())


@question("pcie platform")
def pcie_platform() -> Outputs:
    """The calibrated RMW platform's link configuration and the memory line of the access model."""
    from iosizer.model.pcie import LINE_BYTES

    link = rmw()[0].link
    return {"mps_bytes": link.mps_bytes, "generation": link.generation, "lanes": link.lanes, "line_bytes": LINE_BYTES}


# -- hba (seed 002) ----------------------------------------------------------------

MODES = ("shared", "occupancy")
#: Sec 3.1.1 (2): LPAR1 "within one core" offers this share of a core (the seed states no level).
LIGHT_CORE_SHARE = 0.6


@lru_cache(maxsize=None)
def port() -> Any:
    """The shipped port of the speed seed 002 measured."""
    from iosizer.calibration.hba import MEASURED_SPEED, fc_port

    return fc_port(MEASURED_SPEED)


@question("hba port")
def hba_port() -> Outputs:
    from iosizer.calibration.hba import MEASURED_SPEED

    return {"cores": port().cores, "fc_speed_gbit_s": float(MEASURED_SPEED.removesuffix("GFC"))}


def isolation_sweep(block_kib: Any, lpar2_max_iops: Any, points: int) -> Any:
    """LPAR2's offered load: 0 to ``lpar2_max_iops`` ('cores': the port's cores' worth) in ``points`` steps."""
    import numpy as np

    top = port().cores * port().core_iops if lpar2_max_iops == "cores" else float(lpar2_max_iops)
    return np.linspace(0.0, top, int(points))


@lru_cache(maxsize=None)
def isolation_runs(block_kib: Any, lpar2_max_iops: Any, points: int, lpar1_core_share: float | None) -> Any:
    """LPAR1 under LPAR2's sweep in each mode (at its limit, or offering a share of one core)."""
    from iosizer.model.hba import isolation

    sweep = isolation_sweep(block_kib, lpar2_max_iops, points)
    offered = None if lpar1_core_share is None else lpar1_core_share * port().core_iops
    kwargs = {} if offered is None else {"lpar1_offered_iops": offered}
    return sweep, offered, {m: isolation(port(), m, sweep, float(block_kib) * KIB, **kwargs) for m in MODES}


@question("hba isolation")
def hba_isolation(block_kib: Any, lpar2_max_iops: Any = "cores", points: int = 13,
                  lpar1_core_share: float = LIGHT_CORE_SHARE) -> Outputs:
    """Per mode: LPAR1 at its limit (idle, change, deviation from a core, totals) and LPAR1 offering less."""
    import numpy as np

    sweep, _, limit = isolation_runs(block_kib, lpar2_max_iops, points, None)
    _, light_load, light = isolation_runs(block_kib, lpar2_max_iops, points, lpar1_core_share)
    one_core = port().core_iops
    at_one_core = int(np.argmin(np.abs(sweep - one_core)))
    out: Outputs = {}
    for m in MODES:
        lpar1 = limit[m].lpar1_iops
        within_core = light[m].lpar2_offered_iops <= one_core
        out.update({
            f"{m}_lpar1_iops": lpar1, f"{m}_lpar1_idle_iops": lpar1[0],
            f"{m}_change_pct": float(100 * (lpar1[-1] / lpar1[0] - 1)),
            f"{m}_loss_at_one_core_pct": -float(100 * (lpar1[at_one_core] / lpar1[0] - 1)),
            f"{m}_deviation_pct": float(np.max(np.abs(lpar1 / one_core - 1)) * 100),
            f"{m}_light_loss_within_core_pct": -float(np.min(light[m].lpar1_iops[within_core] / light_load - 1) * 100),
            f"{m}_light_loss_pct": -float(100 * (light[m].lpar1_iops[-1] / light[m].lpar1_iops[0] - 1)),
            f"{m}_total_iops": float(limit[m].lpar1_iops[-1] + limit[m].lpar2_iops[-1]),
            f"{m}_port_mbps": float(limit[m].lpar1_mbps[0]),
        })
    return out


@question("hba response")
def hba_response(threads: Any) -> Outputs:
    """Both modes' response at ``threads`` and at one thread, with the declared block and storage delay."""
    from iosizer.model.hba import BLOCK_BYTES, STORAGE_US, response

    counts = [1, int(threads)]
    shared, occupancy = (response(port(), m, counts, BLOCK_BYTES.value, STORAGE_US.value).response_us for m in MODES)
    return {"gap_us": float(occupancy[1] - shared[1]), "gap_pct": float(occupancy[1] / shared[1] - 1) * 100,
            "occupancy_growth_us": occupancy[1] - occupancy[0], "shared_growth_us": shared[1] - shared[0],
            "storage_us": STORAGE_US.value, "storage_status": STORAGE_US.status, "block_bytes": BLOCK_BYTES.value}


# -- loadshare (seed 003) ----------------------------------------------------------


@lru_cache(maxsize=None)
def loadshare() -> tuple[dict[str, Any], Any, dict[str, Any]]:
    """(the scenarios, the declared policy parameters, each scenario's normalised curves and reference)."""
    from iosizer.calibration.loadshare import normalised_curves, policy_params, scenarios
    from iosizer.model.loadshare import POLICIES

    known, params = scenarios(), policy_params()
    curves = {}
    for name, chosen in known.items():
        found, ref = normalised_curves(chosen, list(POLICIES), params, points=60)
        curves[name] = {c.policy: c for c in found}, ref
    return known, params, curves


@question("loadshare compare")
def loadshare_compare(scenario: str) -> Outputs:
    """Each policy's maximum throughput and low-load response (normalised as the figure is) and largest jump."""
    from iosizer.model.loadshare import RESPONSE_ERROR

    known, params, curves = loadshare()
    found, ref = curves[scenario.replace("_", "-")]
    out: Outputs = {"switch_rule": params.switch_rule, "non_core_pct": params.non_core_pct,
                    "response_error": RESPONSE_ERROR}
    for policy, normalised in found.items():
        key, curve = policy.replace("-", "_"), normalised.curve
        out[f"max_{key}"] = curve.max_throughput / ref["max_throughput_cores"]
        out[f"low_{key}"] = curve.low_load_response / ref["min_response_service_times"]
        out[f"jump_{key}"] = curve.singularity
    out["low_min"] = min(out[f"low_{p.replace('-', '_')}"] for p in found)
    out["max_best_of_shared_exclusive"] = max(out["max_shared"], out["max_exclusive"])
    out["jumps_by_rule"] = _jumps_by_rule(known[scenario.replace("_", "-")].port_shares, params)
    return out


def _jumps_by_rule(shares: Any, params: Any) -> str:
    """Multi-stage's jumps under each switching rule, with and without the non-core part of a write hit."""
    from dataclasses import replace

    from iosizer.model.loadshare import SWITCH_RULES, policy_curve

    def jumps(rule: str, non_core_pct: float) -> str:
        curve = policy_curve("multi-stage", shares, replace(params, switch_rule=rule, non_core_pct=non_core_pct),
                             points=20)
        return " / ".join(f"{100 * j:.2f}" for j in curve.switch_jumps) + " %" if curve.switch_jumps.size else "none"

    return "; ".join(f"{rule} {jumps(rule, params.non_core_pct)} ({jumps(rule, 0.0)} without it)"
                     for rule in SWITCH_RULES)


@question("loadshare skew responses")
def loadshare_skew_responses(scenario: str) -> Outputs:
    """Multi-stage's mean response against shared's and exclusive's over 0.05-0.95 of its maximum."""
    import numpy as np

    from iosizer.model.loadshare import evaluate, max_throughput

    known, params, _ = loadshare()
    shares = known[scenario.replace("_", "-")].port_shares
    top = {p: max_throughput(p, shares, params) for p in ("multi-stage", "shared", "exclusive")}
    loads = np.linspace(0.05, 0.95, 19) * top["multi-stage"]
    beta = evaluate("multi-stage", loads, shares, params).response

    def ratio(policy: str) -> Any:
        stable = loads < top[policy]
        return 100 * (beta[stable] / evaluate(policy, loads[stable], shares, params).response - 1)

    shared, exclusive = ratio("shared"), ratio("exclusive")
    return {"above_exclusive_max_pct": exclusive.max(), "above_shared_min_pct": shared.min(),
            "above_shared_max_pct": shared.max()}


@question("loadshare policy cores")
def loadshare_policy_cores(policy: str) -> Outputs:
    """The cores a policy gives one port as its load grows, against the seed's description of it."""
    import numpy as np

    from iosizer.calibration.loadshare import POLICY_NAMES
    from iosizer.model.loadshare import evaluate, max_throughput

    _, params, _ = loadshare()
    name = POLICY_NAMES[policy]
    loads = np.linspace(0.01, 0.95, 95) * max_throughput(name, [1.0], params)
    distinct = sorted(set(evaluate(name, loads, [1.0], params).cores_per_port[:, 0].tolist()))
    n = params.cores  # the seed's n, declared (tables 2-4)
    expected = {"shared": [n], "exclusive": [1], "one-stage": [1, n], "multi-stage": list(range(1, n + 1))}[name]
    return {"distinct": distinct, "count": len(distinct), "expected": expected}


@question("loadshare scenario")
def loadshare_scenario(scenario: str, port_group: str = "all") -> Outputs:
    """A scenario's port group's share of the I/O (tables 2-4), its hot-to-cold ratio and its cores."""
    import numpy as np

    known, _, _ = loadshare()
    chosen = known[scenario.replace("_", "-")]
    shares = np.array(chosen.port_shares) / sum(chosen.port_shares)
    group = shares[:1] if port_group == "hot" else shares[1:] if port_group == "cold" else shares
    raw = chosen.port_shares
    hot_to_cold = raw[0] / sum(raw[1:]) if len(raw) > 1 else float("inf")  # one port: no cold ports
    return {"share_pct": 100 * float(group.sum()), "hot_to_cold": hot_to_cold, "cores": chosen.cores}


# -- replication (seed 004) --------------------------------------------------------

#: The seed's interconnect names (CSV) -> the link profiles' names (data/profiles/interconnects.json).
LINKS = {"1gbe": "1g", "10gbe": "10g", "ipoib_56g": "ipoib56", "local": "local"}
#: The report's block sweep (KiB): the seed's sizes, 4 KiB to 256 KiB.
BLOCKS_KIB = (4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0)


@lru_cache(maxsize=None)
def replication_run(link: str) -> Any:
    """One link over the block sweep at the declared benchmark depth."""
    import numpy as np

    from iosizer.calibration.replication import default, evaluate

    return evaluate(LINKS[link], np.array(BLOCKS_KIB), default("outstanding"))


def replication_point(link: str, block_kib: Any) -> dict[str, Any]:
    return replication_run(link).point(BLOCKS_KIB.index(float(block_kib)))


@question("replication")
def replication(link: str, block_kib: Any, baseline: str = "10gbe") -> Outputs:
    """One link at one block size, with its gains over ``baseline`` and its growth from 4 KiB."""
    point, base = replication_point(link, block_kib), replication_point(baseline, block_kib)
    small, local = replication_point(link, 4.0), replication_point("local", block_kib)
    return {**point, "baseline_iops": base["iops"], "baseline_throughput_mbps": base["throughput_mbps"],
            "iops_gain_pct": 100 * (point["iops"] / base["iops"] - 1),
            "throughput_gain_pct": 100 * (point["throughput_mbps"] / base["throughput_mbps"] - 1),
            "latency_gain_pct": 100 * (base["latency_us"] / point["latency_us"] - 1),
            "throughput_growth_pct": 100 * (point["throughput_mbps"] / small["throughput_mbps"] - 1),
            "replica_round_trip_us": float(point["unloaded_latency_us"] - local["unloaded_latency_us"])}


@question("replication sweep")
def replication_sweep(from_kib: float = 16.0) -> Outputs:
    """The block sweep from ``from_kib``: 1GbE's binding caps and each link's IOPS; the sweep's ends."""
    from iosizer.calibration.replication import _items as link_catalogue

    start = BLOCKS_KIB.index(float(from_kib))
    runs = {link: replication_run(link) for link in ("1gbe", "10gbe", "ipoib_56g")}
    bounds = [replication_point("1gbe", kib)["bound"] for kib in BLOCKS_KIB[start:]]
    return {"bandwidth_bound": bounds.count("bandwidth"), "sizes": len(bounds),
            **{f"iops_{link}": run.iops[start:] for link, run in runs.items()},
            "smallest_kib": min(BLOCKS_KIB), "largest_kib": max(BLOCKS_KIB),
            "ipoib_line_rate_gbit_s": float(link_catalogue()["ipoib56"]["line_rate_gbit_s"])}
