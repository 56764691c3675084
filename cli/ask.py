"""``iosizer.ask``: any command's answer as Python values, exactly what ``--format json`` prints.

The family objects (:func:`iosizer.family`) are the typed API of the models;
``ask`` is the rest of the tool from Python: sizing with a profile's
interval, percentiles, simulation, scenario files, the report, in the
vocabulary of the CLI and the HTTP API, one call per command::

    >>> import iosizer
    >>> answer = iosizer.ask("size servers", arrival_rate=3.2, service_rate=1, target_response_s=1.5)
    >>> answer["servers"]
    5

Keyword arguments are the command's JSON keys, as ``iosizer serve`` takes
them (the long option without its dashes, ``--target-response-s`` is
``target_response_s``; an argument by its name); the catalogue
(:mod:`iosizer.cli.catalogue`) reads them from the command tree, so a new
option is a new keyword with no line here. Values are what the command line
would read: numbers, text, a list for a repeatable option (or for a comma
list such as ``tenant_iops=[250000, 120000]``), True/False for a flag, a
path or a :class:`~iosizer.calibration.profile.Profile` for a profile, paths
for data and outputs. The command runs in this process and the current
folder; ``--format`` is always json.

Errors are the CLI's, raised instead of printed: an
:class:`~iosizer.errors.IosizerError` subclass (``InputError`` for a value
the command refuses, an unknown command or keyword included).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from iosizer.errors import InputError

__all__ = ["ask"]


def ask(command: str | Iterable[str], /, *arguments: Any, **options: Any) -> Any:
    """The answer of ``iosizer COMMAND ARGUMENTS --format json`` with ``options`` (module docstring), parsed.

    ``arguments`` fill the command's positional arguments in order (the
    last one takes the rest when it is variadic: ``ask("extrapolate", p1,
    p2, cpu_speed=1.5)``); they may be given by name instead. A dict or a
    list of dicts, as the command prints it; None for a command that prints
    no answer.
    """
    from iosizer.cli.catalogue import NOT_SERVED
    from iosizer.commands import Role, _listed, _path, _single, keywords

    words = tuple(command.split()) if isinstance(command, str) else tuple(command) \
        if isinstance(command, (list, tuple)) else None
    if words is None or not all(isinstance(w, str) for w in words):
        raise InputError(f"ask takes a command as text ('size servers') or a list of words, got {command!r}")
    if words in NOT_SERVED:  # 'serve' would start a server in this process and never return
        raise InputError(f"iosizer {' '.join(words)} {NOT_SERVED[words]}: it has no answer to ask for; "
                         "run it from the command line")
    spec = _spec(words)
    fields = {f.key: f for f in spec.fields if f.role is not Role.format}
    options = keywords(spec, arguments, options)
    values: dict[str, Any] = {}
    files: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="iosizer-ask-") as folder:
        for key, value in options.items():
            field = fields[key]
            if value is None:
                continue
            if field.role is Role.plain:
                values[key] = _plain(value, field)
            else:
                items = [_path(v, Path(folder), f"{key}_{i}") for i, v in enumerate(_listed(value))]
                files[key] = items if field.many else _single(items, key)
        return _run(spec.argv(values, files), _units(spec.name))


@lru_cache(maxsize=64)
def _spec(path: tuple[str, ...]) -> Any:
    from iosizer.cli.catalogue import command_spec

    return command_spec(path)


def _plain(value: Any, field: Any) -> Any:
    """A keyword's value as the command line's word(s): a list joins with commas unless repeatable."""
    from iosizer.commands import _listed

    if field.many:
        return _listed(value)
    if isinstance(value, (list, tuple)):
        from iosizer.commands import _word

        return ",".join(_word(v) for v in value)
    return value


def _units(command: str) -> dict[str, str]:
    """Declared units of the names a command's answer may hold (a family's parameters)."""
    from iosizer.cli.catalogue import _declared_by_command

    return {name: spec.unit for name, spec in _declared_by_command().get(command, {}).items()}


def _run(argv: list[str], units: dict[str, str] | None = None) -> Any:
    """Run ``iosizer ARGV`` here and return the answer's JSON, parsed; the command's errors are raised.

    An object or a list comes back as :class:`~iosizer.frames.AnswerDict` or
    :class:`~iosizer.frames.AnswerList`: the same JSON, with the rows of the
    command's table or CSV behind ``to_frame()`` and ``repr()``.
    """
    import typer
    from typer.core import TyperGroup

    from iosizer.cli.catalogue import root_command
    from iosizer.frames import capture, to_json

    try:
        with capture() as reports, contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # as the CLI: never part of an answer
            TyperGroup.main(root_command(), args=argv, prog_name="iosizer", standalone_mode=False)
    except typer.Exit:  # an eager option (--version) answered
        return None
    except typer.TyperException as error:  # a word the command line refuses: click's own message
        from iosizer.cli.app import usage_message

        raise InputError(" ".join(usage_message(error).split())) from None
    if not reports:
        return None
    from iosizer.frames import report_table, viewed

    return viewed(json.loads(to_json(reports[-1].data)), report_table(reports[-1], units))
