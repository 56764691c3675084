"""Tests for iosizer.model.mva: exact and approximate MVA, bounds, self-check.

References are computed here by independent algorithms: Buzen's convolution
of the product-form normalising constant (exact, with fractions where the
sizes allow), direct enumeration of multi-class product-form states, and
literal hand arithmetic of the MVA recursion (Lazowska et al. 1984, ch. 6).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iosizer.errors import ConsistencyError, ConvergenceError, InputError
from iosizer.model.mva import _selfcheck as mva_module
from iosizer.model.mva import (
    asymptotic_bounds,
    balanced_job_bounds,
    knee_population,
    mva,
    mva_batch,
    mva_multiclass,
)

TEXTBOOK_D = (0.005, 0.003, 0.002)  # seconds per job at CPU, disk 1, disk 2
TEXTBOOK_Z = 0.1  # seconds of think time


# --------------------------------------------------------------------------
# Independent references: product form by convolution
# --------------------------------------------------------------------------


def station_factors(demand, servers, n_max):
    """f(j) = D^j / prod_{i<=j} min(i, c); a delay station has c = inf."""
    f = [demand**0]
    for j in range(1, n_max + 1):
        f.append(f[-1] * demand / (j if servers == math.inf else min(j, servers)))
    return f


def think_factors(z, n_max):
    """Z^j / j! (an infinite-server station)."""
    return station_factors(z, math.inf, n_max)


def convolve(a, b, n_max):
    return [sum(a[i] * b[n - i] for i in range(n + 1)) for n in range(n_max + 1)]


def normalising_constants(demands, servers, z, n_max):
    """G(0..n_max); exact when demands and z are Fractions."""
    g = think_factors(z, n_max)
    for d, c in zip(demands, servers):
        g = convolve(g, station_factors(d, c, n_max), n_max)
    return g


def reference_throughput(demands, servers, z, n_max):
    g = normalising_constants(demands, servers, z, n_max)
    return [g[n - 1] / g[n] for n in range(1, n_max + 1)]


def reference_queue_length(demands, servers, z, n, k):
    """Q_k(n) = sum_j j f_k(j) G_{-k}(n-j) / G(n)."""
    g = normalising_constants(demands, servers, z, n)
    others = [d for i, d in enumerate(demands) if i != k]
    other_servers = [c for i, c in enumerate(servers) if i != k]
    g_rest = normalising_constants(others, other_servers, z, n)
    f = station_factors(demands[k], servers[k], n)
    return sum(j * f[j] * g_rest[n - j] for j in range(n + 1)) / g[n]


def multiclass_reference(demands, servers, think, pops):
    """Throughputs and queue lengths by enumerating every product-form state.

    Each class distributes its N_c jobs over (think, station 1, ..., K);
    a queueing station weighs n_k! / prod_c n_ck! prod_c D_ck^n_ck, a delay
    or think station prod_c D_ck^n_ck / n_ck!.
    """
    n_classes, n_stations = len(demands), len(demands[0])

    def splits(total, parts):
        if parts == 1:
            yield (total,)
            return
        for first in range(total + 1):
            for rest in splits(total - first, parts - 1):
                yield (first,) + rest

    def weight(state):
        w = Fraction(1)
        for c in range(n_classes):
            w *= Fraction(think[c]) ** state[c][0] / math.factorial(state[c][0])
        for k in range(n_stations):
            counts = [state[c][k + 1] for c in range(n_classes)]
            for c in range(n_classes):
                w *= Fraction(demands[c][k]) ** counts[c] / math.factorial(counts[c])
            if servers[k] == 1:
                w *= math.factorial(sum(counts))
        return w

    def g_and_q(populations):
        total, q = Fraction(0), [[Fraction(0)] * n_stations for _ in range(n_classes)]
        per_class = [list(splits(n, n_stations + 1)) for n in populations]
        for state in product(*per_class):
            w = weight(state)
            total += w
            for c in range(n_classes):
                for k in range(n_stations):
                    q[c][k] += state[c][k + 1] * w
        return total, [[v / total for v in row] for row in q]

    g, q = g_and_q(pops)
    x = []
    for c in range(n_classes):
        if pops[c] == 0:
            x.append(Fraction(0))
            continue
        fewer = list(pops)
        fewer[c] -= 1
        x.append(g_and_q(fewer)[0] / g)
    return [float(v) for v in x], np.array([[float(v) for v in row] for row in q])


# --------------------------------------------------------------------------
# Single-class exact MVA
# --------------------------------------------------------------------------


def test_textbook_recursion_by_hand():
    # N = 1: R = D, X = 1 / (Z + D).
    x1 = 1 / (0.1 + 0.010)
    q1 = [x1 * 0.005, x1 * 0.003, x1 * 0.002]
    # N = 2: R_k = D_k (1 + Q_k(1)).
    r2 = [0.005 * (1 + q1[0]), 0.003 * (1 + q1[1]), 0.002 * (1 + q1[2])]
    x2 = 2 / (0.1 + r2[0] + r2[1] + r2[2])
    result = mva(TEXTBOOK_D, TEXTBOOK_Z, 2)
    assert result.curve.throughput[0] == pytest.approx(x1, rel=1e-14)
    assert result.throughput == pytest.approx(x2, rel=1e-14)
    assert result.response_time == pytest.approx(sum(r2), rel=1e-14)
    for station, r in zip(result.stations, r2):
        assert station.residence_time == pytest.approx(r, rel=1e-14)
        assert station.queue_length == pytest.approx(x2 * r, rel=1e-14)
    assert result.method == "exact"


def test_textbook_against_exact_convolution():
    ones = [1] * 3
    # Fraction(float) keeps the binary value of each input exactly.
    expected = [
        float(x)
        for x in reference_throughput(
            [Fraction(d) for d in TEXTBOOK_D], ones, Fraction(TEXTBOOK_Z), 20
        )
    ]
    result = mva(TEXTBOOK_D, TEXTBOOK_Z, 20)
    np.testing.assert_allclose(result.curve.throughput, expected, rtol=1e-12)
    assert result.curve.population.tolist() == list(range(1, 21))


def test_queue_lengths_against_convolution():
    d, z, n = [0.04, 0.03, 0.01], 0.5, 30
    result = mva(d, z, n)
    for k in range(3):
        q = reference_queue_length(d, [1, 1, 1], z, n, k)
        assert result.stations[k].queue_length == pytest.approx(q, rel=1e-11)


def test_delay_station_is_pure_latency():
    result = mva([0.01, 0.2], 1.0, 50, servers=[1, math.inf])
    np.testing.assert_array_equal(result.curve.residence_time[:, 1], 0.2)
    # Same as folding the delay into the think time.
    folded = mva([0.01], 1.2, 50)
    np.testing.assert_allclose(
        result.curve.throughput, folded.curve.throughput, rtol=1e-13
    )
    # Delay utilisation is the mean number of jobs in service, X D.
    assert result.stations[1].utilization == pytest.approx(result.throughput * 0.2)


def test_many_stations_use_numpy_path_consistently():
    # Demands near 1 keep the float reference's G(n) within range.
    d = np.linspace(0.5, 1.0, 60)
    big = mva(d, 5.0, 300)
    expected = reference_throughput(d.tolist(), [1] * 60, 5.0, 300)
    np.testing.assert_allclose(big.curve.throughput, expected, rtol=1e-10)


# --------------------------------------------------------------------------
# Load-dependent (c-server) stations
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("demands", "servers", "think", "n_max"),
    [
        ([2.0, 0.9], [2, 1], 5.0, 60),  # 2 servers, bottleneck D/c = 1.0
        ([2.7, 0.9], [3, 1], 5.0, 60),  # 3 servers, D/c = 0.9 vs 0.9
        ([7.5, 0.5], [8, 1], 3.0, 60),  # 8 servers, saturated at N ~ 10
        ([2.0, 2.7, 7.5, 0.9], [2, 3, 8, 1], 5.0, 60),  # all together
        ([2.0, 2.7, 0.4], [2, 3, math.inf], 0.0, 40),  # batch, with a delay
    ],
)
def test_load_dependent_against_product_form(demands, servers, think, n_max):
    result = mva(demands, think, n_max, servers=servers)
    assert result.method == "exact-load-dependent"
    expected = reference_throughput(demands, servers, think, n_max)
    np.testing.assert_allclose(result.curve.throughput, expected, rtol=1e-10)
    for k in range(len(demands)):
        q = reference_queue_length(demands, servers, think, n_max, k)
        assert result.stations[k].queue_length == pytest.approx(q, rel=1e-9)


def test_load_dependent_utilization_is_per_server():
    result = mva([2.0, 0.9], 5.0, 60, servers=[2, 1])
    assert result.stations[0].utilization == pytest.approx(result.throughput * 2.0 / 2)
    assert result.stations[0].utilization <= 1.0


def test_single_station_without_think_time():
    # The complement network is empty with Z = 0: X_{-k} is infinite.
    result = mva([3.0], 0.0, 10, servers=[4])
    expected = [min(n, 4) / 3.0 for n in range(1, 11)]
    np.testing.assert_allclose(result.curve.throughput, expected, rtol=1e-12)


def test_servers_at_least_population_is_a_delay():
    as_multi = mva([0.3, 0.1], 1.0, 5, servers=[8, 1])
    as_delay = mva([0.3, 0.1], 1.0, 5, servers=[math.inf, 1])
    np.testing.assert_allclose(
        as_multi.curve.throughput, as_delay.curve.throughput, rtol=1e-14
    )
    # Still reported per server.
    per_server = as_multi.throughput * 0.3 / 8
    assert as_multi.stations[0].utilization == pytest.approx(per_server)


def test_sixteen_servers_saturated_stays_stable():
    # The textbook p(0|n) = 1 - sum(...) blows up here; the ratio form must not.
    demands, servers, think, n_max = [16.0, 0.5], [16, 1], 10.0, 2000
    result = mva(demands, think, n_max, servers=servers)
    assert np.isfinite(result.curve.queue_length).all()
    assert result.throughput <= 1.0 + 1e-12
    # Independent reference: float convolution (positive terms only).
    g = np.array(think_factors(think, n_max))
    for d, c in zip(demands, servers):
        g = np.convolve(g, station_factors(d, c, n_max))[: n_max + 1]
    expected = g[:-1] / g[1:]
    np.testing.assert_allclose(result.curve.throughput, expected, rtol=1e-9)


def test_more_than_four_multiserver_stations_use_seidmann():
    demands, servers = [2.0, 3.0, 4.0, 5.0, 6.0, 0.5], [2, 3, 4, 5, 6, 1]
    result = mva(demands, 2.0, 100, servers=servers)
    assert result.method == "seidmann-approximation"
    # One job alone never queues: R(1) = D, as in the exact network.
    assert result.curve.response_time[0] == pytest.approx(sum(demands), rel=1e-12)
    assert result.throughput <= 1.0 + 1e-9
    exact = reference_throughput(demands, servers, 2.0, 100)
    np.testing.assert_allclose(result.curve.throughput, exact, rtol=0.15)


# --------------------------------------------------------------------------
# Bounds and laws
# --------------------------------------------------------------------------

networks = st.tuples(
    st.lists(st.floats(1e-3, 1.0), min_size=1, max_size=6),
    st.floats(0.0, 10.0),
    st.integers(1, 200),
)


@settings(max_examples=200, deadline=None)
@given(networks)
def test_exact_mva_within_bounds(network):
    demands, think, n_max = network
    result = mva(demands, think, n_max)
    n = result.curve.population
    x = result.curve.throughput
    r = result.curve.response_time
    asym = asymptotic_bounds(demands, think, n)
    bjb = balanced_job_bounds(demands, think, n)
    assert (x <= asym.throughput_upper * (1 + 1e-12)).all()
    assert (r >= asym.response_lower * (1 - 1e-12)).all()
    assert (x >= bjb.throughput_lower * (1 - 1e-12)).all()
    assert (x <= bjb.throughput_upper * (1 + 1e-12)).all()
    assert (r >= bjb.response_lower * (1 - 1e-12) - 1e-15).all()
    assert (r <= bjb.response_upper * (1 + 1e-12)).all()
    assert (np.diff(x) >= -1e-12 * x[1:]).all()
    assert (np.diff(r) >= -1e-12 * r[1:]).all()
    assert r[0] == pytest.approx(sum(demands), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(1e-2, 1.0), st.sampled_from([1, 2, 3, 5, math.inf])),
        min_size=1,
        max_size=4,
    ),
    st.floats(0.0, 5.0),
    st.integers(1, 60),
)
def test_load_dependent_matches_product_form(stations, think, n_max):
    demands = [d for d, _ in stations]
    servers = [c for _, c in stations]
    result = mva(demands, think, n_max, servers=servers)
    expected = reference_throughput(demands, servers, think, n_max)
    np.testing.assert_allclose(result.curve.throughput, expected, rtol=1e-9)
    asym = asymptotic_bounds(demands, think, result.curve.population, servers)
    assert (result.curve.throughput <= asym.throughput_upper * (1 + 1e-12)).all()
    assert (result.curve.response_time >= asym.response_lower * (1 - 1e-12)).all()


def test_asymptotic_bounds_scalar_in_scalar_out():
    bounds = asymptotic_bounds(TEXTBOOK_D, TEXTBOOK_Z, 50)
    assert isinstance(bounds.throughput_upper, float)
    assert bounds.throughput_upper == pytest.approx(200.0)
    assert bounds.response_lower == pytest.approx(50 * 0.005 - 0.1)


def test_asymptotic_bounds_multiserver_and_delay():
    bounds = asymptotic_bounds([0.01, 0.03, 0.5], 0.0, 1000, servers=[1, 2, math.inf])
    assert bounds.throughput_upper == pytest.approx(1 / 0.015)
    assert bounds.response_lower == pytest.approx(1000 * 0.015)


def test_balanced_job_bounds_rejects_multiserver():
    with pytest.raises(InputError, match="single-server"):
        balanced_job_bounds(TEXTBOOK_D, TEXTBOOK_Z, 10, servers=[1, 2, 1])


def test_knee_population_textbook():
    assert knee_population(TEXTBOOK_D, TEXTBOOK_Z) == pytest.approx(22.0, rel=1e-12)
    assert mva(TEXTBOOK_D, TEXTBOOK_Z, 5).knee_population == pytest.approx(22.0)
    # Two servers halve the bottleneck's effective demand.
    two_cpus = knee_population(TEXTBOOK_D, TEXTBOOK_Z, [2, 1, 1])
    assert two_cpus == pytest.approx(0.11 / 0.003)


# --------------------------------------------------------------------------
# Result objects
# --------------------------------------------------------------------------


def test_to_dict_is_json_ready():
    result = mva(TEXTBOOK_D, TEXTBOOK_Z, 10, servers=[2, 1, math.inf])
    data = json.loads(json.dumps(result.to_dict()))
    keys = {"population", "throughput", "response_time", "stations", "method"}
    assert set(data) == keys
    assert data["population"] == 10
    assert len(data["stations"]) == 3
    assert set(data["stations"][0]) == {"utilization", "queue_length", "residence_time"}
    assert data["throughput"] == result.throughput


def test_curve_is_read_only_and_shaped():
    result = mva(TEXTBOOK_D, TEXTBOOK_Z, 7)
    curve = result.curve
    assert curve.utilization.shape == (7, 3)
    assert curve.queue_length.shape == (7, 3)
    assert curve.residence_time.shape == (7, 3)
    with pytest.raises(ValueError):
        curve.throughput[0] = 1.0


# --------------------------------------------------------------------------
# Multi-class
# --------------------------------------------------------------------------


def test_multiclass_exact_one_class_equals_single_class():
    d = [0.04, 0.03, 0.01, 0.2]
    servers = [1, 1, 1, math.inf]
    single = mva(d, 0.5, 40, servers=servers)
    multi = mva_multiclass([d], [0.5], [40], servers=servers, method="exact")
    assert multi.throughput[0] == pytest.approx(single.throughput, rel=1e-12)
    np.testing.assert_allclose(
        multi.residence_time[0], single.curve.residence_time[-1], rtol=1e-12
    )
    assert multi.iterations == 0
    assert multi.method == "exact"


def test_multiclass_exact_against_enumeration():
    demands = [[0.3, 0.1], [0.2, 0.4]]
    think = [1.0, 0.5]
    pops = [3, 2]
    x_ref, q_ref = multiclass_reference(demands, [1, 1], think, pops)
    result = mva_multiclass(demands, think, pops, method="exact")
    np.testing.assert_allclose(result.throughput, x_ref, rtol=1e-12)
    np.testing.assert_allclose(result.queue_length, q_ref, rtol=1e-12)


def test_multiclass_exact_with_delay_against_enumeration():
    demands = [[0.3, 0.1, 0.5], [0.2, 0.4, 0.0]]
    servers = [1, 1, math.inf]
    think = [1.0, 0.0]
    pops = [2, 3]
    x_ref, q_ref = multiclass_reference(demands, servers, think, pops)
    result = mva_multiclass(demands, think, pops, servers=servers, method="exact")
    np.testing.assert_allclose(result.throughput, x_ref, rtol=1e-12)
    np.testing.assert_allclose(result.queue_length, q_ref, rtol=1e-12, atol=1e-15)


def test_multiclass_empty_class():
    result = mva_multiclass([[0.1, 0.2], [0.3, 0.1]], [1.0, 1.0], [4, 0])
    single = mva([0.1, 0.2], 1.0, 4)
    assert result.throughput[1] == 0.0
    assert result.response_time[1] == 0.0
    assert result.throughput[0] == pytest.approx(single.throughput, rel=1e-12)


def test_schweitzer_close_to_exact():
    # Past the knee (bottleneck ~99 % busy). Right at the knee, e.g. (10, 8),
    # Schweitzer's known error grows to ~6 % for class 0.
    demands = [[0.10, 0.05, 0.20], [0.05, 0.20, 0.10]]
    think = [1.0, 2.0]
    pops = [20, 16]
    exact = mva_multiclass(demands, think, pops, method="exact")
    approx = mva_multiclass(demands, think, pops, method="schweitzer")
    assert approx.method == "schweitzer"
    assert approx.iterations > 0
    np.testing.assert_allclose(approx.throughput, exact.throughput, rtol=0.03)
    np.testing.assert_allclose(approx.response_time, exact.response_time, rtol=0.03)


def test_schweitzer_solves_its_fixed_point():
    demands = np.array([[0.10, 0.05, 0.20], [0.05, 0.20, 0.10]])
    pops = np.array([10, 8])
    result = mva_multiclass(demands, [1.0, 2.0], pops, method="schweitzer")
    q = result.queue_length
    seen = q.sum(axis=0)[None, :] - q / pops[:, None]
    np.testing.assert_allclose(result.residence_time, demands * (1 + seen), rtol=1e-9)


def test_schweitzer_large_population_obeys_laws():
    demands = np.array([[0.010, 0.004, 0.05], [0.002, 0.008, 0.05]])
    servers = [1, 1, math.inf]
    think = np.array([0.5, 1.0])
    pops = np.array([500, 800])
    result = mva_multiclass(demands, think, pops, servers=servers)
    assert result.method == "schweitzer"
    np.testing.assert_allclose(
        result.throughput * (result.response_time + think), pops, rtol=1e-9
    )
    np.testing.assert_allclose(
        result.queue_length,
        result.throughput[:, None] * result.residence_time,
        rtol=1e-12,
    )
    assert (result.station_utilization[:2] <= 1 + 1e-9).all()
    assert result.station_utilization[:2].max() > 0.99  # saturated bottleneck
    assert (result.response_time >= demands.sum(axis=1)).all()


def test_multiclass_multiserver_uses_seidmann_split():
    demands = [[0.2, 0.1], [0.1, 0.3]]
    result = mva_multiclass(demands, [1.0, 1.0], [5, 5], servers=[2, 1])
    assert result.method == "exact+seidmann"
    assert (result.station_utilization <= 1).all()


def test_multiclass_to_dict_is_json_ready():
    result = mva_multiclass([[0.1, 0.2], [0.3, 0.1]], [1.0, 1.0], [3, 2])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["populations"] == [3, 2]
    assert len(data["utilization"]) == 2


def test_multiclass_exact_refuses_huge_state_space():
    with pytest.raises(InputError, match="schweitzer"):
        mva_multiclass(
            [[0.1], [0.1], [0.1]], [0, 0, 0], [200, 200, 200], method="exact"
        )


def test_schweitzer_iteration_cap():
    with pytest.raises(ConvergenceError):
        mva_multiclass(
            [[0.1, 0.2], [0.3, 0.1]],
            [1.0, 1.0],
            [30, 30],
            method="schweitzer",
            max_iter=2,
        )


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"demands": [0.1, 0.0]}, "demands"),
        ({"demands": [0.1, -0.2]}, "demands"),
        ({"demands": [0.1, float("nan")]}, "demands"),
        ({"think_time": -1.0}, "think_time"),
        ({"servers": [1, 1.5]}, "servers"),
        ({"servers": [1, 0]}, "servers"),
        ({"servers": [1, -2]}, "servers"),
        ({"servers": [1, float("nan")]}, "servers"),
        ({"servers": [1, -math.inf]}, "servers"),
        ({"servers": [1]}, "servers"),
        ({"population": 0}, "population"),
        ({"population": 2.5}, "population"),
    ],
)
def test_bad_inputs_name_the_parameter(kwargs, name):
    args = {"demands": [0.1, 0.2], "think_time": 1.0, "population": 5, "servers": None}
    args.update(kwargs)
    with pytest.raises(InputError, match=name):
        mva(**args)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"populations": [0, 0]}, "populations"),
        ({"populations": [1.5, 2]}, "populations"),
        ({"populations": [-1, 2]}, "populations"),
        ({"demands": [[0.1, 0.2], [0.0, 0.0]]}, "demands"),
        ({"think_times": [1.0]}, "think_times"),
        ({"method": "bogus"}, "method"),
    ],
)
def test_bad_multiclass_inputs(kwargs, name):
    args = {
        "demands": [[0.1, 0.2], [0.3, 0.1]],
        "think_times": [1.0, 1.0],
        "populations": [2, 2],
    }
    args.update(kwargs)
    with pytest.raises(InputError, match=name):
        mva_multiclass(**args)


def test_corrupted_result_fails_self_check():
    result = mva(TEXTBOOK_D, TEXTBOOK_Z, 20)
    curve = result.curve
    with pytest.raises(ConsistencyError, match="bottleneck.*population 1"):
        mva_module._self_check(
            populations=curve.population[:, None],
            throughput=curve.throughput[:, None] * 300,
            residence=curve.residence_time[:, None, :],
            queue_length=curve.queue_length[:, None, :],
            utilization=curve.utilization[:, None, :],
            demands=np.array(TEXTBOOK_D)[None, :],
            think=np.array([TEXTBOOK_Z]),
            servers=np.ones(3),
        )


def test_broken_little_law_fails_self_check():
    result = mva(TEXTBOOK_D, TEXTBOOK_Z, 20)
    curve = result.curve
    queue = curve.queue_length.copy()
    queue[9, 1] *= 1.001
    with pytest.raises(ConsistencyError, match="Little.*population 10"):
        mva_module._self_check(
            populations=curve.population[:, None],
            throughput=curve.throughput[:, None],
            residence=curve.residence_time[:, None, :],
            queue_length=queue[:, None, :],
            utilization=curve.utilization[:, None, :],
            demands=np.array(TEXTBOOK_D)[None, :],
            think=np.array([TEXTBOOK_Z]),
            servers=np.ones(3),
        )


@pytest.mark.parametrize(("call", "population"), [
    (lambda n: mva([0.05, 1e308], 0.0, n), 10),
    (lambda n: mva([1.0], 1e308, n), 10),
    (lambda n: mva([1e-320], 0.0, n), 10),
    (lambda n: mva_batch([[0.05, 1e308]], 0.0, n), 10),
    (lambda n: mva_multiclass([[0.05, 1e308]], [0.0], [n]), 3),
])
def test_times_beyond_double_precision_are_an_input_error(call, population) -> None:
    # A demand of 1e308 overflowed the cycle time to inf: the self-check's ConsistencyError (exit 1,
    # "a bug") for what is a time in the wrong unit.
    with pytest.raises(InputError, match="outside double precision"):
        call(population)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # the light-load bound N / (D + Z) overflowed with a warning
def test_extreme_but_representable_times_still_solve() -> None:
    assert mva([1e-306], 0.0, 100_000).throughput == pytest.approx(1e306)
    assert mva([1e300], 0.0, 10).throughput == pytest.approx(1e-300)
