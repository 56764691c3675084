"""One replication's wall-clock allowance, checked by the simulation loops in chunks.

The engine (:mod:`iosizer.simulate.engine`) gives each replication the
time its run has left when the replication is dispatched, as a *duration*:
the worker starts the clock itself, so a Dask worker whose clock differs
from the client's still stops at the right moment. The simulation loops
call :meth:`Allowance.check` with their progress every
:data:`CHECK_CYCLES` completed cycles (SimPy) or every
:data:`CHECK_CUSTOMERS` customers' worth of simulated time (Ciw); a check
costs one clock read, so a replication overshoots its allowance by at most
one chunk (tens of milliseconds at a Ciw or SimPy pace of 30-100 us per
event).

A check raises :class:`OutOfTime` when the allowance is spent, or earlier
when the replication's own pace says it cannot finish: once at least
:data:`PACE_MIN_S` seconds and :data:`PACE_MIN_FRACTION` of the
replication separate a check from the first one (so start-up costs, such
as a fresh worker's imports, are left out of the pace), the projected
total

    T = elapsed + (1 - f) x (time since the first check) / (progress since the first check)

is compared with the allowance; above :data:`ABANDON_FACTOR` times it the
replication gives up at once rather than spend the rest of the budget on a
result that will be thrown away. The margin keeps a replication that would
have finished from being abandoned on a noisy pace: on a shared machine
another process can halve it for a while (measured: with 1.5 and half a
second of pace, 20,000-customer M/M/4 replications of about 1 s were
abandoned against 2 s allowances).

Progress ``f`` runs from 0 to 1 over the whole replication; a model made of
several runs (an antithetic pair, a network with and without added
latency) gives each run its share with :meth:`Allowance.part`.
"""

from __future__ import annotations

import math
import time

__all__ = ["ABANDON_FACTOR", "CHECK_CUSTOMERS", "CHECK_CYCLES", "Allowance", "OutOfTime"]

#: SimPy models check the clock every this many completed cycles (bursts for the DMA engine).
CHECK_CYCLES = 1024
#: Ciw models advance in steps of this many mean inter-arrival times of simulated time.
CHECK_CUSTOMERS = 1024
#: A replication whose projected time exceeds its allowance by this factor gives up early.
ABANDON_FACTOR = 2.0
#: The pace is measured over at least this long...
PACE_MIN_S = 1.0
#: ...and this share of the replication, before it may abandon the replication.
PACE_MIN_FRACTION = 0.02


class OutOfTime(Exception):
    """A replication stopped by its allowance (internal: the engine turns it into a dropped replication).

    Arguments, positional so that SimPy can re-raise a copy: seconds spent,
    the share of the replication done, its projected total time in seconds
    and whether it gave up before its allowance ran out.
    """

    def __init__(self, elapsed_s: float, fraction: float, projected_s: float, abandoned: bool) -> None:
        super().__init__(elapsed_s, fraction, projected_s, abandoned)
        self.elapsed_s = elapsed_s
        self.fraction = fraction
        self.projected_s = projected_s
        self.abandoned = abandoned


class Allowance:
    """A wall-clock allowance of ``seconds`` (None: unbounded), started when the object is made.

    ``lag_s`` is time already spent since the allowance was granted (a
    local worker's queueing delay, measured on the same machine's clock).
    """

    __slots__ = ("seconds", "started", "deadline", "_low", "_width", "_pace")

    def __init__(self, seconds: float | None = None, lag_s: float = 0.0) -> None:
        self.seconds = math.inf if seconds is None else max(float(seconds), 0.0)
        self.started = time.perf_counter() - max(float(lag_s), 0.0)
        self.deadline = self.started + self.seconds
        self._low = 0.0
        self._width = 1.0
        self._pace: list[float] = []  # [time, progress] of the first check, shared by every part

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.seconds)

    @property
    def spent(self) -> bool:
        """True once the allowance has run out (a task that waited too long to start)."""
        return time.perf_counter() >= self.deadline

    def part(self, k: int, n: int) -> "Allowance":
        """The same allowance for part ``k`` of ``n`` equal parts of this one's work."""
        view = Allowance.__new__(Allowance)
        view.seconds, view.started, view.deadline, view._pace = self.seconds, self.started, self.deadline, self._pace
        view._width = self._width / n
        view._low = self._low + k * view._width
        return view

    def check(self, fraction: float) -> None:
        """Raise :class:`OutOfTime` if the allowance is spent or, at this pace, cannot be met.

        ``fraction``: the share of this part's work done, 0 to 1.
        """
        if not self.bounded:
            return
        now = time.perf_counter()
        done = self._low + self._width * min(max(float(fraction), 0.0), 1.0)
        if not self._pace:
            self._pace.extend((now, done))
        if now >= self.deadline:
            raise OutOfTime(now - self.started, done, self.projected_s(now, done), False)
        first_s, first_done = self._pace
        if now - first_s >= PACE_MIN_S and done - first_done >= PACE_MIN_FRACTION:
            projected = self.projected_s(now, done)
            if projected > ABANDON_FACTOR * self.seconds:
                raise OutOfTime(now - self.started, done, projected, True)

    def projected_s(self, now: float, done: float) -> float:
        """The replication's projected total time, s: from the pace since the first check when
        measurable, else elapsed / done (start-up included)."""
        elapsed = now - self.started
        if self._pace:
            first_s, first_done = self._pace
            if done > first_done and now > first_s:
                return elapsed + (1.0 - done) * (now - first_s) / (done - first_done)
        return elapsed / done if done > 0 else math.inf
