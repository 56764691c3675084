"""The ``mmc`` family: open queues (M/M/1, M/M/c, M/G/1, M/D/1, G/G/c) declared as questions.

Physical system: requests arrive at a station (an HBA core, a controller port, a root-complex unit)
and wait for one of ``servers`` identical servers. The family calibrates the service rate of an M/M/c
station from measured mean responses at several arrival rates, and answers ``iosizer queue
mmc|mm1|mg1|md1|ggc|erlang``, their percentiles, ``iosizer simulate`` and ``iosizer size servers|load``.

Formula: W = C(c, a) / (c mu - lambda) + 1 / mu (Erlang C; Kleinrock, *Queueing Systems* vol. 1,
sec. 3.5); the mean-value formulas of every question are in :mod:`iosizer.model.open_queues`, the
percentiles in :mod:`iosizer.model.percentiles` (which builds on those formulas: this declaration sits
above both). Measured errors: :func:`iosizer.model.open_queues.ggc` (Allen-Cunneen) and the
percentile notes below (grid ``ggc_percentiles``). The formulas are re-exported here, where the
public API has always named them (``iosizer.model.queueing.mmc``).
"""

from __future__ import annotations

import math
from dataclasses import fields, replace

import numpy as np

from iosizer.errors import InputError
from iosizer.model.family import (SIMULATED_SCV, Column, CpuScaling, Family, FitPlan, Input, Output, ParameterSpec,
                                  Plot, Question, Role, Schema, SimulateOption, Simulation, Sizing,
                                  SizingCommand)
from iosizer.model.open_queues import (
    SCV,
    QueueResult,
    erlang_b,
    erlang_c,
    ggc,
    md1,
    mg1,
    mm1,
    mmc,
    mmc_mean_response,
    mmc_mean_response_gradient,
)

__all__ = [
    "SCV",
    "QueueResult",
    "erlang_b",
    "erlang_c",
    "ggc",
    "md1",
    "mg1",
    "mm1",
    "mmc",
    "mmc_mean_response",
    "mmc_mean_response_gradient",
]

#: Largest server count the M/M/c family accepts: Erlang C is exact far
#: beyond it, but no I/O station has more (an input above is a typo).
MAX_SERVERS = 10_000_000


def _mmc_solve(values, inputs):
    return {"mean_response_s": np.asarray(mmc_mean_response(
        inputs["arrival_rate_per_s"], values["service_rate_per_s"], values["servers"]), dtype=np.float64)}


def _mmc_tail(values, inputs, percentile):
    """Exact M/M/c response percentile (s) at each arrival rate."""
    from iosizer.model.percentiles import mmc_response_quantile

    return np.asarray(mmc_response_quantile(inputs["arrival_rate_per_s"], values["service_rate_per_s"],
                                            values["servers"], percentile), dtype=np.float64)


#: Every open-queue answer is in the unit of its rates.
QUEUE_NOTE = "Times are in the unit of 1/rate; utilization is per server."
#: How ``--percentile`` of an M/M/c queue is computed.
MMC_PERCENTILE_NOTE = "wait_pP/response_pP: exact M/M/c percentiles (Erlang C wait + exponential service)"


def _measures(result: QueueResult) -> dict[str, np.ndarray]:
    return {f.name: np.asarray(getattr(result, f.name), dtype=np.float64) for f in fields(result)}


def _queue_mmc(values, inputs):
    """``iosizer queue mmc``: every measure of :func:`mmc` at each arrival rate (unit of the rates); the servers
    an input where ``size servers`` searches them."""
    servers = inputs.get("servers", values["servers"])
    return _measures(mmc(inputs["arrival_rate"], values["service_rate_per_s"], servers))


def _queue_mmc_percentiles(values, inputs, percentiles):
    from iosizer.model.percentiles import mmc_percentiles

    servers = inputs.get("servers", values["servers"])
    return mmc_percentiles(inputs["arrival_rate"], values["service_rate_per_s"], servers, percentiles)


#: Inter-arrival and service variability of a G/G/c or M/G/1 question: :data:`SCV` under the options' names.
ARRIVAL_SCV = replace(SCV, name="arrival_scv", kind="setting",
                      description="squared coefficient of variation of inter-arrival time (1 Poisson)")
SERVICE_SCV = replace(SCV, name="service_scv", kind="setting",
                      description="squared coefficient of variation of service time (0 deterministic, 1 exponential)")

#: How ``--percentile`` of an M/D/1 queue (or an M/D/c one) is computed.
MD_PERCENTILE_NOTE = ("wait_pP/response_pP: exact M/D/c percentiles (Crommelin's distribution of the wait, "
                      "response = wait + the constant service; see iosizer.model.mdc)")
MG1_PERCENTILE_NOTE = (
    "wait_pP/response_pP: exact M/G/1 percentiles (Pollaczek-Khinchine transform of gamma service of this cv^2 "
    "inverted numerically, Abate-Whitt Euler: tail probabilities within 1e-7 relative for cv^2 >= 0.1, 2e-4 for "
    "cv^2 >= 0.01; constant service by Crommelin's M/D/1 distribution; see iosizer.model.transforms)")
GGC_PERCENTILE_NOTE = (
    "wait_pP/response_pP: approximation (exponential-tail wait with the model's P(wait) and mean, Whitt's QNA, "
    "+ gamma-fitted service); its response error against simulation is measured on a grid "
    "(iosizer/data/error_grids/ggc_percentiles.csv) and stated as response_pP_error_pct (the wait's as "
    "wait_pP_error_pct) where it exceeds 2 %")
#: Below this cv^2 (but above 0) the service density is a spike too narrow for Euler's 31 nodes.
NEAR_DETERMINISTIC_SCV = 0.01


def _queue_mm1(values, inputs):
    return _measures(mm1(inputs["arrival_rate"], values["service_rate_per_s"]))


def _queue_md1(values, inputs):
    return _measures(md1(inputs["arrival_rate"], values["service_rate_per_s"]))


def _queue_mg1(values, inputs):
    return _measures(mg1(inputs["arrival_rate"], values["service_rate_per_s"], values["service_scv"]))


def _queue_ggc(values, inputs):
    return _measures(ggc(inputs["arrival_rate"], values["service_rate_per_s"], values["servers"],
                         values["arrival_scv"], values["service_scv"]))


def _mm1_percentiles(values, inputs, percentiles):
    from iosizer.model.percentiles import mm1_percentiles

    return mm1_percentiles(inputs["arrival_rate"], values["service_rate_per_s"], percentiles)


def _md1_percentiles(values, inputs, percentiles):
    from iosizer.model.percentiles import md1_percentiles

    return md1_percentiles(inputs["arrival_rate"], values["service_rate_per_s"], percentiles)


def _mg1_percentiles(values, inputs, percentiles):
    from iosizer.model.percentiles import mg1_percentiles

    return mg1_percentiles(inputs["arrival_rate"], values["service_rate_per_s"], values["service_scv"], percentiles)


def ggc_is_exact(servers: int, arrival_scv: float, service_scv: float) -> bool:
    """Poisson arrivals with one server, constant or exponential service: an exact method answers."""
    return arrival_scv == 1.0 and (servers == 1 or service_scv in (0.0, 1.0))


def _ggc_percentiles(values, inputs, percentiles):
    """G/G/c percentiles, plus ``response_pP_error_pct`` and ``wait_pP_error_pct`` (the measured error of the
    approximation around the point, grid ``ggc_percentiles``) wherever that error exceeds :data:`ERROR_RULE_PCT`.
    Exact cases add nothing."""
    from iosizer.data.error_grids import ERROR_RULE_PCT, load
    from iosizer.model.percentiles import ggc_percentiles, percentile_approximation_error, percentile_key

    lam, mu = inputs["arrival_rate"], values["service_rate_per_s"]
    servers, arrival_scv, service_scv = values["servers"], values["arrival_scv"], values["service_scv"]
    out = dict(ggc_percentiles(lam, mu, servers, arrival_scv, service_scv, percentiles))
    if ggc_is_exact(servers, arrival_scv, service_scv):
        return out
    grid = load("ggc_percentiles")
    # The wait's columns: a cell whose simulated quantile is 0 has no relative error (nan: counted as 0).
    waits = {**grid, "error_pct": grid["wait_error_pct"], "half_width_pct": grid["wait_half_width_pct"]}
    rho = np.atleast_1d(np.asarray(lam, dtype=np.float64) / (float(mu) * servers))
    for p in percentiles:
        for kind, measured in (("wait", waits), ("response", grid)):
            error = np.array([percentile_approximation_error(measured, {
                "servers": servers, "arrival_scv": arrival_scv, "service_scv": service_scv, "utilization": r,
                "percentile": p}) for r in rho.reshape(-1)]).reshape(rho.shape)
            if np.any(np.abs(error) > ERROR_RULE_PCT):
                out[f"{kind}_{percentile_key(p)}_error_pct"] = error
    return out


def _tailed(note):
    """A note said when the answer carries percentiles (``note(values)``: the text)."""
    def said(values, outputs):
        return note(values) if any(k.startswith("wait_p") for k in outputs) else None
    return said


def _mg1_note(values):
    """The M/G/1 percentile note; a cv^2 in (0, 0.01) says the inversion is not exact there."""
    scv = values["service_scv"]
    if 0 < scv < NEAR_DETERMINISTIC_SCV:
        return MG1_PERCENTILE_NOTE + (
            f"; but cv^2 {scv:g} < {NEAR_DETERMINISTIC_SCV:g} is a near-constant service whose narrow density "
            "the inversion resolves only approximately: measured up to 2.6 % off at the response's 90th (cv^2 1e-6, "
            "utilisation 0.1); cv^2 0 (M/D/1) is exact")
    return MG1_PERCENTILE_NOTE


def _ggc_note(values):
    servers, service_scv = values["servers"], values["service_scv"]
    if not ggc_is_exact(servers, values["arrival_scv"], service_scv):
        return GGC_PERCENTILE_NOTE
    if servers == 1:
        return _mg1_note(values)
    return MD_PERCENTILE_NOTE if service_scv == 0 else MMC_PERCENTILE_NOTE


def _ggc_mean_note(values, outputs):
    """Allen-Cunneen's measured error where it is not exact (see :func:`ggc`)."""
    if values["arrival_scv"] == 1.0 and (values["servers"] == 1 or values["service_scv"] == 1.0):
        return None
    return ("mean_wait/mean_response: Allen-Cunneen, against simulation up to +8 % (ca^2 0.5) and -13 % "
            "(ca^2 2) at light load, within 3 % at utilization 0.9, -20 % with ca^2 4; Poisson arrivals with "
            "constant service within 1 %; p_wait is Erlang C's, 22-45 % off at utilization 0.5 when ca^2 is 0.5 "
            "or 2 (see iosizer.model.queueing.ggc)")


#: ``queue erlang --arrival-rate`` with a profile: the offered load is this over its service rate.
ERLANG_ARRIVAL_RATE = ParameterSpec(
    "arrival_rate", "1/s", None, (0.0, math.inf), "assumed", "the planner's load",
    "with --profile: arrivals per second (the offered load is this over the calibrated service rate)",
    kind="setting")


def _erlang_servers(values, given):
    """With a profile: its server count."""
    return values.get("servers")


def _erlang_load(values, given):
    """With a profile and ``--arrival-rate``: the arrival rate over the calibrated service rate."""
    if values.get("arrival_rate") is None:
        return None
    if values.get("service_rate_per_s") is None:
        raise InputError("--arrival-rate goes with --profile (which supplies the service rate); without one "
                         "give --offered-load (arrival rate / service rate)")
    return values["arrival_rate"] / values["service_rate_per_s"]


def _queue_erlang(values, inputs):
    """``iosizer queue erlang``: Erlang B at every point, Erlang C where the queue is stable (nan elsewhere)."""
    servers, load = inputs["servers"], inputs["offered_load"]
    blocking = np.asarray(erlang_b(servers, load), dtype=np.float64)
    stable = np.asarray(load < servers)
    waiting = np.full(np.shape(load), np.nan)
    if stable.any():
        waiting[stable] = erlang_c(servers[stable], load[stable])
    return {"erlang_b": blocking, "erlang_c": waiting}


def _erlang_notes(values, outputs):
    said = []
    if values.get("arrival_rate") is not None:
        said.append(f"offered load = arrival rate {values['arrival_rate']:.6g} / calibrated service rate "
                    f"{values['service_rate_per_s']:.6g}")
    if np.any(np.isnan(outputs["erlang_c"])):
        said.append("Erlang C undefined (null) where offered load >= servers (the queue would grow without bound).")
    return "; ".join(said) or None


def _open_queue(command, summary, solve, percentiles, note, extra_notes=(), **declared):
    """A question of an open queue at the family's service rate: the arrival rate swept, the measures of
    :class:`QueueResult` out (times in the unit of 1/rate), ``note(values)`` said with percentiles."""
    return Question(
        command, summary,
        inputs=(Input("arrival_rate", "1/t", (0.0, math.inf), description="arrivals per unit time"),),
        outputs=(Output("utilization", "1", "busy share of each server"),
                 Output("p_wait", "1", "probability an arrival waits (Erlang C for c servers)"),
                 Output("mean_wait", "t", "mean time in queue"),
                 Output("mean_response", "t", "mean wait + service", measured="mean_response_s"),
                 Output("mean_queue_length", "jobs", "mean number waiting"),
                 Output("mean_in_system", "jobs", "mean number waiting or in service")),
        solve=solve, percentiles=percentiles, notes=(QUEUE_NOTE, *extra_notes, _tailed(note)),
        plot=Plot("arrival_rate", ("mean_response",)),
        aliases={"service_rate_per_s": ("service_rate",)}, shipped=False,
        scenario=command == "queue mmc", **declared)


#: ``iosizer simulate mmc|mm1|md1|mg1|ggc``: the open queue's options (a single arrival rate).
_SIM_ARRIVAL = SimulateOption("arrival_rate", "--arrival-rate", "Arrivals per unit time.", required=True)
_SIM_RATE = SimulateOption("service_rate", "--service-rate",
                           "Completions per unit time of one busy server [the mmc family's shipped profile].")
_SIM_SERVERS = SimulateOption("servers", "--servers", "Servers [the mmc family's shipped profile].", kind=int)


def _simulated(command, summary, *options):
    """An open queue simulated (FCFS, renewal arrivals) against the question's formula."""
    return Simulation(command, summary + " (numpy; --engine ciw).", options,
                      metrics=("mean_response", "mean_wait", "p_wait", "utilization"))


# --- sizing: iosizer size servers (the smallest c) and iosizer size load (the largest arrival rate) ---

def _stable_servers(values, inputs):
    """The smallest stable count floor(lambda / mu) + 1: fewer servers have no answer (nan for a rate the
    queue refuses: its solve says why)."""
    mu = values["service_rate_per_s"]
    return np.floor(inputs["arrival_rate"] / mu) + 1.0 if mu > 0 else math.nan


def _response_out_of_reach(values, target, percentile):
    """A response target at or below the service time (or its percentile): no server count shortens it."""
    mu = values["service_rate_per_s"]
    if not mu > 0:  # refused by the queue's solve, with its message
        return None
    if percentile is None:
        if target * mu <= 1.0:
            return (f"target response {target:.6g} is unreachable: it is at or below the service time "
                    f"1/mu = {1 / mu:.6g}, which no number of servers shortens")
        return None
    if target * mu <= -math.log1p(-percentile / 100.0):
        floor = -math.log1p(-percentile / 100.0) / mu
        return (f"target p{percentile:g} response {target:.6g} is unreachable: the service time alone has "
                f"p{percentile:g} = {floor:.6g}, which no number of servers shortens")
    return None


def _rate_note(values, key):
    if values["profile_name"] is None:
        return []
    return [f"service rate {values['service_rate_per_s']:.6g} from {values['profile_name']}; {key}"]


def _servers_notes(values, records, inputs):
    measure = values["measure"]
    return [f"servers: the smallest count with {measure} within the target (exact M/M/c); "
            f"{measure}_one_fewer: the same at one server fewer (empty, null in JSON: one fewer is unstable)",
            *_rate_note(values, "servers_ci_low/_ci_high: the count at the ends of its 95 % interval")]


def _load_notes(values, records, inputs):
    return [f"arrival_rate: the largest with {values['measure']} within the target (exact M/M/c, bisection to 1e-12)",
            *_rate_note(values, "arrival_rate_ci_low/_ci_high at the ends of its 95 % interval")]


def _mmc_sizing():
    """``size servers``: the smallest c for a mean or percentile response, or a P(wait) (Erlang C) target;
    ``size load``: the largest arrival rate within one, bisected on (0, c mu). Each target alone."""
    response = {"target": "target_response_s", "percentile": "response", "out_of_reach": _response_out_of_reach}
    wait = {"target": "target_wait_probability", "target_bounds": (0.0, 1.0)}
    servers = {"command": "servers", "alone": True, "lowest": _stable_servers, "notes": _servers_notes,
               "title": lambda values, targets, inputs: "Smallest M/M/c server count",
               "keys": (("servers", "servers"), ("arrival_rate", "arrival_rate"),
                        ("service_rate_per_s", "service_rate"), ("target", "{target}"), ("percentile", "percentile"),
                        ("measure", "{measure}"), ("one_fewer", "{measure}_one_fewer"), ("utilization", "utilization"),
                        ("lowest", "minimum_stable_servers"))}
    load = {"command": "load", "alone": True, "smallest": False, "bracket": True, "notes": _load_notes,
            "stop": lambda values: values["servers"] * values["service_rate_per_s"],
            "title": lambda values, targets, inputs: f"Largest arrival rate, M/M/{int(values['servers'])}",
            "keys": (("arrival_rate", "arrival_rate"), ("servers", "servers"),
                     ("service_rate_per_s", "service_rate"), ("target", "{target}"), ("percentile", "percentile"),
                     ("measure", "{measure}"), ("utilization", "utilization"))}

    def declared(search, output, shared, own):
        keys = tuple((k, v.replace("{target}", own["target"])) for k, v in shared["keys"])
        return Sizing(search, output, **{**shared, **own, "keys": keys})

    return (declared("servers", "mean_response", servers, response), declared("servers", "p_wait", servers, wait),
            declared("arrival_rate", "mean_response", load, response), declared("arrival_rate", "p_wait", load, wait))


#: ``iosizer size servers|load`` of the mmc family: the service rate published as ``--service-rate``.
_MMC_SIZING_COMMANDS = (
    SizingCommand("servers", "Smallest M/M/c server count meeting a response (mean or --percentile) or "
                  "wait-probability target.", flags={"service_rate_per_s": "--service-rate"}),
    SizingCommand("load", "Largest load within a target: the arrival rate of an M/M/c queue",
                  flags={"service_rate_per_s": "--service-rate"}))


def _mmc_start(data, settings):
    """At the lightest load the response is close to the bare service time;
    every measured arrival rate must stay below c mu (the rate's lower bound)."""
    servers = settings["servers"]
    stable_floor = float(np.max(data["arrival_rate_per_s"])) / servers * (1 + 1e-9)
    start = max(1.0 / float(np.min(data["mean_response_s"])), stable_floor * 1.05)
    return {"service_rate_per_s": (start, stable_floor, math.inf)}


def _mmc_jacobian(settings):
    servers = settings["servers"]

    def jacobian(values, inputs):
        lam = np.asarray(inputs["arrival_rate_per_s"], dtype=np.float64)
        d_mu = mmc_mean_response_gradient(lam, values["service_rate_per_s"], servers)
        return {"mean_response_s": np.asarray(np.broadcast_to(d_mu, lam.shape), dtype=np.float64)[:, None]}

    return jacobian


#: The family's parameters: the calibrated service rate, and the servers (a setting the planner gives).
_MMC_PARAMETERS = (
    ParameterSpec("service_rate_per_s", "1/s", None, (0.0, math.inf), "fitted",
                  "calibrated from the planner's measured mean responses",
                  "completions per second of one busy server",
                  cpu_scaling=CpuScaling.power, exponent_bounds=(0.0, 1.0)),
    ParameterSpec("servers", "servers", None, (1, MAX_SERVERS), "assumed",
                  "no default: the planner's configuration (cores, channels, ports)",
                  "identical servers behind one queue", kind="setting", integer=True),
)

#: What ``iosizer calibrate mmc`` reads: mean responses measured at several arrival rates.
_MMC_COLUMNS = Schema("mmc", (
    Column("arrival_rate_per_s", Role.input, "1/s", "arrivals per second",
           minimum=0, minimum_inclusive=False),
    Column("mean_response_s", Role.observed, "s", "mean response time",
           minimum=0, minimum_inclusive=False),
))


def _declare_mmc():
    return Family(
        name="mmc",
        formula=("W = C(c, a) / (c mu - lambda) + 1 / mu, a = lambda / mu, rho = a / c < 1; Erlang C "
                 "C(c, a) = B / (1 - rho (1 - B)) with Erlang B B(c, a) = Poisson pmf(c; a) / Q(c + 1, a) "
                 "(Q the regularised upper incomplete gamma); P(Wq > t) = C exp(-(c mu - lambda) t)"),
        summary="M/M/c queue: service rate from mean response at several arrival rates",
        source="Kleinrock, Queueing Systems vol. 1, sec. 3.5 (Erlang C)",
        parameters=_MMC_PARAMETERS,
        columns=_MMC_COLUMNS,
        solve=_mmc_solve,
        service_time="exponential service, Poisson arrivals, FCFS (exact M/M/c)",
        questions=(
            _open_queue("queue mmc", "M/M/c: c servers sharing one queue (Erlang C); --percentile exact",
                        _queue_mmc, _queue_mmc_percentiles, lambda values: MMC_PERCENTILE_NOTE,
                        simulate=_simulated("mmc", "M/M/c: Poisson arrivals, c exponential servers, FCFS",
                                            _SIM_ARRIVAL, _SIM_RATE, _SIM_SERVERS),
                        sizing=_mmc_sizing(), sizing_commands=_MMC_SIZING_COMMANDS),
            _open_queue("queue mm1", "M/M/1: one server, Poisson arrivals, exponential service; --percentile exact",
                        _queue_mm1, _mm1_percentiles, lambda values: MMC_PERCENTILE_NOTE,
                        fixed={"servers": 1}, simulate=_simulated("mm1", "M/M/1", _SIM_ARRIVAL, _SIM_RATE)),
            _open_queue("queue mg1", "M/G/1: one server, general service time (Pollaczek-Khinchine); --percentile "
                        "exact (the transform of gamma service of this cv^2 inverted numerically)",
                        _queue_mg1, _mg1_percentiles, _mg1_note, fixed={"servers": 1},
                        settings=(replace(SERVICE_SCV, value=None),),
                        simulate=_simulated("mg1", "M/G/1: gamma service times of the given scv", _SIM_ARRIVAL,
                                            SIMULATED_SCV, _SIM_RATE)),
            _open_queue("queue md1", "M/D/1: one server, constant service time; --percentile exact (Crommelin)",
                        _queue_md1, _md1_percentiles, lambda values: MD_PERCENTILE_NOTE,
                        fixed={"servers": 1, "service_scv": 0.0},
                        simulate=_simulated("md1", "M/D/1: constant service times", _SIM_ARRIVAL, _SIM_RATE)),
            _open_queue("queue ggc", "G/G/c by the Allen-Cunneen approximation (exact for M/M/c); the notes state "
                        "its measured error, and the percentiles'",
                        _queue_ggc, _ggc_percentiles, _ggc_note, settings=(ARRIVAL_SCV, SERVICE_SCV),
                        extra_notes=(_ggc_mean_note,),
                        simulate=_simulated("ggc", "G/G/c: gamma inter-arrival and service times against "
                                            "Allen-Cunneen", _SIM_ARRIVAL, _SIM_RATE, _SIM_SERVERS,
                                            SimulateOption("arrival_scv", "--arrival-scv", "Inter-arrival scv [1]."),
                                            SIMULATED_SCV)),
            Question("queue erlang", "Erlang B (blocking, M/M/c/c) and Erlang C (waiting, M/M/c) probabilities",
                     inputs=(Input("servers", "servers", (1, MAX_SERVERS), _erlang_servers, integer=True,
                                   description="identical servers"),
                             Input("offered_load", "erlang", (0.0, math.inf), _erlang_load,
                                   description="offered load: arrival rate / service rate of one server",
                                   reads=("arrival_rate",))),
                     outputs=(Output("erlang_b", "1", "probability an arrival is blocked (M/M/c/c)"),
                              Output("erlang_c", "1", "probability an arrival waits (M/M/c); null where the "
                                                      "offered load reaches the servers")),
                     solve=_queue_erlang, notes=(_erlang_notes,), settings=(ERLANG_ARRIVAL_RATE,),
                     optional=("arrival_rate",), takes=(), shipped=False, scenario=False,
                     plot=Plot("offered_load", ("erlang_b", "erlang_c"), "servers")),
        ),
        fit=FitPlan(_mmc_start, _mmc_jacobian, relative=True),
        tail=_mmc_tail,
        example="hba_core_response.csv",
        example_settings={"servers": 4},
    )


FAMILIES = (_declare_mmc(),)
