"""The commands not declared yet, reflected from the typer tree into :mod:`iosizer.commands`' classes.

``iosizer serve`` makes its endpoints from :func:`command_specs` and
:func:`iosizer.ask` its keyword arguments from :func:`command_spec`. A
command :mod:`iosizer.commands` declares (``families``, ``params``,
``datasets``, ``run``, ``extrapolate``, ``calibrate``, ``report``) is its declaration; every other leaf command of the
typer/click tree becomes a :class:`~iosizer.commands.CommandSpec` read from
its click parameters (JSON key, type, default, help text, which carries the
unit): what is left to declare (issue 24: the HTTP API generated from the
registry, not from typer). The rules for keys and files are
:mod:`iosizer.commands`'.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Union, get_args, get_origin

from iosizer.commands import CommandSpec, FieldSpec, Role, declared_command
from iosizer.commands import body_values  # noqa: F401  (public here for older callers)
from iosizer.errors import InputError

#: Commands that are not served, with the reason (shown in the catalogue).
NOT_SERVED: dict[tuple[str, ...], str] = {
    ("serve",): "starts this server",
}

from iosizer.units import NOT_UNITS as _NOT_UNITS  # noqa: E402  (the one unit vocabulary)
from iosizer.units import unit_of  # noqa: E402,F401  (public here for older callers)


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


def _role(param: Any, annotation: Any) -> Role:
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


def _field(param: Any, declared: Mapping[str, Any]) -> FieldSpec | None:
    if getattr(param, "hidden", False) or param.is_eager or not param.expose_value:
        return None
    annotation, many = _base_type(param)
    role = _role(param, annotation)
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
        known = declared_command(path)
        if known is not None:
            specs.append(known)
            continue
        fields = [f for p in command.params if (f := _field(p, declared.get(name, {}))) is not None]
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
    known = declared_command(path)
    if known is not None:
        return known
    declared = _declared_by_command().get(" ".join(path), {})
    fields = [f for p in leaves[path].params if (f := _field(p, declared)) is not None]
    return CommandSpec(path, leaves[path], fields)
