"""Running replications: in this process, in local processes (joblib) or on a Dask cluster.

A *model* is a picklable object with ``run(streams) -> Sample`` (see
:mod:`iosizer.simulate.open_queues` and :mod:`iosizer.simulate.closed`).
Replication ``i`` of a run seeded ``s`` reads the streams of
``SeedSequence(s, spawn_key=(i, ...))`` (:mod:`iosizer.simulate.streams`),
so its value does not depend on where it runs or what runs beside it:

* ``workers=1``: one after the other in this process;
* ``workers=W`` (default: the CPU count): W local processes through
  joblib's loky backend;
* ``scheduler="tcp://host:port"``: the workers of that Dask cluster
  (``pip install 'iosizer[cluster]'``), which must have iosizer installed.

Stopping. Replications are handed to the workers in index order, a few
ahead of need (Dask: one per worker thread), and their results are read as
they finish; only a
contiguous prefix 0..R-1 is ever used. With a fixed number R of
replications the run stops when 0..R-1 are done. With a target (the
half-width of every targeted metric's 95 % interval within
``target_ci_pct`` % of its mean) it stops at the *smallest* R >=
:data:`MIN_TARGET_REPLICATIONS` whose replications 0..R-1 meet it;
replications still running then are cancelled and never used, so the
answer does not depend on the number of workers.

Time budget. ``max_seconds`` caps the wall time of the whole run, within
a replication as well as between them. Its clock starts once the fixed
start-up costs are paid (the experiment's imports, the first interval's
import of scipy.special, local worker processes started, the simulators
imported in every worker): work that no replication could interrupt.

* each replication is granted the budget left when it is dispatched, as a
  duration (:class:`~iosizer.simulate.budget.Allowance`): the worker
  starts the clock itself, so a Dask worker whose clock differs from ours
  is still right; a local process also subtracts the time the task waited
  to start (same machine, same clock);
* the simulation loops check that allowance in chunks (every 1,024 SimPy
  cycles, every 1,024 mean inter-arrival times of Ciw's simulated time), so
  a replication ends at most one chunk, tens of milliseconds, after its
  allowance runs out; one whose pace says it cannot finish within its
  allowance gives up at once (:mod:`iosizer.simulate.budget`);
* a replication that runs out is *dropped*, never counted (a truncated
  replication is biased towards its warm-up); as results are only used as
  a contiguous prefix, the run then waits only for the replications before
  it still running (each within its own allowance), grants later ones no
  time, and stops with the prefix, saying so (``stopped: max-seconds``);
* a replication never runs on time it was not granted: local processes
  queue a few ahead (joblib's pre-dispatch and batching, for throughput),
  and each takes its wait in the queue off its allowance; a Dask cluster
  keeps only one replication per worker thread in flight (its workers'
  clocks are not ours to compare), each dispatched with the budget left.

Measured on a shared, loaded 2-core machine (budgets of 1, 2, 5 and 10 s;
M/M/4 and closed-network replications of 0.5-2 s and of a million
customers; in process, 2 local processes, a 2-thread Dask cluster): every
run ended at most 0.21 s after its budget (most within 0.1 s; a Ciw chunk
and the odd garbage collection), often well before it when a replication
gave up on its pace. The stated bound is max(1 s, 5 %);
``tests/simulate/test_budget.py`` asserts looser margins. When the budget
does not bind the checks change nothing: same seed, same answer, whatever
the workers, at a cost within the noise (median CPU time of a
20,000-customer Ciw replication -1.1 %, of a 20,000-cycle SimPy one
+0.3 %, 8 runs each: a clock read per chunk, a modulo per SimPy cycle).
When fewer than 2 replications finish within the budget,
:func:`iosizer.simulate.simulate` fails with
:class:`~iosizer.errors.TimeBudgetError`, saying how long one replication
takes (projected from the dropped one's progress, or observed) and what
to change.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from iosizer.errors import InputError
from iosizer.simulate.budget import Allowance, OutOfTime
from iosizer.simulate.stats import Estimate, Sample, estimate
from iosizer.simulate.streams import Streams, seed_sequence

__all__ = ["MAX_REPLICATIONS", "MIN_TARGET_REPLICATIONS", "Dropped", "Run", "run_replications"]

#: A target run starts with this many replications (enough for control variates).
MIN_TARGET_REPLICATIONS = 10
#: No run uses more replications than this.
MAX_REPLICATIONS = 100_000
#: Without --max-seconds a run still stops here: no input makes simulate run unbounded.
DEFAULT_MAX_SECONDS = 600.0
#: The longest budget one command may be given (an hour: a cluster run, not a what-if).
MAX_SECONDS = 3600.0
#: More local processes than this only queue behind each other on any machine we plan for.
MAX_WORKERS = 256

#: Why a run stopped.
STOP_REPLICATIONS = "replications"
STOP_TARGET = "target"
STOP_TIME = "max-seconds"
STOP_CAP = "max-replications"

#: The numpy engine's executor, as the notes name it.
VECTORISED = "numpy, vectorised in this process"
#: The numpy engine runs at most this many replications side by side (memory: a few MB per array).
MAX_BATCH = 128
#: A target run's first batch: replications cost little side by side, so more than the minimum.
FIRST_TARGET_BATCH = 32

Progress = Callable[[int, int], None]
#: The budget left, s, read when a replication is dispatched.
Remaining = Callable[[], float]


@dataclass(frozen=True)
class Dropped:
    """A replication stopped by its allowance, never used: how far it got and its projected time."""

    index: int
    elapsed_s: float
    fraction: float
    projected_s: float
    #: True when it gave up early because its pace could not meet the allowance.
    abandoned: bool


#: What a replication hands back: its index, and its sample or why it was dropped.
Result = tuple[int, "Sample | Dropped"]


def replicate(model: Any, seed: int, index: int, allowance_s: float | None = None,
              dispatched_at: float | None = None) -> Result:
    """Replication ``index`` of ``model`` within ``allowance_s`` seconds (None: unbounded).

    A module-level function, so workers can unpickle it. ``dispatched_at``
    (``time.time()`` when dispatched, local processes only: the same clock)
    counts the time the task waited to start against its allowance.
    """
    lag_s = 0.0
    if dispatched_at is not None and allowance_s is not None:
        lag_s = min(max(time.time() - dispatched_at, 0.0), allowance_s)
    allowance = Allowance(allowance_s, lag_s)
    if allowance.spent:  # waited past its time to start: nothing to run
        return index, Dropped(index, time.perf_counter() - allowance.started, 0.0, math.inf, False)
    streams = Streams(seed_sequence(seed, index), allowance=allowance)
    try:
        return index, model.run(streams)
    except OutOfTime as out:
        return index, Dropped(index, out.elapsed_s, out.fraction, out.projected_s, out.abandoned)


@dataclass
class Run:
    """The replications a run used, in replication order, and why it stopped."""

    samples: list[Sample]
    computed: int
    stopped: str
    seconds: float
    executor: str
    target_pct: float | None = None
    max_seconds: float | None = None
    #: The replication the budget cut short, if any (never among ``samples``).
    dropped: Dropped | None = None
    workers: int = 1

    @property
    def replications(self) -> int:
        return len(self.samples)


# --- executors: each streams (index, sample) pairs as replications finish -----------


class _InProcess:
    name = "in-process"
    workers = 1

    def stream(self, model: Any, seed: int, limit: int, remaining: Remaining) -> Iterator[Result]:
        for index in range(limit):
            yield replicate(model, seed, index, remaining())


def import_simulators() -> None:
    """Import the simulators and models in a fresh worker process (what a first replication would).

    A Dask or joblib worker runs it before the budget's clock; ``iosizer serve``'s heavy workers at
    start-up, so no request's time limit pays for a second of imports."""
    import ciw  # noqa: F401
    import simpy  # noqa: F401
    from scipy.special import gammainccinv  # noqa: F401  (gamma draws)

    import iosizer.simulate.systems  # noqa: F401  (every model, with their imports)


class _Joblib:
    def __init__(self, workers: int) -> None:
        try:
            from joblib import Parallel
        except ImportError:
            raise InputError("--workers above 1 needs joblib: pip install 'iosizer[simulate]'") from None
        self.workers = workers
        self.name = f"joblib, {workers} local processes"
        # Tasks may queue a few ahead (joblib's default pre-dispatch and batching): each one
        # measures its wait on this machine's clock and takes it off its allowance.
        self._parallel = Parallel(n_jobs=workers, backend="loky", return_as="generator_unordered")

    def warm(self) -> None:
        """Start the worker processes and import the simulators in them (best effort: a task per worker)."""
        from joblib import Parallel, delayed

        Parallel(n_jobs=self.workers, backend="loky", batch_size=1)(delayed(import_simulators)() for _ in range(self.workers))

    def stream(self, model: Any, seed: int, limit: int, remaining: Remaining) -> Iterator[Result]:
        import warnings

        from joblib import delayed

        # Tasks are made lazily, when joblib dispatches them, so a large limit
        # costs nothing and each is granted the budget left at that moment.
        # Stopping early cancels the tasks still running, on purpose: the run
        # has its answer. joblib warns about it, possibly later from another
        # thread, so its two messages are filtered for the whole process.
        for message in (r".*tasks which were still being processed", r".*tasks have been successfully executed"):
            warnings.filterwarnings("ignore", message=message, category=UserWarning)
        results = self._parallel(delayed(replicate)(model, seed, i, remaining(), time.time()) for i in range(limit))
        try:
            yield from results
        finally:
            results.close()


class _Dask:
    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--scheduler needs Dask's distributed client: pip install 'iosizer[cluster]'") from None
        try:
            self._client = Client(address, timeout="10s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise InputError(f"--scheduler: cannot reach the Dask scheduler at {address}: {error}") from None
        workers = self._client.scheduler_info().get("workers", {})
        self.workers = max(sum(int(w.get("nthreads", 1)) for w in workers.values()), 1)
        self.name = f"Dask cluster {address}, {len(workers)} workers, {self.workers} threads"

    def warm(self) -> None:
        """Import the simulators on every worker (a first replication would, past its allowance's control)."""
        try:
            self._client.run(import_simulators)
        except Exception as error:  # a worker's own failure, reported as one line
            raise InputError(f"--scheduler: the Dask workers cannot import what a replication needs "
                             f"(is iosizer[simulate] installed there?): {error}") from None

    def stream(self, model: Any, seed: int, limit: int, remaining: Remaining) -> Iterator[Result]:
        from distributed import as_completed

        # One replication per worker thread in flight (none waits in a queue while its
        # allowance runs down); submit the next when one finishes. The allowance is a
        # duration: the worker's clock starts it, whatever that machine's clock reads.
        submitted = min(self.workers, limit)
        futures = as_completed([self._client.submit(replicate, model, seed, i, remaining(), pure=False)
                                for i in range(submitted)], loop=self._client.loop)
        try:
            for future in futures:
                yield future.result()
                if submitted < limit:
                    futures.add(self._client.submit(replicate, model, seed, submitted, remaining(), pure=False))
                    submitted += 1
        finally:
            futures.clear()

    def close(self) -> None:
        self._client.close()


def _executor(workers: int | None, scheduler: str | None) -> Any:
    if scheduler is not None:
        if workers is not None:
            raise InputError("--workers and --scheduler exclude each other: the cluster has its own workers")
        return _Dask(scheduler)
    count = (os.cpu_count() or 1) if workers is None else workers
    if count < 1:
        raise InputError(f"--workers must be >= 1, got {count}")
    return _InProcess() if count == 1 else _Joblib(count)


# --- stopping -------------------------------------------------------------------


def estimates_of(samples: Sequence[Sample], metrics: Sequence[str]) -> dict[str, Estimate]:
    """Each metric's mean and 95 % interval over ``samples``."""
    return {m: estimate([s.metrics[m] for s in samples]) for m in metrics}


def _worst_relative(samples: Sequence[Sample], targeted: Sequence[str]) -> float:
    return max(e.relative_half_width for e in estimates_of(samples, targeted).values())


def run_replications(
    model: Any,
    targeted: Sequence[str],
    *,
    seed: int = 0,
    replications: int | None = None,
    target_ci_pct: float | None = None,
    max_seconds: float | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    default_replications: int = 20,
    vectorised: bool = False,
) -> Run:
    """Replications of ``model`` until the requested count, target or time budget (module docstring).

    ``vectorised``: run them in batches through ``model.run_batch`` (the
    numpy engine, in this process; ``workers`` and ``scheduler`` unused).
    """
    replications, max_seconds = _checked_stopping(replications, target_ci_pct, max_seconds, workers, seed,
                                                  default_replications)
    if vectorised:
        estimate([0.0, 1.0])  # scipy.special's import, before the budget's clock as below
        started = time.perf_counter()
        used, computed, stopped, dropped = _drive_batches(
            model, seed, targeted, replications, None if target_ci_pct is None else target_ci_pct / 100.0,
            started, max_seconds, progress)
        return Run(used, computed, stopped, time.perf_counter() - started, VECTORISED, target_ci_pct, max_seconds,
                   dropped, 1)
    executor = _executor(workers, scheduler)
    # Paid before the budget's clock starts, like the experiment's own imports: the first interval's
    # import of scipy.special, and the workers' start and imports (a second or more each on a busy
    # machine), which no replication could otherwise stop.
    estimate([0.0, 1.0])
    warm = getattr(executor, "warm", None)
    if warm is not None:
        warm()
    started = time.perf_counter()
    try:
        used, computed, stopped, dropped = _drive(executor, model, seed, targeted, replications,
                                                  None if target_ci_pct is None else target_ci_pct / 100.0,
                                                  started, max_seconds, progress)
    finally:
        close = getattr(executor, "close", None)
        if close is not None:
            close()
    return Run(used, computed, stopped, time.perf_counter() - started, executor.name, target_ci_pct, max_seconds,
               dropped, executor.workers)


def _checked_stopping(replications: int | None, target_ci_pct: float | None, max_seconds: float | None,
                      workers: int | None, seed: int, default_replications: int) -> tuple[int | None, float]:
    """The run's replication count (None: until the target) and time budget, each argument checked."""
    if replications is not None and target_ci_pct is not None:
        raise InputError("give --replications or --target-ci-pct, not both")
    if replications is not None and not 2 <= replications <= MAX_REPLICATIONS:
        raise InputError(f"--replications must lie in [2, {MAX_REPLICATIONS:,}], got {replications}")
    if target_ci_pct is not None and not (math.isfinite(target_ci_pct) and 0 < target_ci_pct < 100):
        raise InputError(f"--target-ci-pct must lie in (0, 100), got {target_ci_pct:g}")
    if max_seconds is not None and not (math.isfinite(max_seconds) and 0 < max_seconds <= MAX_SECONDS):
        raise InputError(f"--max-seconds must lie in (0, {MAX_SECONDS:g}], got {max_seconds:g}")
    if max_seconds is None:
        max_seconds = DEFAULT_MAX_SECONDS  # every run has a budget, held within replications too
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise InputError(f"--workers must lie in [1, {MAX_WORKERS}], got {workers}")
    if seed < 0:
        raise InputError(f"--seed must be >= 0, got {seed}")
    if target_ci_pct is None and replications is None:
        replications = default_replications
    return replications, max_seconds


def _drive(executor: Any, model: Any, seed: int, targeted: Sequence[str], count: int | None,
           target: float | None, started: float, max_seconds: float,
           progress: Progress | None) -> tuple[list[Sample], int, str, Dropped | None]:
    """Consume finished replications until the count, the target or the time budget is reached.

    Only a contiguous prefix 0..R-1 is ever used: results arriving out of
    order wait for the ones before them. A dropped replication caps the
    prefix: the run waits only for the replications before it still running
    (each within its own allowance), grants those after it no time, and
    stops when the prefix reaches it.
    """
    results: dict[int, Sample] = {}
    prefix = 0          # replications 0..prefix-1 are all done
    dropped: Dropped | None = None
    checked = MIN_TARGET_REPLICATIONS - 1
    planned = count if count is not None else MIN_TARGET_REPLICATIONS
    limit = count if count is not None else MAX_REPLICATIONS

    def remaining() -> float:
        return 0.0 if dropped is not None else max_seconds - (time.perf_counter() - started)

    stream = executor.stream(model, seed, limit, remaining)
    try:
        for index, sample in stream:
            if isinstance(sample, Dropped):
                if dropped is None or sample.index < dropped.index:
                    dropped = sample
            else:
                results[index] = sample
                while prefix in results:
                    prefix += 1
                if progress is not None:
                    progress(len(results), max(planned, len(results)))
                if count is not None and prefix >= count:
                    return [results[i] for i in range(count)], len(results), STOP_REPLICATIONS, None
                if target is not None and prefix > checked:
                    ordered = [results[i] for i in range(prefix)]
                    for size in range(checked + 1, prefix + 1):
                        if _worst_relative(ordered[:size], targeted) <= target:
                            return ordered[:size], len(results), STOP_TARGET, None
                    checked = prefix
                    worst = _worst_relative(ordered, targeted)
                    if math.isfinite(worst):
                        planned = max(planned, math.ceil(prefix * (worst / target) ** 2))
            if (dropped is not None and prefix >= dropped.index) or time.perf_counter() - started >= max_seconds:
                return [results[i] for i in range(prefix)], len(results), STOP_TIME, dropped
    finally:
        stream.close()
    return [results[i] for i in range(prefix)], len(results), STOP_CAP, dropped


def _drive_batches(model: Any, seed: int, targeted: Sequence[str], count: int | None, target: float | None,
                   started: float, max_seconds: float,
                   progress: Progress | None) -> tuple[list[Sample], int, str, Dropped | None]:
    """The numpy engine's loop: batches of replications, each all at once, until the count, target or budget.

    Replication i reads SeedSequence(seed, spawn_key=(i, ...)) whatever batch
    it runs in, so the stopping rule is the one of :func:`_drive`: the
    smallest prefix 0..R-1 (R >= MIN_TARGET_REPLICATIONS) that meets the
    target. A target run's next batch is sized from the variance seen so
    far: the replications the target needs, plus 20 %, less those done. A
    batch runs on the budget left (one Allowance, checked inside its
    loops); one cut short is dropped whole and the run stops with the
    replications before it.
    """
    samples: list[Sample] = []
    computed = 0
    limit = count if count is not None else MAX_REPLICATIONS
    planned = count if count is not None else FIRST_TARGET_BATCH
    checked = MIN_TARGET_REPLICATIONS - 1
    while True:
        first = len(samples)
        size = min(planned - first, MAX_BATCH, limit - first)
        allowance = Allowance(max(max_seconds - (time.perf_counter() - started), 0.0))
        batch = [Streams(seed_sequence(seed, i), allowance=allowance) for i in range(first, first + size)]
        try:
            samples += model.run_batch(batch)
        except OutOfTime as out:
            return samples, computed, STOP_TIME, Dropped(first, out.elapsed_s, out.fraction, out.projected_s,
                                                         out.abandoned)
        computed += size
        if progress is not None:
            progress(len(samples), max(planned, len(samples)))
        if count is not None and len(samples) >= count:
            return samples, computed, STOP_REPLICATIONS, None
        if target is not None and len(samples) > checked:
            for size in range(checked + 1, len(samples) + 1):
                if _worst_relative(samples[:size], targeted) <= target:
                    return samples[:size], computed, STOP_TARGET, None
            checked = len(samples)
            worst = _worst_relative(samples, targeted)
            need = math.ceil(1.2 * len(samples) * (worst / target) ** 2) if math.isfinite(worst) else 0
            planned = max(planned, min(need, limit), len(samples) + MIN_TARGET_REPLICATIONS)
        if len(samples) >= limit:
            return samples, computed, STOP_CAP, None
        if time.perf_counter() - started >= max_seconds:
            return samples, computed, STOP_TIME, None
