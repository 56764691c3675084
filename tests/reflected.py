"""The CLI's typer commands read back as :class:`~iosizer.commands.FieldSpec`s, for the tests that hold a
hand-written typer command to its declaration (tests/test_commands.py): the served commands are never
read from the CLI (iosizer.catalogue), only checked against it here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping, Union, get_args, get_origin

from iosizer.commands import FieldSpec, Role
from iosizer.units import NOT_UNITS as _NOT_UNITS
from iosizer.units import unit_of


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
    aliases = tuple(o for o in getattr(param, "opts", ()) if o != flag) if flag else ()
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
        aliases=aliases,
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




def through_the_cli(command: str, *arguments: Any, **options: Any) -> Any:
    """``iosizer COMMAND ... --format json`` run by the CLI (in this process, as a user would type it) with
    :func:`iosizer.ask`'s arguments: its JSON answer, or its one-line error raised as an IosizerError."""
    import json
    import tempfile

    from typer.testing import CliRunner

    from iosizer.catalogue import command_spec
    from iosizer.cli.app import app
    from iosizer.commands import _listed, _path, _single, _word, keywords
    from iosizer.errors import IosizerError

    spec = command_spec(command)
    fields = {f.key: f for f in spec.fields if f.role is not Role.format}
    values: dict[str, Any] = {}
    files: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="iosizer-cli-") as folder:
        for key, value in keywords(spec, arguments, options).items():
            field = fields[key]
            if field.role is Role.plain:
                values[key] = _listed(value) if field.many else ",".join(_word(v) for v in value) \
                    if isinstance(value, (list, tuple)) else value
            else:
                items = [_path(v, Path(folder), f"{key}_{i}") for i, v in enumerate(_listed(value))]
                files[key] = items if field.many else _single(items, key)
        printed = CliRunner().invoke(app, spec.argv(values, files))
    answer = json.loads(printed.stdout) if printed.stdout.strip() else None
    if printed.exit_code != 0 and isinstance(answer, dict) and "error" in answer:
        import re

        # The usage hint the command line adds to a click error is the terminal's, not the error's.
        raise IosizerError(re.sub(r" \(see 'iosizer [^']*--help'\)$", "", answer["error"]))
    assert printed.exit_code in (0, 1), printed.output  # 1: report --check's failed figures, an answer still
    return answer
