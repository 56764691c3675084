"""What the planner's page reads besides the command catalogue, per family.

``GET /api/catalogue`` lists the served commands and each family's questions.
The page is organised by family (my system, what if, compare, size), so it
also needs: a declared question's inputs, outputs and plot with their units
(to draw its answer with axes in the family's units), the family's
parameters, its sizing command and its simulation commands, and the unit
suffixes of names. Units, bounds and defaults come from the declarations
and :mod:`iosizer.units`, never from a list of the page's own.
"""

from __future__ import annotations

from typing import Any

__all__ = ["page_catalogue"]

#: Options of a sizing command that state the target (the one field the page asks for).
_TARGET_PREFIXES = ("target_", "budget_")


def _sizing_command(family: Any) -> str | None:
    """The command that sizes ``family``: the first its questions' declared sizing names (``size <family>``
    unless a sizing names its command), else another family's sizing command its declaration names
    (``Family.sizing_command``: dma is sized by oltp's ``size latency``)."""
    from iosizer.calibration.declared_sizing import sizing_command_names

    names = sizing_command_names(family)
    if names:
        return f"size {names[0]}"
    return family.sizing_command or None


def _declared(family: Any, question: Any) -> dict[str, Any]:
    """What the page draws a declared question's answer by: its inputs, outputs (with units) and plot."""
    plot = question.plot
    return {"declared": True, "inputs": [spec.to_dict() for spec in question.input_specs],
            "outputs": [spec.to_dict() for spec in question.output_specs],
            "chart": None if plot is None else {"x": plot.x, "y": list(plot.y), "series": plot.series},
            "notes": [n for n in question.notes if isinstance(n, str)]}  # a callable note depends on the values


def page_catalogue(catalogue: dict[str, Any]) -> dict[str, Any]:
    """``catalogue`` (the served CLI commands) with each family's declared questions, parameters,
    sizing command, simulations and the unit suffixes of names, for the planner's page."""
    from iosizer.model.registry import declaration
    from iosizer.units import SUFFIXES, UNITS

    served = {c["command"]: dict(c) for c in catalogue["commands"]}  # copies: the server's own stay as they are
    families = []
    for entry in catalogue["families"]:
        family = declaration(entry["name"])
        for question in family.questions:
            command = served.get(" ".join(question.path(family.name)))
            if question.answerable and command is not None:
                command.update(_declared(family, question))
        asked = {q["command"] for q in entry["questions"]}
        simulations = [c for c in served if c.startswith("simulate ")
                       and (c == f"simulate {family.name}" or c.removeprefix("simulate ") in asked)]
        sizing = _sizing_command(family)
        targets = []
        if sizing in served:
            targets = [f["key"] for f in served[sizing]["fields"] if f["key"].startswith(_TARGET_PREFIXES)]
        families.append({
            **entry, "simulations": simulations,
            "sizing": {"command": sizing, "targets": targets} if targets else None,
            "parameters": [{"name": p.name, "unit": p.unit, "value": p.value, "status": p.status, "kind": p.kind,
                            "cpu_scaling": str(getattr(p.cpu_scaling, "value", p.cpu_scaling))}
                           for p in family.parameters],
        })
    return {**catalogue, "families": families, "commands": list(served.values()),
            "unit_suffixes": [list(pair) for pair in SUFFIXES], "units": UNITS}
