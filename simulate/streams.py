"""Random streams for the simulations: one numpy generator per replication, block-buffered draws.

Replication ``i`` of a run with seed ``s`` draws from
``numpy.random.SeedSequence(s, spawn_key=(i,))`` (PCG64): the streams of two
replications are independent, and replication ``i`` gives the same numbers
whatever process, thread or Dask worker runs it and however many others run
beside it. Nothing here touches Python's global ``random`` module, which Ciw
uses by default: every Ciw distribution reads a :class:`Draws` of its
replication (:mod:`iosizer.simulate.open_queues`), so replications running as threads of one Dask worker do not
share a generator.

A service or inter-arrival time is given by its mean and its squared
coefficient of variation (scv = variance / mean^2): 0 is a constant, 1 the
exponential distribution, any other value a gamma distribution with shape
1 / scv and the same mean (the two-moment fit used throughout queueing
approximations).

Every value is drawn by inversion, F^-1(u) of a uniform u, so a stream has
an *antithetic* twin that reads F^-1(1 - u) from the same uniforms
(:meth:`Streams.mirrored`): a long interval where one sees it short.
Queue waits grow with service times and shrink with inter-arrival times,
so a replication and its twin err in opposite directions and their
average is far more precise than two independent runs (Law, *Simulation
Modeling and Analysis*, sec. 11.3). The pair's average is one replication:
pairs are independent, so the plain t interval holds.

A :class:`Streams` also carries its replication's wall-clock
:class:`~iosizer.simulate.budget.Allowance` (unbounded unless the engine
grants one), so that every run of the replication, its antithetic twin and
the parts of a composite model check the same clock.
"""

from __future__ import annotations

import math

import numpy as np

from iosizer.simulate.budget import Allowance

__all__ = ["BLOCK", "Draws", "Streams", "by_inversion", "generator", "seed_sequence"]

#: Most samples drawn per numpy call; a Python float is then read per event.
#: The first call draws :data:`FIRST_BLOCK` and each next one twice as many,
#: so a model with many little-used streams (one per job) stays light.
BLOCK = 8192
FIRST_BLOCK = 128


def by_inversion(upper: np.ndarray, antithetic: bool | np.ndarray, scv: float, mean: float = 1.0) -> np.ndarray:
    """Values of mean ``mean`` and squared coefficient of variation ``scv`` (> 0) by inversion.

    ``upper`` = 1 - u for uniforms u in [0, 1), so in (0, 1]. The value is
    F^-1(1 - tail), tail (the probability above it) = 1 - ``upper``, or
    ``upper`` itself for the antithetic twin: exponential for scv 1, gamma
    of shape 1/scv otherwise. One function for both engines, so they read
    equal values from equal streams.
    """
    tail = np.where(antithetic, upper, 1.0 - upper)
    if scv == 1.0:
        return -mean * np.log(np.where(tail > 0, tail, np.finfo(float).tiny))
    from scipy.special import gammainccinv

    return gammainccinv(1.0 / scv, tail) * mean * scv


def seed_sequence(seed: int, index: int) -> np.random.SeedSequence:
    """The independent stream of replication ``index`` of a run seeded with ``seed``."""
    return np.random.SeedSequence(int(seed), spawn_key=(int(index),))


def generator(sequence: np.random.SeedSequence) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(sequence))


class Streams:
    """Numbered sub-streams of one replication: stream ``k`` is the same in every model run with it.

    Each input of a model (an arrival process, the service times of one
    station and class, a think time) reads its own sub-stream
    ``SeedSequence(seed, spawn_key=(replication, k))``. Two models run on the
    same replication's streams therefore see the same underlying uniform
    numbers input by input: common random numbers, which make the
    difference between two configurations (a network with and without added
    latency) far more precise than two independent runs would.
    """

    def __init__(self, sequence: np.random.SeedSequence, antithetic: bool = False,
                 allowance: Allowance | None = None) -> None:
        self._sequence = sequence
        self.antithetic = antithetic
        self.allowance = Allowance() if allowance is None else allowance

    def mirrored(self) -> "Streams":
        """The antithetic twin: the same uniforms, every value drawn at 1 - u."""
        return Streams(self._sequence, not self.antithetic, self.allowance)

    def part(self, k: int, n: int) -> "Streams":
        """These streams for part ``k`` of ``n`` of the replication's work (its share of the allowance)."""
        return Streams(self._sequence, self.antithetic, self.allowance.part(k, n))

    def generator(self, k: int) -> np.random.Generator:
        child = np.random.SeedSequence(self._sequence.entropy,
                                       spawn_key=tuple(self._sequence.spawn_key) + (int(k),))
        return generator(child)

    def draws(self, k: int, mean: float, scv: float) -> "Draws":
        return Draws(self.generator(k), mean, scv, self.antithetic)


class Draws:
    """Samples of one distribution (mean, scv), read one at a time from a numpy generator.

    Drawing :data:`BLOCK` values per numpy call and handing out Python floats
    keeps the per-event cost near a list read, which matters at millions of
    events per replication.
    """

    __slots__ = ("_rng", "mean", "scv", "antithetic", "_constant", "_buffer", "_next", "_size")

    def __init__(self, rng: np.random.Generator, mean: float, scv: float, antithetic: bool = False) -> None:
        if not (math.isfinite(mean) and mean >= 0):
            raise ValueError(f"mean must be finite and >= 0, got {mean}")
        if not (math.isfinite(scv) and scv >= 0):
            raise ValueError(f"scv must be finite and >= 0, got {scv}")
        self._rng = rng
        self.mean = float(mean)
        self.scv = float(scv)
        self.antithetic = bool(antithetic)
        self._constant = self.scv == 0.0 or self.mean == 0.0
        self._buffer: list[float] = []
        self._next = 0
        self._size = FIRST_BLOCK // 2

    @property
    def constant(self) -> bool:
        """True when every sample is the mean (scv 0, or a zero mean)."""
        return self._constant

    def _refill(self) -> None:
        self._size = min(2 * self._size, BLOCK)
        # u in (0, 1]: 1 - u then lies in [0, 1), and log(u), log1p(-(1-u)) stay finite.
        upper = 1.0 - self._rng.random(self._size)
        self._buffer = by_inversion(upper, self.antithetic, self.scv, self.mean).tolist()
        self._next = 0

    def __call__(self) -> float:
        if self._constant:
            return self.mean
        if self._next == len(self._buffer):
            self._refill()
        value = self._buffer[self._next]
        self._next += 1
        return value
