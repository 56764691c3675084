"""Discrete-event simulation of every family's question, beside its analytic answer.

``iosizer.simulate`` answers "how sure is this number?": it simulates the
system a family's model describes (same stations, routing, policies,
credits and service-time distributions; :mod:`iosizer.simulate.systems`
lists them) and prints per output metric the analytic value, the simulated
mean, its 95 % interval and whether the analytic value lies inside. Two
engines: numpy, every replication of a batch advanced at once
(:mod:`iosizer.simulate.vectorised`; the default: open queues, closed
networks, the load-sharing controller, the DMA engine), and a
well-kept library as the independent second engine, Ciw for open queues
and the load-sharing controller (:mod:`iosizer.simulate.open_queues`),
SimPy for closed loops, credit loops and replication
(:mod:`iosizer.simulate.closed`). These keep means; percentiles with their
intervals (``--simulate`` on the tail answers, and the error grids) come
from :mod:`iosizer.simulate.tails`::

    >>> from iosizer.simulate import simulate
    >>> answer = simulate("mmc", arrival_rate=3.2, service_rate=1.0, servers=4,
    ...                   replications=10, seed=1, workers=1, run_length=2000)
    >>> row = answer.rows()[0]
    >>> row["metric"], round(row["analytic"], 4), row["within_ci"], row["replications"]
    ('mean_response', 1.7455, True, 10)

Method, stated once:

* replications are independent: replication i reads the streams of
  ``numpy.random.SeedSequence(seed, spawn_key=(i, ...))``; the same seed
  gives the same answer, whatever the workers;
* each replication deletes its own warm-up by a stated rule (open queues:
  the customers arriving in max(T/20, 20 relaxation times), see
  :mod:`~iosizer.simulate.open_queues`; closed networks: the first
  max(10 %, 10 cycles per job) of completions, see :mod:`~iosizer.simulate.closed`,
  of each piece in the numpy engine, see :func:`~iosizer.simulate.vectorised.pieces`);
* the interval is Student's t over replication means
  (:mod:`~iosizer.simulate.stats`); open queues pair each run with its
  antithetic twin (:mod:`~iosizer.simulate.streams`);
* the numpy engine runs replications in batches in this process; the
  library engines in local processes (joblib), or on a Dask cluster given
  its scheduler address; either until a count, a relative precision target
  (the first replication count that meets it) or a time budget, which
  holds within a replication (a batch) too: one cut short is dropped,
  never counted (:mod:`~iosizer.simulate.engine`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from iosizer.frames import Table, TableView

if TYPE_CHECKING:
    from iosizer.simulate.engine import Run
    from iosizer.simulate.stats import Estimate
    from iosizer.simulate.systems import Experiment

__all__ = ["ENGINES", "SimulationResult", "choose_engine", "experiment", "run_experiment", "simulate"]

#: Replications of a run that names neither a count nor a target.
DEFAULT_REPLICATIONS = 20


def experiment(family: str, question: str | None = None, **options: Any) -> "Experiment":
    """The simulated system and analytic answer of ``family``'s ``question`` (no simulation yet).

    ``options`` are the question's (``arrival_rate=3.2``, ``threads=16``...),
    plus ``service_scv`` where the family has queueing stations and
    ``run_length`` (customers or cycles measured per replication).
    """
    from iosizer.simulate.systems import build

    return build(family, question, **options)


def _require_libraries() -> None:
    from iosizer.errors import InputError

    for module in ("ciw", "simpy"):
        try:
            __import__(module)
        except ImportError:
            raise InputError(f"iosizer simulate needs {module}: pip install 'iosizer[simulate]'") from None


@dataclass(repr=False)  # repr: the table (iosizer.frames.TableView)
class SimulationResult(TableView):
    """An experiment, the replications run for it and each metric's estimate.

    ``to_frame()``, ``repr()`` and ``_repr_html_()`` show :meth:`rows`, each
    simulated mean with its 95 % interval; ``to_dict()`` is what ``iosizer
    simulate --format json`` prints.
    """

    experiment: "Experiment"
    run: "Run"
    estimates: dict[str, "Estimate"]

    def rows(self) -> list[dict[str, Any]]:
        """One row per metric: what ``--format json`` prints.

        Keys: ``metric``, ``analytic``, ``simulated`` (mean), ``ci_low`` and
        ``ci_high`` (its 95 % interval), ``within_ci``, ``replications``,
        then ``gap_pct`` (analytic relative to simulated, %),
        ``half_width_pct`` (the interval's half-width relative to the mean,
        %) and ``stopped`` (``replications``, ``target``, ``max-seconds``).
        """
        rows = []
        for metric in self.experiment.metrics:
            found = self.estimates[metric.name]
            gap = (metric.analytic - found.mean) / abs(found.mean) * 100.0 if found.mean else None
            rows.append({
                **dict(metric.point),
                "metric": metric.label or metric.name,
                "analytic": metric.analytic,
                "simulated": found.mean,
                "ci_low": found.low,
                "ci_high": found.high,
                "within_ci": found.contains(metric.analytic),
                "replications": found.replications,
                "gap_pct": gap,
                "half_width_pct": 100.0 * found.relative_half_width,
                "stopped": self.run.stopped,
            })
        return rows

    def to_dict(self) -> list[dict[str, Any]]:
        """What ``iosizer simulate --format json`` prints: :meth:`rows`."""
        return self.rows()

    def table(self) -> Table:
        return Table.of(self.rows(), title=f"Simulation vs analytic: {self.experiment.title}", notes=self.notes())

    def notes(self) -> list[str]:
        """What was simulated and how the run stopped, for the table view."""
        from iosizer.simulate.engine import STOP_CAP, STOP_TARGET, STOP_TIME

        exp, run = self.experiment, self.run
        targeted = ", ".join(exp.targeted)
        worst = max((100.0 * self.estimates[m].relative_half_width for m in exp.targeted), default=0.0)
        if run.stopped == STOP_TARGET:
            stop = (f"stopped: target reached, 95 % half-width {worst:.3g} % <= {run.target_pct:g} % of the mean "
                    f"({targeted}) after {run.replications} replications")
        elif run.stopped == STOP_TIME:
            aim = f" before the {run.target_pct:g} % target" if run.target_pct is not None else ""
            stop = (f"stopped: --max-seconds {run.max_seconds:g} ran out{aim}; half-width {worst:.3g} % of the mean "
                    f"({targeted}) after {run.replications} replications")
            if run.dropped is not None:
                stop += (f" (replication {run.dropped.index}, cut short at {100 * run.dropped.fraction:.3g} %, "
                         "dropped: a truncated replication is biased)")
        elif run.stopped == STOP_CAP:
            stop = f"stopped: replication cap reached ({run.replications}); half-width {worst:.3g} %"
        else:
            stop = f"stopped: the {run.replications} replications asked for; half-width {worst:.3g} % ({targeted})"
        methods = sorted({e.method for e in self.estimates.values()})
        return [
            *exp.notes,
            f"analytic: {exp.analytic_method}; simulated with {exp.simulator}, {run.replications} independent "
            f"replications ({run.executor}, {run.seconds:.1f} s); 95 % interval: {', '.join(methods)}",
            stop,
        ]


def simulate(
    family: str,
    question: str | None = None,
    *,
    replications: int | None = None,
    target_ci_pct: float | None = None,
    max_seconds: float | None = None,
    seed: int = 0,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    engine: str | None = None,
    **options: Any,
) -> SimulationResult:
    """Simulate ``family``'s ``question`` and compare with its analytic answer (module docstring).

    ``replications`` (default 20) or ``target_ci_pct`` (relative half-width
    of every targeted metric's interval, %), optionally ``max_seconds``;
    ``engine`` "numpy" (the default where the system vectorises: every
    replication of a batch at once, in this process), or the system's
    library, "ciw" or "simpy" (the default otherwise and with a
    ``scheduler``), whose replications run in ``workers`` local processes
    (default: the CPU count; 1 runs in this process) or on the Dask cluster
    at ``scheduler``.
    """
    built = experiment(family, question, **options)
    return run_experiment(built, replications=replications, target_ci_pct=target_ci_pct, max_seconds=max_seconds,
                          seed=seed, workers=workers, scheduler=scheduler, progress=progress, engine=engine)


def run_experiment(
    built: "Experiment",
    *,
    replications: int | None = None,
    target_ci_pct: float | None = None,
    max_seconds: float | None = None,
    seed: int = 0,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    engine: str | None = None,
) -> SimulationResult:
    """Run an experiment already built (:func:`simulate`'s run options), estimates with 95 % intervals."""
    from dataclasses import replace

    from iosizer.simulate.engine import estimates_of, run_replications

    chosen = choose_engine(built, engine, scheduler)
    if chosen == NUMPY:
        built = replace(built, simulator=f"numpy (second engine: {built.simulator})")
    else:
        _require_libraries()
    run = run_replications(built.model, built.targeted, seed=seed, replications=replications,
                           target_ci_pct=target_ci_pct, max_seconds=max_seconds, workers=workers,
                           scheduler=scheduler, progress=progress, default_replications=DEFAULT_REPLICATIONS,
                           vectorised=chosen == NUMPY)
    if len(run.samples) < 2:
        from iosizer.errors import TimeBudgetError

        raise TimeBudgetError(_short_of_time(run))
    estimates = estimates_of(run.samples, [m.name for m in built.metrics])
    return SimulationResult(built, run, estimates)


#: The engines: numpy (vectorised across replications), and the libraries each system is also written for.
NUMPY = "numpy"
ENGINES = (NUMPY, "ciw", "simpy")


def choose_engine(built: "Experiment", engine: str | None, scheduler: str | None = None) -> str:
    """The engine that runs ``built``: ``engine`` if it can, else a one-line InputError saying which can.

    None: numpy where the system vectorises and no Dask ``scheduler`` is
    named, else the system's library (Ciw or SimPy).
    """
    from iosizer.errors import InputError

    library = built.simulator.lower()
    vectorises = bool(getattr(built.model, "vectorised", False))
    if engine is None:
        return NUMPY if vectorises and scheduler is None else library
    if engine not in ENGINES:
        raise InputError(f"--engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == NUMPY:
        if not vectorises:
            raise InputError(f"{built.title} has no numpy engine; use --engine {library}")
        if scheduler is not None:
            raise InputError(f"--scheduler runs the library engine; use --engine {library} with it")
        return NUMPY
    if engine != library:
        raise InputError(f"{built.title} is simulated with numpy or {built.simulator}, not {engine}; "
                         f"use --engine {library}")
    return library


#: Suggested budgets leave this much room over the projected time (pace varies with the machine's load).
BUDGET_MARGIN = 1.25


def _short_of_time(run: "Run") -> str:
    """Why fewer than 2 replications finished, how long one takes and what to change (one line).

    Suggested budget: BUDGET_MARGIN x rounds x one replication's time, s, with
    1 round for 2 replications side by side (2+ workers), else 2; suggested
    run length: the budget's share of that (run time grows about linearly
    with the run length).
    """
    import math

    from iosizer.simulate.engine import MAX_SECONDS

    head = (f"{len(run.samples)} replication(s) finished within --max-seconds {run.max_seconds:g}; "
            "an interval needs at least 2")
    dropped = run.dropped
    if dropped is not None and dropped.fraction > 0 and math.isfinite(dropped.projected_s):
        per_s = dropped.projected_s
        how = (f"projected: replication {dropped.index} reached {100 * dropped.fraction:.3g} % in "
               f"{dropped.elapsed_s:.3g} s{', then gave up' if dropped.abandoned else ''}")
    elif run.samples:
        per_s = max(s.seconds for s in run.samples)
        how = "observed"
    else:
        return head + ": give it more time or a shorter --run-length"
    rounds = 2 if run.workers < 2 else 1  # the 2 replications run one after the other or side by side
    need_s = BUDGET_MARGIN * rounds * per_s
    ratio = run.max_seconds / need_s
    more = (f"--max-seconds {math.ceil(need_s):d} or more, or " if need_s <= MAX_SECONDS else "")
    shorter = f"a --run-length about {100 * ratio:.2g} % of this one" if ratio < 1 else "a shorter --run-length"
    return f"{head}: one replication takes about {per_s:.3g} s here ({how}); give {more}{shorter}"
