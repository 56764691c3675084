"""Port load-sharing policies (seed 003 sec 2-4), computed from the model."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iosizer.calibration.loadshare import normalised_curves, policy_params, scenario
from iosizer.errors import InputError, UnstableQueueError
from iosizer.model.loadshare import (
    POLICIES,
    PolicyParams,
    _configuration,
    _placement,
    evaluate,
    max_throughput,
    policy_curve,
    serving_cores,
)

SCENARIOS = ("one-port", "system", "skew")


def _compare(name: str, params: PolicyParams | None = None) -> dict[str, dict[str, float]]:
    chosen = scenario(name)
    params = params or policy_params(chosen.cores)  # declared overhead and threshold
    curves, ref = normalised_curves(chosen, list(POLICIES), params, points=40)
    return {
        c.policy: {
            "max": c.curve.max_throughput / ref["max_throughput_cores"],
            "low": c.curve.low_load_response / ref["min_response_service_times"],
            "jump": c.curve.singularity,
        }
        for c in curves
    }


def test_scenarios_come_from_tables_2_to_4() -> None:
    one, system, skew = (scenario(n) for n in SCENARIOS)
    assert (one.cores, len(one.port_shares)) == (4, 1)
    assert (system.cores, len(system.port_shares)) == (4, 16)
    assert len(skew.port_shares) == 9
    assert skew.port_shares[0] / sum(skew.port_shares) == pytest.approx(0.875)
    assert (one.reference_policy, system.reference_policy, skew.reference_policy) == (
        "shared", "exclusive", "multi-stage")


def test_one_port_multi_stage_matches_shared_exclusive_is_one_core() -> None:
    # Seed 003 sec 4.2, fig 9: beta equivalent to A; fig 4: B's one loaded core is the neck.
    # Acceptance: within 5 %; exclusive at most about one core's worth of four.
    got = _compare("one-port")
    assert got["multi-stage"]["max"] == pytest.approx(got["shared"]["max"], rel=0.05)
    one_core = 1.0 / max_throughput("shared", [1.0], PolicyParams())
    assert got["exclusive"]["max"] == pytest.approx(one_core, rel=1e-6)
    assert got["exclusive"]["max"] <= 0.30


def test_system_multi_stage_matches_exclusive_shared_lower() -> None:
    # Seed 003 sec 4.3, fig 10 (beta ~ B) and fig 5 (A loses to communication overhead).
    got = _compare("system")
    assert got["multi-stage"]["max"] == pytest.approx(got["exclusive"]["max"], rel=0.05)
    assert got["shared"]["max"] < 0.95 * got["exclusive"]["max"]


def test_skew_multi_stage_is_highest() -> None:
    # Seed 003 sec 4.4, fig 11: beta better than A and B; B's hot-port core is the neck.
    got = _compare("skew")
    assert got["multi-stage"]["max"] > got["shared"]["max"]
    assert got["multi-stage"]["max"] > got["exclusive"]["max"]
    assert got["exclusive"]["max"] < 0.5 * got["multi-stage"]["max"]


@pytest.mark.parametrize("name", SCENARIOS)
def test_exclusive_has_the_best_low_load_response(name: str) -> None:
    # Seed 003 sec 3.1, fig 6: A's communication adds delay even at low load.
    got = _compare(name)
    best = min(v["low"] for v in got.values())
    assert got["exclusive"]["low"] == pytest.approx(best)
    assert got["shared"]["low"] > got["exclusive"]["low"] * 1.05


def test_skew_one_stage_jumps_more_than_multi_stage() -> None:
    # Seed 003 sec 3.1, fig 8: the one-stage switch 1 -> n cores changes utilisation
    # the most. At the default threshold (0.7 of a core) alpha's jump is larger.
    got = _compare("skew")
    assert got["one-stage"]["jump"] > 0.5
    assert got["one-stage"]["jump"] > got["multi-stage"]["jump"]
    assert got["shared"]["jump"] == 0 and got["exclusive"]["jump"] == 0


def test_jumps_grow_with_the_threshold() -> None:
    # Reported dependence: both jumps shrink as the threshold falls (the owner core
    # is less congested when it hands over). Alpha's exceeds beta's from about 0.45 up.
    # Multi-stage under the threshold rule (the only rule that reads the threshold).
    shares = scenario("skew").port_shares
    alpha = [policy_curve("one-stage", shares, PolicyParams(threshold=t), points=10).singularity
             for t in (0.3, 0.5, 0.7, 0.9)]
    beta = [policy_curve("multi-stage", shares, PolicyParams(threshold=t, switch_rule="threshold"),
                         points=10).singularity for t in (0.3, 0.5, 0.7, 0.9)]
    assert np.all(np.diff(alpha) > 0) and np.all(np.diff(beta) > 0)
    assert all(a > b for a, b in zip(alpha[1:], beta[1:]))


def test_curve_contains_both_sides_of_each_switch() -> None:
    curve = policy_curve("one-stage", scenario("skew").port_shares, PolicyParams(), points=20)
    (switch,) = curve.switch_loads
    i = int(np.searchsorted(curve.throughput, switch))
    before, after = curve.response[i - 1], curve.response[i]
    assert max(before, after) / min(before, after) - 1 == pytest.approx(curve.singularity)


@settings(max_examples=40, deadline=None)
@given(
    policy=st.sampled_from(POLICIES),
    name=st.sampled_from(SCENARIOS),
    threshold=st.floats(0.1, 0.95),
    overhead=st.floats(0, 60),
)
def test_laws(policy: str, name: str, threshold: float, overhead: float) -> None:
    # Throughput never exceeds capacity: every core below utilisation 1, and the work
    # (overhead included) never exceeds the n cores. Response non-decreasing in load
    # within a stage (same k for every port).
    shares = scenario(name).port_shares
    params = PolicyParams(cores=4, comm_overhead_pct=overhead, threshold=threshold)
    curve = policy_curve(policy, shares, params, points=25)
    state = evaluate(policy, curve.throughput, shares, params)
    assert np.all(state.core_utilization < 1)
    assert np.all(state.core_utilization.sum(axis=1) <= params.cores)
    assert curve.max_throughput <= params.cores * (1 + 1e-9)
    same_stage = np.all(curve.cores_per_port[1:] == curve.cores_per_port[:-1], axis=1)
    steps = np.diff(curve.response)
    assert np.all(steps[same_stage] >= -1e-9 * curve.response[1:][same_stage])


def test_overload_is_a_typed_error() -> None:
    with pytest.raises(UnstableQueueError):
        evaluate("exclusive", [1.2], [1.0])


def test_multi_stage_cores_grow_one_by_one() -> None:
    params = PolicyParams(threshold=0.5, comm_overhead_pct=0, switch_rule="threshold")
    loads = np.array([0.2, 0.6, 1.2, 1.6, 3.0])
    assert serving_cores("multi-stage", loads, params).tolist() == [1, 2, 3, 4, 4]
    assert serving_cores("one-stage", loads, params).tolist() == [1, 4, 4, 4, 4]


@pytest.mark.parametrize("bad", [dict(cores=0), dict(threshold=1.0), dict(threshold=0.0),
                                 dict(comm_overhead_pct=-1.0), dict(comm_overhead_pct=float("nan"))])
def test_bad_parameters(bad: dict) -> None:
    with pytest.raises(InputError):
        PolicyParams(**bad)


def test_bad_policy_and_shares() -> None:
    with pytest.raises(InputError):
        policy_curve("round-robin", [1.0])
    with pytest.raises(InputError):
        policy_curve("shared", [0.0, 0.0])
    with pytest.raises(InputError):
        scenario("two-port")


def test_the_maximum_is_the_first_saturation_not_the_last_stable_load() -> None:
    # One-stage on many cores: each cold port of the skew scenario saturates
    # its one core just before its own switch spreads it, and is stable
    # again above. No load gets through that stretch, so the maximum is
    # below it, and the whole curve up to 0.95 of it is stable (it used to
    # raise UnstableQueueError on 'loadshare compare --cores 128').
    shares = scenario("skew").port_shares
    params = PolicyParams(cores=128)
    top = max_throughput("one-stage", shares, params)
    assert evaluate("one-stage", [0.999 * top], shares, params).response[0] > 0
    with pytest.raises(UnstableQueueError):
        evaluate("one-stage", [1.001 * top], shares, params)
    curve = policy_curve("one-stage", shares, params, points=1000)
    assert np.all(np.isfinite(curve.response))


def test_equal_response_switching_removes_the_multi_stage_singularity() -> None:
    # Issue 15: switch k -> k+1 cores where the port alone has equal M/M/k response.
    from iosizer.model.loadshare import PolicyParams, equal_response_loads, policy_curve
    from iosizer.model.queueing import erlang_c

    params = PolicyParams(switch_rule="equal-response")
    loads = equal_response_loads(params)
    assert loads.shape == (params.cores - 1,) and np.all(np.diff(loads) > 0)

    def response(k: int, load: float) -> float:
        s = 1 + params.overhead * (k - 1) / k
        rho = load * s / k
        return s * (1 + erlang_c(k, k * rho) / (k * (1 - rho)))

    for k, load in enumerate(loads, start=1):
        assert response(k, load) == pytest.approx(response(k + 1, load), rel=1e-9)
    one_port = policy_curve("multi-stage", [1.0], params)
    assert one_port.singularity < 1e-6
    threshold_rule = PolicyParams(switch_rule="threshold", non_core_pct=0)
    assert policy_curve("multi-stage", [1.0], threshold_rule).singularity > 1.0  # the threshold rule's jump
    with pytest.raises(Exception):
        PolicyParams(switch_rule="sometimes")


# --- issue 15: multi-stage's system-response switching and the non-core part ---------------------


def _rule(rule: str, **changes: float) -> PolicyParams:
    return PolicyParams(switch_rule=rule, **changes)


def test_system_response_is_the_declared_rule() -> None:
    assert PolicyParams().switch_rule == "system-response"
    for rule in ("threshold", "equal-response", "system-response"):
        assert PolicyParams(switch_rule=rule).switch_rule == rule


def test_one_port_multi_stage_is_shared_and_switches_at_equal_response() -> None:
    # Seed 003 fig 9 (beta ~ A, no singularity): alone, a port's stages are its own core counts,
    # so it switches where k and k+1 cores give it equal response, and from 4 cores on it is shared.
    from iosizer.model.loadshare import equal_response_loads, switching_loads

    params = PolicyParams()
    curve = policy_curve("multi-stage", [1.0], params)
    np.testing.assert_allclose(curve.switch_loads, equal_response_loads(params), rtol=1e-9)
    assert curve.singularity < 1e-6
    assert curve.max_throughput == pytest.approx(max_throughput("shared", [1.0], params), rel=1e-12)
    loads = np.linspace(0.65, 0.95, 7) * curve.max_throughput
    np.testing.assert_allclose(evaluate("multi-stage", loads, [1.0], params).response,
                               evaluate("shared", loads, [1.0], params).response, rtol=1e-12)
    np.testing.assert_allclose(switching_loads("multi-stage", [1.0], _rule("equal-response")),
                               curve.switch_loads, rtol=1e-9)


def test_system_multi_stage_keeps_exclusives_maximum_without_jumps() -> None:
    # Seed 003 fig 10 (beta ~ B): 16 even ports; sharing's overhead would saturate a core near the
    # maximum, so every port returns to one core there and the maximum is exclusive's, exactly.
    shares = scenario("system").port_shares
    params = PolicyParams()
    curve = policy_curve("multi-stage", shares, params)
    assert curve.max_throughput == pytest.approx(max_throughput("exclusive", shares, params), rel=1e-12)
    assert curve.max_throughput == pytest.approx(4.0, rel=1e-12)
    assert curve.singularity < 1e-6
    near_max = evaluate("multi-stage", [0.9 * curve.max_throughput], shares, params)
    assert near_max.cores_per_port.max() == 1
    # Judging a port alone moves all 16 ports to two cores at once: a jump and a lower maximum.
    alone = policy_curve("multi-stage", shares, _rule("equal-response"))
    assert alone.singularity > 0.1 and alone.max_throughput < 0.95 * curve.max_throughput


def test_skew_multi_stage_beats_both_without_jumps() -> None:
    # Seed 003 fig 11: beta better than A and B, no singularity. The hot port spreads, cold ports keep one core.
    shares = scenario("skew").port_shares
    params = PolicyParams()
    curve = policy_curve("multi-stage", shares, params)
    assert curve.max_throughput > max_throughput("shared", shares, params)
    assert curve.max_throughput > 3 * max_throughput("exclusive", shares, params)
    assert curve.singularity < 1e-6
    hot, *cold = evaluate("multi-stage", [0.9 * curve.max_throughput], shares, params).cores_per_port[0]
    assert hot == params.cores and set(cold) == {1}
    # Stage 1 is exclusive, so multi-stage never answers slower than exclusive.
    loads = np.linspace(0.05, 0.95, 10) * max_throughput("exclusive", shares, params)
    assert np.all(evaluate("multi-stage", loads, shares, params).response
                  <= evaluate("exclusive", loads, shares, params).response * (1 + 1e-12))


@pytest.mark.parametrize("name", SCENARIOS)
def test_system_response_jumps_are_none_and_smaller_than_the_threshold_rules(name: str) -> None:
    shares = scenario(name).port_shares
    system = policy_curve("multi-stage", shares, PolicyParams(), points=20)
    assert system.singularity < 1e-6
    threshold = policy_curve("multi-stage", shares, _rule("threshold"), points=20)
    if threshold.switch_loads.size:
        assert threshold.singularity > 0.1


def test_non_core_part_lowers_relative_jumps_and_keeps_maxima() -> None:
    # A constant c in every response: R+ - R- unchanged, (R+ + c) / (R- + c) smaller; no maximum moves.
    shares = scenario("skew").port_shares
    without = policy_curve("multi-stage", shares, _rule("threshold", non_core_pct=0.0), points=20)
    with_c = policy_curve("multi-stage", shares, _rule("threshold", non_core_pct=40.0), points=20)
    assert np.all(with_c.switch_jumps < without.switch_jumps)
    assert with_c.max_throughput == without.max_throughput
    loads = np.array([0.2, 0.8])
    for policy in POLICIES:
        a = evaluate(policy, loads, shares, PolicyParams(non_core_pct=0.0))
        b = evaluate(policy, loads, shares, PolicyParams(non_core_pct=40.0))
        np.testing.assert_allclose(b.response - a.response, 0.4, rtol=1e-12)
        np.testing.assert_allclose(b.port_response - a.port_response, 0.4, rtol=1e-12)


def test_system_response_stays_bounded_on_many_cores() -> None:
    # Its cost on 256 cores is measured in benchmarks/, not here (a wall-clock bound fails under load).
    shares = np.asarray(scenario("system").port_shares, dtype=float)
    params = PolicyParams(cores=256)
    curve = policy_curve("multi-stage", shares, params, points=60)
    assert np.all(np.isfinite(curve.response))
    # The pooled response (4) stays finite up to a stage's static saturation (a core at utilisation 1 under
    # the even spread), so a stage can drop out before the next answers as fast: a jump there, and only there.
    shares = shares / shares.sum()
    for load in curve.switch_loads[curve.switch_jumps > 0]:
        below = evaluate("multi-stage", load * (1 - 1e-9), shares, params).cores_per_port
        beyond = _configuration(np.array([load * (1 + 1e-9)])[:, None] * shares, below, shares, params)[0]
        assert np.isinf(beyond).all(), load


def _erlang_c_response(servers: int, utilization: np.ndarray, service: float) -> np.ndarray:
    """M/M/c mean response at per-server utilisation rho, service time ``service`` (Erlang C)."""
    from iosizer.model.queueing import erlang_c

    return service * (1.0 + erlang_c(servers, servers * utilization) / (servers * (1.0 - utilization)))


@pytest.mark.parametrize("name", SCENARIOS)
def test_pooled_response_is_erlang_c_for_exclusive_and_shared(name: str) -> None:
    # Formulas (3) and (4) on their exact cases: exclusive, each core one M/M/1 over the ports placed on it; shared,
    # one M/M/n; a port whose group is its whole component has no extra wait.
    shares = np.asarray(scenario(name).port_shares, dtype=float)
    shares = shares / shares.sum()
    params = PolicyParams()
    for policy in ("exclusive", "shared"):
        top = max_throughput(policy, shares, params)
        state = evaluate(policy, np.array([0.2, 0.6, 0.95]) * top, shares, params)
        service = 1.0 + params.overhead * (params.cores - 1) / params.cores if policy == "shared" else 1.0
        if policy == "shared":
            rho = state.core_utilization.mean(axis=1)[:, None]
            expected = _erlang_c_response(params.cores, rho, service) + params.non_core
        else:
            load = state.throughput[:, None] * shares[None, :]
            _, membership = _placement(load, np.ones(load.shape, dtype=int), params.cores)
            rho = (membership * state.core_utilization[:, None, :]).sum(axis=2)
            expected = 1.0 / (1.0 - rho) + params.non_core
        busy = shares > 0
        expected = np.broadcast_to(expected, state.port_response.shape)
        np.testing.assert_allclose(state.port_response[:, busy], expected[:, busy], rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(shares=st.lists(st.floats(0.01, 10.0), min_size=1, max_size=12), cores=st.integers(1, 12),
       fraction=st.floats(0.05, 0.97))
def test_pooled_response_is_exact_for_any_exclusive_or_shared_mix(shares: list, cores: int, fraction: float) -> None:
    # The own-line term of (4) and its M/M/k_p floor apply to ports on part of their component only:
    # exclusive (each core an M/M/1 over the ports placed on it) and shared (one M/M/n) stay Erlang C for
    # any port mix and core count, not only the seed's scenarios.
    weights = np.asarray(shares) / np.sum(shares)
    params = PolicyParams(cores=cores)
    for policy in ("exclusive", "shared"):
        total = fraction * max_throughput(policy, weights, params)
        state = evaluate(policy, [total], weights, params)
        if policy == "shared":
            service = 1.0 + params.overhead * (cores - 1) / cores
            rho = np.full(weights.shape, total * service / cores)
            expected = _erlang_c_response(cores, rho, service) + params.non_core
        else:
            load = total * weights[None, :]
            _, membership = _placement(load, np.ones(load.shape, dtype=int), cores)
            rho = (membership * state.core_utilization[:, None, :]).sum(axis=2)[0]
            expected = 1.0 / (1.0 - rho) + params.non_core
        np.testing.assert_allclose(state.port_response[0], expected, rtol=1e-11)


def test_pooled_response_keeps_separate_components_apart() -> None:
    # Skew with the hot port on 3 cores at low load: the cold ports all land on the fourth core, so the hot
    # port is an M/M/3 on its own and the cold ports one M/M/1 (two components, no pooling between them).
    shares = np.asarray(scenario("skew").port_shares, dtype=float)
    shares = shares / shares.sum()
    params = PolicyParams()
    k = np.array([[3] + [1] * (shares.size - 1)])
    load = np.array([[1.0]]) * shares
    _, port_response, utilisation = _configuration(load, k, shares, params)
    service = 1.0 + params.overhead * 2 / 3
    hot = _erlang_c_response(3, utilisation[0, 0], service) + params.non_core
    cold = 1.0 / (1.0 - utilisation[0, 3]) + params.non_core
    assert utilisation[0, 0] == pytest.approx(utilisation[0, 2]) and utilisation[0, 3] < utilisation[0, 0]
    np.testing.assert_allclose(port_response[0], [hot] + [cold] * (shares.size - 1), rtol=1e-12)


@pytest.mark.parametrize("fraction, response, cold_wait", [(0.6, 1.976, 0.92), (0.9, 2.825, 2.085)])
def test_a_narrow_ports_own_work_queues_on_its_own_cores(fraction: float, response: float, cold_wait: float) -> None:
    # Ports [3, 1, 1, 1], the hot one on all 4 cores, the others on one each, at 0.6 and 0.9 of the mix's
    # maximum. Simulated (SharedCores, 40 replications of 20,000 customers, seed 1; model/loadshare.py,
    # "Measured error"): mean response 1.976 and 2.825 (95 % half-widths 0.2 and 0.5 %), cold-port waits
    # 0.92 and 2.085. Formula (4) gives 1.963 and 2.855 (-0.7, +1.1 %), cold waits 0.868 and 2.076; (3), the
    # pooled line without the port's own I/Os ahead, gave 1.838 and 2.505 (-7.0, -11.3 %), cold waits 0.62
    # and 1.38. The tolerances are (4)'s measured error and the interval: 1.5 % on the mean, 7 % on the
    # cold waits; both fail (3).
    # The maximum as simulated then: the even spread's busiest core (a cold port's, with a quarter of the hot
    # port's work), not the balanced split's, which the mix reaches (the hot port's work drains to its own core).
    shares, k = np.array([3.0, 1.0, 1.0, 1.0]) / 6.0, np.array([[4, 1, 1, 1]])
    params = PolicyParams()
    even_peak = shares[0] * (1.0 + params.overhead * 3 / 4) / 4 + shares[1]
    load = fraction / even_peak * shares[None, :]
    mean, port_response, _ = _configuration(load, k, shares, params)
    service = 1.0 + params.overhead * (k - 1) / k
    waits = port_response - service - params.non_core
    assert mean[0] == pytest.approx(response, rel=0.015)
    np.testing.assert_allclose(waits[0, 1:], cold_wait, rtol=0.07)


def test_a_narrow_port_waits_at_least_its_own_mmk() -> None:
    # Ports [0.1, 1, 1, 1], the light one on all 4 cores linking three narrow ones, at 0.8 of the mix's maximum:
    # each cold port loads its core to 0.78 alone. Its I/Os start in arrival order on its own core and other
    # ports' work only holds that core longer, so it waits at least M/M/1's u / (1 - u) (3.50); simulated
    # (SharedCores, 10 replications of 20,000 customers, seed 0) 3.46 - 3.69, mean response 4.837
    # [4.729, 4.946]. (4) gives 4.795 (-0.9 %); without the bound 4.071 (-15.8 %), (3) 2.110. Tolerance:
    # the measured error and the interval's half-width, 3 %.
    shares, k = np.array([0.1, 1.0, 1.0, 1.0]) / 3.1, np.array([[4, 1, 1, 1]])
    params = PolicyParams()
    even_peak = shares[0] * (1.0 + params.overhead * 3 / 4) / 4 + shares[1]  # the maximum as simulated then
    load = 0.8 / even_peak * shares[None, :]
    mean, port_response, _ = _configuration(load, k, shares, params)
    own = load[0, 1]
    np.testing.assert_allclose(port_response[0, 1:] - 1.0 - params.non_core, own / (1.0 - own), rtol=1e-12)
    assert mean[0] == pytest.approx(4.837, rel=0.03)


def test_system_response_finds_every_switch_on_many_cores() -> None:
    # Skew on 256 cores: the hot port takes its second and third cores at 0.11 and 0.37 cores of load,
    # below the first step of an even 400-point grid (0.5): every change the rule makes is reported.
    from iosizer.model.loadshare import switching_loads

    shares = np.asarray(scenario("skew").port_shares, dtype=float)
    params = PolicyParams(cores=256)
    found = switching_loads("multi-stage", shares, params)
    top = max_throughput("multi-stage", shares, params)
    early = 0.05 * top  # a dense look at the start, where the even grid saw nothing
    dense = np.linspace(0.0, early, 2001)[1:]
    k = evaluate("multi-stage", dense, shares, params).cores_per_port
    changes = dense[1:][np.any(k[1:] != k[:-1], axis=1)]
    assert changes.size >= 2 and found[0] < 0.2
    np.testing.assert_allclose(found[found < early], changes, atol=early / 2000)  # within the dense step


def test_the_ports_times_cores_a_question_places_are_bounded() -> None:
    # 256 ports on 256 cores took four minutes and 1.8 GB; 10^5 ports (a scenario's port_shares) a MemoryError.
    from iosizer.model.loadshare import MAX_PORT_CORES, PolicyParams, evaluate, max_throughput

    with pytest.raises(InputError, match="port x core pairs, more than the 4,096"):
        max_throughput("multi-stage", [1.0] * 100_000, PolicyParams(cores=4))
    with pytest.raises(InputError, match="257 ports on 16 cores"):
        evaluate("shared", [1.0], [1.0] * 257, PolicyParams(cores=16))
    assert MAX_PORT_CORES == 16 * 256  # the seed's 16-port system at the declared core bound still answers
    assert max_throughput("exclusive", [1.0] * 16, PolicyParams(cores=256)) > 0
