"""M/M/1/K: one exponential server, Poisson arrivals, room for K customers (the one in service included).

Arrivals that find K customers are lost. With a = lambda / mu (any consistent time unit),
the stationary distribution is p_n = a^n (1 - a) / (1 - a^(K+1)), n = 0..K (p_n = 1/(K+1) at
a = 1). Then (Kleinrock, Queueing Systems vol. 1, sec. 3.6):

- blocking probability P_K; throughput X = lambda (1 - P_K); utilization 1 - p_0 = X / mu;
- mean number in system L = a / (1 - a) - (K+1) a^(K+1) / (1 - a^(K+1));
- mean response of an admitted customer R = L / X (Little's law on admitted customers);
- its percentiles: an arrival finding n < K waits for n + 1 exponential services (Erlang).

Every formula is exact. An iosizer family declared outside iosizer: its entry point
``iosizer.families: mm1k`` is all iosizer needs to offer it on every surface.
"""

from __future__ import annotations

import numpy as np

from iosizer.model.family import (Column, CpuScaling, Family, FitPlan, Input, Output, ParameterSpec, Plot,
                                  Question, Role, Schema, Sizing)

__all__ = ["FAMILIES", "mm1k"]

#: Within this of a = 1 the closed forms lose digits to cancellation: use the a = 1 limits.
_NEAR_ONE = 1e-9
MAX_CAPACITY = 10_000  # the largest K: bounded work per answer


def mm1k(arrival_rate, service_rate, capacity) -> dict[str, np.ndarray]:
    """Exact M/M/1/K measures at each point (arrays broadcast; times in the unit of 1/rate)."""
    lam, mu, k = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in
                                       (arrival_rate, service_rate, capacity)))
    a = lam / mu
    near = np.abs(a - 1.0) < _NEAR_ONE
    safe = np.where(near, 0.5, a)  # the a = 1 points take their limits below
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # p_0 = (1 - a) / (1 - a^(K+1)) and p_K = a^K p_0; above a = 1 they are written with b = 1/a
        # (p_n(a) = p_(K-n)(1/a)) so nothing overflows.
        high = safe > 1.0
        b = np.where(high, 1.0 / safe, safe)
        edge = b ** k * (1.0 - b) / (1.0 - b ** (k + 1))  # p_K below a = 1, p_0 above
        centre = (1.0 - b) / (1.0 - b ** (k + 1))  # p_0 below a = 1, p_K above
        number = b / (1.0 - b) - (k + 1) * b ** (k + 1) / (1.0 - b ** (k + 1))
    blocking = np.where(near, 1.0 / (k + 1), np.where(high, centre, edge))
    empty = np.where(near, 1.0 / (k + 1), np.where(high, edge, centre))
    number = np.where(near, k / 2.0, np.where(high, k - number, number))
    throughput = lam * (1.0 - blocking)
    with np.errstate(invalid="ignore", divide="ignore"):
        response = np.where(throughput > 0, number / throughput, 1.0 / mu)  # an empty queue: one service
    return {"blocking_probability": blocking, "throughput": throughput, "utilization": 1.0 - empty,
            "mean_number": number, "mean_response": response}


def _solve_queue(values, inputs):
    return mm1k(inputs["arrival_rate"], values["service_rate"], inputs["capacity"])


MAX_PERCENTILE_CAPACITY = 1_000  # percentiles sum one Erlang tail per state: bounded work per point


def response_percentiles(arrival_rate, service_rate, capacity, percentiles) -> dict[str, np.ndarray]:
    """Exact response percentiles of admitted customers: an arrival finding n (< K) waits for n + 1
    exponential services, so P(R > t) = sum_n p_n / (1 - p_K) Q(n + 1, mu t) (Q the regularised upper
    incomplete gamma), inverted by bisection to 1e-12 relative. Keys ``response_pP`` (P = 99: p99)."""
    from scipy.special import gammaincc

    lam, mu, k = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in
                                       (arrival_rate, service_rate, capacity)))
    if k.size and k.max() > MAX_PERCENTILE_CAPACITY:
        from iosizer.errors import InputError

        raise InputError(f"percentiles take a capacity of at most {MAX_PERCENTILE_CAPACITY}, got {k.max():g}")
    flat = [a.reshape(-1) for a in (lam, mu, k)]
    states = np.arange(int(k.max()) if k.size else 1)  # n = 0 .. K-1 an admitted arrival may find
    with np.errstate(divide="ignore"):  # n ln a, in logs so a^n never overflows (a = 0: only n = 0)
        log_a = np.log(flat[0] / flat[1])[:, None]
    log_w = np.where(states[None, :] == 0, 0.0, states[None, :] * np.where(np.isinf(log_a), -1e300, log_a))
    log_w = np.where(states[None, :] < flat[2][:, None], log_w, -np.inf)
    weights = np.exp(log_w - log_w.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)  # p_n / (1 - p_K) for n < K
    out = {}
    for p in percentiles:
        low, high = np.zeros_like(flat[0]), (flat[2] + 40.0 * np.sqrt(flat[2]) + 60.0) / flat[1]
        for _ in range(80):  # bisection: the survival is decreasing in t
            mid = (low + high) / 2
            above = (weights * gammaincc(states[None, :] + 1, (flat[1] * mid)[:, None])).sum(axis=1) > 1 - p / 100
            low, high = np.where(above, mid, low), np.where(above, high, mid)
        key = "response_p" + np.format_float_positional(float(p), trim="-").replace(".", "_")
        out[key] = ((low + high) / 2).reshape(lam.shape)
    return out


def _percentiles(values, inputs, ps):
    return response_percentiles(inputs["arrival_rate"], values["service_rate"], inputs["capacity"], ps)


def _solve_columns(values, inputs):
    """The calibration schema: mean response of admitted customers at each measured point."""
    return {"mean_response": _solve_queue(values, inputs)["mean_response"]}


def _start(data, settings):
    """At the lightest load an admitted customer waits for little more than its own service."""
    return {"service_rate": 1.0 / float(np.min(data["mean_response"]))}


_RATE = (0.0, 1e12)

FAMILIES = (Family(
    name="mm1k",
    summary="M/M/1/K queue: one server, room for K (blocking, throughput, response)",
    source="Kleinrock, Queueing Systems vol. 1, sec. 3.6 (M/M/1/K)",
    formula=("p_n = a^n (1 - a) / (1 - a^(K+1)), a = lambda / mu; blocking P_K; X = lambda (1 - P_K); "
             "U = X / mu; L = a / (1 - a) - (K+1) a^(K+1) / (1 - a^(K+1)); R = L / X"),
    parameters=(
        ParameterSpec("service_rate", "1/t", None, (1e-12, 1e12), "fitted",
                      "calibrated from measured mean responses (iosizer calibrate mm1k)",
                      "completions per unit time of the busy server", cpu_scaling=CpuScaling.power,
                      exponent_bounds=(0.0, 1.0)),
    ),
    columns=Schema("mm1k", (
        Column("arrival_rate", Role.input, "1/t", "offered arrivals per unit time", maximum=_RATE[1]),
        Column("capacity", Role.input, "jobs", "room in the system, the one in service included",
               minimum=1, maximum=MAX_CAPACITY, integer=True),
        Column("mean_response", Role.observed, "t", "mean response of admitted customers",
               minimum=0, minimum_inclusive=False),
    )),
    solve=_solve_columns,
    service_time="exponential service, Poisson arrivals, FCFS, arrivals lost when K are present (exact)",
    questions=(Question(
        "queue", "blocking, throughput, utilization and mean response of an M/M/1/K queue",
        inputs=(Input("arrival_rate", "1/t", _RATE, default=(0.5, 0.9), description="offered arrivals per unit time"),
                Input("capacity", "jobs", (1, MAX_CAPACITY), default=10, integer=True,
                      description="room in the system, the one in service included")),
        outputs=(Output("blocking_probability", "1", "share of arrivals lost"),
                 Output("throughput", "1/t", "admitted arrivals per unit time"),
                 Output("utilization", "1", "share of time the server is busy"),
                 Output("mean_number", "jobs", "mean customers in the system"),
                 Output("mean_response", "t", "mean response of admitted customers (Little's law)")),
        solve=_solve_queue,
        notes=("exact M/M/1/K (Kleinrock vol. 1 sec. 3.6); times in the unit of 1/rate",),
        plot=Plot("arrival_rate", ("mean_response",), series="capacity"),
        sizing=(Sizing("capacity", "blocking_probability"),),
        percentiles=_percentiles,
    ),),
    fit=FitPlan(_start),
    example="mm1k.csv",
),)
