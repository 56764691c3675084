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


import typer

from iosizer.cli.declared import DeclaredGroup
from iosizer.commands import CommandSpec


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
