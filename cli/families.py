"""``iosizer params FAMILY`` and ``iosizer families``: what the family registry declares."""

from __future__ import annotations

from typing import Annotated

import typer

from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, Report, emit

#: The keys of ``iosizer params --format json`` (the contract), then the extras.
PARAM_KEYS = ("name", "unit", "value", "status", "source")


def params(
    family: Annotated[str, typer.Argument(help="A family name (see 'iosizer families').")],
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Every parameter of a family: unit, shipped value, status (published, derived, assumed, fitted) and source."""
    import iosizer

    chosen = iosizer.family(family)
    rows = [{key: spec.to_dict()[key] for key in PARAM_KEYS}
            | {"bounds": list(spec.bounds), "kind": spec.kind, "cpu_scaling": spec.cpu_scaling.value}
            for spec in chosen.parameters]
    emit(Report(
        data=rows,
        rows=rows,
        columns=("name", "unit", "value", "status", "kind", "source"),
        title=f"{chosen.name}: {chosen.summary}",
        notes=[f"formula: {chosen.formula}", f"service time: {chosen.service_time}",
               "fitted values are the shipped calibration's (iosizer calibrate fits your own)"],
    ), output_format)


def families(output_format: FormatOption = OutputFormat.table) -> None:
    """Every model family: what it models, its source and its data columns."""
    import iosizer

    rows = []
    for name in iosizer.families():
        chosen = iosizer.family(name)
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
    emit(Report(data=rows, rows=table, columns=("family", "summary", "inputs", "outputs", "calibratable"),
                title="Model families (iosizer params FAMILY lists each one's numbers and its formula)"),
         output_format)
