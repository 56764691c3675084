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
span their 95 % intervals at every plausible count (the union), so the
count's uncertainty is in them; their covariance (the bands of a what-if)
is the best count's.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, Sequence

from iosizer.calibration.fit import FitResult, Parameter
from iosizer.errors import CalibrationError

class SearchStopped(CalibrationError):
    """The search ran out of its time: no count after it is tried (the fit is refused, not cut short)."""


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
    """The best fit over the counts ``candidates`` of ``name``, with ``name`` reported as fitted.

    ``run(parameters)`` is one least-squares fit; ``parameters_at(count)``
    the parameters with ``name`` held at ``count``. Not every count is fitted
    (:func:`_search`): a coarse geometric grid, every count around the best,
    then outwards from it until the likelihood ratio passes the cut on each
    side. The result's interval of ``name`` spans its plausible counts,
    listed in a note among the warnings.
    """
    results: dict[int, FitResult] = {}
    failures: list[str] = []

    def cost(count: int) -> float:
        if count not in results:
            try:
                results[count] = run(parameters_at(count))
            except SearchStopped:
                raise
            except CalibrationError as error:
                failures.append(f"{count}: {error}")
                return math.inf
        return results[count].cost

    low, high = int(min(candidates)), int(max(candidates))
    costs = _search(cost, low, high, rows)
    if not results:
        raise CalibrationError(f"no count of '{name}' could be fitted ({failures[0] if failures else 'none tried'})")
    finite = {c: v for c, v in costs.items() if math.isfinite(v)}
    best = min(finite, key=finite.__getitem__)
    plausible = plausible_counts(finite, rows)
    result = results[best]
    parameters = tuple(replace(p, vary=True) if p.name == name else p for p in result.parameters)
    intervals = dict(result.intervals)
    for other in result.free:  # every plausible count's interval: the count's own uncertainty included
        ends = [results[c].intervals[other] for c in plausible]
        intervals[other] = (min(e[0] for e in ends), max(e[1] for e in ends))
    intervals[name] = (float(min(plausible)), float(max(plausible)))
    note = (f"'{name}' {best}: 95 % plausible counts {_ranges(plausible)} of {low}-{high} "
            f"(profile likelihood over {len(finite)} fitted counts, {rows} rows: n ln(RSS_C / RSS_min) <= "
            f"{CHI2_95_1:.2f}); the other parameters' intervals span their fits at every plausible count")
    warnings = [note]
    if max(plausible) == high and high > low:
        warnings.append(f"'{name}' may be {high} or more: the data never saturate the device "
                        "(more units than the deepest load point cannot be told apart)")
    return replace(result, parameters=parameters, intervals=intervals,
                   warnings=tuple(warnings) + result.warnings)


def _search(cost: Callable[[int], float], low: int, high: int, rows: int) -> dict[int, float]:
    """Costs of the counts needed to find the best and the edges of the plausible set.

    A geometric grid (ratio about 1.25) over [low, high]; every count between
    the best's grid neighbours (repeated while the best moves); then each
    side stepped outwards from the outermost plausible count until one falls
    past the cut. A profile with a second, narrow minimum between two grid
    points far from the first could be missed: the grid is fine enough for
    the smooth profiles of a device's units.
    """
    grid = {low, high}
    value = float(low)
    while value < high:
        grid.add(int(round(value)))
        value = max(value * 1.25, value + 1)
    costs = {c: cost(c) for c in sorted(grid)}

    def best() -> int:
        return min(costs, key=costs.__getitem__)

    while True:  # fill every count around the best until it stops moving
        centre = best()
        known = sorted(costs)
        i = known.index(centre)
        left, right = known[max(i - 1, 0)], known[min(i + 1, len(known) - 1)]
        missing = [c for c in range(left, right + 1) if c not in costs]
        if not missing:
            break
        costs.update({c: cost(c) for c in missing})
    top = costs[best()]

    def plausible(c: int) -> bool:
        return math.isfinite(costs[c]) and (top <= 0 and costs[c] <= 0
                                            or top > 0 and rows * math.log(costs[c] / top) <= CHI2_95_1)

    for step in (-1, 1):  # the plausible set's edges, and every count between them
        inside = [c for c in costs if plausible(c)]
        c = min(inside) if step < 0 else max(inside)
        while low <= c + step <= high:
            c += step
            if c not in costs:
                costs[c] = cost(c)
            if not plausible(c):
                break
    inside = [c for c in costs if plausible(c)]
    for c in range(min(inside), max(inside) + 1):
        if c not in costs:
            costs[c] = cost(c)
    return costs


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
