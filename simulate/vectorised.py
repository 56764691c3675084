"""The numpy engine: every replication of a batch advanced at once, arrays shaped (replications, ...).

A batch is a list of :class:`~iosizer.simulate.streams.Streams`, one per
replication; row r of every array belongs to replication r and reads only
its own streams, so a replication's numbers do not depend on the batch it
runs in (the same seed gives the same answer in batches of any size).

Open FCFS queues (:func:`open_queue`)
    Customers in blocks of :data:`BLOCK` per row. One server: Lindley's
    recursion W(n+1) = max(0, W(n) + S(n) - T(n+1)) in closed form per
    block, W = P - min(0, running min of P) with P the prefix sums of
    S - T (no loop in Python). c servers: the Kiefer-Wolfowitz recursion
    on the servers' free times F (absolute times): customer n starts at
    max(A(n), min F) and the server it took is then free at start + S(n),
    one vectorised step per customer across every row. Inter-arrival and
    service times read the same streams, by the same inversion
    (:func:`~iosizer.simulate.streams.by_inversion`), as the Ciw model of
    :class:`~iosizer.simulate.open_queues.OpenQueue`, and the measurement
    window and warm-up are the same, so both engines see the same customers.

Closed networks (:func:`closed_network`)
    Jobs as columns: each holds its position on its class's route (or
    thinking), the time its current activity ends (infinite while it
    queues) and its place in the queue (an enqueue counter: FCFS). A step
    takes, in every row, the job whose activity ends first: a finished
    service frees its server, which takes the head of that station's queue;
    the job moves on (a delay or think: a timer; a queueing station: service
    if a server is free, else the queue's tail). Service times at a station
    are drawn in the order services start there from the station's own
    stream (think times from the class's), so two configurations run on
    the same replication's streams share their numbers station by station
    (common random numbers).

Time budget: the loops check the batch's allowance (``streams.allowance`` of
the first replication: the engine grants a batch one) every block of
customers or :data:`~iosizer.simulate.budget.CHECK_CYCLES` steps.
"""

from __future__ import annotations

import math
import time
from typing import Any, Sequence

import numpy as np

from iosizer.simulate.stats import Sample
from iosizer.simulate.streams import Streams, by_inversion

__all__ = ["BLOCK", "closed_network", "dma_issue", "open_queue", "pieces", "response_percentiles"]

#: Customers (or variates of one stream) drawn per row per numpy call.
BLOCK = 4096
#: Stream keys of the closed networks' variates: station s reads STATION_KEY + s, class c's think time THINK_KEY + c.
STATION_KEY = 1000
THINK_KEY = 2000
#: Piece p of a replication reads its streams at key + PIECE_KEY x p.
PIECE_KEY = 10_000
#: A closed network's replication is split into independent pieces of at least this many measured cycles
#: (and 100 per job), pooled: more rows per step, fewer steps (see :func:`pieces`).
PIECE_CYCLES = 1000
#: Memory bounds of a batch: numbers held in a closed network's variate pool, and cells (rows x jobs) of
#: its per-job arrays (8 MB each); a larger batch of replications runs in parts, with the same values.
POOL_VALUES = 2**21
JOB_CELLS = 2**20


class _Source:
    """One numbered stream of every row: variates of (``mean``, ``scv``), a block at a time per row.

    ``key`` is the stream's number, or one per row (a row that is a piece of a replication).
    """

    def __init__(self, batch: Sequence[Streams], key: int | Sequence[int], scv: float, size: int = BLOCK,
                 mean: float = 1.0) -> None:
        keys = [key] * len(batch) if isinstance(key, int) else list(key)
        self.generators = [s.generator(k) for s, k in zip(batch, keys)]
        self.antithetic = np.array([s.antithetic for s in batch])[:, None]
        self.scv = scv
        self.size = size
        self.mean = mean

    def block(self, rows: Sequence[int] | None = None) -> np.ndarray:
        """The next ``size`` variates of each row (of ``rows``), shape (rows, size)."""
        chosen = range(len(self.generators)) if rows is None else rows
        upper = 1.0 - np.stack([self.generators[r].random(self.size) for r in chosen])
        flags = self.antithetic if rows is None else self.antithetic[list(chosen)]
        return by_inversion(upper, flags, self.scv, self.mean)


def _check(batch: Sequence[Streams], fraction: float) -> None:
    batch[0].allowance.check(fraction)


# --- open FCFS queues -----------------------------------------------------------------------


def open_queue(queue: Any, batch: Sequence[Streams], warm: float) -> list[Sample]:
    """Replications of :class:`~iosizer.simulate.open_queues.OpenQueue` ``queue``, one per Streams of ``batch``.

    Metrics as the Ciw model: the customers arriving in [warm, warm + T)
    that leave by warm + T + warm, T = customers / arrival rate, ``warm``
    the queue's warm-up (:func:`~iosizer.simulate.open_queues.warmup_time`).
    """
    started = time.perf_counter()
    rows = len(batch)
    mean_gap, mean_service, c = 1.0 / queue.arrival_rate, 1.0 / queue.service_rate, int(queue.servers)
    window = queue.customers / queue.arrival_rate
    end, close = warm + window, warm + window + warm
    gaps = None if queue.arrival_scv == 0 else _Source(batch, 0, queue.arrival_scv, mean=mean_gap)
    services = None if queue.service_scv == 0 else _Source(batch, 1, queue.service_scv, mean=mean_service)
    last = np.zeros(rows)                     # arrival time of each row's last customer so far
    free = np.zeros((rows, c))                # c servers: when each is next free (absolute time)
    carry_wait, carry_service = np.zeros(rows), np.zeros(rows)  # one server: the previous customer's
    count, waits, served, waited = (np.zeros(rows) for _ in range(4))
    first = True
    while True:
        gap = np.full((rows, BLOCK), mean_gap) if gaps is None else gaps.block()
        service = np.full((rows, BLOCK), mean_service) if services is None else services.block()
        arrivals = np.cumsum(np.concatenate([last[:, None], gap], axis=1), axis=1)[:, 1:]
        if c == 1:
            wait = _lindley(gap, service, carry_wait, carry_service, first)
            carry_wait, carry_service = wait[:, -1], service[:, -1]
        else:
            wait = _kiefer_wolfowitz(arrivals, service, free)
        first = False
        inside = (arrivals >= warm) & (arrivals < end) & (arrivals + wait + service <= close)
        count += inside.sum(axis=1)
        waits += np.where(inside, wait, 0.0).sum(axis=1)
        served += np.where(inside, service, 0.0).sum(axis=1)
        waited += (inside & (wait > 0.0)).sum(axis=1)
        last = arrivals[:, -1]
        reached = float(last.min())
        if reached >= end:
            break
        _check(batch, reached / end)
    mean_wait = waits / count
    seconds = (time.perf_counter() - started) / rows
    return [Sample({"utilization": served[r] / (c * window), "p_wait": waited[r] / count[r],
                    "mean_wait": mean_wait[r], "mean_response": mean_wait[r] + served[r] / count[r]},
                   seconds, int(count[r])) for r in range(rows)]


def _lindley(gap: np.ndarray, service: np.ndarray, carry_wait: np.ndarray, carry_service: np.ndarray,
             first: bool) -> np.ndarray:
    """One server's waits for a block: W(n) = P(n) - min(0, min_{k<=n} P(k)), P the prefix sums of S - T."""
    step = np.empty_like(gap)
    # W(0) of the block from the previous block's last customer (the very first customer finds it empty).
    step[:, 0] = 0.0 if first else np.maximum(carry_wait + carry_service - gap[:, 0], 0.0)
    step[:, 1:] = service[:, :-1] - gap[:, 1:]
    prefix = np.cumsum(step, axis=1)
    return prefix - np.minimum(np.minimum.accumulate(prefix, axis=1), 0.0)


def _kiefer_wolfowitz(arrivals: np.ndarray, service: np.ndarray, free: np.ndarray) -> np.ndarray:
    """c servers' waits for a block, one step per customer across every row; ``free`` is updated in place."""
    rows, servers = free.shape
    flat = free.reshape(-1)                   # a view: writes land in ``free``
    base = np.arange(rows) * servers
    at, needs = np.ascontiguousarray(arrivals.T), np.ascontiguousarray(service.T)
    wait = np.empty_like(at)
    for n in range(at.shape[0]):
        which = base + free.argmin(axis=1)
        start = np.maximum(flat[which], at[n])
        flat[which] = start + needs[n]
        np.subtract(start, at[n], out=wait[n])
    return wait.T


# --- closed networks --------------------------------------------------------------------------


class _Variates:
    """The closed network's random durations: one :class:`_Source` per variable station and per thinking class.

    Source ``len(sources)`` is the constant 1 (a delay of fixed length); the others hand out their rows'
    variates in order, refilled a block at a time per row.
    """

    def __init__(self, batch: Sequence[Streams], pieces: Sequence[int], sources: list[tuple[int, float]]) -> None:
        # The pool holds at most POOL_VALUES numbers; a row's values are the same whatever its block size.
        size = int(min(BLOCK, max(64, POOL_VALUES // (len(batch) * (len(sources) + 1)))))
        self.sources = [_Source(batch, [key + PIECE_KEY * p for p in pieces], scv, size) for key, scv in sources]
        self.rows = len(batch)
        self.size = size
        self.constant = len(sources)
        self.pool = np.ones((len(sources) + 1, self.rows, size))
        for k, source in enumerate(self.sources):
            self.pool[k] = source.block()
        self.flat = self.pool.reshape(-1)
        self.used = np.zeros((len(sources) + 1) * self.rows, dtype=np.int64)
        self._row = np.arange(self.rows)

    def take(self, source: np.ndarray, wanted: np.ndarray) -> np.ndarray:
        """One variate per row from ``source`` (an index per row) where ``wanted`` (1 elsewhere)."""
        cell = source * self.rows + self._row
        position = self.used[cell]
        values = np.where(wanted, self.flat[cell * self.size + position], 1.0)
        if self.constant:
            self.used[cell] += wanted & (source != self.constant)
            if int(position.max()) >= self.size - 1:
                self._refill()
        return values

    def _refill(self) -> None:
        used = self.used.reshape(-1, self.rows)
        for k, source in enumerate(self.sources):
            spent = np.flatnonzero(used[k] >= self.size)
            if spent.size:
                self.pool[k, spent] = source.block(spent.tolist())
                used[k, spent] = 0


def pieces(completions: int, population: int) -> list[int]:
    """The measured cycles of each piece of a closed network's replication.

    The loop in Python runs once per event of the longest row, whatever the
    rows, so a replication of C cycles runs as m = max(1, C // max(1000,
    100 N)) independent pieces of about C / m cycles each, side by side,
    whose counts and times are pooled (throughput = cycles / time and
    response = time / cycles over all pieces: one long run's ratio
    estimators, not an average of short runs' ratios). Each piece deletes
    its own warm-up of max(10 %, 10 cycles per job), which the piece length
    keeps at 10 % of its work. m depends only on the network, never on the
    batch: a replication's value is the same in any batch.
    """
    count = max(1, completions // max(PIECE_CYCLES, 100 * population))
    return [completions // count + (1 if p < completions % count else 0) for p in range(count)]


def closed_network(network: Any, batch: Sequence[Streams]) -> list[Sample]:
    """Replications of :class:`~iosizer.simulate.closed.ClosedNetwork` ``network``, one per Streams of ``batch``.

    Metrics and warm-up rule as the SimPy model: ``throughput_<class>`` and
    ``response_<class>`` over ``completions`` cycles, after deleting max(10
    %, 10 cycles per job) of each piece's cycles (:func:`pieces`).
    """
    started = time.perf_counter()
    lengths = pieces(network.completions, network.population)
    per_part = max(1, JOB_CELLS // (len(lengths) * network.population))
    found = []
    for first in range(0, len(batch), per_part):
        part = batch[first:first + per_part]
        rows = [streams for streams in part for _ in lengths]
        found.append(_closed_rows(network, rows, list(range(len(lengths))) * len(part), lengths * len(part), part))
    counts, sums, window = (np.concatenate([f[i] for f in found]) for i in range(3))
    if network.percentiles:  # each replication's records: its pieces' rows, side by side
        records = np.concatenate([f[3] for f in found]).reshape(len(batch), -1)
        kinds = np.concatenate([f[4] for f in found]).reshape(len(batch), -1)
    shape = (len(batch), len(lengths))
    counts = counts.reshape(shape + (-1,)).sum(axis=1)
    sums = sums.reshape(shape + (-1,)).sum(axis=1)
    window = window.reshape(shape).sum(axis=1)
    seconds = (time.perf_counter() - started) / len(batch)
    samples = []
    for r in range(len(batch)):
        metrics: dict[str, float] = {}
        for k, job in enumerate(network.classes):
            metrics[f"throughput_{job.name}"] = counts[r, k] / window[r]
            metrics[f"response_{job.name}"] = sums[r, k] / counts[r, k] if counts[r, k] else math.nan
            if network.percentiles:
                metrics.update(response_percentiles(records[r][kinds[r] == k], network.percentiles, job.name))
        samples.append(Sample(metrics, seconds, network.completions))
    return samples


def _closed_tables(network: Any) -> dict[str, Any]:
    """Static tables of a closed network's jobs, indexed by a job's *state* j x (V + 1) + slot.

    Slot 0 is thinking, slot v + 1 the job's visit v (V: the longest route).
    Per state: the station it occupies (S, past the last, while thinking),
    the mean and variate source of its activity, and where leaving it
    leads (next state, and whether that ends a cycle or begins one).
    """
    stations, classes = network.stations, network.classes
    sources: list[tuple[int, float]] = []
    station_source = []
    for s, station in enumerate(stations):
        station_source.append(len(sources) if station.scv > 0 else None)
        if station.scv > 0:
            sources.append((STATION_KEY + s, station.scv))
    think_source = []
    for k, job in enumerate(classes):
        think_source.append(len(sources) if job.think_time > 0 and job.think_scv > 0 else None)
        if think_source[-1] is not None:
            sources.append((THINK_KEY + k, job.think_scv))
    constant = len(sources)
    width = max(len(c.visits) for c in classes) + 1
    job_class, here, mean, source, after, ends, begins = [], [], [], [], [], [], []
    for k, job in enumerate(classes):
        for _ in range(job.population):
            j = len(job_class)
            job_class.append(k)
            visits = list(job.visits)
            thinks = job.think_time > 0
            for slot in range(width):
                if slot == 0:
                    here.append(len(stations))
                    mean.append(job.think_time)
                    picked = think_source[k]
                elif slot <= len(visits):
                    station, visit_mean = visits[slot - 1]
                    here.append(station)
                    mean.append(visit_mean)
                    picked = station_source[station]
                else:  # padding past a short route: never entered
                    here.append(len(stations))
                    mean.append(0.0)
                    picked = None
                source.append(constant if picked is None else picked)
                last = slot == len(visits)
                nxt = (0 if thinks else 1) if last else slot + 1
                after.append(j * width + nxt)
                ends.append(last)
                begins.append(nxt == 1)
    servers = np.array([s.servers for s in stations] + [0.0])
    return {"sources": sources, "width": width, "job_class": np.array(job_class), "here": np.array(here),
            "mean": np.array(mean), "source": np.array(source), "after": np.array(after),
            "ends": np.array(ends), "begins": np.array(begins), "capacity": servers,
            "queueing": np.append(~np.isinf(servers[:-1]), False)}


def _closed_rows(network: Any, batch: Sequence[Streams], piece: Sequence[int], lengths: Sequence[int],
                 owners: Sequence[Streams]) -> tuple[np.ndarray, ...]:
    """Each row's measured cycle counts and response-time sums per class, and its measured time window;
    with ``network.percentiles``, also each measured cycle's time and class (NaN, -1 past a row's count)."""
    from iosizer.simulate.budget import CHECK_CYCLES

    rows = _ClosedRows(network, batch, piece, lengths)
    step = 0
    while True:
        rows.step(step)
        step += 1
        if step % 64 == 0:  # rows already done run on unmeasured until every row is
            if not np.any(rows.done < rows.target):
                break
            if step % CHECK_CYCLES == 0:
                _check(owners, float(np.min(rows.done / rows.target)))
    if rows.keep:
        return rows.counts, rows.sums, rows.closed_at - rows.opened, rows.records, rows.kinds
    return rows.counts, rows.sums, rows.closed_at - rows.opened


#: A queue ticket larger than any: the jobs not waiting at the freed station.
_NEVER = np.iinfo(np.int64).max


class _ClosedRows:
    """A closed network's rows advancing together (module docstring): per job its state (route slot), the
    end of its activity and its queue ticket; per row and station the busy servers; per row the cycles done,
    per row and class the measured cycles and their summed response."""

    def __init__(self, network: Any, batch: Sequence[Streams], piece: Sequence[int],
                 lengths: Sequence[int]) -> None:
        t = _closed_tables(network)
        rows, jobs, width = len(batch), len(t["job_class"]), t["width"]
        self.stations = stations = len(network.stations)
        self.here_of, self.mean_of, self.source_of, self.after, self.ends, self.begins = (
            t[k] for k in ("here", "mean", "source", "after", "ends", "begins"))
        self.queueing, self.capacity, self.job_class = t["queueing"], t["capacity"], t["job_class"]
        self.variates = _Variates(batch, piece, t["sources"])
        self.row = np.arange(rows)
        self.base = self.row * jobs                    # flat index of (row, job 0)
        self.per_row = self.row * (stations + 1)       # flat index of (row, station 0) in ``busy``
        # Every job starts thinking (a zero think ends at once, the jobs in order).
        self.state = np.tile(np.arange(jobs) * width, rows)
        self.end = np.zeros((rows, jobs))
        everyone = np.ones(rows, dtype=bool)
        for j in range(jobs):
            if self.mean_of[j * width] > 0:
                self.end[:, j] = self.mean_of[j * width] * self.variates.take(
                    np.full(rows, self.source_of[j * width]), everyone)
        self.end_f = self.end.reshape(-1)
        self.at = np.full((rows, jobs), stations)  # the station each job occupies (``stations``: thinking)
        self.at_f = self.at.reshape(-1)
        self.began = np.zeros(rows * jobs)
        self.queued = np.zeros((rows, jobs), dtype=np.int64)
        self.queued_f = self.queued.reshape(-1)
        self.busy = np.zeros(rows * (stations + 1))
        measure = np.asarray(lengths)
        self.warm = np.maximum(measure // 10, 10 * jobs)
        self.target = self.warm + measure
        self.done = np.zeros(rows, dtype=np.int64)
        self.counts, self.sums = np.zeros((rows, len(network.classes))), np.zeros((rows, len(network.classes)))
        self.opened, self.closed_at = np.zeros(rows), np.zeros(rows)
        # With percentiles: each measured cycle's time and class (NaN, -1 past a row's count).
        self.keep = bool(network.percentiles)
        self.records = np.full((rows, int(measure.max()) if self.keep else 0), np.nan)
        self.kinds = np.full(self.records.shape, -1, dtype=np.int64)

    def step(self, ticket: int) -> None:
        """In every row, the job whose activity ends first finishes it and moves on (``ticket``: its place
        in a queue it joins)."""
        fj = self.base + self.end.argmin(axis=1)
        now = self.end_f[fj]
        was = self.state[fj]
        self._free(self.here_of[was], now)
        if self.ends[was].any():
            self._complete(fj, self.ends[was], now)
        self._move_on(fj, self.after[was], self.begins[was], now, ticket)

    def _free(self, here: np.ndarray, now: np.ndarray) -> None:
        """A finished service frees its server, which takes the longest-waiting job there (FCFS by ticket)."""
        freed = np.where(self.queueing[here], here, self.stations)
        self.busy[self.per_row + freed] -= self.queueing[here]
        waiting = np.isinf(self.end) & (self.at == freed[:, None])
        fh = self.base + np.where(waiting, self.queued, _NEVER).argmin(axis=1)
        takes = waiting.reshape(-1)[fh]
        head = self.state[fh]
        length = self.mean_of[head] * self.variates.take(self.source_of[head], takes)
        self.end_f[fh] = np.where(takes, now + length, self.end_f[fh])
        self.busy[self.per_row + freed] += takes

    def _complete(self, fj: np.ndarray, completes: np.ndarray, now: np.ndarray) -> None:
        """Cycles ending now: counted, measured past the warm-up by class; the window opens and closes."""
        live = completes & (self.done < self.target)
        self.done += live
        measured = live & (self.done > self.warm)
        k = self.job_class[fj[measured] - self.base[measured]]
        self.counts[self.row[measured], k] += 1.0   # one job per row: no repeated index
        self.sums[self.row[measured], k] += (now - self.began[fj])[measured]
        if self.keep:
            slot = (self.done - self.warm - 1)[measured]
            self.records[self.row[measured], slot] = (now - self.began[fj])[measured]
            self.kinds[self.row[measured], slot] = k
        self.opened = np.where(live & (self.done == self.warm), now, self.opened)
        self.closed_at = np.where(live & (self.done == self.target), now, self.closed_at)

    def _move_on(self, fj: np.ndarray, nxt: np.ndarray, begins: np.ndarray, now: np.ndarray, ticket: int) -> None:
        """The job goes to ``nxt``, its next visit or the cycle's end (think, or straight back to the first
        visit): a timer, service on a free server, or the tail of the queue."""
        self.began[fj] = np.where(begins, now, self.began[fj])
        station = self.here_of[nxt]
        in_queue = self.queueing[station]
        starts = ~in_queue | (self.busy[self.per_row + station] < self.capacity[station])
        length = self.mean_of[nxt] * self.variates.take(self.source_of[nxt], starts)
        self.busy[self.per_row + station] += in_queue & starts
        self.queued_f[fj] = ticket
        self.end_f[fj] = np.where(starts, now + length, np.inf)
        self.state[fj] = nxt
        self.at_f[fj] = station


# --- the DMA engine (seed 000) ------------------------------------------------------------------


def dma_issue(engine: Any, batch: Sequence[Streams]) -> list[np.ndarray]:
    """Each row's local issue times of the measured bursts of :class:`~iosizer.simulate.systems.DmaIssue`.

    The same stream (0) and arithmetic as the SimPy model's draws; the warm-up bursts are read and dropped.
    """
    warm = engine.bursts // 10
    total = warm + engine.bursts
    if engine.scv == 0.0 or engine.local_ns == 0.0:
        return [np.full(engine.bursts, float(engine.local_ns)) for _ in batch]
    source = _Source(batch, 0, engine.scv, size=total, mean=engine.local_ns)
    return list(source.block()[:, warm:])


# --- cores serving port queues by eligibility (seed 003) ------------------------------------------


def shared_cores(system: Any, batch: Sequence[Streams], warm: float) -> list[Sample]:
    """Replications of :class:`~iosizer.simulate.open_queues.SharedCores` ``system``, one per Streams.

    One event per row per step, the earlier of the next arrival (any port)
    and the next core to finish. An arriving I/O takes an idle core among
    its port's eligible ones, chosen uniformly (from its own stream), else
    it waits; a core that frees up takes the longest-waiting I/O among the
    ports it serves. Waiting I/Os are slots (arrival time, port) per row,
    grown as needed. Measured as the Ciw model: the I/Os arriving in [warm,
    warm + T), served by warm + T + warm.
    """
    from iosizer.simulate.budget import CHECK_CYCLES

    started = time.perf_counter()
    cores = _SharedCores(system, batch, warm)
    step = 0
    while True:
        cores.step()
        step += 1
        if step % 64 == 0:
            left = (cores.arrive.min(axis=1) < cores.end) | (cores.queued_at < cores.end).any(axis=1)
            if not left.any():
                break
            if step % CHECK_CYCLES == 0:
                _check(batch, float(min(cores.arrive.min(axis=1).min() / cores.end, 1.0)))
    seconds = (time.perf_counter() - started) / len(batch)
    return [Sample({"response_service_times": cores.total[r] / cores.count[r] + system.fixed_delay}, seconds,
                   int(cores.count[r]))
            for r in range(len(batch))]


class _SharedCores:
    """:func:`shared_cores`' rows advancing together: each port's next arrival, each core's end of service,
    the waiting I/Os as slots (arrival time, port; an empty slot: infinite, the port past the last), and
    the measured I/Os' count and summed response."""

    def __init__(self, system: Any, batch: Sequence[Streams], warm: float) -> None:
        self.rows = rows = len(batch)
        ports = [p for p, rate in enumerate(system.rates) if rate > 0]
        self.count_ports, cores = len(ports), int(system.cores)
        count_ports = self.count_ports
        self.rates = np.array([system.rates[p] for p in ports])
        self.means = np.array([system.service_means[p] for p in ports])
        self.eligible = np.zeros((count_ports + 1, cores), dtype=bool)  # the last row: an empty slot's port
        for i, p in enumerate(ports):
            self.eligible[i, list(system.eligible[p])] = True
        window = float(system.customers / self.rates.sum())
        self.warm, self.end, self.close = warm, warm + window, warm + window + warm
        # Sources: port i's arrivals (its stream 1 + 2p), services (2 + 2p), then the idle-core choice (stream 0).
        self.variates = _Variates(batch, [0] * rows, [(1 + 2 * p, 1.0) for p in ports] +
                                  [(2 + 2 * p, system.service_scv) for p in ports] + [(0, 1.0)])
        self.constant = self.variates.constant
        self.row = np.arange(rows)
        everyone = np.ones(rows, dtype=bool)
        self.service_source = (np.arange(count_ports) + count_ports) if system.service_scv > 0 else \
            np.full(count_ports, self.constant)
        self.arrive = np.empty((rows, count_ports))
        for i in range(count_ports):
            self.arrive[:, i] = self.variates.take(np.full(rows, i), everyone) / self.rates[i]
        self.busy_until = np.full((rows, cores), np.inf)
        self.slots = 16
        self.queued_at = np.full((rows, self.slots), np.inf)
        self.queued_port = np.full((rows, self.slots), count_ports)
        self.count, self.total = np.zeros(rows), np.zeros(rows)

    def step(self) -> None:
        """In every row, the earlier of the next arrival (any port) and the next core to finish."""
        row = self.row
        port = self.arrive.argmin(axis=1)
        t_arrive = self.arrive[row, port]
        core = self.busy_until.argmin(axis=1)
        t_free = self.busy_until[row, core]
        arriving = t_arrive < t_free
        now = np.where(arriving, t_arrive, t_free)
        chosen, serve_now = self._idle_core(port, arriving)
        self._wait(arriving & ~serve_now, now, port)
        self._start(arriving, arriving & serve_now, chosen, core, now, port)
        # The arriving port's next arrival.
        gap = self.variates.take(np.where(arriving, port, self.constant), arriving) / self.rates[port]
        self.arrive[row, port] = np.where(arriving, now + gap, self.arrive[row, port])

    def _idle_core(self, port: np.ndarray, arriving: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """An arrival's core: an idle one among its port's eligible ones, chosen uniformly; whether any is."""
        idle = np.isinf(self.busy_until) & self.eligible[port] & arriving[:, None]
        idle_count = idle.sum(axis=1)
        spread = idle_count > 1
        pick = -np.expm1(-self.variates.take(np.full(self.rows, 2 * self.count_ports), spread))  # uniform in [0, 1)
        nth = np.where(spread, np.minimum((pick * idle_count).astype(np.int64), idle_count - 1), 0)
        chosen = np.argmax(np.cumsum(idle, axis=1) > nth[:, None], axis=1)
        return chosen, idle_count > 0

    def _wait(self, waits: np.ndarray, now: np.ndarray, port: np.ndarray) -> None:
        """Arrivals with no idle core wait in a free slot (twice the slots when a row has none left)."""
        if not waits.any():
            return
        if np.isfinite(self.queued_at[waits]).all(axis=1).any():
            self.queued_at = np.concatenate([self.queued_at, np.full((self.rows, self.slots), np.inf)], axis=1)
            self.queued_port = np.concatenate([self.queued_port, np.full((self.rows, self.slots), self.count_ports)],
                                              axis=1)
            self.slots *= 2
        slot = np.isinf(self.queued_at).argmax(axis=1)
        self.queued_at[self.row[waits], slot[waits]] = now[waits]
        self.queued_port[self.row[waits], slot[waits]] = port[waits]

    def _start(self, arriving: np.ndarray, served: np.ndarray, chosen: np.ndarray, core: np.ndarray,
               now: np.ndarray, port: np.ndarray) -> None:
        """Whoever starts now: an arriving I/O ``served`` at once on its ``chosen`` core, or, as ``core``
        finishes, the longest-waiting I/O of the ports it serves; measured if it arrived in the window and is
        done by its close."""
        row, finishing, last = self.row, ~arriving, self.count_ports - 1
        candidates = self.eligible[self.queued_port, core[:, None]] & finishing[:, None]
        head = np.where(candidates, self.queued_at, np.inf).argmin(axis=1)
        takes = candidates[row, head]
        starts = served | takes
        started_port = np.where(arriving, port, self.queued_port[row, head])
        arrived = np.where(arriving, now, self.queued_at[row, head])
        length = self.means[np.minimum(started_port, last)] * self.variates.take(
            self.service_source[np.minimum(started_port, last)], starts)
        on = np.where(arriving, chosen, core)
        self.busy_until[row, on] = np.where(starts, now + length,
                                            np.where(finishing, np.inf, self.busy_until[row, on]))
        self.queued_at[row[takes], head[takes]] = np.inf
        self.queued_port[row[takes], head[takes]] = self.count_ports
        measured = starts & (arrived >= self.warm) & (arrived < self.end) & (now + length <= self.close)
        self.count += measured
        self.total += np.where(measured, now - arrived + length, 0.0)


def response_percentiles(records: Any, percentiles: Sequence[float], name: str) -> dict[str, float]:
    """``response_pP_<name>``: the P-th empirical percentile (numpy's linear interpolation) of one
    replication's measured cycle times; its 95 % interval comes from the replications' spread."""
    from iosizer.model.percentiles import percentile_key

    values = np.asarray(records, dtype=np.float64)
    values = values[np.isfinite(values)]
    return {f"response_{percentile_key(p)}_{name}": float(np.percentile(values, p)) if values.size else math.nan
            for p in percentiles}
