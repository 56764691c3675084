"""What the planner's page reads besides the command catalogue: the families' declared questions.

``GET /api/catalogue`` lists the served CLI commands. The page is organised by
family (my system, what if, compare, size), so it also needs, per family:
its parameters, its questions (a question answered from its declaration,
``POST /api/<family>/<question>``, is described here from that declaration:
inputs, outputs and plot with their units and bounds), its sizing command and
its simulation commands. Nothing here is written twice: units, bounds and
defaults come from the declarations and :mod:`iosizer.units`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["page_catalogue"]

#: The ``iosizer size`` command answering each family's sizing targets ("how many cores / lanes /
#: outstanding I/Os for this target"): the CLI groups them by seed, not by family.
SIZING_COMMANDS = {
    "mmc": "size servers", "closed-network": "size load", "dma": "size latency", "oltp": "size latency",
    "rmw": "size lanes", "pcie-link": "size lanes", "hba": "size hba", "loadshare": "size cores",
    "replication": "size outstanding", "device": "size device",
}

#: Options of a sizing command that state the target (the one field the page asks for).
_TARGET_PREFIXES = ("target_", "budget_")


def _field(key: str, kind: str, unit: str | None, bounds: Any, help_text: str, *, many: bool = False,
           default: Any = None, declared: Any = None, choices: Any = None) -> dict[str, Any]:
    """One field as the page builds its input, in the shape of the CLI catalogue's (``FieldSpec.describe``)."""
    from iosizer.units import NOT_UNITS

    finite = None
    if bounds is not None:
        finite = [b if abs(b) != float("inf") else None for b in bounds]
    return {"key": key, "flag": "--" + key.replace("_", "-"), "argument": False, "kind": kind, "many": many,
            "required": False, "default": default, "help": help_text, "metavar": None,
            "unit": None if unit in NOT_UNITS else unit, "bounds": finite, "choices": choices,
            "declared": declared, "suggestions": []}


def _declared_command(family: Any, question: Any) -> dict[str, Any]:
    """A declared question described as the page's command: its form, outputs and plot."""
    path = question.path(family.name)
    fields = []
    for spec in question.input_specs:
        fields.append(_field(spec.name, "integer" if spec.integer else "number", spec.unit, spec.bounds,
                             spec.description, many=True, default=list(spec.sweep()) or None))
    for spec in family.parameters:
        if spec.choices and isinstance(spec.choices[0], str):
            fields.append(_field(spec.name, "choice", None, None, spec.description, choices=list(spec.choices),
                                 default=spec.value))
            continue
        role = "setting" if spec.kind == "setting" else f"parameter, {spec.status}"
        fields.append(_field(spec.name, "integer" if spec.integer else "number", spec.unit,
                             spec.bounds if spec.bounds != (0.0, 0.0) else None,
                             f"{spec.description} ({role}); empty: the profile's", declared=spec.value))
    fields.append(_field("profile", "profile", None, None, f"A '{family.name}' profile; default: the shipped one"))
    fields.append(_field("cpu_speed", "number", None, None,
                         "Carry the profile to a CPU of this relative per-core speed (the band widens)"))
    fields.append(_field("band", "choice", None, None, "parameter: the parameters' uncertainty; prediction: "
                         "plus the fit's residual scatter", choices=["parameter", "prediction"],
                         default="parameter"))
    if question.percentiles is not None:
        fields.append(_field("percentile", "number", None, None, "Also these percentiles (P)", many=True))
    plot = question.plot
    return {
        "command": " ".join(path), "path": list(path), "url": "/api/" + "/".join(path),
        "summary": question.summary, "help": question.summary + ".", "group": family.name, "plot": plot is not None,
        "heavy": False, "declared": True, "fields": fields,
        "inputs": [spec.to_dict() for spec in question.input_specs],
        "outputs": [spec.to_dict() for spec in question.output_specs],
        "chart": None if plot is None else {"x": plot.x, "y": list(plot.y), "series": plot.series},
        "notes": list(question.notes),
    }


def page_catalogue(catalogue: dict[str, Any]) -> dict[str, Any]:
    """``catalogue`` (the served CLI commands) with each family's declared questions, parameters,
    sizing command, simulations and the unit suffixes of names, for the planner's page."""
    from iosizer.model.registry import declaration, family_names
    from iosizer.units import SUFFIXES, UNITS

    served = {c["command"]: c for c in catalogue["commands"]}
    declared = []
    families = []
    for entry in catalogue["families"]:
        family = declaration(entry["name"])
        questions = list(entry["questions"])
        for question in family.questions:
            if question.answerable:
                command = _declared_command(family, question)
                declared.append(command)
                if command["command"] not in {q["command"] for q in questions}:
                    questions.append({"command": command["command"], "summary": question.summary})
        asked = {q["command"] for q in questions}
        simulations = [c for c in served if c.startswith("simulate ")
                       and (c == f"simulate {family.name}" or c.removeprefix("simulate ") in asked)]
        sizing = SIZING_COMMANDS.get(family.name)
        targets = []
        if sizing in served:
            targets = [f["key"] for f in served[sizing]["fields"] if f["key"].startswith(_TARGET_PREFIXES)]
        families.append({
            **entry, "questions": questions, "simulations": simulations,
            "sizing": {"command": sizing, "targets": targets} if targets else None,
            "parameters": [{"name": p.name, "unit": p.unit, "value": p.value, "status": p.status, "kind": p.kind,
                            "cpu_scaling": str(getattr(p.cpu_scaling, "value", p.cpu_scaling))}
                           for p in family.parameters],
        })
    return {**catalogue, "families": families, "commands": [*catalogue["commands"], *declared],
            "unit_suffixes": [list(pair) for pair in SUFFIXES], "units": UNITS}
