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
