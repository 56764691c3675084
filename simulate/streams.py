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
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["BLOCK", "Draws", "Streams", "generator", "seed_sequence"]

#: Most samples drawn per numpy call; a Python float is then read per event.
#: The first call draws :data:`FIRST_BLOCK` and each next one twice as many,
#: so a model with many little-used streams (one per job) stays light.
BLOCK = 8192
FIRST_BLOCK = 128


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

    def __init__(self, sequence: np.random.SeedSequence) -> None:
        self._sequence = sequence

    def generator(self, k: int) -> np.random.Generator:
        child = np.random.SeedSequence(self._sequence.entropy,
                                       spawn_key=tuple(self._sequence.spawn_key) + (int(k),))
        return generator(child)

    def draws(self, k: int, mean: float, scv: float) -> "Draws":
        return Draws(self.generator(k), mean, scv)


class Draws:
    """Samples of one distribution (mean, scv), read one at a time from a numpy generator.

    Drawing :data:`BLOCK` values per numpy call and handing out Python floats
    keeps the per-event cost near a list read, which matters at millions of
    events per replication.
    """

    __slots__ = ("_rng", "mean", "scv", "_constant", "_buffer", "_next", "_size")

    def __init__(self, rng: np.random.Generator, mean: float, scv: float) -> None:
        if not (math.isfinite(mean) and mean >= 0):
            raise ValueError(f"mean must be finite and >= 0, got {mean}")
        if not (math.isfinite(scv) and scv >= 0):
            raise ValueError(f"scv must be finite and >= 0, got {scv}")
        self._rng = rng
        self.mean = float(mean)
        self.scv = float(scv)
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
        if self.scv == 1.0:
            block = self._rng.exponential(self.mean, self._size)
        else:
            block = self._rng.gamma(1.0 / self.scv, self.mean * self.scv, self._size)
        self._buffer = block.tolist()
        self._next = 0

    def __call__(self) -> float:
        if self._constant:
            return self.mean
        if self._next == len(self._buffer):
            self._refill()
        value = self._buffer[self._next]
        self._next += 1
        return value
