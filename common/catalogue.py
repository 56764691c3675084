"""Every command the HTTP API and :func:`iosizer.ask` take, from the declarations alone.

The commands :mod:`iosizer.commands` declares (``families``, ``params``, ``run``, ...) and those
generated from the registry (:mod:`iosizer.generated`: ``size <name>``, ``simulate <command>``), as
:class:`~iosizer.commands.CommandSpec`s; the declared questions (``iosizer <family> <question>``) are
answered by :func:`iosizer.api.ask` and served from their own declarations
(:mod:`iosizer.serve.questions`). Nothing here reads the CLI: the CLI is built from the same specs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Sequence

from iosizer.commands import DECLARED, CommandSpec, declared_command
from iosizer.errors import InputError

__all__ = ["NOT_SERVED", "ask", "command_spec", "command_specs"]

#: Commands that are not served, with the reason (shown in the catalogue).
NOT_SERVED: dict[tuple[str, ...], str] = {
    ("serve",): "starts this server",
}


def command_specs() -> tuple[list[CommandSpec], dict[str, str]]:
    """Every served command (every family's module is imported), and the ones not served with the reason."""
    from iosizer.generated import simulate_commands, size_commands

    declared = [spec for path in DECLARED if (spec := declared_command(path)) is not None]
    return [*declared, *size_commands(), *simulate_commands()], {" ".join(p): why for p, why in NOT_SERVED.items()}


def _found(path: tuple[str, ...]) -> CommandSpec | None:
    """The command at ``path``: declared, or generated (only the family it names is read when it names one)."""
    spec = declared_command(path)
    if spec is not None or len(path) < 2:
        return spec
    from iosizer.generated import simulate_command, size_command

    if path[0] == "size" and len(path) == 2:
        return size_command(path[1])
    return simulate_command(path[1:]) if path[0] == "simulate" else None


def _known_paths() -> list[tuple[str, ...]]:
    """Every command's path, the declared questions' and the ones not served included (for a hint)."""
    from iosizer.model.registry import declaration, family_names

    paths = [spec.path for spec in command_specs()[0]] + list(NOT_SERVED)
    for name in family_names():
        try:
            questions = declaration(name).questions
        except InputError:  # a plugin that does not load has no command
            continue
        paths += [q.path(name) for q in questions if q.answerable]
    return paths


def _unknown(path: tuple[str, ...]) -> InputError:
    known = _known_paths()
    text = " ".join(path)
    near = sorted(" ".join(p) for p in known if p[:len(path)] == path) or sorted(
        " ".join(p) for p in known if p[0] == (path[0] if path else ""))
    hint = f"; did you mean one of: {', '.join(near)}" if near else "; see iosizer --help"
    return InputError(f"no command 'iosizer {text}'{hint}")


def command_spec(command: str | Iterable[str]) -> CommandSpec:
    """The catalogue entry of one command (``"size hba"`` or ``("size", "hba")``), served or not.

    An unknown or partial path is an :class:`InputError` naming the commands it could be.
    """
    path = tuple(command.split()) if isinstance(command, str) else tuple(command)
    spec = _found(path)
    if spec is None:
        raise _unknown(path)
    return spec


def ask(command: str | Sequence[str], /, *arguments: Any, **options: Any) -> Any:
    """The answer of ``iosizer COMMAND ... --format json`` as Python values (a dict, or a list of them).

    Keyword arguments are the command's JSON keys, as ``iosizer serve`` takes them (the long option
    without its dashes: ``--target-response-s`` is ``target_response_s``); ``arguments`` fill its
    positional arguments in order (a variadic last one takes the rest). Values are what the command line
    reads: numbers, text, a list for a repeatable option (or for a comma list such as
    ``tenant_iops=[250000, 120000]``), True/False for a flag, a path or a
    :class:`~iosizer.calibration.profile.Profile` for a profile, paths for data and outputs. A declared
    question (``"mm1k queue"``) is :func:`iosizer.api.ask`'s. The work runs in this process and the
    current folder. Errors are raised: an :class:`~iosizer.errors.IosizerError` subclass (``InputError``
    for a value the command refuses, an unknown command or keyword included).
    """
    words = tuple(command.split()) if isinstance(command, str) else tuple(command) \
        if isinstance(command, (list, tuple)) else None
    if words is None or not all(isinstance(w, str) for w in words):
        raise InputError(f"ask takes a command as text ('size servers') or a list of words, got {command!r}")
    if words in NOT_SERVED:  # 'serve' would start a server in this process and never return
        raise InputError(f"iosizer {' '.join(words)} {NOT_SERVED[words]}: it has no answer to ask for; "
                         "run it from the command line")
    spec = _found(words)
    if spec is None:
        from iosizer.api import ask as answer_question, is_question

        if not is_question(words):
            raise _unknown(words)
        return answer_question(words, *arguments, **options)
    import json
    import tempfile

    from iosizer.commands import asked
    from iosizer.frames import report_table, to_json, viewed

    with tempfile.TemporaryDirectory(prefix="iosizer-ask-") as folder:
        report = asked(spec, arguments, options, Path(folder))
    return viewed(json.loads(to_json(report.data)), report_table(report, spec.units))
