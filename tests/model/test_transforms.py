"""M/G/1 by Euler inversion against references computed here by other algorithms.

References: mpmath's de Hoog and Talbot inversions of the same
Pollaczek-Khinchine transforms at 30-40 digits (different algorithms, no
double-precision weights), M/M/1's closed forms, and the exact values the
issue quotes (computed independently in 50-digit arithmetic). Tolerances
say why they are what they are.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from iosizer.errors import InputError
from iosizer.model.percentiles import mg1_exact_quantiles, mg1_percentiles, mm1_percentiles
from iosizer.model.transforms import gamma_law, hyperexponential_law, mg1_decay_rate, mg1_response_tail, mg1_wait_tail


def _mp_survivals(rho: float, scv: float, law: str):
    """P(W > x) and P(T > x) in mpmath: transforms written from the textbook form W* = (1-rho) s / (s - rho (1 - B))."""
    r = mp.mpf(rho)
    if law == "gamma":
        k = 1 / mp.mpf(scv)

        def b(s):
            return (1 + s / k) ** (-k)
    else:
        root = mp.sqrt((mp.mpf(scv) - 1) / (mp.mpf(scv) + 1))
        p1, p2 = (1 + root) / 2, (1 - root) / 2

        def b(s):
            return p1 * 2 * p1 / (s + 2 * p1) + p2 * 2 * p2 / (s + 2 * p2)

    def wait_star(s):
        return (1 - r) * s / (s - r * (1 - b(s)))

    wait = lambda s: (1 - wait_star(s)) / s  # noqa: E731
    response = lambda s: (1 - wait_star(s) * b(s)) / s  # noqa: E731
    return wait, response


@pytest.mark.parametrize("rho", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("scv", [0.1, 0.5, 2.0, 4.0])
def test_gamma_wait_and_response_tails_match_de_hoog(rho: float, scv: float) -> None:
    """Relative error below 1e-7 wherever the tail is above 1e-12 (the damping makes the error relative)."""
    mp.mp.dps = 40
    x = np.array([0.05, 0.5, 2.0, 8.0, 30.0])
    i = np.zeros(x.size, dtype=int)
    law = gamma_law(np.array([scv]))
    eta = mg1_decay_rate(np.array([rho]), law)
    wait, _ = mg1_wait_tail(x, i, np.array([rho]), law, eta)
    response, _ = mg1_response_tail(x, i, np.array([rho]), law, eta)
    ref_wait, ref_response = _mp_survivals(rho, scv, "gamma")
    for k, xk in enumerate(x):
        for got, ref in ((wait[k], ref_wait), (response[k], ref_response)):
            exact = float(mp.invertlaplace(ref, mp.mpf(xk), method="dehoog"))
            if exact > 1e-12:
                assert got == pytest.approx(exact, rel=1e-7), (xk, got, exact)


def test_hyperexponential_tails_match_talbot() -> None:
    mp.mp.dps = 30
    rho, scv = 0.7, 5.0
    x = np.array([0.3, 3.0, 20.0])
    i = np.zeros(x.size, dtype=int)
    law = hyperexponential_law(np.array([scv]))
    eta = mg1_decay_rate(np.array([rho]), law)
    wait, _ = mg1_wait_tail(x, i, np.array([rho]), law, eta)
    ref_wait, _ = _mp_survivals(rho, scv, "hyperexponential")
    for k, xk in enumerate(x):
        assert wait[k] == pytest.approx(float(mp.invertlaplace(ref_wait, mp.mpf(xk), method="talbot")), rel=1e-7)


def test_exponential_service_meets_mm1_closed_form() -> None:
    """scv = 1 through the transform path equals M/M/1's P(W > x) = rho e^(-(1-rho) x) and its quantiles."""
    rho = np.array([0.2, 0.6, 0.95])
    x = np.array([0.5, 4.0, 60.0])
    law = gamma_law(np.ones(3))
    eta = mg1_decay_rate(rho, law)
    assert eta == pytest.approx(1 - rho, rel=1e-10)
    wait, density = mg1_wait_tail(x, np.arange(3), rho, law, eta)
    assert wait == pytest.approx(rho * np.exp(-(1 - rho) * x), rel=1e-8)
    assert density == pytest.approx(rho * (1 - rho) * np.exp(-(1 - rho) * x), rel=1e-7)
    w, t = mg1_exact_quantiles(rho, np.ones(3) * (1 + 1e-12), 0.99)
    closed = mm1_percentiles(rho, 1.0, [99])
    assert w == pytest.approx(closed["wait_p99"], rel=1e-8)
    assert t == pytest.approx(closed["response_p99"], rel=1e-8)


@pytest.mark.parametrize("rho,scv,q", [(0.5, 0.5, 0.99), (0.3, 0.2, 0.999), (0.9, 3.0, 0.9), (0.7, 1.5, 0.9999)])
def test_quantiles_match_an_mpmath_root_on_de_hoog(rho: float, scv: float, q: float) -> None:
    mp.mp.dps = 30
    w, t = mg1_exact_quantiles(rho, scv, q)
    ref_wait, ref_response = _mp_survivals(rho, scv, "gamma")
    for got, ref in ((w[0], ref_wait), (t[0], ref_response)):
        root = mp.findroot(lambda x: mp.invertlaplace(ref, x, method="dehoog") - (1 - mp.mpf(q)), mp.mpf(got))
        assert got == pytest.approx(float(root), rel=1e-7)


def test_issue_28_held_out_examples() -> None:
    """The issue's exact references (4 significant digits, so 5e-4 relative covers their rounding)."""
    md1_light = mg1_percentiles(0.1, 1.0, 0.0, [99, 99.9])
    assert md1_light["wait_p99"] == pytest.approx(0.9531, rel=5e-4)
    assert md1_light["wait_p99_9"] == pytest.approx(1.6436, rel=5e-4)
    md1 = mg1_percentiles(0.3, 1.0, 0.0, [90, 99])
    assert md1["wait_p90"] == pytest.approx(0.8377, rel=5e-4)
    assert md1["wait_p99"] == pytest.approx(1.8909, rel=5e-4)
    assert mg1_percentiles(0.5, 1.0, 0.5, [99])["wait_p99"] == pytest.approx(5.580, rel=5e-4)


def test_vectorised_over_points_and_levels() -> None:
    rho = np.array([[0.2], [0.8]])
    q = np.array([0.5, 0.9, 0.99])
    w, t = mg1_exact_quantiles(rho, 0.5, q)
    assert w.shape == (6,) and np.all(np.diff(w.reshape(2, 3), axis=1) >= 0)
    assert np.all(t > w) and w[0] == 0.0  # P(W = 0) = 0.8 > 0.5 at rho 0.2
    for k, (r, p) in enumerate([(r, p) for r in (0.2, 0.8) for p in q]):
        single = mg1_exact_quantiles(r, 0.5, p)
        assert t[k] == pytest.approx(single[1][0], rel=1e-9)


def test_law_validation() -> None:
    with pytest.raises(InputError, match="hyperexponential"):
        mg1_exact_quantiles(0.5, 0.5, 0.9, law="hyperexponential")
    with pytest.raises(InputError, match="gamma or hyperexponential"):
        mg1_exact_quantiles(0.5, 0.5, 0.9, law="lognormal")


@pytest.mark.parametrize("servers,population", [(1, 6), (2, 12), (4, 30)])
def test_cycle_mixture_matches_closed_tails(servers: int, population: int) -> None:
    """The arrival-state mixture inverted by Euler (transforms.cycle_response_law) against
    iosizer.model.closed_tails' closed form (incomplete gamma functions, no inversion) on a delay +
    c-server network: two algorithms for one exact distribution, within 1e-7 relative."""
    from iosizer.model.closed_tails import closed_tails
    from iosizer.model.percentiles import _cycle_quantiles

    demand, think = 1.0, 3.0
    chosen = [50.0, 90.0, 99.0, 99.9]
    mixture = _cycle_quantiles(np.array([demand]), np.array([float(servers)]), think, population, chosen,
                               np.full(4, float(population)))
    exact = [float(closed_tails(think, demand, servers, population).station_quantile(p)) for p in chosen]
    assert mixture == pytest.approx(exact, rel=1e-7)
