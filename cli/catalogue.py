"""The command catalogue: every ``iosizer`` command as the HTTP API and Python take it.

``iosizer serve`` makes its endpoints from it and :func:`iosizer.ask` its
keyword arguments, so both follow the CLI without a line naming an option.
Each leaf command of the typer/click tree becomes a :class:`CommandSpec`: its
URL (``iosizer queue mmc`` is ``POST /api/queue/mmc``), a pydantic request
model built with :func:`pydantic.create_model` from the command's click
parameters (JSON key, type, default, help text, which carries the unit), and
the way back from a validated body to the command line the CLI would have
been given. Nothing here names a command's options, so a command added to
the CLI, or an option added to one, is served as soon as it exists.

The JSON key of an option is its long flag without the dashes
(``--added-latency-ns`` is ``added_latency_ns``, ``--set`` is ``set``); of an
argument, its name. Repeatable options and variadic arguments are JSON
lists; sweeps stay strings as on the command line (``"0:2100:300"``, numbers
are accepted too).

Parameters that name files on the machine are never taken from a request:

- ``--format`` is always ``json``;
- a profile (``--profile``, ``extrapolate``'s profiles) is the profile
  document itself, inline; the server writes it to a temporary file;
- ``--output`` (a profile the command writes) is a temporary file whose
  document replaces its name in the answer;
- ``--plot`` is used only for the page's view of an answer;
- measured data (``calibrate``) is a multipart upload;
- any other path (``report --output-dir``) is a temporary folder; a command
  that *requires* such a path is not served;
- no text value may contain a path separator: commands run in an empty
  temporary folder, so a request cannot name a file of the server.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Iterable, Mapping, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, create_model

from iosizer.errors import InputError


class Role(str, enum.Enum):
    """How the server fills one command-line parameter."""

    plain = "plain"  # the request's JSON value, as text on the command line
    profile = "profile"  # a profile document (or a list of them), written to a temporary file
    output = "output"  # a file the command writes: a temporary name, the document comes back inline
    plot = "plot"  # the picture: a temporary name, only for the page's view
    format = "format"  # --format: always json
    upload = "upload"  # measured data files: a multipart upload (calibrate)
    route = "route"  # taken from the URL (calibrate's family)
    server = "server"  # a server-side path the API does not take: a temporary folder or the default


#: Commands that are not served, with the reason (shown in the catalogue).
NOT_SERVED: dict[tuple[str, ...], str] = {
    ("serve",): "starts this server",
}

#: Parameters whose role is not read from their type: calibrate's family is in
#: the URL and its data is uploaded (POST /api/calibrate/{family}).
ROLE_OVERRIDES: dict[tuple[str, ...], dict[str, Role]] = {
    ("calibrate",): {"model": Role.route, "data": Role.upload},
}

#: Commands whose work can take seconds (fits, the report, simulations): they
#: run in their own worker pool so they never hold up a quick what-if.
HEAVY_GROUPS = frozenset({"calibrate", "report", "simulate", "run"})

from iosizer.units import NOT_UNITS as _NOT_UNITS  # noqa: E402  (the one unit vocabulary)
from iosizer.units import unit_of  # noqa: E402,F401  (public here for older callers)

_PATH_SEPARATOR = re.compile(r"[/\\]")


def _no_server_path(text: str) -> str:
    if _PATH_SEPARATOR.search(text) or text.startswith("~") or text.strip() in {".", ".."}:
        raise ValueError(
            "a path on the server is not accepted over HTTP (give profiles inline as JSON objects, "
            "upload measured data to /api/calibrate/{family})"
        )
    return text


SafeText = Annotated[str, AfterValidator(_no_server_path)]


def _not_a_bool(value: Any) -> Any:
    # JSON true is 1 to pydantic's lax numbers; to a planner it is a mistake, as on the command line.
    if isinstance(value, bool):
        raise ValueError(f"a number is expected, not {str(value).lower()}")
    return value


#: A number field of a request: a JSON number (or numeric text), never true/false.
_NUMBERS = {int: Annotated[int, BeforeValidator(_not_a_bool)], float: Annotated[float, BeforeValidator(_not_a_bool)]}


@dataclass(frozen=True)
class FieldSpec:
    """One click parameter of a command, as the API takes it."""

    key: str
    name: str
    role: Role
    flag: str | None
    annotation: Any
    many: bool
    required: bool
    default: Any
    help: str
    metavar: str | None
    secondary_flag: str | None = None
    is_flag: bool = False
    unit: str | None = None
    bounds: tuple[float, float] | None = None
    minimum: float | None = None
    maximum: float | None = None
    #: The family's declared value, which the CLI uses when the option is left out.
    declared: Any = None
    #: Declared names the option takes (modes, policies, links): hints, not a closed list.
    suggestions: tuple[str, ...] = ()

    @property
    def argument(self) -> bool:
        return self.flag is None

    @property
    def in_body(self) -> bool:
        return self.role in (Role.plain, Role.profile)

    def kind(self) -> str:
        """What the page shows for it: number, integer, boolean, text, choice, profile."""
        if self.role is Role.profile:
            return "profiles" if self.many else "profile"
        base = self.annotation
        if isinstance(base, type) and issubclass(base, enum.Enum):
            return "choice"
        if base is bool:
            return "boolean"
        if base is int:
            return "integer"
        if base is float:
            return "number"
        return "text"

    def describe(self) -> dict[str, Any]:
        """The field as the page builds its input from it."""
        choices = None
        if self.kind() == "choice":
            choices = [member.value for member in self.annotation]
        return {
            "key": self.key,
            "flag": self.flag,
            "argument": self.argument,
            "kind": self.kind(),
            "many": self.many,
            "required": self.required,
            "default": _json_default(self.default),
            "help": self.help,
            "metavar": self.metavar,
            "unit": self.unit,
            "bounds": list(self.bounds) if self.bounds else None,
            "choices": choices,
            "declared": _json_default(self.declared),
            "suggestions": list(self.suggestions),
        }


def _json_default(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return None
    if isinstance(value, (list, tuple)):
        return [_json_default(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


@dataclass
class CommandSpec:
    """One served command: its path, fields and generated request model."""

    path: tuple[str, ...]
    command: Any
    fields: list[FieldSpec]
    model: type[BaseModel] = field(init=False)

    def __post_init__(self) -> None:
        self.model = _request_model(self)

    @property
    def name(self) -> str:
        return " ".join(self.path)

    @property
    def url(self) -> str:
        return "/api/" + "/".join(self.path)

    @property
    def summary(self) -> str:
        text = (self.command.help or "").strip()
        return text.splitlines()[0] if text else self.name

    @property
    def help(self) -> str:
        return (self.command.help or "").strip()

    @property
    def heavy(self) -> bool:
        return self.path[0] in HEAVY_GROUPS

    def role_fields(self, role: Role) -> list[FieldSpec]:
        return [f for f in self.fields if f.role is role]

    @property
    def body_fields(self) -> list[FieldSpec]:
        return [f for f in self.fields if f.in_body]

    @property
    def has_plot(self) -> bool:
        return bool(self.role_fields(Role.plot))

    def argv(self, values: Mapping[str, Any], files: Mapping[str, Any] | None = None) -> list[str]:
        """The command line for validated ``values`` (by JSON key).

        ``files`` gives the (relative) file names the server chose for the
        profile, upload, output, plot and route fields: a name or a list.
        """
        files = files or {}
        words = list(self.path)
        positional: list[str] = []
        missing_before: str | None = None
        for spec in self.fields:
            if spec.role is Role.format:
                words += [spec.flag, "json"]
                continue
            value = files.get(spec.key) if spec.role is not Role.plain else values.get(spec.key)
            if value is None or (spec.many and not value):
                if spec.argument and missing_before is None:
                    missing_before = spec.key
                continue
            items = list(value) if spec.many else [value]
            if spec.argument:
                if missing_before is not None:
                    raise InputError(f"'{spec.key}' needs '{missing_before}' before it, as on the command line")
                positional += [_word(item) for item in items]
            elif spec.is_flag:
                if value:
                    words.append(spec.flag)
                elif spec.secondary_flag:
                    words.append(spec.secondary_flag)
            else:
                for item in items:
                    words += [spec.flag, _word(item)]
        return words + (["--", *positional] if positional else [])

    def describe(self) -> dict[str, Any]:
        """The command as the page lists it."""
        return {
            "command": self.name,
            "path": list(self.path),
            "url": self.url,
            "summary": self.summary,
            "help": self.help,
            "group": self.path[0] if len(self.path) > 1 else "",
            "plot": self.has_plot,
            "heavy": self.heavy,
            "fields": [f.describe() for f in self.body_fields],
        }


def _word(value: Any) -> str:
    """A JSON value as the command line spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


# --- reading the click tree ---------------------------------------------------


def _long_flag(param: Any) -> str | None:
    for opt in param.opts:
        if opt.startswith("--"):
            return opt
    return param.opts[0] if getattr(param, "opts", None) else None


def _strip_optional(annotation: Any) -> Any:
    origin = get_origin(annotation)
    if origin is Union or (origin is not None and getattr(origin, "__name__", "") == "UnionType"):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _base_type(param: Any) -> tuple[Any, bool]:
    """(element type, is a list) of a parameter."""
    descriptor = getattr(param, "type_descriptor", None)
    annotation = _strip_optional(descriptor.annotation) if descriptor is not None else str
    many = bool(getattr(param, "multiple", False)) or param.nargs == -1
    if get_origin(annotation) in (list, tuple, set):
        inner = [a for a in get_args(annotation) if a is not Ellipsis]
        annotation = _strip_optional(inner[0]) if inner else str
        many = True
    return annotation, many


def _role(param: Any, annotation: Any, overrides: Mapping[str, Role]) -> Role:
    if param.name in overrides:
        return overrides[param.name]
    opts = set(getattr(param, "opts", ()))
    if "--format" in opts:
        return Role.format
    if "--plot" in opts:
        return Role.plot
    if isinstance(annotation, type) and issubclass(annotation, Path):
        if "--output" in opts:
            return Role.output
        if "profile" in param.name:
            return Role.profile
        return Role.server
    return Role.plain


def _field(param: Any, overrides: Mapping[str, Role], declared: Mapping[str, Any]) -> FieldSpec | None:
    if getattr(param, "hidden", False) or param.is_eager or not param.expose_value:
        return None
    annotation, many = _base_type(param)
    role = _role(param, annotation, overrides)
    flag = _long_flag(param) if param.param_type_name == "option" else None
    key = flag.lstrip("-").replace("-", "_") if flag else param.name
    default = param.default() if callable(param.default) and not isinstance(param.default, type) else param.default
    spec = declared.get(key)
    unit = unit_of(key) or (spec.unit if spec is not None and spec.unit not in _NOT_UNITS | {key} else None)
    bounds = None
    if spec is not None and all(isinstance(b, (int, float)) for b in spec.bounds):
        bounds = (float(spec.bounds[0]), float(spec.bounds[1]))
    suggestions = tuple(str(c) for c in spec.choices) if spec is not None and spec.choices else ()
    secondary = getattr(param, "secondary_opts", None) or []
    return FieldSpec(
        key=key,
        name=param.name,
        role=role,
        flag=flag,
        annotation=annotation,
        many=many,
        required=bool(param.required),
        default=None if many and not default else default,
        help=(getattr(param, "help", None) or "").strip(),
        metavar=param.metavar,
        secondary_flag=secondary[0] if secondary else None,
        is_flag=bool(getattr(param, "is_flag", False)),
        unit=unit,
        bounds=bounds,
        minimum=getattr(param, "min", None),
        maximum=getattr(param, "max", None),
        declared=spec.value if spec is not None else None,
        suggestions=suggestions,
    )


def _leaves(command: Any, path: tuple[str, ...] = ()) -> Iterable[tuple[tuple[str, ...], Any]]:
    # A group of generated commands (iosizer.cli.declared: size and simulate FAMILY) builds them all here.
    every = getattr(command, "every_command", None)
    subcommands = every() if every is not None else getattr(command, "commands", None)
    if subcommands is None:
        yield path, command
        return
    for name, sub in subcommands.items():
        if getattr(sub, "hidden", False):
            continue
        yield from _leaves(sub, path + (name,))


@lru_cache(maxsize=1)
def root_command() -> Any:
    """The click command of ``iosizer`` (every command registered), built once."""
    import typer.main

    from iosizer.cli.app import app

    return typer.main.get_command(app)


@lru_cache(maxsize=1)
def _declared_by_command() -> dict[str, dict[str, Any]]:
    """For each command a family declares as a question, its parameters by name (unit, bounds)."""
    from iosizer.model.registry import declaration, family_names

    found: dict[str, dict[str, Any]] = {}
    for name in family_names():
        family = declaration(name)
        for question in family.questions:
            specs = found.setdefault(question.command, {})
            for spec in family.parameters:
                specs.setdefault(spec.name, spec)
    return found


def command_specs() -> tuple[list[CommandSpec], dict[str, str]]:
    """Every served command, and the ones not served with the reason."""
    specs: list[CommandSpec] = []
    skipped: dict[str, str] = {}
    declared = _declared_by_command()
    for path, command in _leaves(root_command()):
        name = " ".join(path)
        if path in NOT_SERVED:
            skipped[name] = NOT_SERVED[path]
            continue
        overrides = ROLE_OVERRIDES.get(path, {})
        fields = [f for p in command.params if (f := _field(p, overrides, declared.get(name, {}))) is not None]
        needs_path = [f.key for f in fields if f.role is Role.server and f.required]
        if needs_path:
            skipped[name] = f"needs a file on the server ({', '.join(needs_path)})"
            continue
        specs.append(CommandSpec(path, command, fields))
    return specs, skipped


def command_spec(command: str | Iterable[str]) -> CommandSpec:
    """The catalogue entry of one leaf command (``"size hba"`` or ``("size", "hba")``), served or not.

    An unknown or partial path is an :class:`InputError` naming the commands it could be.
    """
    path = tuple(command.split()) if isinstance(command, str) else tuple(command)
    leaves = dict(_leaves(root_command()))
    if path not in leaves:
        text = " ".join(path)
        near = sorted(" ".join(p) for p in leaves if p[:len(path)] == path) or sorted(
            " ".join(p) for p in leaves if p[0] == (path[0] if path else ""))
        hint = f"; did you mean one of: {', '.join(near)}" if near else "; see iosizer --help"
        raise InputError(f"no command 'iosizer {text}'{hint}")
    overrides = ROLE_OVERRIDES.get(path, {})
    declared = _declared_by_command().get(" ".join(path), {})
    fields = [f for p in leaves[path].params if (f := _field(p, overrides, declared)) is not None]
    return CommandSpec(path, leaves[path], fields)


# --- request models -------------------------------------------------------------


def _model_name(path: tuple[str, ...]) -> str:
    return "".join(part.title().replace("-", "").replace("_", "") for part in path) + "Request"


def _field_type(spec: FieldSpec) -> Any:
    if spec.role is Role.profile:
        element: Any = dict[str, Any]
    elif spec.annotation is str:
        element = SafeText
    elif isinstance(spec.annotation, type) and issubclass(spec.annotation, Path):
        element = SafeText
    else:
        element = _NUMBERS.get(spec.annotation, spec.annotation)
    return list[element] if spec.many else element


def _description(spec: FieldSpec) -> str:
    text = spec.help or spec.key
    if spec.role is Role.profile:
        text += (" A profile document as POST /api/calibrate/{family} returns it (its 'profile')"
                 + (", one per CPU." if spec.many else "."))
    if spec.unit and f"{spec.unit}" not in text:
        text += f" Unit: {spec.unit}."
    where = f"argument {spec.name}" if spec.argument else spec.flag
    return f"{text} (CLI: {where})"


def _request_model(command: CommandSpec) -> type[BaseModel]:
    definitions: dict[str, Any] = {}
    for spec in command.body_fields:
        annotation = _field_type(spec)
        extra: dict[str, Any] = {"x-cli": spec.flag or f"<{spec.name}>"}
        if spec.unit:
            extra["x-unit"] = spec.unit
        if spec.bounds:
            extra["x-bounds"] = list(spec.bounds)
        constraints: dict[str, Any] = {}
        if spec.minimum is not None:
            constraints["ge"] = spec.minimum
        if spec.maximum is not None:
            constraints["le"] = spec.maximum
        if spec.required:
            default: Any = ...
        else:
            annotation = annotation | None
            default = None if spec.role is Role.profile else _json_default(spec.default)
        definitions["v_" + spec.name] = (
            annotation,
            Field(default, alias=spec.key, description=_description(spec), json_schema_extra=extra, **constraints),
        )
    return create_model(
        _model_name(command.path),
        __config__=ConfigDict(
            extra="forbid",
            coerce_numbers_to_str=True,
            allow_inf_nan=False,
            title=f"iosizer {command.name}",
        ),
        __doc__=command.summary,
        **definitions,
    )


def body_values(body: BaseModel | None) -> dict[str, Any]:
    """A validated body by JSON key: the fields the request gave, null ones left out."""
    if body is None:
        return {}
    values = {}
    for name, info in type(body).model_fields.items():
        value = getattr(body, name)
        if name in body.model_fields_set and value is not None:
            values[info.alias or name] = value
    return values
