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

from iosizer.errors import InputError

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
        raise InputError(f"symbolic Erlang C needs a whole number of servers in 1..{MAX_SYMBOLIC_SERVERS}, got {servers}")
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


# --- DMA concurrency under added latency (seed 000, model.latency) ---------


def _dma_symbols() -> tuple["sympy.Symbol", ...]:
    import sympy

    x, i0, k, budget = sympy.symbols("x I_0 k B", nonnegative=True)
    return x, i0, k, budget


#: What the DMA formulas' symbols stand for, printed beside them.
DMA_SYMBOLS = {
    "x": "added round-trip latency [ns]",
    "I_0": "issue interval with no added latency [ns]",
    "k": "round trips of added latency each burst waits (exposed_round_trips)",
    "B": "degradation budget [%]",
    "PD": "performance degradation [%]",
}


def dma_issue_interval_expression() -> "sympy.Expr":
    """I(x) = I_local + k x."""
    x, i0, k, _ = _dma_symbols()
    return i0 + k * x


def dma_degradation_expression() -> "sympy.Expr":
    """PD(x) = (P_local - P_x)/P_local x 100 with P = burst / I(x): 100 k x / (I_local + k x)."""
    import sympy

    x, i0, k, _ = _dma_symbols()
    burst = sympy.Symbol("b", positive=True)  # cancels: PD does not depend on the burst size
    local, degraded = burst / i0, burst / dma_issue_interval_expression()
    return sympy.simplify((local - degraded) / local * 100)


def dma_budget_expression() -> "sympy.Expr":
    """The largest x with PD(x) <= budget: solve PD(x) = budget for x."""
    import sympy

    x, _, _, budget = _dma_symbols()
    (solution,) = sympy.solve(sympy.Eq(dma_degradation_expression(), budget), x)
    return sympy.simplify(solution)


@lru_cache(maxsize=1)
def dma_functions() -> dict[str, Callable]:
    """Numpy functions of the DMA closed forms (arguments: x, I_local, k[, budget]).

    ``degradation_pct``, ``d_degradation_d_latency`` (dPD/dx, % per ns),
    ``max_latency_ns`` (from the budget) and ``issue_interval_gradient``
    (dI/dI_local, dI/dk: the calibration's Jacobian).
    """
    import sympy

    x, i0, k, budget = _dma_symbols()
    pd = dma_degradation_expression()
    interval = dma_issue_interval_expression()
    return {
        "degradation_pct": sympy.lambdify((x, i0, k), pd, "numpy"),
        "d_degradation_d_latency": sympy.lambdify((x, i0, k), sympy.diff(pd, x), "numpy"),
        "max_latency_ns": sympy.lambdify((budget, i0, k), dma_budget_expression(), "numpy"),
        "issue_interval_gradient": sympy.lambdify(
            (x, i0, k), [sympy.diff(interval, i0), sympy.diff(interval, k)], "numpy"
        ),
    }


def formula(expression: "sympy.Expr") -> dict[str, str]:
    """Plain-text and LaTeX forms of an expression."""
    import sympy

    return {"text": sympy.sstr(expression), "latex": sympy.latex(expression)}
