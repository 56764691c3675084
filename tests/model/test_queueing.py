"""Open queues against references computed independently of the code under test.

References: mpmath direct sums (small c, 40 digits) and the forward Erlang B
recurrence B_k = a B_{k-1} / (k + a B_{k-1}) in plain Python floats (stable,
relative error ~ k x eps), for c up to 10^6.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iosizer.errors import ConsistencyError, InputError, IosizerError, UnstableQueueError
from iosizer.model import open_queues
from iosizer.model.queueing import QueueResult, erlang_b, erlang_c, ggc, md1, mg1, mm1, mmc


def erlang_b_recurrence(servers: int, offered_load: float) -> float:
    blocking = 1.0
    for k in range(1, servers + 1):
        blocking = offered_load * blocking / (k + offered_load * blocking)
    return blocking


def erlang_c_mpmath(servers: int, offered_load: float) -> float:
    """C(c, a) from its definition, in 40-digit arithmetic."""
    mp.mp.dps = 40
    c, a = mp.mpf(servers), mp.mpf(offered_load)
    head = mp.fsum(a**k / mp.factorial(k) for k in range(servers))
    tail = a**servers / mp.factorial(servers) * c / (c - a)
    return float(tail / (head + tail))


@pytest.mark.parametrize(
    ("servers", "offered_load"),
    [(1, 0.5), (2, 1.9), (4, 3.2), (10, 8.0), (32, 31.5), (100, 80.0), (250, 249.0)],
)
def test_erlang_c_matches_definition_for_small_c(servers: int, offered_load: float) -> None:
    # 1e-12: both sides are float64 results of well-conditioned formulas.
    assert erlang_c(servers, offered_load) == pytest.approx(
        erlang_c_mpmath(servers, offered_load), rel=1e-12
    )


@pytest.mark.parametrize(
    ("servers", "offered_load"),
    [(1000, 990.0), (100_000, 99_900.0), (100_000, 90_000.0), (1_000_000, 999_000.0),
     (1_000_000, 999_999.0)],
)
def test_erlang_b_matches_recurrence_for_large_c(servers: int, offered_load: float) -> None:
    # 1e-11: the recurrence itself accumulates ~c x eps (1e-10 at c = 1e6
    # in the worst case, far less in practice, as mpmath confirms).
    assert erlang_b(servers, offered_load) == pytest.approx(
        erlang_b_recurrence(servers, offered_load), rel=1e-11
    )


def test_erlang_b_overload_beyond_incomplete_gamma_range() -> None:
    # a >> c underflows Q(c+1, a); the direct-series branch must take over.
    for servers, offered_load in [(10, 1000.0), (1_000_000, 2_000_000.0), (100_000, 1.1e5)]:
        assert erlang_b(servers, offered_load) == pytest.approx(
            erlang_b_recurrence(servers, offered_load), rel=1e-12
        )


def test_erlang_c_stays_finite_at_ten_million_servers() -> None:
    value = erlang_c(10_000_000, 9_990_000.0)
    assert 0.0 < value < 1.0


def test_mmc_textbook_values() -> None:
    # M/M/4, lambda = 3.2, mu = 1: rho = 0.8, C = 0.5964 (Erlang C tables).
    result = mmc(3.2, 1.0, 4)
    reference_c = erlang_c_mpmath(4, 3.2)
    assert result.utilization == pytest.approx(0.8)
    assert result.p_wait == pytest.approx(reference_c, rel=1e-12)
    assert result.mean_wait == pytest.approx(reference_c / (4 - 3.2), rel=1e-12)
    assert result.mean_response == pytest.approx(reference_c / (4 - 3.2) + 1.0, rel=1e-12)
    assert result.mean_queue_length == pytest.approx(3.2 * reference_c / (4 - 3.2), rel=1e-12)


def test_mm1_closed_form() -> None:
    result = mm1(0.75, 1.0)
    assert result.mean_response == pytest.approx(1 / (1.0 - 0.75))
    assert result.p_wait == pytest.approx(0.75)
    assert result.mean_in_system == pytest.approx(0.75 / 0.25)


def test_md1_waits_half_as_long_as_mm1() -> None:
    # Pollaczek-Khinchine: Wq is proportional to (1 + scv) / 2.
    assert md1(0.6, 1.0).mean_wait == pytest.approx(mm1(0.6, 1.0).mean_wait / 2)
    assert mg1(0.6, 1.0, 3.0).mean_wait == pytest.approx(2 * mm1(0.6, 1.0).mean_wait)


def test_ggc_is_exact_for_exponential_inputs() -> None:
    assert ggc(3.2, 1.0, 4, 1.0, 1.0) == mmc(3.2, 1.0, 4)
    low_variability = ggc(3.2, 1.0, 4, 0.5, 0.0)
    assert low_variability.mean_wait == pytest.approx(mmc(3.2, 1.0, 4).mean_wait * 0.25)


def test_broadcasting_and_scalar_round_trip() -> None:
    result = mmc(np.array([[1.0], [2.0]]), 1.0, np.array([3, 4, 5]))
    assert result.p_wait.shape == (2, 3)
    assert result.p_wait[1, 0] == pytest.approx(mmc(2.0, 1.0, 3).p_wait)
    assert isinstance(mmc(1.0, 1.0, 2).mean_wait, float)
    assert set(mmc(1.0, 1.0, 2).to_dict()) == {
        "utilization", "p_wait", "mean_wait", "mean_response",
        "mean_queue_length", "mean_in_system",
    }


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: mmc(-1.0, 1.0, 2), "arrival_rate must be > 0, got -1"),
        (lambda: mmc(1.0, 0.0, 2), "service_rate must be > 0, got 0"),
        (lambda: mmc(float("nan"), 1.0, 2), "arrival_rate must be finite, got nan"),
        (lambda: mmc(1.0, 1.0, 2.5), "servers must be a whole number >= 1, got 2.5"),
        (lambda: mmc(1.0, 1.0, 0), "servers must be > 0, got 0"),
        (lambda: mg1(0.5, 1.0, -0.1), "service_scv must lie in [0, 100] (1), got -0.1"),
        # The variability is declared (open_queues.SCV): a huge one is a typo, not a 1e306 wait.
        (lambda: mg1(0.5, 1.0, 1e308), "service_scv must lie in [0, 100] (1), got 1e+308"),
        (lambda: ggc(1.0, 2.0, 2, 1.0, [1.0, 101.0]), "service_scv must lie in [0, 100] (1), got 101"),
        (lambda: ggc(1.0, 2.0, 2, float("inf")), "arrival_scv must be finite, got inf"),
        (lambda: mmc("fast", 1.0, 2), "arrival_rate must be a number"),
    ],
)
def test_bad_input_is_a_typed_one_line_error(call, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        call()
    assert fragment in str(caught.value)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, IosizerError)


def test_unstable_queue_names_its_utilisation() -> None:
    with pytest.raises(UnstableQueueError) as caught:
        mmc(np.array([1.0, 4.4]), 1.0, 4)
    assert caught.value.utilization == pytest.approx(1.1)
    assert "1.1" in str(caught.value)
    with pytest.raises(UnstableQueueError):
        mm1(1.0, 1.0)  # utilisation exactly 1 is unstable too


def test_self_check_refuses_a_result_that_breaks_littles_law() -> None:
    lam, mu, c = (np.float64(v) for v in (3.2, 1.0, 4.0))
    good = mmc(3.2, 1.0, 4)
    broken = QueueResult(**{**good.to_dict(), "mean_in_system": good.mean_in_system * 300})
    with pytest.raises(ConsistencyError, match="Little"):
        open_queues._self_check(lam, mu, c, broken, "M/M/c")


servers_st = st.integers(min_value=1, max_value=5000)
utilisation_st = st.floats(min_value=1e-6, max_value=0.999, allow_nan=False)
mu_st = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(servers=servers_st, rho=utilisation_st, mu=mu_st)
def test_laws_every_mmc_result_obeys(servers: int, rho: float, mu: float) -> None:
    lam = rho * servers * mu
    result = mmc(lam, mu, servers)
    assert 0.0 <= result.utilization < 1.0
    assert 0.0 <= result.p_wait <= 1.0
    assert result.mean_response >= 1.0 / mu
    assert result.mean_in_system == pytest.approx(lam * result.mean_response, rel=1e-12)
    assert result.mean_queue_length == pytest.approx(lam * result.mean_wait, rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(servers=servers_st, rho=st.floats(0.01, 0.98), bump=st.floats(1e-4, 0.5))
def test_response_grows_with_load_and_falls_with_servers(
    servers: int, rho: float, bump: float
) -> None:
    heavier = min(rho * (1 + bump), 0.999)
    assert mmc(heavier * servers, 1.0, servers).mean_response >= mmc(
        rho * servers, 1.0, servers
    ).mean_response * (1 - 1e-12)
    more_servers = mmc(rho * servers, 1.0, servers + 1)
    assert more_servers.mean_response <= mmc(rho * servers, 1.0, servers).mean_response * (
        1 + 1e-12
    )


@settings(max_examples=200, deadline=None)
@given(rho=st.floats(0.001, 0.999), scv=st.floats(0.0, 10.0))
def test_pollaczek_khinchine_laws(rho: float, scv: float) -> None:
    result = mg1(rho, 1.0, scv)
    assert result.p_wait == pytest.approx(rho)
    assert result.mean_in_system == pytest.approx(result.mean_queue_length + rho, rel=1e-12)
    assert math.isfinite(result.mean_wait) and result.mean_wait >= 0


@pytest.mark.parametrize(
    "call",
    [
        lambda: mm1(1e-320, 1.0),  # a vanishing load: everything ~0, nothing NaN
        lambda: mmc(1.0, 1e308, 4),
        lambda: erlang_b(4, 1e-320),
    ],
)
def test_extreme_but_legal_inputs_stay_finite(call) -> None:
    result = call()
    values = result.to_dict().values() if hasattr(result, "to_dict") else [result]
    assert all(math.isfinite(v) and v >= 0 for v in values)


def test_overflowing_answers_are_input_errors() -> None:
    # The variability is bounded (open_queues.SCV), so the overflow comes from rates near the float floor.
    with pytest.raises(InputError, match="mean_wait overflows double precision"):
        ggc(1e-307, 2e-307, 1, 100.0, 100.0)


def test_large_c_waiting_measures_against_the_recurrence() -> None:
    # Erlang C and the mean wait at c = 10^5 from the independent Erlang B
    # recurrence: C = B / (1 - rho (1 - B)), Wq = C / (c mu - lambda).
    c, lam = 100_000, 99_900.0
    b = erlang_b_recurrence(c, lam)
    rho = lam / c
    expected_c = b / (1 - rho * (1 - b))
    result = mmc(lam, 1.0, c)
    assert result.p_wait == pytest.approx(expected_c, rel=1e-11)
    assert result.mean_wait == pytest.approx(expected_c / (c - lam), rel=1e-11)


def test_allen_cunneen_single_server_deterministic_service_is_md1() -> None:
    # Independent route: G/G/1 with Poisson arrivals (ca^2 = 1) and constant
    # service (cs^2 = 0) is M/D/1, whose Pollaczek-Khinchine wait is
    # rho / (2 mu (1 - rho)), written out here.
    lam, mu = 0.7, 1.0
    assert ggc(lam, mu, 1, 1.0, 0.0).mean_wait == pytest.approx(0.7 / (2 * 1.0 * 0.3), rel=1e-12)


@pytest.mark.parametrize("solve", [lambda lam, mu: mmc(lam, mu, 2), lambda lam, mu: ggc(lam, mu, 2, 0.5, 2.0)])
def test_rates_near_the_float_ceiling_keep_their_utilisation(solve) -> None:
    # c mu overflowed to inf: utilization 0 with one of two servers busy (L = 1), a silently wrong answer.
    result = solve(1e308, 1e308)
    assert result.utilization == pytest.approx(0.5)
    assert result.mean_in_system == pytest.approx(result.mean_queue_length + 1.0)
    assert result.p_wait == pytest.approx(1 / 3)
