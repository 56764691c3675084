"""Whole-number parameters fitted by profile likelihood (a device's parallel units).

A count (units, servers, lanes) is not a continuous parameter: rounding a
fitted float hides how sure the data are of it. Instead every candidate
count is tried, the continuous parameters fitted at each (the profile), and
the count with the smallest residual sum of squares kept. With Gaussian
errors of unknown variance the likelihood ratio of count C against the best
is::

    LR(C) = n ln(RSS(C) / RSS_min)

and the 95 % set of plausible counts is {C : LR(C) <= chi-square(1, 0.95) =
3.841} (Wilks; the profile-likelihood interval of one parameter). n is the
number of measured *rows*: a row's mean latency and IOPS are tied by
Little's law (N = X R), one measurement seen twice, so counting both
columns would halve the set's width. The continuous parameters' intervals
are those of the fit at the best count (conditional on it).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, Sequence

from iosizer.calibration.fit import FitResult, Parameter
from iosizer.errors import CalibrationError

#: chi-square(1) 0.95 quantile (scipy.stats.chi2.ppf(0.95, 1)).
CHI2_95_1 = 3.841458820694124


def plausible_counts(costs: dict[int, float], rows: int) -> list[int]:
    """Counts whose likelihood ratio against the best stays within :data:`CHI2_95_1`."""
    best = min(costs.values())
    if best <= 0.0:  # an exact fit: only the counts that fit exactly
        return sorted(c for c, cost in costs.items() if cost <= 0.0)
    return sorted(c for c, cost in costs.items() if rows * math.log(cost / best) <= CHI2_95_1)


def fit_whole(run: Callable[[Sequence[Parameter]], FitResult],
              parameters_at: Callable[[int], Sequence[Parameter]],
              name: str, candidates: Sequence[int], rows: int) -> FitResult:
    """Fit at every candidate count of ``name``; the best fit, with ``name`` reported as fitted.

    ``run(parameters)`` is one least-squares fit; ``parameters_at(count)``
    the parameters with ``name`` held at ``count``. The result's interval of
    ``name`` spans its plausible counts, listed in a note among the warnings.
    """
    results: dict[int, FitResult] = {}
    failures: list[str] = []
    for count in candidates:
        try:
            results[count] = run(parameters_at(count))
        except CalibrationError as error:
            failures.append(f"{count}: {error}")
    if not results:
        raise CalibrationError(f"no count of '{name}' could be fitted ({failures[0] if failures else 'none tried'})")
    costs = {c: r.cost for c, r in results.items()}
    best = min(costs, key=costs.__getitem__)
    plausible = plausible_counts(costs, rows)
    result = results[best]
    parameters = tuple(replace(p, vary=True) if p.name == name else p for p in result.parameters)
    intervals = {**result.intervals, name: (float(min(plausible)), float(max(plausible)))}
    listed = _ranges(plausible)
    note = (f"'{name}' {best}: 95 % plausible counts {listed} of {min(candidates)}-{max(candidates)} tried "
            f"(profile likelihood, {rows} rows: n ln(RSS_C / RSS_min) <= {CHI2_95_1:.2f}); the other "
            f"intervals hold it at {best}")
    warnings = [note]
    if max(plausible) == max(candidates) and len(candidates) > 1:
        warnings.append(f"'{name}' may be {max(candidates)} or more: the data never saturate the device "
                        "(more units than the deepest load point cannot be told apart)")
    return replace(result, parameters=parameters, intervals=intervals,
                   warnings=tuple(warnings) + result.warnings)


def _ranges(counts: list[int]) -> str:
    """1, 2, 3, 5 -> '1-3, 5'."""
    parts: list[str] = []
    start = previous = counts[0]
    for c in counts[1:] + [None]:  # type: ignore[list-item]
        if c is not None and c == previous + 1:
            previous = c
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if c is not None:
            start = previous = c
    return ", ".join(parts)
