"""``POST /api/<family>/<question>`` for every declared question, generated from the registry.

Each question that declares a ``solve`` gets an endpoint whose request model
is built from its declarations with :func:`pydantic.create_model`, not from
the CLI: a field per input (a number or a list of numbers; the answer covers
every combination), per setting and per parameter of the family, plus
``profile`` (the profile document inline), ``cpu_speed``, ``band`` and, where the
question has them, ``percentile``. Field names are the declared names, so
they carry their units, and each field's schema states its unit
(``x-unit``) and bounds (``x-bounds``). The answer is
:meth:`iosizer.ModelFamily.ask`'s JSON, byte for byte what
``iosizer <family> <question> --format json`` prints.

The question is answered in the server's quick what-if lane (a worker
process, :func:`iosizer.serve.worker.answer_question`), and its errors follow
the server's contract (:mod:`iosizer.serve.app`): ``{"error", "kind",
"field"}``, 422 for a body that does not validate or a value the model
refuses (its declaration's bounds, a profile that does not load), 503 busy,
504 late. An inline profile is checked in memory
(:func:`iosizer.calibration.profile.read_profile`), never written to disk.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainValidator, WithJsonSchema, create_model

if TYPE_CHECKING:
    from fastapi import FastAPI

    from iosizer.model.family import Family, Input, Question

__all__ = ["add_question_routes", "question_paths", "request_model"]


def _not_a_bool(value: Any) -> Any:
    # JSON true is 1 to pydantic's lax numbers; to a planner it is a mistake.
    if isinstance(value, bool) or (isinstance(value, list) and any(isinstance(v, bool) for v in value)):
        raise ValueError(f"a number is expected, not {json.dumps(value)}")
    return value


_Number = Annotated[float, BeforeValidator(_not_a_bool)]


def _finite(value: Any) -> float:
    from pydantic import TypeAdapter, ValidationError

    global _FLOAT
    if _FLOAT is None:
        _FLOAT = TypeAdapter(Annotated[float, Field(allow_inf_nan=False)])
    _not_a_bool(value)
    try:
        return float(_FLOAT.validate_python(value))
    except ValidationError as error:
        raise ValueError(f"{error.errors()[0]['msg']}, got {value!r}") from None


_FLOAT: Any = None


def _number_or_numbers(value: Any) -> float | list[float] | str:
    # One validator, not a union: an error's place is the field itself, not 'field.list[float]'.
    # Text is a sweep as the CLI takes it ('1,2,3', '0:2100:300'), parsed and bounded by the answer.
    if isinstance(value, str) and value.strip():
        return value
    return [_finite(v) for v in value] if isinstance(value, list) else _finite(value)


def _numbers(value: Any) -> list[float]:
    if not isinstance(value, list):
        raise ValueError(f"a list of numbers is expected, got {value!r}")
    return [_finite(v) for v in value]


_NUMBER_SCHEMA = {"type": "number"}
_Numbers = Annotated[float | list[float] | str, PlainValidator(_number_or_numbers), WithJsonSchema(
    {"anyOf": [_NUMBER_SCHEMA, {"type": "array", "items": _NUMBER_SCHEMA}, {"type": "string"}]})]
_NumberList = Annotated[list[float], PlainValidator(_numbers), WithJsonSchema(
    {"type": "array", "items": _NUMBER_SCHEMA})]


def _extra(unit: str, bounds: tuple[float, float] | None) -> dict[str, Any]:
    from iosizer.units import NOT_UNITS

    out: dict[str, Any] = {}
    if unit not in NOT_UNITS:
        out["x-unit"] = unit
    if bounds is not None:
        out["x-bounds"] = [b if abs(b) != float("inf") else None for b in bounds]
    return out


def _cli_flag(name: str) -> str:
    """The CLI option of the same value (the schema says it, as every command's schema does)."""
    return "--" + name.replace("_", "-")


def _default(spec: "Input") -> Any:
    """An input's default as the schema states it: its values, or a computed default's rule."""
    return spec.default_text if callable(spec.default) else list(spec.sweep())


def request_model(family: "Family", question: "Question") -> type[BaseModel]:
    """The pydantic model of ``POST /api/<family>/<question>``'s body, from the declarations."""
    fields: dict[str, Any] = {}
    for spec in question.input_specs:
        required = spec.required and not question.aliases.get(spec.name)  # an alias may carry it instead
        fields[spec.name] = (_Numbers if required else _Numbers | None, Field(
            ... if required else None, description=(
                f"{spec.description or spec.name} ({spec.unit}); a number, a list or a sweep as text ('1,2,3', "
                f"'0.5:3.5:0.5'): every combination is answered; default "
                f"{'none: required' if spec.required else _default(spec)}"),
            json_schema_extra={**_extra(spec.unit, spec.bounds), "x-cli": _cli_flag(spec.name)}))
    for repeated in question.repeated:  # a list, one item per element (a demand per station)
        kind = _NumberList if repeated.item is not None else list[str] | str
        fields[repeated.name] = (kind | None, Field(None, description=f"{repeated.description}: a list"))
    for spec in question.options(family.parameters):
        if spec.name in fields:  # a setting the question sweeps as an input, a list: one field
            continue
        kind: Any = str if spec.parse is not None or spec.choices and isinstance(spec.choices[0], str) else \
            int if spec.integer else _Number
        if spec.name in question.sweeps:  # one choice, a list of them, '1g,10g' or 'all'
            kind = str | list[str]
        if spec.switch:  # on/off: true or false (0 or 1), as the CLI's --ecrc/--no-ecrc
            kind = bool
        role = "setting" if spec.kind == "setting" else f"parameter ({spec.status}); fixes it"
        default = "all" if spec.name in question.sweep_all else "the profile's"
        fields[spec.name] = (kind | None, Field(None, description=(
            f"{spec.description or spec.name} ({spec.unit}): {role}; default: {default}"),
            json_schema_extra={**_extra(spec.unit, spec.bounds), "x-cli": _cli_flag(spec.name)}))
    for name, olds in question.aliases.items():
        if name not in fields:  # an output's older JSON key (the question's shape keeps it): no field
            continue
        kind, info = fields[name]
        for old in olds:  # an older name: the same field under its deprecated spelling
            fields[old] = (kind, Field(None, description=f"deprecated older name of {name}",
                                       json_schema_extra=info.json_schema_extra))
    fields["profile"] = (dict[str, Any] | list[dict[str, Any]] | None, Field(None, description=(
        f"A '{family.name}' profile document (as POST /api/calibrate/{family.name} returns it), or a list of "
        "them from CPUs of different speeds (combined by extrapolation to cpu_speed); default: the shipped "
        "profile")))
    fields["cpu_speed"] = (_Number | None, Field(None, description="carry the profile to a CPU of this "
                                                                   "relative per-core speed"))
    fields["band"] = (Literal["parameter", "prediction"] | None, Field(None, description=(
        "parameter: bands of the parameters' uncertainty; prediction: plus the fit's residual scatter")))
    if question.percentiles is not None:
        fields["percentile"] = (_NumberList | None, Field(None, description="percentiles to add (P)"))
    from iosizer.simulate.hooks import simulates, simulation_help

    if simulates(family.name, question):  # its percentiles' simulation, or its declared Simulation's means
        fields["simulate"] = (bool | None, Field(None, description=simulation_help(family.name, question) or (
            "answer the percentiles by simulation, with their 95 % intervals (at most 10 points)")))
    name = "".join(w.title().replace("-", "").replace("_", "") for w in question.path(family.name)) + "Request"
    return create_model(name, __config__=ConfigDict(extra="forbid", allow_inf_nan=False,
                                                    title=f"iosizer {' '.join(question.path(family.name))}"),
                        __doc__=question.summary, **fields)


def answer_json(family: str, question: str, body: dict[str, Any]) -> str:
    """What ``iosizer <family> <question> --format json`` prints for the body's values."""
    return ask(family, question, body).to_json() + "\n"


def ask(family: str, question: str, body: dict[str, Any]) -> Any:
    """The :class:`~iosizer.calibration.questions.Answer` to a validated body (an inline profile read
    in memory); :func:`view` is what the page draws of it (``?view=page``)."""
    import iosizer
    from iosizer.calibration.profile import read_profile

    values = dict(body)
    document = values.pop("profile", None)
    from iosizer.model.registry import declaration

    asked = declaration(family).question(question)
    models = (family, *asked.also) if asked.also else family
    profile: Any = None if document is None else [read_profile(d, models, name="profile") for d in document] \
        if isinstance(document, list) else read_profile(document, models, name="profile")
    cpu_speed = values.pop("cpu_speed", None)
    percentiles = values.pop("percentile", None)
    band = values.pop("band", None) or "parameter"
    simulate = bool(values.pop("simulate", None))
    return iosizer.family(family).ask(question, profile, cpu_speed=cpu_speed, percentiles=percentiles,
                                      band=band, simulate=simulate, **values)


def view(answer: Any) -> dict[str, Any]:
    """The page's view of a declared question's answer: its records and the declared plot's curves, as the
    command routes give theirs (title, columns, rows, notes, plot)."""
    from iosizer.model.registry import declaration
    from iosizer.units import NOT_UNITS

    asked = declaration(answer.family).question(answer.question)
    records = answer.records()
    units = {item.name: item.unit for item in (*asked.input_specs, *asked.output_specs)}

    def label(name: str) -> str:
        unit = units.get(name, "")
        return name if not unit or unit in NOT_UNITS else f"{name} ({unit})"

    panels = []
    chosen = asked.plot
    for y in (chosen.y if chosen is not None else ()):
        curves: dict[Any, list[dict[str, Any]]] = {}
        for row in records:
            curves.setdefault(row.get(chosen.series) if chosen.series else None, []).append(row)
        series = []
        for value, rows in curves.items():
            xs = [row[chosen.x] for row in rows]
            if f"{y}_ci_low" in rows[0]:
                series.append({"label": "95 % band", "kind": "band", "x": xs,
                               "y": [row[f"{y}_ci_low"] for row in rows],
                               "y_high": [row[f"{y}_ci_high"] for row in rows]})
            shown = value if isinstance(value, str) else None if value is None else format(value, "g")
            series.append({"label": y if value is None else f"{chosen.series} = {shown}",
                           "kind": "line" if len(rows) > 1 else "points", "x": xs,
                           "y": [row[y] for row in rows], "y_high": None})
        panels.append({"title": f"{answer.family} {answer.question}", "x_label": label(chosen.x),
                       "y_label": label(y), "series": series})
    return {"title": f"{answer.family} {answer.question}: {asked.summary}",
            "columns": [*asked.sweeps, *asked.input_names, *answer.outputs], "rows": records,
            "notes": list(answer.notes),
            "plot": panels}


def describe(family: "Family", question: "Question") -> dict[str, Any]:
    """The question's route as ``/api/catalogue`` lists a command (the page builds its form from it)."""
    path = question.path(family.name)

    def entry(key: str, kind: str, help_text: str, many: bool = False, default: Any = None, unit: str = "",
              bounds: Any = None, choices: Any = None, declared: Any = None, required: bool = False,
              suggestions: Any = None) -> dict[str, Any]:
        from iosizer.units import NOT_UNITS

        return {"key": key, "flag": "--" + key.replace("_", "-"), "argument": False, "kind": kind, "many": many,
                "required": required, "default": default, "help": help_text, "metavar": None,
                "unit": unit if unit and unit not in NOT_UNITS else None,
                "bounds": _extra(unit, bounds).get("x-bounds"), "choices": choices, "declared": declared,
                "suggestions": suggestions or []}

    fields = [entry(spec.name, "number", spec.description or spec.name, True, list(spec.sweep()) or None,
                    spec.unit, spec.bounds, required=spec.required) | ({"doubling": True} if spec.doubling else {})
              for spec in question.input_specs]
    listed = {r.name for r in question.repeated}
    fields += [entry(r.name, "number" if r.item is not None else "text", r.description, True) for r in question.repeated]
    for spec in question.options(family.parameters):
        if spec.name in listed or spec.name in question.input_names:
            continue
        named = bool(spec.choices) and isinstance(spec.choices[0], str)
        if spec.name in question.sweeps:  # text: one choice, a list 1g,10g or all
            fields.append(entry(spec.name, "text", spec.description or spec.name, many=True, declared=spec.value,
                                suggestions=[*spec.choices, "all"]))
            continue
        fields.append(entry(spec.name, "choice" if named else "text" if spec.parse is not None else "number",
                            spec.description or spec.name, unit=spec.unit,
                            bounds=None if named or spec.parse is not None else spec.bounds,
                            choices=list(spec.choices) if named else None, declared=spec.value))
    fields.append(entry("profile", "profile", f"A '{family.name}' profile document; default: the shipped one"))
    fields.append(entry("cpu_speed", "number", "carry the profile to a CPU of this relative per-core speed"))
    fields.append(entry("band", "choice", "parameter: bands of the parameters' uncertainty; prediction: plus "
                                          "the fit's residual scatter", default="parameter",
                        choices=["parameter", "prediction"]))
    if question.percentiles is not None:
        fields.append(entry("percentile", "number", "percentiles to add (P)", many=True))
    from iosizer.simulate.hooks import simulates, simulation_help

    if simulates(family.name, question):
        fields.append(entry("simulate", "boolean", simulation_help(family.name, question) or
                            "answer the percentiles by simulation (at most 10 points)", default=False))
    return {"command": " ".join(path), "path": list(path), "url": "/api/" + "/".join(path),
            "summary": question.summary, "help": question.summary, "group": path[0], "plot": question.plot is not None,
            "heavy": False, "fields": fields}


def question_paths() -> dict[tuple[str, ...], tuple[str, str]]:
    """Every declared question's CLI path -> (family, question command). Imports every family module."""
    from iosizer.model.registry import declaration, family_names

    paths = {}
    for name in family_names():
        for question in declaration(name).questions:
            if question.answerable:
                paths[question.path(name)] = (name, question.command)
    return paths


def _endpoint(server: Any, family: str, question: str, model: type[BaseModel]) -> Any:
    import inspect

    from fastapi import Body, Query
    from fastapi.responses import Response

    from iosizer.serve.limits import VIEW_HELP, View

    keys = list(model.model_fields)

    async def endpoint(body: Any = None, view: View = View.json) -> Response:
        given = {} if body is None else {k: v for k, v in body.model_dump().items()
                                         if k in body.model_fields_set and v is not None}
        task = {"kind": "question", "family": family, "question": question, "values": given, "keys": keys,
                "view": view is View.page}
        return await server.call(server.lanes.quick, task, view)

    endpoint.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter("body", inspect.Parameter.KEYWORD_ONLY, default=None,
                          annotation=Annotated[model | None, Body()]),
        inspect.Parameter("view", inspect.Parameter.KEYWORD_ONLY, default=View.json,
                          annotation=Annotated[View, Query(description=VIEW_HELP)])])
    return endpoint


def add_question_routes(app: "FastAPI", server: Any,
                        errors: dict[int | str, Any] | None = None) -> list[tuple[str, ...]]:
    """Mount ``POST /api/<family>/<question>`` for every declared question; return their paths.

    ``server`` (the app's :class:`~iosizer.serve.app.Server`) answers them in its quick lane, each by its
    declaration alone. ``errors``: the error answers the OpenAPI document lists for every route.
    """
    from fastapi.responses import Response

    from iosizer.model.registry import declaration

    served = question_paths()
    for path, (name, command) in served.items():
        family = declaration(name)
        question = family.question(command)
        server.questions[path] = describe(family, question)
        app.add_api_route(
            "/api/" + "/".join(path), _endpoint(server, name, command, request_model(family, question)),
            methods=["POST"], name="iosizer " + " ".join(path), summary=question.summary,
            description=(f"{question.summary}. Generated from the declaration of family '{name}'; mirrors "
                         f"`iosizer {' '.join(path)} ... --format json`."),
            tags=[name], operation_id="iosizer_" + "_".join(p.replace("-", "_") for p in path),
            responses={200: {"description": "What the command prints with --format json",
                             "content": {"application/json": {}}}, **(errors or {})},
            response_class=Response)
    return list(served)
