"""The open-queue closed forms as sympy expressions.

They let the tool print the formula it used, differentiate it exactly (the
analytic Jacobians the calibration uses) and solve inverse questions. The
numeric functions in :mod:`iosizer.model.queueing` stay the ones that run at
scale; tests check the lambdified forms against them.

Symbols: ``lambda_`` (arrival rate), ``mu`` (service rate per server); a
server count is a Python int, since Erlang C is a closed form only for a
given c: C(c, a) = (a^c/c! * c/(c-a)) / (sum_{k<c} a^k/k! + a^c/c! * c/(c-a)),
a = lambda/mu.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import sympy

#: Above this many servers the explicit Erlang sum is too long to be useful
#: symbolically; callers fall back to the numeric form and finite differences.
MAX_SYMBOLIC_SERVERS = 64


def _symbols() -> tuple["sympy.Symbol", "sympy.Symbol"]:
    import sympy

    return sympy.symbols("lambda_ mu", positive=True)


def erlang_c_expression(servers: int) -> "sympy.Expr":
    """Erlang C as an explicit expression in lambda_ and mu for a given c."""
    import sympy

    if not 1 <= servers <= MAX_SYMBOLIC_SERVERS or int(servers) != servers:
        raise ValueError(f"symbolic Erlang C needs 1 <= servers <= {MAX_SYMBOLIC_SERVERS}")
    lam, mu = _symbols()
    a = lam / mu
    c = sympy.Integer(servers)
    top = a**c / sympy.factorial(c) * c / (c - a)
    return top / (sum(a**k / sympy.factorial(k) for k in range(servers)) + top)


def mmc_mean_response_expression(servers: int) -> "sympy.Expr":
    """W = C(c, a) / (c mu - lambda) + 1/mu."""
    lam, mu = _symbols()
    return erlang_c_expression(servers) / (servers * mu - lam) + 1 / mu


def mg1_mean_response_expression() -> "sympy.Expr":
    """Pollaczek-Khinchine: W = 1/mu + rho (1 + cs^2) / (2 mu (1 - rho))."""
    import sympy

    lam, mu = _symbols()
    scv = sympy.Symbol("c_s2", nonnegative=True)
    rho = lam / mu
    return 1 / mu + rho * (1 + scv) / (2 * mu * (1 - rho))


@lru_cache(maxsize=128)
def mmc_mean_response_and_gradient(servers: int) -> tuple[Callable, Callable]:
    """Numpy functions W(lambda, mu) and dW/dmu for an M/M/c with ``servers``."""
    import sympy

    lam, mu = _symbols()
    response = mmc_mean_response_expression(servers)
    gradient = sympy.diff(response, mu)
    return (
        sympy.lambdify((lam, mu), response, "numpy"),
        sympy.lambdify((lam, mu), gradient, "numpy"),
    )


def formula_text(expression: "sympy.Expr") -> str:
    """One-line text of an expression, for reports."""
    import sympy

    return sympy.sstr(sympy.simplify(expression))
