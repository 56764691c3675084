"""The tool commands' work: what ``iosizer families``, ``params``, ``datasets``, ``extrapolate`` and ``run``
answer.

Each function returns the :class:`~iosizer.frames.Report` the CLI renders
(``--format json`` prints its ``data``), the server answers and
:func:`iosizer.ask` parses; :mod:`iosizer.commands` declares each one's
fields. Values come validated (by the request model or the command line).
"""

from __future__ import annotations

from pathlib import Path

from iosizer.frames import Report

#: The keys of ``iosizer params --format json`` (the contract), then the extras.
PARAM_KEYS = ("name", "unit", "value", "status", "source")


def families() -> Report:
    """Every model family: what it models, its source and its data columns."""
    from iosizer.api import families as names
    from iosizer.api import family

    rows = []
    for name in names():
        chosen = family(name)
        rows.append({
            "family": name,
            "summary": chosen.summary,
            "source": chosen.source,
            "inputs": [c.name for c in chosen.columns.inputs],
            "outputs": [c.name for c in chosen.columns.outputs],
            "calibratable": chosen.declaration.fit is not None,
            "formula": chosen.formula,
            "service_time": chosen.service_time,
        })
    table = [r | {"inputs": ", ".join(r["inputs"]), "outputs": ", ".join(r["outputs"])} for r in rows]
    return Report(data=rows, rows=table, columns=("family", "summary", "inputs", "outputs", "calibratable"),
                  title="Model families (iosizer params FAMILY lists each one's numbers and its formula)")


def params(family: str) -> Report:
    """Every parameter of a family: unit, shipped value, status (published, derived, assumed, fitted) and source."""
    from iosizer.api import family as named

    chosen = named(family)
    rows = [{key: spec.to_dict()[key] for key in PARAM_KEYS}
            | {"bounds": list(spec.bounds), "kind": spec.kind, "cpu_scaling": spec.cpu_scaling.value}
            for spec in chosen.parameters]
    return Report(
        data=rows,
        rows=rows,
        columns=("name", "unit", "value", "status", "kind", "source"),
        title=f"{chosen.name}: {chosen.summary}",
        notes=[f"formula: {chosen.formula}", f"service time: {chosen.service_time}",
               "fitted values are the shipped calibration's (iosizer calibrate fits your own)"],
    )


def datasets() -> Report:
    """List the shipped measurement files (every figure the seeds publish) and their sources."""
    from iosizer.calibration.shipped import measurement_files

    rows = [
        {
            "dataset": f.name,
            "rows": f.rows,
            "exact": f.exact_rows,
            "approximate": f.rows - f.exact_rows,
            "seed": " ".join(f.seeds),
            "where": "; ".join(f.places),
        }
        for f in measurement_files()
    ]
    return Report(rows, rows, title="Shipped measurements (data/measurements)",
                  notes=["exact: from a table or stated in the text; approximate: read from a figure's description"])



def extrapolate(profiles: list[Path], cpu_speed: float, output: Path | None = None,
                cpu_name: str | None = None) -> Report:
    """Predict a profile for another CPU from profiles of one or more CPUs."""
    from iosizer.calibration.extrapolate import extrapolate as run
    from iosizer.calibration.profile import load_profile, profile_writer
    from iosizer.model.family import reject_repeats

    reject_repeats([path.resolve() for path in profiles], "PROFILES", [str(path) for path in profiles])
    loaded = [load_profile(path) for path in profiles]
    result = run(loaded, cpu_speed, cpu_name)
    rows = [
        {
            "parameter": p.name,
            "scaling": p.scaling,
            "value": p.value,
            "ci_low": p.ci_low,
            "ci_high": p.ci_high,
            "unit": p.unit,
            "exponent": p.exponent,
            "exponent_ci_low": p.exponent_ci[0] if p.exponent_ci else None,
            "exponent_ci_high": p.exponent_ci[1] if p.exponent_ci else None,
            "spread_low": p.assumption_spread[0] if p.assumption_spread else None,
            "spread_high": p.assumption_spread[1] if p.assumption_spread else None,
        }
        for p in result.parameters
    ]
    speeds = sorted({pr.cpu_speed for pr in loaded})
    notes = [f"from {len(loaded)} profile(s) at CPU speed(s) {', '.join(f'{s:g}' for s in speeds)}"]
    if len(speeds) == 1:
        notes.append(
            "one CPU only: power-law parameters span their declared bounding exponents "
            "(spread_low..spread_high), widened by the fit interval"
        )
    notes += [f"warning: {w}" for w in result.warnings]
    if output is not None:
        notes.append(f"profile written to {output}")
    document = {
        "warnings": list(result.warnings),
        "model": result.profile.model,
        "cpu_speed": cpu_speed,
        "cpu_name": cpu_name,
        "parameters": {r["parameter"]: {k: v for k, v in r.items() if k != "parameter"} for r in rows},
        "extrapolated_from": result.profile.extrapolated_from,
        "profile": str(output) if output is not None else None,
    }
    return Report(document, rows, title=f"Extrapolation of '{result.profile.model}' to CPU speed {cpu_speed:g}",
                  notes=notes, files=[(output, profile_writer(result.profile))] if output is not None else [])


#: Columns of ``iosizer run``'s table; ``ci_low`` and ``ci_high`` come after value when some answer has a band.
RUN_COLUMNS = ["family", "question", "value", "unit", "note"]
BAND_COLUMNS = ["ci_low", "ci_high"]


def run(scenario: str | None = None, list_examples: bool = False) -> Report:
    """Answer every question a scenario file's tables ask: [latency], [pcie], [hba], [loadshare], [replication].

    Keys carry their unit in their name (added_latency_ns, block_kib,
    budget_pct); an unknown key, a value of the wrong type or unit, a
    malformed file or a missing one is a one-line error (exit 2). A bare name
    that is not a file is looked up among the shipped examples. Any table may
    name profile = "my.json" (from 'iosizer calibrate', relative to the
    scenario's folder; a list where the table answers from two families:
    [latency] oltp and dma, [pcie] rmw and pcie-link) and cpu_speed = 1.3
    (as --cpu-speed): its answers then carry 95 % bands, ci_low and ci_high.
    JSON: name, description, source, answers (family, question, value, unit,
    note, ci_low, ci_high) and, with a profile or cpu_speed, notes; CSV: one
    row per answer (ci_low and ci_high only when some answer has a band).
    """
    from iosizer.errors import InputError
    from iosizer.report.scenario import example_names, run_scenario

    if list_examples:
        rows = [{"example": name} for name in example_names()]
        return Report(rows, rows, title="Shipped example scenarios (iosizer run NAME)")
    if scenario is None:
        raise InputError("give a scenario file or a shipped example name (iosizer run --list)")
    result = run_scenario(scenario)
    rows = [a.to_dict() for a in result.answers]
    columns = RUN_COLUMNS[:3] + BAND_COLUMNS + RUN_COLUMNS[3:] if result.banded else RUN_COLUMNS
    return Report(result.to_dict(), rows, title=f"{result.name} ({result.source})", columns=columns,
                  notes=([result.description] if result.description else []) + result.notes)
