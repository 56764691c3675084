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
The work lives in :mod:`iosizer.simulate`.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Annotated, Any, Callable

import typer
from typer.core import TyperGroup

from iosizer.cli.declared import DeclaredGroup, declared_group_options
from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, Report, emit, progress_bar
from iosizer.cli.questions import given_values

if TYPE_CHECKING:
    from iosizer.model.family import Family, Question


class SimulateGroup(DeclaredGroup):
    """``iosizer simulate``: a command per question that declares its simulation (``Question.simulate``).

    A :class:`~iosizer.model.family.Simulation` gets ``iosizer simulate <its command>`` with its own options
    (two words: a group of its family's, ``hba response``); a family whose question declares a plain hook
    gets ``iosizer simulate <family>`` (:func:`simulate_command`), unless a simulation took that name.
    """

    _question = staticmethod(lambda family: _simulated_question(family))
    _command = staticmethod(lambda family, question: simulate_command(family, question))

    def every_command(self) -> dict[str, Any]:
        if not getattr(self, "_all", False):
            self._all = True
            from iosizer.model.registry import family_names

            self._declared(family_names())
            for name in family_names():
                if name not in self.commands:
                    DeclaredGroup._made(self, name)
        return self.commands

    def _made(self, name: str) -> Any:
        from iosizer.model.registry import family_names

        if name in family_names():  # the family's own simulations first, then its hook's command
            self._declared([name])
            if name in self.commands:
                return self.commands[name]
            return DeclaredGroup._made(self, name)
        return self.every_command().get(name)

    def _declared(self, names: Any) -> None:
        """The commands of the declared simulations of the families ``names`` (their modules imported)."""
        from iosizer.cli.output import add_output_options
        from iosizer.errors import InputError
        from iosizer.model.family import Simulation
        from iosizer.model.registry import declaration

        for name in names:
            try:
                family = declaration(name)
            except InputError:
                continue
            # A refused simulation's command lists after the ones that run (``hba response``, ``isolation``).
            simulated = sorted((q for q in family.questions if isinstance(q.simulate, Simulation)
                                and q.simulate.command), key=lambda q: bool(q.simulate.refused))
            for question in simulated:
                words = question.simulate.command.split()
                if words[0] in self.commands and len(words) == 1:
                    continue
                app = typer.Typer(add_completion=False, rich_markup_mode=None)
                app.command(words[-1])(declared_simulation(family.name, question))
                made = typer.main.get_command(app)
                if len(words) == 1:
                    add_output_options(made)
                    self.commands[words[0]] = made
                    continue
                group = self.commands.get(words[0])
                if group is None:
                    group = self.commands[words[0]] = TyperGroup(name=words[0], help=question.simulate.group,
                                                                 no_args_is_help=True, rich_markup_mode=None)
                add_output_options(made)
                group.add_command(made, words[-1])


app = typer.Typer(
    cls=SimulateGroup,  # a question's declared simulation gets 'iosizer simulate <command>' (Question.simulate)
    help="Simulate a family's question (numpy, vectorised; Ciw or SimPy as the second engine) and compare "
         "with its analytic answer: mean, 95 % interval, inside or not.",
    no_args_is_help=True,
)

COLUMNS = ["metric", "analytic", "simulated", "ci_low", "ci_high", "within_ci", "gap_pct"]


# --- the run's options, shared by every command -------------------------------------------


def _run_parameters() -> list[inspect.Parameter]:
    options: dict[str, tuple[Any, Any]] = {
        "replications": (Annotated[int | None, typer.Option(
            "--replications", help="Independent replications [20 unless --target-ci-pct].")], None),
        "target_ci_pct": (Annotated[float | None, typer.Option(
            "--target-ci-pct", help="Add replications until every targeted metric's 95 % half-width is within "
                                    "this percent of its mean.")], None),
        "max_seconds": (Annotated[float | None, typer.Option(
            "--max-seconds", help="Wall-time budget of the whole run, at most an hour, held within a replication too "
                                  "(one cut short is dropped, never counted); the answer says if it ran out first, "
                                  "and fewer than 2 replications within it is an error saying how long one takes "
                                  "[600].")], None),
        "seed": (Annotated[int, typer.Option(
            "--seed", help="Seed of the replications' independent streams (same seed, same answer).")], 0),
        "workers": (Annotated[int | None, typer.Option(
            "--workers", help="Local processes running the library engine's replications [the CPU count]; 1 runs them "
                              "here.")], None),
        "scheduler": (Annotated[str | None, typer.Option(
            "--scheduler", metavar="ADDRESS",
            help="Run the replications on this Dask scheduler (tcp://host:port; needs iosizer[cluster]).")], None),
        "engine": (Annotated[str | None, typer.Option(
            "--engine", help="numpy (every replication of a batch at once, in this process), or the system's "
                             "library, ciw or simpy, as the independent second engine [numpy where the system "
                             "vectorises and no --scheduler is given, else its library].")], None),
        "run_length": (Annotated[int | None, typer.Option(
            "--run-length", help="Customers or cycles measured per replication [the system's default].")], None),
        "output_format": (FormatOption, OutputFormat.table),
    }
    return [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)
            for name, (annotation, default) in options.items()]


_RUN_NAMES = ("replications", "target_ci_pct", "max_seconds", "seed", "workers", "scheduler", "engine")


def _simulate(family: str, question: str | None, options: dict[str, Any], run: dict[str, Any],
              output_format: OutputFormat) -> None:
    from iosizer.simulate import simulate

    with progress_bar(counts=True) as progress:
        task = progress.add_task(f"simulating {family}{' ' + question if question else ''}", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        result = simulate(family, question, progress=advance, **run, **options)
    rows = result.rows()
    point = [name for name, _ in result.experiment.metrics[0].point]  # a curve's input columns lead
    emit(Report(rows, rows, title=f"Simulation vs analytic: {result.experiment.title}", columns=point + COLUMNS,
                notes=result.notes()), output_format)


# --- one command per declared simulation ------------------------------------------------


def declared_simulation(family: str, question: "Question") -> Callable[..., None]:
    """The command of ``question``'s :class:`~iosizer.model.family.Simulation`: its options and the run's."""
    simulation = question.simulate
    key = question.command.split()[-1]
    keyword = inspect.Parameter.KEYWORD_ONLY

    if simulation.refused:
        def refused() -> None:
            from iosizer.errors import InputError

            raise InputError(simulation.refused)

        refused.__doc__ = simulation.summary
        return refused
    params = []
    for option in simulation.options:
        kind = list[option.kind] if option.many else option.kind
        annotation = kind if option.required or option.default is not None else kind | None
        default = inspect.Parameter.empty if option.required else option.default
        params.append(inspect.Parameter(option.name, keyword, default=default, annotation=Annotated[
            annotation, typer.Option(option.flag, help=option.help, metavar=option.metavar)]))
    params += _run_parameters()

    def command(**given: Any) -> None:
        run = {name: given.pop(name) for name in _RUN_NAMES}
        output_format = given.pop("output_format")
        run_length = given.pop("run_length")
        options = simulation.keywords(given)
        if run_length is not None:
            options["run_length"] = run_length
        _simulate(family, key, options, run, output_format)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "simulate_" + key.replace("-", "_")
    command.__doc__ = simulation.summary
    return command


# --- iosizer simulate <family>: generated from a question's simulate hook ----------------------


def simulate_command(family: "Family", question: "Question") -> Callable[..., None]:
    """The typer command ``iosizer simulate <family>`` of the question's ``simulate`` hook."""
    
    keyword = inspect.Parameter.KEYWORD_ONLY
    params = declared_group_options(family, question)
    params = [p for p in params if p.name != "cpu_speed"]
    if question.percentiles is not None:
        params.append(inspect.Parameter("percentile", keyword, default=None, annotation=Annotated[
            list[float] | None, typer.Option("--percentile", metavar="P",
                                             help="Also the P-th percentile, simulated as the empirical "
                                                  "percentile of each replication's records (repeatable).")]))
    params += _run_parameters()

    def command(**given: Any) -> None:
        from iosizer.cli.output import Report, emit, progress_bar
        from iosizer.simulate.declared import simulate_declared

        run = {name: given.pop(name) for name in _RUN_NAMES}
        output_format = given.pop("output_format")
        run_length = given.pop("run_length")
        percentiles = given.pop("percentile", None)
        values, profile = given_values(family, question, given)
        with progress_bar(counts=True) as progress:
            task = progress.add_task(f"simulating {family.name} {question.command}", total=None)

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            result = simulate_declared(family.name, question.command, profile, percentiles=percentiles,
                                       run_length=run_length, progress=advance, **run, **values)
        rows = result.rows()
        point = [name for name, _ in result.experiment.metrics[0].point]
        emit(Report(rows, rows, title=f"Simulation vs analytic: {result.experiment.title}",
                    columns=point + COLUMNS, notes=result.notes()), output_format)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "simulate_" + family.name.replace("-", "_")
    command.__doc__ = (f"{question.summary[:1].upper()}{question.summary[1:]}: simulated (the question's "
                       "declared simulate hook) beside the analytic answer, with 95 % replication intervals.")
    return command


def _simulated_question(family: Any) -> Any:
    from iosizer.simulate.declared import simulated_question

    return simulated_question(family)


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
