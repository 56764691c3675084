"""The sympy closed forms against the numeric models they mirror (DESIGN: lambdified
forms are checked against the numeric ones)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from iosizer.errors import InputError
from iosizer.model.queueing import mg1, mmc
from iosizer.model.symbolic import (
    erlang_c_expression,
    mg1_mean_response_expression,
    mmc_mean_response_and_gradient,
    mmc_mean_response_expression,
)


@pytest.mark.parametrize("servers", [1, 2, 4, 16, 64])
def test_mmc_response_expression_matches_erlang_c_route(servers: int) -> None:
    response, _ = mmc_mean_response_and_gradient(servers)
    lam = np.linspace(0.05, 0.95, 7) * servers * 2.0
    assert response(lam, 2.0) == pytest.approx(mmc(lam, 2.0, servers).mean_response, rel=1e-11)


def test_mmc_expression_at_c_equal_one_is_mm1() -> None:
    lam, mu = sympy.symbols("lambda_ mu", positive=True)
    assert sympy.simplify(mmc_mean_response_expression(1) - 1 / (mu - lam)) == 0


def test_mg1_expression_matches_pollaczek_khinchine() -> None:
    expression = mg1_mean_response_expression()
    symbols = sorted(expression.free_symbols, key=str)  # c_s2, lambda_, mu
    response = sympy.lambdify(symbols, expression, "numpy")
    for scv in (0.0, 1.0, 3.5):
        lam = np.array([0.1, 0.5, 0.9])
        assert response(scv, lam, 1.0) == pytest.approx(mg1(lam, 1.0, scv).mean_response, rel=1e-12)


def test_erlang_c_expression_domain() -> None:
    with pytest.raises(InputError, match="whole number of servers in 1..64"):
        erlang_c_expression(65)


@pytest.mark.parametrize("servers", [1, 2, 4, 16, 64])
def test_numpy_gradient_of_mmc_response_is_sympys(servers: int) -> None:
    """The calibration's Jacobian (numpy, model.queueing.mmc_mean_response_gradient) is sympy's exact dW/dmu."""
    from iosizer.model.queueing import mmc_mean_response_gradient

    _, gradient = mmc_mean_response_and_gradient(servers)
    lam = np.linspace(0.02, 0.98, 9) * servers * 2.0
    assert mmc_mean_response_gradient(lam, 2.0, servers) == pytest.approx(gradient(lam, 2.0), rel=1e-10)


@pytest.mark.parametrize("servers", [100, 5000])
def test_numpy_gradient_of_mmc_response_beyond_the_symbolic_sum(servers: int) -> None:
    """Past sympy's explicit sum the gradient is checked by central differences (step 1e-6 mu: 1e-6 relative)."""
    from iosizer.model.queueing import mmc_mean_response, mmc_mean_response_gradient

    lam = np.array([0.3, 0.8, 0.97]) * servers * 1.5
    mu, h = 1.5, 1.5e-6
    numeric = (mmc_mean_response(lam, mu + h, servers) - mmc_mean_response(lam, mu - h, servers)) / (2 * h)
    assert mmc_mean_response_gradient(lam, mu, servers) == pytest.approx(numeric, rel=1e-6)
