"""Tolerances and work limits shared by the MVA solvers."""

# Above this many single-server stations one numpy vector op per step beats
# Python list comprehensions (measured crossover: about 20 stations).
_NUMPY_MIN_STATIONS = 20
# Exact handling of c-server stations costs 2^L solves; past this, Seidmann.
_MAX_EXACT_MULTISERVER = 4
# Multi-class exact MVA visits prod(N_c + 1) population vectors.
_MAX_EXACT_VECTORS = 2_000_000
_AUTO_EXACT_VECTORS = 20_000

_BOUND_RTOL = 1e-9
_LITTLE_RTOL = 1e-9
_CONSERVATION_RTOL = 1e-8
