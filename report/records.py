"""The records of ``iosizer report``: one :class:`Check` per published number, and how it is judged.

A published number is met when the model's value falls in its accepted band
(:func:`accepted_band`), read from the measurement CSV's own wording: an
exact printed value to half a unit of its last printed digit; ``approx``
within the row's ``approx_pct`` (the transcriber's band); ``le``/``lt`` upper
bounds, ``ge`` lower bounds; ``approx_under`` "a little under" is
``[v (1 - p), v]``, ``approx_over`` ``[v, v (1 + p)]``; ``max`` (the largest
value observed) is met like an exact value by the model's largest value over
the same cases. A check may carry its own band only with a stated reason;
every record carries its reason.

A qualitative statement ("LPAR1 falls") is a record too: the number the
verdict rests on, the verdict, and how the statement was read as a test.

Expected misses: a check marked ``expected_miss="reason"`` that falls outside
its band is listed with the reason, counted apart, neither a pass nor a
failure for ``--check``; inside its band it is a plain pass and the note says
the mark is stale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from iosizer.calibration.shipped import read_measurement

#: Statuses of a record. Only ``fail`` and ``not_covered`` fail ``--check``.
PASS, FAIL, EXPECTED_MISS = "pass", "fail", "expected_miss"
NOT_MODELLED, NOT_COVERED, NO_PROVIDER = "not_modelled", "not_covered", "no_provider"
CHECKED = (PASS, FAIL, EXPECTED_MISS)
FAILING = (FAIL, NOT_COVERED)

#: What a checked number is to the model (``Check.kind``): ``prediction`` (the
#: model computed it from other inputs), ``fit_input`` (the number was used to
#: calibrate the shipped profile, so it is met by construction or by the fit)
#: or ``configuration`` (a stated setup value the model takes as an input).
PREDICTION, FIT_INPUT, CONFIGURATION = "prediction", "fit_input", "configuration"
KINDS = (PREDICTION, FIT_INPUT, CONFIGURATION)


#: Absolute band for approximate zeros ("not affected", "no loss"): the CSV
#: gives no relative tolerance for them (a relative band of 0 is empty).
ZERO_BAND_PCT_POINTS = 1.0


@dataclass
class Check:
    """One published number against the model (or a row with no model counterpart)."""

    seed: str
    file: str
    line: int | None
    figure: str
    quantity: str
    unit: str
    published: float | None
    published_text: str
    relation: str | None
    model: float | None
    accepted_low: float | None
    accepted_high: float | None
    tolerance: float | None
    tolerance_reason: str
    source: str
    note: str
    status: str
    expected_miss_reason: str | None = None
    #: prediction, fit_input or configuration (see :data:`KINDS`); None for rows with no model value.
    kind: str | None = None

    @property
    def difference(self) -> float | None:
        if self.model is None or self.published is None:
            return None
        return self.model - self.published

    @property
    def within(self) -> bool | None:
        return None if self.status not in CHECKED else self.status == PASS

    def to_dict(self) -> dict[str, Any]:
        return {
            "figure": self.figure, "quantity": self.quantity, "published": self.published,
            "model": self.model, "difference": self.difference, "tolerance": self.tolerance,
            "within": self.within, "source": self.source, "note": self.note,
            "status": self.status, "relation": self.relation, "unit": self.unit,
            "published_text": self.published_text, "accepted_low": self.accepted_low,
            "accepted_high": self.accepted_high, "tolerance_reason": self.tolerance_reason,
            "expected_miss_reason": self.expected_miss_reason, "file": self.file, "line": self.line,
            "kind": self.kind,
        }


@dataclass
class ChartSeries:
    """A curve, points or band; the field names match :class:`iosizer.cli.output.Series`."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    kind: str = "line"
    y_high: Sequence[float] | None = None


@dataclass
class ChartPanel:
    """One subplot; the field names match :class:`iosizer.cli.output.Panel`."""

    x_label: str
    y_label: str
    series: list[ChartSeries]
    title: str = ""


@dataclass
class Chart:
    """One picture of the report: ``name`` becomes ``NAME.png``."""

    name: str
    title: str
    panels: list[ChartPanel]


@dataclass
class Provided:
    checks: list[Check]
    charts: list[Chart] = field(default_factory=list)


@dataclass
class Band:
    low: float | None
    high: float | None
    tolerance: float
    reason: str


def _resolution(text: str) -> float:
    """Half a unit of the last printed digit: '75.7' -> 0.05, '13' -> 0.5."""
    digits = text.strip().partition(".")[2]
    return 0.5 * 10.0 ** -len(digits)


def accepted_band(
    text: str, relation: str, approx_pct: str = "", value_max: str = "", zero_band: float | None = None,
) -> Band:
    """The interval a model value must fall in to reproduce a published number.

    ``relation`` as in the measurement CSVs (README): eq, approx, le, lt, ge,
    max, approx_under, approx_over, range.
    """
    value = float(text)
    r = _resolution(text)
    p = float(approx_pct) / 100.0 if approx_pct.strip() else None
    if relation in ("eq", "max"):
        what = "largest value observed (高々/最大): the model's largest over the same cases, " if relation == "max" \
            else "exact printed value: "
        return Band(value - r, value + r, r, f"{what}± half a unit of the last printed digit ({r:g})")
    if relation in ("le", "lt"):
        word = "at most" if relation == "le" else "under"
        return Band(None, value + r, r, f"upper bound ({word} {text}): model ≤ {text} + rounding of the printed digit ({r:g})")
    if relation == "ge" and p is not None:
        return Band(value * (1 - p), None, value * p,
                    f"lower bound (at least about {text}): model ≥ {text} - {approx_pct} % (the transcriber's band)")
    if relation == "ge":
        return Band(value - r, None, r, f"lower bound (at least {text}) - rounding of the printed digit ({r:g})")
    if relation == "range":
        return Band(value, float(value_max), 0.0, f"stated range {text}..{value_max}")
    if value == 0 and p is None:
        if zero_band is None:
            raise ValueError("an approximate zero needs an absolute band")
        return Band(-zero_band, zero_band, zero_band,
                    f"approximate zero read from a qualitative statement: absolute ±{zero_band:g} "
                    "(the CSV gives no relative band for zero)")
    if p is None:
        raise ValueError(f"approximate value {text} ({relation}) has no approx_pct")
    if relation == "approx":
        return Band(value * (1 - p), value * (1 + p), value * p,
                    f"'about {text}' (程度/約): ± {approx_pct} % (the transcriber's band)")
    if relation == "approx_under":
        return Band(value * (1 - p), value, value * p,
                    f"'a little under {text}' (弱): {text} - {approx_pct} % .. {text}")
    if relation == "approx_over":
        return Band(value, value * (1 + p), value * p,
                    f"'a little over {text}' (強): {text} .. {text} + {approx_pct} %")
    raise ValueError(f"unknown relation '{relation}'")


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


class Collector:
    """What a provider fills in: checks, not-modelled rows and charts of one seed."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.checks: list[Check] = []
        self.charts: list[Chart] = []

    @staticmethod
    def rows(name: str) -> list[tuple[int, dict[str, str]]]:
        """Rows of a shipped measurement with their CSV line numbers (header = line 1)."""
        return [(i + 2, row) for i, row in enumerate(read_measurement(name))]

    def check(
        self, file: str, line: int, row: dict[str, str], *, figure: str, quantity: str, unit: str,
        model: float, column: str, relation: str | None = None, band: Band | None = None,
        zero_band: float | None = None, expected_miss: str | None = None, note: str = "",
        kind: str,
    ) -> Check:
        """Check ``row[column]`` against ``model``; the band from the row unless given.

        ``kind`` (:data:`KINDS`) is stated by every provider: whether a number was a fit input is the
        provider's knowledge, never inferred from the wording of its note.
        """
        text = row[column]
        exact = row.get("exact", "true").strip().lower() == "true"
        relation = relation or row.get("relation") or ("eq" if exact else "approx")
        if band is None:
            band = accepted_band(text, relation, row.get("approx_pct", ""), row.get("value_max", ""), zero_band)
        model = float(model)
        within = math.isfinite(model) and (band.low is None or model >= band.low) and (
            band.high is None or model <= band.high)
        if within and expected_miss:
            note = (note + "; " if note else "") + "marked as an expected miss but passes: drop the mark"
        status = PASS if within else (EXPECTED_MISS if expected_miss else FAIL)
        record = Check(self.seed, file, line, figure, quantity, unit, _number(text), text, relation, model,
                       band.low, band.high, band.tolerance, band.reason, row.get("source", ""), note, status,
                       expected_miss, _checked_kind(kind))
        self.checks.append(record)
        return record

    def statement(
        self, file: str, line: int, row: dict[str, str], *, figure: str, claim: str, quantity: str, unit: str,
        model: float, holds: bool, criterion: str, expected_miss: str | None = None, note: str = "",
        kind: str,
    ) -> Check:
        """A published qualitative statement ("LPAR1 falls", "B has the best low-load response").

        ``model`` is the number the verdict rests on, ``holds`` the verdict and
        ``criterion`` how the statement was read as a test on that number.
        """
        model = float(model)
        holds = bool(holds) and math.isfinite(model)
        if holds and expected_miss:
            note = (note + "; " if note else "") + "marked as an expected miss but passes: drop the mark"
        status = PASS if holds else (EXPECTED_MISS if expected_miss else FAIL)
        record = Check(self.seed, file, line, figure, quantity, unit, None, claim, "statement", model, None, None,
                       None, criterion, row.get("source", ""), note, status, expected_miss,
                       _checked_kind(kind))
        self.checks.append(record)
        return record

    def not_modelled(self, file: str, line: int, row: dict[str, str], reason: str, *, figure: str = "",
                     quantity: str = "", column: str = "value") -> None:
        """A published row with no model counterpart, and why."""
        text = row.get(column, "")
        self.checks.append(Check(
            self.seed, file, line, figure or file, quantity or _row_key(row), row.get("unit", ""),
            _number(text), text, row.get("relation"), None, None, None, None, "", row.get("source", ""),
            reason, NOT_MODELLED))

    def chart(self, name: str, title: str, panels: list[ChartPanel]) -> None:
        self.charts.append(Chart(name, title, panels))

    def provided(self) -> Provided:
        return Provided(self.checks, self.charts)


def _checked_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"check kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return kind


def _row_key(row: dict[str, str]) -> str:
    """The row's own name: its first column (item, fact, parameter, case...)."""
    return str(next(iter(row.values()), "")) if row else ""

