"""Published figures as data: each seed's checks are the rows of ``report/figures/SEED.toml``.

A seed's table has one ``[[file]]`` block per measurement file (``name``)
and in it one ``[[file.check]]`` per published number or statement (keys
it does not give come from the block's ``defaults``):

- ``where``: the CSV rows it applies to (column = text; all rows if absent);
- ``question`` and ``inputs``: what answers it (:mod:`iosizer.report.answers`),
  its inputs read from the CSV row where the CSV has them (``"{column}"``);
- ``output``: the output compared (a name, or ``["ratio"|"difference", a, b]``);
- ``column`` (the published number) with the relation and band of
  :func:`iosizer.report.records.accepted_band`, unless ``relation``,
  ``zero_band`` or ``band`` (``{low, high, tolerance, reason}``, or
  ``{rule = NAME}`` for a band computed from the row) say otherwise;
  or, for a statement that is not a number, ``claim``, ``holds`` (named
  predicates on outputs, all of which must hold: :data:`PREDICATES`) and
  ``criterion``;
- ``kind`` (prediction, fit_input, configuration), ``figure``, ``quantity``,
  ``unit``, ``note`` and ``expected_miss`` (the reason).

A seed's ``[texts]`` are templates several checks quote (``{name}``).
Rows of a block no check matches are listed as not modelled with the
block's ``otherwise`` reason. Records come out row by row, each row's checks
in their order. Texts are templates over the CSV row and the outputs
(``{name:.1f}``; a list is formatted item by item and joined with ', ').

The tables live beside this module, not in ``data/``: a row names an
evaluator, a predicate or a band rule of this package, so the table and the
vocabulary it is written in change together; ``data/measurements/`` keeps
only what the seeds publish.
"""

from __future__ import annotations

import string
from functools import lru_cache
from importlib.resources import files
from typing import Any, Callable

import numpy as np

from iosizer.report.answers import answer
from iosizer.report.records import Band, Collector, Provided, _row_key

FOLDER = "figures"


@lru_cache(maxsize=None)
def table(seed: str) -> dict[str, Any]:
    """The parsed and validated table of ``seed``."""
    import tomllib

    spec = tomllib.loads(files("iosizer.report").joinpath(FOLDER, f"{seed}.toml").read_text(encoding="utf-8"))
    validate(seed, spec)
    return spec


_TOP = {"charts", "texts", "file"}
_BLOCK = {"name", "otherwise", "otherwise_figure", "otherwise_quantity", "otherwise_column", "defaults", "check"}
_COMMON = {"where", "figure", "quantity", "unit", "question", "inputs", "output", "kind", "note", "expected_miss"}
_NUMBER = {"column", "relation", "zero_band", "band"}
_STATEMENT = {"claim", "holds", "criterion"}


def validate(seed: str, spec: dict[str, Any]) -> None:
    """Every key known, every name (file, question, predicate, band rule, chart, kind) one that exists:
    a typo fails here, naming the seed, the file and the key, instead of changing a check silently."""
    from iosizer.calibration.shipped import measurement_names
    from iosizer.report.answers import QUESTIONS
    from iosizer.report.charts import CHARTS
    from iosizer.report.records import KINDS

    def need(ok: bool, where: str, what: str) -> None:
        if not ok:
            raise ValueError(f"report table {seed}: {where}: {what}")

    need(set(spec) <= _TOP, "top level", f"unknown keys {sorted(set(spec) - _TOP)}")
    need(set(spec.get("charts", ())) <= set(CHARTS), "charts", f"unknown charts; known: {sorted(CHARTS)}")
    for block in spec.get("file", ()):
        name = block.get("name", "?")
        need(set(block) <= _BLOCK, name, f"unknown keys {sorted(set(block) - _BLOCK)}")
        need(name in measurement_names(), name, "no such measurement file")
        for i, given in enumerate(block.get("check", ()), 1):
            rule, where = {**block.get("defaults", {}), **given}, f"{name}, check {i}"
            statement = "holds" in rule
            allowed = _COMMON | (_STATEMENT if statement else _NUMBER)
            need(set(rule) <= allowed, where, f"unknown keys {sorted(set(rule) - allowed)}")
            required = {"figure", "quantity", "question", "output", "kind"} | (_STATEMENT if statement else {"column"})
            need(required <= set(rule), where, f"missing {sorted(required - set(rule))}")
            asked = [rule["question"]] if isinstance(rule["question"], str) else rule["question"]
            need(set(asked) <= set(QUESTIONS), where, f"unknown question in {asked}")
            need(rule["kind"] in KINDS, where, f"kind must be one of {', '.join(KINDS)}")
            need(all(call[0] in PREDICATES for call in rule.get("holds", ())), where,
                 f"unknown predicate; known: {sorted(PREDICATES)}")
            band = rule.get("band")
            need(not isinstance(band, dict) or "rule" not in band or band["rule"] in BAND_RULES, where,
                 f"unknown band rule; known: {sorted(BAND_RULES)}")


def seeds() -> list[str]:
    """Seeds with a table, in order."""
    return sorted(p.name[:-5] for p in files("iosizer.report").joinpath(FOLDER).iterdir() if p.name.endswith(".toml"))


def provide(seed: str) -> Provided:
    """Every check of ``seed``'s table, with its charts."""
    from iosizer.report.charts import CHARTS

    spec = table(seed)
    out = Collector(seed)
    for block in spec["file"]:
        _file(out, block, spec.get("texts", {}))
    for name in spec.get("charts", ()):
        drawn = CHARTS[name]()
        out.charts.extend(drawn if isinstance(drawn, list) else [drawn])
    return out.provided()


def _file(out: Collector, block: dict[str, Any], texts: dict[str, str]) -> None:
    name = block["name"]
    for line, row in out.rows(name):
        defaults = block.get("defaults", {})
        matched = [{**defaults, **rule} for rule in block.get("check", ()) if _matches(rule, row)]
        for rule in matched:
            _check(out, name, line, row, rule, texts)
        if not matched and "otherwise" in block:
            out.not_modelled(name, line, row, block["otherwise"],
                             figure=fill(block.get("otherwise_figure", ""), row),
                             quantity=fill(block.get("otherwise_quantity", ""), row) or _row_key(row),
                             column=block.get("otherwise_column", "value"))


def _matches(rule: dict[str, Any], row: dict[str, str]) -> bool:
    """The row has every ``where`` column's text (or one of a list of texts)."""
    return all(row.get(column) in (map(str, text) if isinstance(text, list) else (str(text),))
               for column, text in rule.get("where", {}).items())


def _check(out: Collector, file: str, line: int, row: dict[str, str], rule: dict[str, Any],
           texts: dict[str, str]) -> None:
    inputs = {k: fill(v, row) if isinstance(v, str) else v for k, v in rule.get("inputs", {}).items()}
    asked = rule["question"]
    outputs = {k: v for name in ([asked] if isinstance(asked, str) else asked) for k, v in answer(name, inputs).items()}
    names = _Names(texts, {**outputs, **row})  # the published row names itself (its texts, not the model's numbers)
    model = _output(fill(rule["output"], row) if isinstance(rule["output"], str) else rule["output"], outputs)
    text = {key: fill(rule.get(key, ""), names) for key in ("figure", "quantity", "unit", "note")}
    miss = fill(rule["expected_miss"], names) if "expected_miss" in rule else None
    if "holds" in rule:
        holds = all(_predicate(call, outputs, row, model) for call in rule["holds"])
        out.statement(file, line, row, claim=fill(rule["claim"], names), model=model, holds=holds,
                      criterion=fill(rule["criterion"], names), expected_miss=miss, kind=rule["kind"], **text)
    else:
        relation = fill(rule["relation"], row) if "relation" in rule else None
        out.check(file, line, row, model=model, column=rule["column"], relation=relation,
                  band=_band(rule.get("band"), row, names), zero_band=rule.get("zero_band"), expected_miss=miss,
                  kind=rule["kind"], **text)


class _Names(dict[str, Any]):
    """Outputs and the row's columns; a seed's text is filled when a template quotes it."""

    def __init__(self, texts: dict[str, str], names: dict[str, Any]) -> None:
        super().__init__(names)
        self.texts = texts

    def __missing__(self, key: str) -> str:
        if key not in self.texts:
            raise KeyError(key)
        return fill(self.texts[key], self)


class _Formatter(string.Formatter):
    """str.format, but a list (or array) is formatted item by item when a format is given."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        if format_spec and isinstance(value, (list, tuple, np.ndarray)):
            return ", ".join(format(v, format_spec) for v in value)
        return super().format_field(value, format_spec)


_FORMAT = _Formatter()


def fill(template: str, names: dict[str, Any]) -> str:
    """``template`` with ``{name}`` fields from ``names`` (a CSV row, outputs)."""
    return _FORMAT.vformat(template, (), names)


def _output(spec: str | list[str], outputs: dict[str, Any]) -> Any:
    if isinstance(spec, str):
        return outputs[spec]
    operation, a, b = spec
    return {"ratio": lambda: outputs[a] / outputs[b], "difference": lambda: outputs[a] - outputs[b]}[operation]()


# -- statements that are not numbers ------------------------------------------------


def _all(values: Any) -> bool:
    return bool(np.all(values))


def _rising(values: Any) -> bool:
    """Strictly rising along the last axis (every row of a table)."""
    array = np.asarray(values, dtype=float)
    return _all(np.diff(array, axis=-1) > 0)


#: Named predicates of a statement's ``holds``: ``[name, a, b, ...]``; elementwise ones hold everywhere.
PREDICATES: dict[str, Callable[..., bool]] = {
    "below": lambda a, b: _all(np.asarray(a) < b),
    "above": lambda a, b: _all(np.asarray(a) > b),
    "at_most": lambda a, b, slack=0.0: _all(np.asarray(a) <= np.asarray(b) + slack),
    "at_least": lambda a, b: _all(np.asarray(a) >= b),
    "within": lambda a, b, tolerance: abs(a - b) <= tolerance,
    "apart": lambda a, b, distance: abs(a - b) >= distance,
    "equal": lambda a, b: a == b,
    "strictly_rising": _rising,
    "strictly_falling": lambda values: _rising(-np.asarray(values, dtype=float)),
}


def _predicate(call: list[Any], outputs: dict[str, Any], row: dict[str, str], model: Any) -> bool:
    """One named predicate; an argument is ``"model"`` (the statement's number), an output's name,
    a template over the row, or a number."""
    name, *args = call

    def value(arg: Any) -> Any:
        if not isinstance(arg, str):
            return arg
        return model if arg == "model" else outputs[arg] if arg in outputs else fill(arg, row)

    return bool(PREDICATES[name](*map(value, args)))


# -- bands a row computes ------------------------------------------------------------


def _measured_against_estimate(row: dict[str, str], points: float) -> Band:
    measured = float(row["measured_degradation_pct"])
    gap = abs(measured - float(row["estimated_degradation_pct"]))
    return Band(measured - points, measured + points, points,
                f"a measurement against the seed's own Little's-law estimate, which the model is; the seed's "
                f"estimate differs from its measurement by {gap:.1f} points: ±{points:g} points (issue 4's acceptance)")


def _over_and_same_run(row: dict[str, str], points: float) -> Band:
    """'10 % 強' (a little over 10) for the run table 4-1 measures: [10, that measurement + points]."""
    from iosizer.calibration.shipped import read_measurement

    same = next(r for r in read_measurement("seed000_table4_1_dma") if r["nic"] == row["nic"])
    measured, low = float(same["measured_degradation_pct"]), float(row["degradation_pct"])
    return Band(low, measured + points, points,
                f"'{low:g} % 強' (over {low:g}) and the same run's table 4-1 measurement {measured:g} % (+-{points:g} "
                f"points, as table 4-1): [{low:g}, {measured + points:g}]; the transcribed [{low:g}, "
                f"{low * (1 + float(row['approx_pct']) / 100):g}] excluded {measured:g}")


def _tiers_within(row: dict[str, str]) -> Band:
    tiers = int(row["tiers"])
    if row["within_5pct"] == "true":
        return Band(tiers, None, 0.0, f"'within 5 %' at {tiers} tiers: planner's answer ≥ {tiers}")
    return Band(None, tiers - 1, 0.0, f"'over 5 %' at {tiers} tiers: planner's answer < {tiers}")


def _range_with_digits(row: dict[str, str], resolution: float) -> Band:
    return Band(float(row["gain_pct"]) - resolution, float(row["gain_pct_max"]) + resolution, resolution,
                f"stated range {row['gain_pct']}~{row['gain_pct_max']} % '程度' (about): the range ± half a unit "
                "of its printed digits")


#: Bands computed from the CSV row: ``band = {rule = NAME, ...arguments}``.
BAND_RULES: dict[str, Callable[..., Band]] = {
    "measured_against_estimate": _measured_against_estimate,
    "over_and_same_run": _over_and_same_run,
    "tiers_within": _tiers_within,
    "range_with_digits": _range_with_digits,
}


def _band(spec: dict[str, Any] | None, row: dict[str, str], names: dict[str, Any]) -> Band | None:
    if spec is None:
        return None
    if "rule" in spec:
        return BAND_RULES[spec["rule"]](row, **{k: v for k, v in spec.items() if k != "rule"})
    return Band(spec.get("low"), spec.get("high"), spec["tolerance"], fill(spec["reason"], names))
