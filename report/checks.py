"""Every model family against every published figure: the checks behind ``iosizer report``.

Each shipped measurement file ``data/measurements/seedNNN_*.csv`` belongs to
a seed, and each seed's checks are data: the rows of its table
``report/figures/SEED.toml`` (:mod:`iosizer.report.table`), answered by the
families' library functions with their shipped, calibrated profiles
(:mod:`iosizer.report.answers`; no model value is typed in), judged by the
bands of :mod:`iosizer.report.records`. Every CSV row must be accounted for:
checked, or listed as "not modelled" with the reason. A row no record
mentions is reported as ``not_covered`` (a failure), and a seed with no
provider lists its files as ``no_provider``, so nothing is silently dropped.

A provider is a function of no arguments returning :class:`Provided`;
:data:`PROVIDERS` holds one per seed with a table (adding a seed is adding
its table).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

from iosizer.calibration.shipped import measurement_names
from iosizer.report import table
from iosizer.report.records import (CHECKED, CONFIGURATION, EXPECTED_MISS, FAIL, FAILING, FIT_INPUT, KINDS,
                                    NO_PROVIDER, NOT_COVERED, NOT_MODELLED, PASS, PREDICTION,
                                    ZERO_BAND_PCT_POINTS, Band, Chart, ChartPanel, ChartSeries, Check, Collector,
                                    Provided, _row_key, accepted_band)

__all__ = ["CHECKED", "CONFIGURATION", "EXPECTED_MISS", "FAIL", "FAILING", "FIT_INPUT", "KINDS", "NO_PROVIDER",
           "NOT_COVERED", "NOT_MODELLED", "PASS", "PREDICTION", "PROVIDERS", "ZERO_BAND_PCT_POINTS", "Band",
           "Chart", "ChartPanel", "ChartSeries", "Check", "Collector", "FullReport", "Provided", "SeedReport",
           "accepted_band", "run_report", "run_seed", "seed_files", "seed_names"]

#: One provider per seed: its table's checks (:func:`iosizer.report.table.provide`).
PROVIDERS: dict[str, Callable[[], Provided]] = {seed: partial(table.provide, seed) for seed in table.seeds()}


@dataclass
class SeedReport:
    seed: str
    checks: list[Check]
    charts: list[Chart]
    has_provider: bool

    def count(self, *statuses: str) -> int:
        return sum(1 for c in self.checks if c.status in statuses)

    @property
    def passed(self) -> int:
        return self.count(PASS)

    @property
    def total(self) -> int:
        return self.count(*CHECKED)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.status in FAILING]

    def kinds(self) -> dict[str, dict[str, int]]:
        """Per kind: checks that pass, checked in all, and expected misses."""
        return _kind_counts(self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed, "provider": self.has_provider, "passed": self.passed, "total": self.total,
            "kinds": self.kinds(),
            "failed": len(self.failures), "expected_misses": self.count(EXPECTED_MISS),
            "not_modelled": self.count(NOT_MODELLED), "no_provider": self.count(NO_PROVIDER),
            "failures": [f"{c.figure}: {c.quantity}" for c in self.failures],
            "checks": [c.to_dict() for c in self.checks],
        }


def _kind_counts(checks: Sequence[Check]) -> dict[str, dict[str, int]]:
    counts = {kind: {"passed": 0, "total": 0, "expected_misses": 0} for kind in KINDS}
    for c in checks:
        if c.status in CHECKED and c.kind in counts:
            counts[c.kind]["total"] += 1
            counts[c.kind]["passed"] += c.status == PASS
            counts[c.kind]["expected_misses"] += c.status == EXPECTED_MISS
    return counts


def seed_names() -> list[str]:
    """Seeds with shipped measurement files, in order."""
    return sorted({name.split("_", 1)[0] for name in measurement_names()})


def seed_files(seed: str) -> list[str]:
    return [name for name in measurement_names() if name.split("_", 1)[0] == seed]


def run_seed(seed: str, providers: dict[str, Callable[[], Provided]] | None = None) -> SeedReport:
    """Run ``seed``'s provider and account for every row of its files.

    A provider that raises is recorded as one failed check naming the error,
    so the rest of the report still renders and ``--check`` fails.
    """
    providers = PROVIDERS if providers is None else providers
    files = seed_files(seed)
    provider = providers.get(seed)
    if provider is None:
        return SeedReport(seed, [
            Check(seed, name, None, name, "", "", None, "", None, None, None, None, None, "", name,
                  "no provider yet: this seed's models are not in the report", NO_PROVIDER)
            for name in files], [], False)
    try:
        provided = provider()
    except Exception as error:  # noqa: BLE001 - a broken provider is a failed check, not a crash
        return SeedReport(seed, [Check(
            seed, "", None, f"{seed} provider", "provider", "", None, "", None, None, None, None, None, "",
            "", f"provider raised {type(error).__name__}: {error}", FAIL)], [], True)
    checks = list(provided.checks)
    covered = {(c.file, c.line) for c in checks}
    for name in files:
        for line, row in Collector.rows(name):
            if (name, line) not in covered:
                checks.append(Check(seed, name, line, name, _row_key(row), "", None, "", row.get("relation"), None,
                                    None, None, None, "", row.get("source", ""),
                                    "row neither checked nor listed as not modelled by the provider",
                                    NOT_COVERED))
    return SeedReport(seed, checks, provided.charts, True)


@dataclass
class FullReport:
    seeds: list[SeedReport]

    @property
    def passed(self) -> int:
        return sum(s.passed for s in self.seeds)

    @property
    def failed(self) -> int:
        return sum(len(s.failures) for s in self.seeds)

    def count(self, status: str) -> int:
        return sum(s.count(status) for s in self.seeds)

    def kinds(self) -> dict[str, dict[str, int]]:
        """Per kind over every seed: checks that pass, checked in all, expected misses."""
        return _kind_counts([c for s in self.seeds for c in s.checks])

    def to_dict(self, output_dir: str | None = None) -> dict[str, Any]:
        return {
            "seeds": [s.to_dict() for s in self.seeds],
            "kinds": self.kinds(),
            "passed": self.passed, "failed": self.failed, "expected_misses": self.count(EXPECTED_MISS),
            "not_modelled": self.count(NOT_MODELLED), "no_provider": self.count(NO_PROVIDER),
            "output_dir": output_dir,
        }


def run_report(providers: dict[str, Callable[[], Provided]] | None = None) -> FullReport:
    """Every seed's checks (see :func:`run_seed`)."""
    return FullReport([run_seed(seed, providers) for seed in seed_names()])
