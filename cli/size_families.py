"""``iosizer size latency | lanes | hba | cores | outstanding``: the seed families' sizing questions.

Registered on :data:`iosizer.cli.size.app`. Each command calls one function of
:mod:`iosizer.model.family_sizing` (root finding on the family's model) with
the family's calibrated (or a given profile's) parameters, and, with
``--profile``, the interval of the answer at the ends of the profile's 95 %
parameter intervals.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer

from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, Report, emit
from iosizer.cli.loadshare import CpuSpeed, NonCore, SwitchRule
from iosizer.cli.size import ProfileOption, _emit, app
from iosizer.errors import InputError

BudgetPct = Annotated[float, typer.Option("--budget-pct", help="Largest acceptable loss, percent.")]


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def _interval(profile: Any, answer: Any, on_failure: float = math.inf) -> tuple[float | None, float | None]:
    from iosizer.calibration.sizing import answer_interval

    return answer_interval(profile, answer, on_failure)


# --- seed 000 -------------------------------------------------------------------------------


@app.command()
def latency(
    budget_pct: BudgetPct = 5.0,
    hop_ns: Annotated[
        list[float] | None, typer.Option("--hop-ns", help="One-way hop latency of a switch (repeat) [table 3-3's].")
    ] = None,
    device: Annotated[
        str | None, typer.Option("--device", help="A DMA device (e1000, bcm5700, ...) instead of the OLTP curve.")
    ] = None,
    profile: ProfileOption = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Seed 000: the largest added latency within a degradation budget, and the most switch tiers per hop.

    PD grows with the added round trip x, so t tiers of hop h fit exactly when 2 t h <= x_max, the root of
    PD(x) = budget (Brent's method on the OLTP network's MVA curve; the closed form for a DMA device). The
    same answer as 'iosizer latency tiers', without a tier count limit.
    """
    from iosizer.calibration import latency as family
    from iosizer.model.family_sizing import max_switch_tiers

    calibrated = None
    if profile is not None:
        from iosizer.calibration.profile import load_profile

        calibrated = load_profile(profile)
    kind, source = family.loss_source(calibrated, device)

    def x_max(values: Any = None) -> float:
        if kind == "oltp":
            network = source if values is None else source.model_copy(update={
                "knee_latency_ns": values["knee_latency_ns"], "serial_share": values["serial_share"]})
            return family.max_oltp_latency_ns(network, budget_pct)
        chosen = source if values is None else source.model_copy(update={
            "local_issue_interval_ns": values["local_issue_interval_ns"],
            "exposed_round_trips": values["exposed_round_trips"]})
        return family.max_dma_latency_ns(chosen, budget_pct)

    answer = x_max()
    chosen_profile = calibrated if calibrated is not None else (family.oltp_profile() if kind == "oltp" else None)
    band = _interval(chosen_profile, x_max) if chosen_profile is not None else (None, None)
    from iosizer.model.latency import HOP_NS

    # Each hop within the declaration, as 'latency tiers --hop-ns' checks it (1e308 was answered here).
    switches = ([{"switch": f"hop {h:g} ns", "hop_ns": HOP_NS.check(h, "--hop-ns")} for h in hop_ns] if hop_ns
                else family.switch_catalogue())
    rows = []
    for switch in switches:
        hop = float(switch["hop_ns"])
        row = {"switch": switch["switch"], "hop_ns": hop, "max_tiers": _whole(max_switch_tiers(answer, hop))}
        if band != (None, None):
            row["max_tiers_ci_low"] = None if band[0] is None else _whole(max_switch_tiers(band[0], hop))
            row["max_tiers_ci_high"] = None if band[1] is None else _whole(max_switch_tiers(band[1], hop))
        rows.append(row)
    model = f"profile {profile}" if profile else (f"device {device}" if device else "the OLTP curve (seed 000)")
    data: dict[str, Any] = {"model": model, "budget_pct": budget_pct, "max_added_latency_ns": _finite(answer)}
    if band != (None, None) or chosen_profile is not None:
        data["max_added_latency_ns_ci_low"] = _finite(band[0])
        data["max_added_latency_ns_ci_high"] = _finite(band[1])
    data["switches"] = rows
    notes = [f"largest added round trip within {budget_pct:g} %: {_text(answer)} ns"
             + (f" [{_text(band[0])}, {_text(band[1])}]" if band != (None, None) else ""),
             f"max_tiers = floor(x_max / (2 hop)); loss from {model}",
             "_ci_low/_ci_high: at the ends of the profile's 95 % intervals" if band != (None, None) else
             "no interval: the profile's fit is exact (as many points as parameters)"]
    emit(Report(data=data, rows=rows, title=f"Switch tiers within {budget_pct:g} % loss", notes=notes),
         output_format)


def _whole(value: float) -> int | None:
    return None if not math.isfinite(value) else int(value)


def _text(value: float | None) -> str:
    return "unbounded" if value is None or not math.isfinite(value) else f"{value:.6g}"


# --- seed 001 -------------------------------------------------------------------------------


@app.command()
def lanes(
    budget_pct: BudgetPct,
    pattern: Annotated[
        str | None, typer.Option("--pattern", help="Bytes per transfer (520) or a table 2 case (B) [520 B].")
    ] = None,
    mps: Annotated[int | None, typer.Option("--mps", help="Max Payload Size, bytes [declared value].")] = None,
    mitigation: Annotated[
        str | None, typer.Option("--mitigation", help="gather-dif (pattern F) or split-at-64.")
    ] = None,
    max_lanes: Annotated[int, typer.Option("--max-lanes", help="Search up to this many lanes.")] = 1024,
    profile: ProfileOption = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Seed 001: the most x8 ports (lanes) a root complex feeds within a throughput-loss budget.

    The RMW loss of the transfer pattern grows with the ports sharing the unit (multi-class MVA), so the
    answer is a monotone search on the model: the last port count before the first over the budget.
    """
    from iosizer.calibration import pcie as family
    from iosizer.model.family_sizing import most_ports_within_loss
    from iosizer.model.pcie import access_pattern

    size = family.resolve_pattern(str(family.WORST_CASE_BYTES) if pattern is None else pattern)
    mps = family.link_config(mps_bytes=mps).mps_bytes
    calibrated = None
    if profile is not None:
        from iosizer.calibration.profile import load_profile

        calibrated = load_profile(profile, "rmw")
    platform = family.platform(mps_bytes=mps, profile=calibrated)
    if mitigation is None:
        chosen = access_pattern(size, mps)
    elif mitigation == "gather-dif":
        chosen = access_pattern(family.gathered_transfer_bytes(size), mps)
    elif mitigation == "split-at-64":
        chosen = access_pattern(size, mps, split_at_line=True)
    else:
        raise InputError(f"--mitigation must be gather-dif or split-at-64, got {mitigation!r}")
    from iosizer.model.family_sizing import MAX_PORTS_SEARCHED

    per_port = platform.link.lanes
    if max_lanes < per_port:
        raise InputError(f"--max-lanes must be at least one x{per_port} port, got {max_lanes}")
    if max_lanes > MAX_PORTS_SEARCHED * per_port:  # 10^9 lanes searched 2,558 ports for two minutes
        raise InputError(f"--max-lanes must lie in [{per_port}, {MAX_PORTS_SEARCHED * per_port}] "
                         f"({MAX_PORTS_SEARCHED} x{per_port} ports), got {max_lanes}")
    top = max_lanes // per_port
    sized = most_ports_within_loss(platform, chosen, budget_pct, top)
    data: dict[str, Any] = {"transfer_bytes": size, "mps_bytes": mps, "mitigation": mitigation,
                            "budget_pct": budget_pct, **sized.to_dict()}
    data["unaligned_per_kib"] = chosen.unaligned_per_kib
    notes = [f"ports: the most x{per_port} ports with RMW loss within {budget_pct:g} % "
             f"(next_loss_pct: one port more); searched up to {top} ports"]
    if sized.ports is None:
        notes.append(f"even one port loses {sized.next_loss_pct:.3g} %: no width meets the budget")
    elif sized.next_loss_pct is None:
        notes.append(f"no limit up to {top * per_port} lanes: the pattern loses nothing to RMW contention")
    if calibrated is not None:
        from iosizer.calibration.profile import profile_values
        from iosizer.model.pcie import RmwPlatform

        def ports(values: Any) -> float:
            moved = RmwPlatform(link=platform.link, rmw_service_ns=values["rmw_service_ns"],
                                posted_credits=values["posted_credits"], line_service_ns=platform.line_service_ns,
                                service_scv=platform.service_scv)
            found = most_ports_within_loss(moved, chosen, budget_pct, top).ports
            return 0.0 if found is None else float(found)

        from iosizer.calibration.sizing import with_interval

        profile_values(calibrated)  # checks the profile completes the family
        data = with_interval(data, "ports", _interval(calibrated, ports, 0.0))
    _emit(data, f"Most x{per_port} ports for {size} B writes within {budget_pct:g} % loss", notes, output_format)


# --- seed 003 -------------------------------------------------------------------------------


@app.command()
def cores(
    load_cores: Annotated[float, typer.Option("--load-cores", help="Total offered I/O work, in cores "
                                              "(IOPS x one I/O's core time).")],
    target_response: Annotated[float, typer.Option("--target-response", help="Mean response target, in service "
                                                   "times (one I/O's core time).")],
    scenario: Annotated[str | None, typer.Option("--scenario", help="one-port, system or skew [declared].")] = None,
    policy: Annotated[str | None, typer.Option("--policy", help="One policy; default every policy.")] = None,
    comm_overhead_pct: Annotated[float | None, typer.Option("--comm-overhead-pct", help="Hand-off overhead, % "
                                                            "[declared].")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", help="Switching threshold [declared].")] = None,
    non_core_pct: NonCore = None,
    switch_rule: SwitchRule = None,
    max_cores: Annotated[int | None, typer.Option("--max-cores", help="Search up to this many cores "
                                                  "[the declared core bound].")] = None,
    profile: ProfileOption = None,
    cpu_speed: CpuSpeed = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Seed 003: cores each load-sharing policy needs for a load within a response target.

    A monotone search on the policy model (Erlang C per pooled group of cores): the fewest cores that carry the load
    with the throughput-weighted mean response within the target; port_groups gives the cores each group of
    ports gets at that count. max_load_cores: the largest load within the target at the scenario's cores.
    """
    from iosizer.cli.loadshare import _configured
    from iosizer.model.family_sizing import cores_per_policy
    from iosizer.model.loadshare import POLICIES

    # As `iosizer loadshare compare` takes them: a profile (or --cpu-speed) first, the options over it.
    chosen, params, calibrated = _configured(scenario, None, comm_overhead_pct, threshold, non_core_pct,
                                             switch_rule, profile, cpu_speed)
    policies = list(POLICIES) if policy is None else [policy]
    for name in policies:
        if name not in POLICIES:
            raise InputError(f"--policy must be one of {', '.join(POLICIES)}, got {name!r}")
    answers = [a.to_dict() for a in cores_per_policy(policies, load_cores, chosen.port_shares, target_response,
                                                      params, max_cores)]
    rows = [{**a, "port_groups": ", ".join(f"{g['ports']} x {g['share']:.3g}: {g['cores_per_port']}"
                                            for g in a["port_groups"])} for a in answers]
    notes = [f"scenario {chosen.name}: {len(chosen.port_shares)} port(s); load {load_cores:g} cores of work; "
             f"hand-off overhead {params.comm_overhead_pct:g} %, threshold {params.threshold:g}, multi-stage switch "
             f"rule {params.switch_rule}; every response includes the non-core part of a write hit, "
             f"{params.non_core_pct:g} % of a service time",
             "port_groups: ports x load share: cores serving each port at the answer",
             f"max_load_cores_at_given: the largest load within the target at the scenario's {chosen.cores} cores"]
    if calibrated is not None:
        notes.append(f"{calibrated.source}: --load-cores and --target-response are in that CPU's I/O service times "
                     f"({calibrated.values['io_service_us']:.4g} us each)")
    columns = ["policy", "cores", "response_service_times", "one_fewer_response_service_times", "port_groups",
               "max_load_cores_at_given", "reason"]
    emit(Report(data=answers, rows=rows, columns=columns, notes=notes,
                title=f"Cores per policy for {load_cores:g} cores of work within {target_response:g} service times"),
         output_format)


# --- seed 004 -------------------------------------------------------------------------------


@app.command()
def outstanding(
    target_iops: Annotated[float | None, typer.Option("--target-iops", help="IOPS the replicated cache must "
                                                      "reach.")] = None,
    link: Annotated[str | None, typer.Option("--link", help="1g, 10g or ipoib56 [declared].")] = None,
    block_kib: Annotated[float | None, typer.Option("--block-kib", help="Block size, KiB [declared].")] = None,
    at_outstanding: Annotated[int | None, typer.Option("--outstanding", help="Queue depth for the largest "
                                                       "protocol-bound block size [declared].")] = None,
    target_latency_us: Annotated[float | None, typer.Option("--target-latency-us", help="Also: the largest IOPS "
                                                            "with mean write latency within this.")] = None,
    profile: ProfileOption = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Seed 004: outstanding I/Os needed to reach an IOPS target over a link, and the largest block size that
    stays protocol-bound.

    X(N) of the replication network (exact MVA) grows with N up to min(protocol cap, bandwidth cap): the
    depth needed is a monotone search, and a target at or above the cap is unreachable. The protocol-bound
    block size is a bisection on the model's binding cap.
    """
    from iosizer.calibration import replication as family
    from iosizer.model.family_sizing import (
        largest_protocol_bound_block_kib,
        largest_replication_iops,
        outstanding_for_iops,
    )
    from iosizer.model.replication import replication_system

    if target_iops is None and target_latency_us is None:
        raise InputError("give --target-iops (and/or --target-latency-us)")
    calibrated = None
    if profile is not None:
        from iosizer.calibration.profile import load_profile

        calibrated = load_profile(profile, "replication")
        if link is not None:
            raise InputError("--profile names its link; drop --link")
    else:
        calibrated = family.shipped_profile("replication", link)
    from iosizer.calibration.profile import profile_values

    from iosizer.model.replication import BLOCK_SIZE, OUTSTANDING

    values = profile_values(calibrated)
    system = replication_system(values)
    block = values["block_kib"] if block_kib is None else BLOCK_SIZE.check(block_kib, "--block-kib")
    depth = values["outstanding"] if at_outstanding is None else OUTSTANDING.check(at_outstanding, "--outstanding")
    data: dict[str, Any] = {"link": values["link"], "block_kib": block}
    if target_iops is not None:
        sized = outstanding_for_iops(system, block, target_iops)
        data.update(sized.to_dict())
        if profile is not None:
            from iosizer.calibration.sizing import with_interval

            data = with_interval(data, "outstanding", _interval(
                calibrated, lambda moved: outstanding_for_iops(replication_system({**values, **moved}), block,
                                                               target_iops).outstanding))
    largest = largest_protocol_bound_block_kib(system, depth)
    data["largest_protocol_bound_block_kib"] = _finite(largest)
    data["protocol_bound_at_outstanding"] = depth
    if target_latency_us is not None:
        within = largest_replication_iops(system, block, target_latency_us)
        data.update({"target_latency_us": target_latency_us, "max_iops_within_latency": within["iops"],
                     "outstanding_at_max_iops": within["outstanding"],
                     "latency_at_max_iops_us": within["latency_us"], "bound_at_max_iops": within["bound"]})
    notes = [f"link {values['link']}: protocol {values['protocol_fixed_us']:.4g} us + "
             f"{values['protocol_per_kib_us']:.3g} us/KiB per host; largest_protocol_bound_block_kib at "
             f"{depth} outstanding"
             + (" (empty: protocol-bound over the whole declared range)" if largest is not None
                and math.isinf(largest) else "")]
    if profile is not None and target_iops is not None:
        notes.append(f"outstanding_ci_low/_ci_high: at the ends of the 95 % intervals of {profile} "
                     "(empty, null in JSON: the target is out of reach at that end)")
    _emit(data, f"Replication over {values['link']}: outstanding I/Os and protocol-bound blocks", notes,
          output_format)
