"""Issue 17 acceptance: exact models inside the simulated 95 % interval; known approximations outside.

Fixed seed (17, the issue's number) and fixed replication counts: per
point, 10 replications of the open queues (each a run of 10,000 measured
customers and its antithetic twin, Ciw) and 20 of the closed networks
(runs of 5,000 measured cycles, SimPy). The tests bound the intervals'
half-widths, so "inside" is not a wide net.

A 95 % interval misses a correct value 1 time in 20, and these tests check
some 80 values, so a double sampling plan, fixed before the checks were
run, decides each exact point: if a value falls outside the first
interval, the point is run again with twice the replications (the first
ones and as many more, same seed) and that interval decides. A correct
model then fails a point about 1 time in 100 (``test_stats`` shows the
interval's coverage is the stated 95 %); a biased one does not pass, since
the second interval is narrower still. The approximation gaps at the end
sit many half-widths outside, with no second look.
"""

from __future__ import annotations

import math

import pytest

from iosizer.errors import InputError
from iosizer.simulate import simulate

SEED = 17
OPEN_REPLICATIONS = 10
CLOSED_REPLICATIONS = 20
#: The metrics whose interval width the tests bound (a wait or a P(wait) is a small, noisy number).
PRIMARY = {"mean_response", "throughput_per_s", "response_time_s", "response_us", "iops"}


def run(family: str, question: str | None = None, replications: int = CLOSED_REPLICATIONS, **options):
    return simulate(family, question, replications=replications, seed=SEED, workers=2, **options)


def assert_inside(family: str, question: str | None, replications: int, widest_pct: float, **options) -> None:
    """Every metric's analytic value inside its 95 % interval, by the double sampling plan."""
    rows = run(family, question, replications, **options).rows()
    if not all(row["within_ci"] for row in rows):
        replications *= 2
        rows = run(family, question, replications, **options).rows()
    for row in rows:
        assert row["within_ci"], row
        assert row["replications"] == replications
        if row["metric"] in PRIMARY:
            assert row["half_width_pct"] <= widest_pct, row


OPEN_POINTS = [
    pytest.param("mm1", {"arrival_rate": 0.5, "service_rate": 1.0}, id="M/M/1 at 50 %"),
    pytest.param("mmc", {"arrival_rate": 3.2, "service_rate": 1.0, "servers": 4}, id="M/M/4 at 80 %"),
    pytest.param("mmc", {"arrival_rate": 12.0, "service_rate": 1.0, "servers": 16}, id="M/M/16 at 75 %"),
    pytest.param("md1", {"arrival_rate": 0.8, "service_rate": 1.0}, id="M/D/1 at 80 %"),
]


@pytest.mark.parametrize("question, options", OPEN_POINTS)
def test_erlang_c_and_pollaczek_khinchine_lie_inside_the_interval(question, options) -> None:
    assert_inside("mmc", question, OPEN_REPLICATIONS, widest_pct=3.0, run_length=10_000, **options)


CLOSED_POINTS = [
    pytest.param({"population": 5}, id="shipped network N=5"),
    pytest.param({"population": 22}, id="shipped network at its knee N=22"),
    pytest.param({"population": 60}, id="shipped network saturated N=60"),
    pytest.param({"population": 6, "demands": [1.0, 0.5, 2.0], "servers": [2, 1, math.inf], "think_time": 1.0},
                 id="2-server station, queue and delay N=6"),
]


@pytest.mark.parametrize("options", CLOSED_POINTS)
def test_exact_mva_lies_inside_the_interval(options) -> None:
    assert_inside("closed-network", None, CLOSED_REPLICATIONS, widest_pct=2.0, run_length=5_000, **options)


@pytest.mark.parametrize("mode", ["shared", "occupancy"])
@pytest.mark.parametrize("threads", [1, 8, 16, 32])
def test_the_hba_response_model_lies_inside_the_interval_at_exponential_service(threads, mode) -> None:
    assert_inside("hba", "response", CLOSED_REPLICATIONS, widest_pct=1.0, threads=threads, mode=mode, run_length=5_000)


def test_schweitzer_on_a_small_network_is_outside_the_interval() -> None:
    """Bard-Schweitzer on two stations and three jobs: about 1.5 % off, exact MVA inside."""
    options = {"population": 3, "demands": [1.0, 0.5], "think_time": 0.0, "run_length": 5_000}
    approximate = run("closed-network", method="schweitzer", **options).rows()
    exact = run("closed-network", method="exact", **options).rows()
    for row in approximate:
        assert not row["within_ci"], row
        assert 1.0 < abs(row["gap_pct"]) < 2.5
    assert all(row["within_ci"] for row in exact)
    assert approximate[0]["simulated"] == exact[0]["simulated"]  # one system, two analytic answers


def test_the_rmw_credit_loops_are_solved_exactly() -> None:
    """Seed 001 at 32 lanes: the model now uses exact MVA (Bard-Schweitzer was about 4 % low, issue 15:
    2.6-4.9 %): the gap is within this short run's noise, and the model is the exact answer."""
    result = run("rmw", lanes=32, run_length=2_000)
    row = result.rows()[0]
    assert row["metric"] == "throughput_gbyte_s" and abs(row["gap_pct"]) < 1.5, row
    exact = float(next(n for n in result.notes() if n.startswith("exact multi-class MVA")).split(": ")[1].split()[0])
    assert exact == pytest.approx(row["analytic"], rel=1e-5)


@pytest.mark.parametrize("fraction, tolerance_pct, length", [(0.6, 2.0, 10_000), (0.9, 8.0, 5_000)])
def test_the_seed003_skew_scenario_is_within_tolerance(fraction, tolerance_pct, length) -> None:
    """The pooled response (4) against simulation, multi-stage under skew (hot port on 4 cores, cold ports on
    one each): 10 replications of 20,000 customers measured -0.1 % and -0.2 % at 0.6 and 0.9 of the maximum
    (model/loadshare.py, "Measured error"), where the per-group formula (2) was 4.7 % and 19.6 % over. These
    shorter runs' half-widths are about 0.7 % and 5 %; the tolerances leave room for them and still fail (2)."""
    result = run("loadshare", replications=OPEN_REPLICATIONS, scenario="skew", policy="multi-stage",
                 load_fraction=fraction, run_length=length)
    (row,) = result.rows()
    assert abs(row["gap_pct"]) < tolerance_pct, row


def test_a_narrow_ports_own_line_is_counted() -> None:
    """Formula (4) against simulation where (3) failed: ports [3, 1, 1, 1], the hot one on all 4 cores, the
    others on one each, at 0.9 of the mix's maximum (each cold port alone loads its core to 0.48). 40
    replications of 20,000 customers simulated 2.825 [2.812, 2.838]: (4) 2.855 (+1.1 %), (3) 2.505 (-11.3 %)
    (model/loadshare.py, "Measured error"). This run, 6 replications of 5,000 (the numpy engine), has a
    half-width of about 4.5 %; 6 % leaves room for it and still fails (3)."""
    import numpy as np

    from iosizer.model.loadshare import PolicyParams, _configuration
    from iosizer.simulate.engine import estimates_of, run_replications
    from iosizer.simulate.open_queues import AntitheticPair, SharedCores
    from iosizer.simulate.loadshare import core_groups

    params = PolicyParams()
    shares, k = np.array([3.0, 1.0, 1.0, 1.0]) / 6.0, np.array([4, 1, 1, 1])
    service = 1.0 + params.overhead * (k - 1) / k
    # 0.9 of the even spread's maximum, the load it was simulated at: a cold port's core also carries a
    # quarter of the hot port's work (the balanced split's maximum, now the model's, is higher).
    even_max = shares[0] * service[0] / k[0] + shares[1] * service[1]
    load = 0.9 / even_max * shares
    analytic = float(_configuration(load[None, :], k[None, :], shares, params)[0][0])
    system = SharedCores(tuple(load), tuple(service), core_groups(load * service, k, params.cores),
                         params.cores, customers=5_000, fixed_delay=params.non_core)
    done = run_replications(AntitheticPair(system), ["response_service_times"], seed=SEED, replications=6,
                            vectorised=True)
    simulated = estimates_of(done.samples, ["response_service_times"])["response_service_times"]
    assert simulated.relative_half_width < 0.06
    assert analytic == pytest.approx(simulated.mean, rel=0.06)


# --- stated approximation errors, re-measured (the audit of every "within x %" statement) ---------------


@pytest.mark.parametrize("mode, threads, exponential_pct, corrected_pct",
                         [("shared", 17, 14.4, 4.4), ("occupancy", 8, 18.5, 10.2)])
def test_hba_constant_service_error_at_the_knee_is_as_stated(mode, threads, exponential_pct, corrected_pct) -> None:
    """model/hba.py: with every service time constant the port is deterministic, so the simulation is
    exact and the errors stated at the knee (the largest) are checked to 0.1 point, the statement's rounding."""
    from iosizer.model.hba import FcPort, response

    result = simulate("hba", "response", replications=2, seed=SEED, workers=1, threads=threads, mode=mode,
                      service_scv=0.0, run_length=2_000)
    row = result.rows()[0]
    simulated = row["simulated"]
    assert row["ci_high"] - row["ci_low"] <= 1e-9 * simulated  # deterministic: no sampling error
    corrected = float(response(FcPort(), mode, [threads], service_scv=0.0).response_us[0])
    assert (row["analytic"] / simulated - 1) * 100 == pytest.approx(exponential_pct, abs=0.1)
    assert (corrected / simulated - 1) * 100 == pytest.approx(corrected_pct, abs=0.1)


@pytest.mark.parametrize("added_ns, simulated_pct, exponential_pct", [(1500, 5.00, 8.59), (2100, 26.83, 26.96)])
def test_oltp_constant_service_errors_are_as_stated(added_ns, simulated_pct, exponential_pct) -> None:
    """model/latency.py (oltp service_time): at the shipped profile with constant service the network is
    deterministic; the simulated loss, the declared (scv 0, corrected) MVA beside it and exponential MVA
    on the same parameters are checked to 0.01 point (the stated rounding)."""
    import iosizer
    from iosizer.calibration.latency import oltp_network
    from iosizer.model.latency import oltp_degradation_pct

    (row, _) = simulate("oltp", None, replications=2, seed=SEED, workers=1, added_latency_ns=added_ns,
                        service_scv=0.0, run_length=2_000).rows()
    assert row["ci_high"] - row["ci_low"] <= 1e-9
    assert row["simulated"] == pytest.approx(simulated_pct, abs=0.01)
    assert row["analytic"] == pytest.approx(simulated_pct, abs=0.01)  # the correction is exact here
    exponential = oltp_network(iosizer.family("oltp").shipped(), service_scv=1.0)
    assert float(oltp_degradation_pct(exponential, added_ns)) == pytest.approx(exponential_pct, abs=0.01)


@pytest.mark.parametrize("arrival_scv, stated_pct", [(0.5, 8.0), (2.0, -10.0)])
def test_allen_cunneen_mean_error_is_as_stated(arrival_scv, stated_pct) -> None:
    """model/open_queues.py ggc: G/G/1 at utilisation 0.5, exponential service, gamma arrivals: the mean
    response was measured 8 % over (ca^2 0.5) and 10 % under (ca^2 2) with 95 % half-widths below 0.7 %.
    These 4 replications of 10,000 customers have half-widths of about 1.5 %; 3 points of tolerance
    leave room for them and still fail a model that drifts to half or double the stated error."""
    result = simulate("mmc", "ggc", replications=4, seed=SEED, workers=1, arrival_rate=0.5, service_rate=1.0,
                      servers=1, arrival_scv=arrival_scv, service_scv=1.0, run_length=10_000)
    row = next(r for r in result.rows() if r["metric"] == "mean_response")
    assert row["half_width_pct"] < 2.5, row
    assert abs(row["gap_pct"] - stated_pct) <= 3.0, row


def test_hba_above_cv2_one_exponential_mva_is_the_answer_and_the_correction_is_refused() -> None:
    """model/hba.py: at cv^2 = 2 the residual-service correction would scale the 2-server core station's
    whole wait by (1 + cv^2) / 2 = 1.5 and overstate 64 threads (far past the knee) by 48 %, while the
    simulated cores run full and exponential MVA is inside the interval; so the family bounds service_scv
    to [0, 1]. 6 replications of 10,000 cycles: half-width about 2-3 %; 4 points of tolerance."""
    from iosizer.model.hba import FcPort, response

    (row, _) = simulate("hba", "response", replications=6, seed=SEED, workers=1, threads=64, mode="shared",
                        service_scv=2.0, run_length=10_000).rows()
    assert row["half_width_pct"] < 4.0, row
    assert abs(row["gap_pct"]) < 4.0, row  # exponential MVA: within the noise at saturation
    with pytest.raises(InputError, match=r"service_scv must lie in \[0, 1\]"):
        response(FcPort(), "shared", [64], service_scv=2.0)
