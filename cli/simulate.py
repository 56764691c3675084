"""``iosizer simulate FAMILY [QUESTION]``: a discrete-event simulation beside every analytic answer.

Each command takes its question's options (the same names as the analytic
command; left out, the family's declared or shipped values) plus the run's:
``--replications N`` or ``--target-ci-pct P`` (with ``--max-seconds``),
``--seed``, ``--workers`` or ``--scheduler``. It prints per output metric the
analytic value, the simulated mean, its 95 % interval and whether the
analytic value lies inside; ``--format json`` gives a list of rows with
``metric``, ``analytic``, ``simulated``, ``ci_low``, ``ci_high``,
``within_ci``, ``replications`` (and ``gap_pct``, ``half_width_pct``,
``stopped``). A progress bar runs on stderr; stdout holds only the answer.
The commands are :mod:`iosizer.generated`'s; the work lives in :mod:`iosizer.simulate`.
"""

from __future__ import annotations

from typing import Any, Callable

import typer

from iosizer.cli.declared import DeclaredGroup
from iosizer.commands import CommandSpec
from iosizer.generated import SIMULATION_COLUMNS as COLUMNS  # noqa: F401  (public here for older callers)


class SimulateGroup(DeclaredGroup):
    """``iosizer simulate``: a command per declared :class:`~iosizer.model.family.Simulation` (two words: a
    group of its family's, ``hba response``) and per question's simulate hook (``iosizer simulate <family>``,
    unless a simulation took that name): :func:`iosizer.generated.simulate_commands`."""

    def specs(self, name: str | None) -> list[CommandSpec]:
        from iosizer.generated import family_simulations, simulate_commands
        from iosizer.model.registry import family_names

        if name is not None and name in family_names():  # the family's own: read no other family
            return family_simulations(name)
        return simulate_commands()


app = typer.Typer(
    cls=SimulateGroup,  # a question's declared simulation gets 'iosizer simulate <command>' (Question.simulate)
    help="Simulate a family's question (numpy, vectorised; Ciw or SimPy as the second engine) and compare "
         "with its analytic answer: mean, 95 % interval, inside or not.",
    no_args_is_help=True,
)


# --- iosizer report --simulate ------------------------------------------------------------


class SimulatedSection:
    """The report's "Analytic vs simulation" section: JSON data and document blocks."""

    def __init__(self, data: list[dict[str, Any]], blocks: list[tuple]) -> None:
        self.data = data
        self.blocks = blocks


def report_simulations(progress: Callable[[str], None] | None = None) -> SimulatedSection:
    """Every family simulated at three load levels (:mod:`iosizer.simulate.comparison`), as report blocks."""
    from iosizer.cli.output import format_number
    from iosizer.simulate.comparison import REPORT_REPLICATIONS, compare

    tables = compare(progress=progress)
    blocks: list[tuple] = [
        ("h2", "Analytic vs simulation"),
        ("p", f"Each family's shipped configuration simulated at three loads (low, knee, near saturation): "
              f"{REPORT_REPLICATIONS} independent replications per point (seed 0), the simulated mean with its 95 % "
              "interval, and the analytic value's error gap_pct = (analytic - simulated) / simulated x 100. "
              "'inside' is **no** where the analytic value lies outside the simulated interval: the approximation's "
              "error exceeds the simulation's own uncertainty. "
              "Exact models (Erlang C, exact MVA) belong inside; see `iosizer simulate --help`."),
    ]
    data = []
    for table in tables:
        blocks.append(("h3", f"{table.family}: {table.analytic_method} against {table.simulator}"))
        head = ["level", "load", "metric", "analytic", "simulated", "95 % interval", "inside", "gap_pct"]
        blocks.append(("table", head, [
            [r["level"], r["load"], r["metric"], format_number(r["analytic"]), format_number(r["simulated"]),
             f"[{format_number(r['ci_low'])}, {format_number(r['ci_high'])}]", "yes" if r["within_ci"] else "**no**",
             "" if r["gap_pct"] is None else f"{r['gap_pct']:+.2f}"] for r in table.rows]))
        data.append({"family": table.family, "analytic_method": table.analytic_method,
                     "simulator": table.simulator, "rows": table.rows})
    return SimulatedSection(data, blocks)
