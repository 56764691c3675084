"""The served commands: every command the HTTP API and :func:`iosizer.ask` take, as typed fields.

A :class:`CommandSpec` is one command: its path (``iosizer size hba`` is
``POST /api/size/hba``), its fields (:class:`FieldSpec`: JSON key, type,
unit, bounds, default, help, and its :class:`Role`: how a server fills it),
the pydantic request model built from them (when first used), its work
(``run``) and the command line that asks the same (:meth:`CommandSpec.argv`:
for tests and for the server's check of positional arguments).

Commands declared here (:data:`DECLARED`: ``families``, ``params``,
``datasets``, ``extrapolate``, ``run``, ``calibrate``, ``report``) carry their work (``run``: a function of
:mod:`iosizer.tools` returning a :class:`~iosizer.frames.Report`); the CLI's
typer commands call the same functions. The commands generated from the
registry (``size``, ``simulate``) are :mod:`iosizer.generated`'s, in the same
classes; :mod:`iosizer.catalogue` lists them all.

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
from dataclasses import dataclass, field, replace
from pathlib import Path
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any, Callable, Mapping


from iosizer.errors import InputError
from iosizer.frames import Report

if TYPE_CHECKING:
    from pydantic import BaseModel


class Role(str, enum.Enum):
    """How a field is filled: from the request's JSON, or by the server (a file, the URL, the format)."""

    plain = "plain"  # the request's JSON value
    profile = "profile"  # a profile document (or a list of them), written to a temporary file
    output = "output"  # a file the command writes: a temporary name, the document comes back inline
    plot = "plot"  # the picture: a temporary name, only for the page's view
    format = "format"  # --format: always json
    upload = "upload"  # measured data files: a multipart upload (calibrate)
    route = "route"  # taken from the URL (calibrate's family)
    server = "server"  # a server-side path the API does not take: a temporary folder or the default



#: Commands whose work can take seconds (fits, the report, simulations): they
#: run in their own worker pool so they never hold up a quick what-if.
HEAVY_GROUPS = frozenset({"calibrate", "report", "simulate", "run"})


_PATH_SEPARATOR = re.compile(r"[/\\]")


def _no_server_path(text: str) -> str:
    if _PATH_SEPARATOR.search(text) or text.startswith("~") or text.strip() in {".", ".."}:
        raise ValueError(
            "a path on the server is not accepted over HTTP (give profiles inline as JSON objects, "
            "upload measured data to /api/calibrate/{family})"
        )
    return text




def _not_a_bool(value: Any) -> Any:
    # JSON true is 1 to pydantic's lax numbers; to a planner it is a mistake, as on the command line.
    if isinstance(value, bool):
        raise ValueError(f"a number is expected, not {str(value).lower()}")
    return value


def _element_types() -> tuple[Any, dict[type, Any]]:
    """A text field's type (no server path) and the number fields' (a JSON number or numeric text, never
    true/false); pydantic is imported when a request model is first built, not when a command is."""
    from pydantic import AfterValidator, BeforeValidator

    numbers = {int: Annotated[int, BeforeValidator(_not_a_bool)], float: Annotated[float, BeforeValidator(_not_a_bool)]}
    return Annotated[str, AfterValidator(_no_server_path)], numbers



@dataclass(frozen=True)
class FieldSpec:
    """One field of a command: its JSON key, CLI flag, type, unit, bounds, default and help."""

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
    #: Older flags the CLI still takes (deprecated names); the JSON key is the first flag's.
    aliases: tuple[str, ...] = ()
    #: Whether the CLI's help shows the default.
    show_default: bool = True

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
    fields: list[FieldSpec]
    #: The command's help (its first line is the summary).
    text: str = ""
    #: The command's work: keyword arguments by field name, returns the :class:`~iosizer.frames.Report`.
    run: Callable[..., Report] | None = None
    #: Declared units of the names its answer may hold (a family's parameters), for the answer's table.
    units: dict[str, str] = field(default_factory=dict)
    #: The progress bar's label where the work reports progress (``run(progress=...)``: a simulation).
    progress: str | None = None
    #: The help of the group a command of several words sits in (``simulate hba``).
    group_help: str = ""

    @cached_property
    def model(self) -> "type[BaseModel]":
        """The request model (pydantic), built when first used."""
        return _request_model(self)

    @property
    def name(self) -> str:
        return " ".join(self.path)

    @property
    def url(self) -> str:
        return "/api/" + "/".join(self.path)

    @property
    def summary(self) -> str:
        text = self.help
        return text.splitlines()[0] if text else self.name

    @property
    def help(self) -> str:
        return self.text.strip()

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



# --- request models -------------------------------------------------------------


def _model_name(path: tuple[str, ...]) -> str:
    return "".join(part.title().replace("-", "").replace("_", "") for part in path) + "Request"


def _field_type(spec: FieldSpec) -> Any:
    safe_text, numbers = _element_types()
    if spec.role is Role.profile:
        element: Any = dict[str, Any]
    elif spec.annotation is str:
        element = safe_text
    elif isinstance(spec.annotation, type) and issubclass(spec.annotation, Path):
        element = safe_text
    else:
        element = numbers.get(spec.annotation, spec.annotation)
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


def _request_model(command: CommandSpec) -> "type[BaseModel]":
    from pydantic import ConfigDict, Field, create_model

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


# --- the declared commands ------------------------------------------------------------------------

#: ``--format``, which every command takes: the API always answers json.
FORMAT = FieldSpec(key="format", name="output_format", role=Role.format, flag="--format", annotation=str, many=False,
                   required=False, default="table", help="Output: a readable table, JSON or CSV.", metavar=None,
                   aliases=("-f",))

FAMILY = FieldSpec(key="family", name="family", role=Role.plain, flag=None, annotation=str, many=False,
                   required=True, default=None, help="A family name (see 'iosizer families').", metavar=None)
SCENARIO = FieldSpec(key="scenario", name="scenario", role=Role.plain, flag=None, annotation=str, many=False,
                     required=False, default=None, metavar=None,
                     help="A scenario TOML file, or the bare name of a shipped example (oltp_pcie_fabric, "
                          "replicated_flash_cache, shared_fc_storage, calibrated_fc_port; see --list).")
LIST = FieldSpec(key="list", name="list_examples", role=Role.plain, flag="--list", annotation=bool, many=False,
                 required=False, default=False, help="List the shipped example scenarios and exit.", metavar=None,
                 is_flag=True)
PROFILES = FieldSpec(key="profiles", name="profiles", role=Role.profile, flag=None, annotation=Path, many=True,
                     required=True, default=None, help="Profiles calibrated on one or more CPUs.", metavar=None)
TARGET_CPU_SPEED = FieldSpec(key="cpu_speed", name="cpu_speed", role=Role.plain, flag="--cpu-speed", annotation=float,
                             many=False, required=True, default=None, metavar=None,
                             help="Relative per-core speed of the target CPU.")
OUTPUT = FieldSpec(key="output", name="output", role=Role.output, flag="--output", annotation=Path, many=False,
                   required=False, default=None, metavar=None, aliases=("-o",),
                   help="Write the profile here (JSON, written atomically, only if the command succeeds; "
                        "its folder must exist).")
CPU_NAME = FieldSpec(key="cpu_name", name="cpu_name", role=Role.plain, flag="--cpu-name", annotation=str, many=False,
                     required=False, default=None, help="CPU the data was measured on.", metavar=None)
PLOT = FieldSpec(key="plot", name="plot", role=Role.plot, flag="--plot", annotation=Path, many=False, required=False,
                 default=None, metavar=None,
                 help="Also draw the answer to this file (.png, .svg or .pdf; needs iosizer[plot]; its folder must "
                      "exist).")


def _option(key: str, annotation: Any, help: str, *, name: str | None = None, many: bool = False,
            default: Any = None, metavar: str | None = None, unit: str | None = None,
            secondary_flag: str | None = None, aliases: tuple[str, ...] = ()) -> FieldSpec:
    """An option whose flag is its key with dashes (a bool one is a flag)."""
    return FieldSpec(key=key, name=name or key, role=Role.plain, flag="--" + key.replace("_", "-"),
                     annotation=annotation, many=many, required=False, default=default, help=help, metavar=metavar,
                     unit=unit, is_flag=annotation is bool, secondary_flag=secondary_flag, aliases=aliases)


#: ``iosizer calibrate``: the family comes from the URL and the data is uploaded (POST /api/calibrate/{family}).
CALIBRATE = (
    FieldSpec(key="model", name="model", role=Role.route, flag=None, annotation=str, many=False, required=True,
              default=None, help="A family (see 'iosizer families').", metavar=None),
    FieldSpec(key="data", name="data", role=Role.upload, flag=None, annotation=Path, many=True, required=False,
              default=None, metavar=None,
              help="Measured points: a CSV in the family's columns (see --columns), or fio JSON, elbencho CSV or "
                   "vdbench flatfile output (one or several files)."),
    _option("columns", bool, "Print the family's data columns (names with units) and exit.", default=False),
    _option("set", str, "A setting or a parameter to hold (repeatable), e.g. --set servers=8; see 'iosizer params "
                        "FAMILY'.", name="setting", many=True, metavar="NAME=VALUE"),
    _option("force", bool, "Keep a fit that is worse than a constant (R^2 < 0); calibrate on the jobs of a fio file "
                           "that did not fail, leaving the failed ones out.", default=False),
    _option("fit_percentiles", bool, "Fit measured percentile columns (response_pP_s/_ms/_us, fio's clat "
                                     "percentiles; p50 and p99 unless --fit-percentile) with the means, against the "
                                     "family's percentile model, freeing its service variability; "
                                     "--no-fit-percentiles: only check them. Default: device fits them where the "
                                     "data carry them (service_scv held), the other families only check them.",
            secondary_flag="--no-fit-percentiles"),
    _option("fit_percentile", float, "A percentile to fit (repeatable; implies --fit-percentiles) [default: 50 and "
                                     "99]; the others the data carry are checked only.", many=True, metavar="P"),
    OUTPUT,
    _option("stations", int, "closed-network: number of stations K."),
    _option("think_time_s", float, "closed-network: fix the think time Z (s); free if omitted.", unit="s"),
    _option("servers", int, "mmc: number of servers C."),
    _option("terminals", int, "oltp: jobs in the batch network [declared value; see 'iosizer params oltp']."),
    CPU_NAME,
    _option("cpu_speed", float, "Relative per-core speed of that CPU (for extrapolation)."),
    _option("verbose", bool, "Print the tail check per percentile, not its one-line summary (JSON always has both: "
                             "'tails', 'tail_summary').", default=False, aliases=("-v",)),
    FORMAT,
    PLOT,
)

#: ``iosizer report``: the folder it writes is the server's (a temporary one), never the request's.
REPORT = (
    FieldSpec(key="output_dir", name="output_dir", role=Role.server, flag="--output-dir", annotation=Path, many=False,
              required=False, default=Path("iosizer-report"), metavar=None,
              help="Report folder to write (replaced as a whole if it is a report; the folder it goes into must "
                   "exist)."),
    _option("check", bool, "Exit with status 1 if any published figure is outside its tolerance.", default=False),
    _option("simulate", bool, "Also simulate every family at three loads (low, knee, near saturation) beside its "
                              "analytic answer (takes minutes; needs iosizer[simulate]).", default=False),
)


#: The commands declared here, by path: the function of :mod:`iosizer.tools` that does the work (its
#: docstring is the help) and the fields it takes, in the command line's order, ``--format`` last unless placed
#: (the commands generated from the registry are :mod:`iosizer.generated`'s).
DECLARED: dict[tuple[str, ...], tuple[str, tuple[FieldSpec, ...]]] = {
    ("families",): ("families", ()),  # in the order of 'iosizer --help'
    ("params",): ("params", (FAMILY,)),
    ("calibrate",): ("calibrate", CALIBRATE),
    ("extrapolate",): ("extrapolate", (PROFILES, TARGET_CPU_SPEED, OUTPUT, CPU_NAME)),
    ("datasets",): ("datasets", ()),
    ("run",): ("run", (SCENARIO, LIST)),
    ("report",): ("report", REPORT),
}

_BUILT: dict[tuple[str, ...], CommandSpec] = {}


def declared_command(path: tuple[str, ...]) -> CommandSpec | None:
    """The declared command at ``path`` (its request model built once), or None."""
    if path not in DECLARED:
        return None
    if path not in _BUILT:
        import inspect

        from iosizer import tools

        work, fields = DECLARED[path]
        run = getattr(tools, work)
        placed = any(f.role is Role.format for f in fields)
        _BUILT[path] = CommandSpec(path, [*fields] if placed else [*fields, FORMAT], text=inspect.getdoc(run),
                                   run=run)
    return _BUILT[path]


class MissingValue(InputError):
    """A required value left out, in the command line's words; ``field`` is its JSON key."""

    def __init__(self, spec: FieldSpec) -> None:
        super().__init__(f"Missing argument '{spec.name}'." if spec.argument else f"Missing option '{spec.flag}'.")
        self.field = spec.key


def call(spec: CommandSpec, values: Mapping[str, Any],
         progress: Callable[[int, int], None] | None = None) -> Report:
    """A command's Report for validated ``values`` by JSON key (a field left out takes its default); the
    files it writes (a profile, :attr:`~iosizer.frames.Report.files`) are written, together and atomically.

    A file field's value is a path (paths for a repeatable one). ``progress(done, total)`` hears a
    command that reports its progress (``spec.progress``: a simulation)."""
    assert spec.run is not None, spec.name
    arguments = {}
    for f in spec.fields:
        if f.role is Role.format:
            continue
        if f.required and values.get(f.key) is None:
            raise MissingValue(f)
        value = values.get(f.key, f.default)
        if value is not None and isinstance(f.annotation, type) and issubclass(f.annotation, Path):
            value = [Path(v) for v in value] if f.many else Path(value)
        arguments[f.name] = value
    if progress is not None and spec.progress is not None:
        arguments["progress"] = progress
    report = spec.run(**arguments)
    if report.files:
        from iosizer.calibration.files import write_outputs

        write_outputs(report.files)
    return report


def keywords(spec: CommandSpec, arguments: tuple[Any, ...], options: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`iosizer.ask`'s values for ``spec`` by JSON key: ``arguments`` fill its positional arguments in
    order (a variadic last one takes the rest), ``options`` the rest; a key it does not take, or a value given
    both ways, is a one-line :class:`InputError` naming what it takes."""
    slots = [f for f in spec.fields if f.argument]
    named: dict[str, Any] = {}
    rest = list(arguments)
    for slot in slots:
        if not rest:
            break
        if slot.key in options:
            raise InputError(f"iosizer {spec.name}: '{slot.key}' given both by position and by name")
        named[slot.key], rest = (rest, []) if slot.many else (rest[0], rest[1:])
    if rest:
        raise InputError(f"iosizer {spec.name} takes {len(slots)} argument(s) by position "
                         f"({', '.join(s.key for s in slots) or 'none'}), got {len(arguments)}")
    named.update(options)
    taken = {f.key for f in spec.fields if f.role is not Role.format}
    unknown = sorted(set(named) - taken)
    if unknown:
        raise InputError(f"iosizer {spec.name} takes no {', '.join(map(repr, unknown))}; "
                         f"it takes: {', '.join(sorted(taken)) or 'nothing'}")
    return {key: value for key, value in named.items() if value is not None}


def _listed(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _single(items: list[Any], key: str) -> Any:
    if len(items) != 1:
        raise InputError(f"{key} takes one value, got {len(items)}")
    return items[0]


def _path(value: Any, folder: Path, stem: str) -> str:
    """A file parameter's value: a path as given, or a profile object written to ``folder``."""
    import os

    from iosizer.calibration.profile import Profile, save_profile

    if isinstance(value, Profile):
        return str(save_profile(value, folder / f"{stem}.json"))
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise InputError(f"expected a path{' or a profile' if stem.startswith('profile') else ''}, "
                     f"got {type(value).__name__}")


def _word_value(spec: FieldSpec, value: Any) -> Any:
    """``value`` read as the command line reads its word (a list comma-joined): text, or a number read as
    typer reads it (pydantic), refused in its words."""
    if spec.many:
        return [_word_value(replace(spec, many=False), v) for v in _listed(value)]
    text = ",".join(_word(v) for v in value) if isinstance(value, (list, tuple)) else _word(value)
    if spec.annotation in (float, int):
        from pydantic import TypeAdapter, ValidationError

        try:
            return TypeAdapter(spec.annotation).validate_python(text)
        except ValidationError as error:
            where = f"'{spec.flag}'" if spec.flag else f"'{spec.name.upper()}'"
            raise InputError(f"Invalid value for {where}: {error.errors()[0]['msg']}, got {text!r}") from None
    return text if spec.annotation is str else value


def asked(spec: CommandSpec, arguments: tuple[Any, ...], options: Mapping[str, Any], folder: Path) -> Report:
    """A command's Report for :func:`ask`'s values, read as the command line reads words; a profile
    given as an object is written to ``folder``, an output is checked before anything is computed."""
    values = keywords(spec, arguments, options)
    for f in spec.fields:
        if f.role is Role.format:
            continue
        if f.key not in values:
            if f.required:
                raise MissingValue(f)
            continue
        value = values[f.key]
        if f.role is Role.plain:
            values[f.key] = _word_value(f, value)
            continue
        items = [_path(v, folder, f"{f.key}_{i}") for i, v in enumerate(_listed(value))]
        values[f.key] = items if f.many else _single(items, f.key)
        if f.role is Role.output:
            from iosizer.calibration.files import check_output_path

            check_output_path(Path(values[f.key]), f.flag or f.key)
        elif f.role is Role.plot:  # refused as the command line refuses it; ask draws no picture
            from iosizer.report.plots import check_plot_path

            check_plot_path(Path(values[f.key]))
    return call(spec, values)
