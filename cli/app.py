"""The ``iosizer`` command: ``iosizer <family> <question>``.

Commands parse their options, call one library function and hand the answer
to :mod:`iosizer.cli.output`. Errors never reach the user as a traceback:
bad input (a usage error, a value out of its declared bounds, a file that
cannot be read or written) is one line on stderr and exit status 2; a failed
internal self-check is one line and exit status 1 (``IOSIZER_DEBUG=1`` shows
the traceback). With ``--format json`` the error is also a JSON object on
stdout: ``{"error": LINE, "kind": EXCEPTION CLASS, "exit": STATUS}``.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any, Sequence

from functools import partial

import typer

from iosizer import __version__
from iosizer.cli.lazy import LazyTyperGroup, command_of, load, plain_first
from iosizer.errors import ConsistencyError, ConvergenceError, IosizerError

#: Exit status for bad input (a usage error, a value out of its domain).
EXIT_BAD_INPUT = 2
#: Exit status for a result the tool refused to return (self-check, bug).
EXIT_INTERNAL = 1


def _requested_json(args: Sequence[str] | None) -> bool:
    """Whether the command line asks for ``--format json`` (the last --format/-f wins, as in parsing)."""
    words = list(sys.argv[1:] if args is None else args)
    chosen = None
    for i, word in enumerate(words):
        if word == "--":
            break
        if word in ("--format", "-f") and i + 1 < len(words):
            chosen = words[i + 1]
        elif word.startswith("--format="):
            chosen = word.split("=", 1)[1]
        elif word.startswith("-f") and not word.startswith("--") and len(word) > 2:
            chosen = word[2:]
    return chosen is not None and chosen.strip().lower() == "json"


def _fail(message: str, status: int, kind: str = "IosizerError", as_json: bool = False) -> int:
    # One line, whatever the message held: a user reads it, a script greps it.
    line = " ".join(message.split())
    sys.stderr.write("iosizer: error: " + line + "\n")
    if as_json:
        # --format json: the failure is data too, so an embedding program
        # tells it from an answer without parsing English.
        sys.stdout.write(json.dumps({"error": line, "kind": kind, "exit": status}) + "\n")
    return status


def _os_message(error: OSError) -> str:
    """An OSError as one line naming the file and the reason."""
    reason = error.strerror or str(error) or type(error).__name__
    return f"'{error.filename}': {reason}" if error.filename is not None else reason


def _is_validation_error(error: Exception) -> bool:
    return type(error).__name__ == "ValidationError" and type(error).__module__.startswith("pydantic")


def _validation_message(error: Any) -> str:
    """A pydantic ValidationError as one line: the field, what it must be and the value given."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "value"
    return f"{where}: {first.get('msg', 'invalid')}, got {first.get('input')!r}"


def usage_message(error: Exception) -> str:
    """A usage error's message, with the value typed when typer's own check hides it.

    typer converts option values with pydantic and says "Input should be a valid integer, unable to
    parse string as an integer" for '--servers 2.5' without the 2.5; the pydantic error behind it
    keeps the input.
    """
    message = error.format_message() if hasattr(error, "format_message") else str(error)
    cause = error.__cause__
    if cause is not None and _is_validation_error(cause):
        message = message.replace("Value error, ", "")  # pydantic's prefix for a validator's own words
        errors = cause.errors()
        if errors and "input" in errors[0] and repr(errors[0]["input"]) not in message:
            message = f"{message.rstrip('.')}, got {errors[0]['input']!r}"
    return message


class _OneLineErrors(LazyTyperGroup):
    """Turn every error into one stderr line and an exit status; offer every declared question.

    The root's commands are :data:`COMMANDS`, each built when it is first asked for (a
    :class:`~iosizer.cli.lazy.LazyCommands`): ``iosizer queue mmc`` builds one command, and
    ``iosizer --help`` lists them all from the table without importing their modules.
    """

    def list_commands(self, ctx: Any) -> list[str]:
        from iosizer.model.registry import plugin_names  # names only: no family module is imported

        names = super().list_commands(ctx)
        return names + [name for name in plugin_names() if name not in names]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if self._listing and command is not None and self.commands.pending(cmd_name):
            return command  # the help listing's stand-in: the group is not built to list it
        from iosizer.model.registry import BUILTIN_FAMILIES, BUILTIN_GROUPS

        if command is not None and cmd_name not in BUILTIN_FAMILIES and cmd_name not in BUILTIN_GROUPS:
            return command  # a hand-written command: nothing to add (and no plugin lookup)
        from iosizer.cli.questions import resolve

        return resolve(self, cmd_name, command)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, (target, text) in COMMANDS.items():
            if name not in self.commands:  # a command registered on ``app`` itself wins
                self.commands.add_lazy(name, partial(_build, name, target), help=text)
        plain_first(self)  # --version: converted without pydantic (cli/lazy.py)
        from iosizer.cli.output import add_output_options

        add_output_options(self)  # --columns and --rows beside every --format

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        as_json = _requested_json(args)
        try:
            with warnings.catch_warnings():
                # Floating-point warnings would break the one-line contract;
                # every answer is checked for finiteness by the models instead.
                warnings.simplefilter("ignore", RuntimeWarning)
                result = super().main(
                    args=args,
                    prog_name=prog_name or "iosizer",
                    complete_var=complete_var,
                    standalone_mode=False,
                    **extra,
                )
            status = result if isinstance(result, int) else 0
        except typer.Exit as stop:
            status = stop.exit_code
        except typer.Abort:
            status = _fail("aborted", EXIT_INTERNAL, "Abort", as_json)
        except typer.TyperException as error:  # usage errors: missing option, bad value
            context = getattr(error, "ctx", None)
            where = f" (see '{context.command_path} --help')" if context else ""
            status = _fail(usage_message(error) + where, EXIT_BAD_INPUT, type(error).__name__, as_json)
        except (ConsistencyError, ConvergenceError) as error:
            if os.environ.get("IOSIZER_DEBUG"):
                raise
            status = _fail(str(error), EXIT_INTERNAL, type(error).__name__, as_json)
        except IosizerError as error:
            if os.environ.get("IOSIZER_DEBUG"):
                raise
            status = _fail(str(error), EXIT_BAD_INPUT, type(error).__name__, as_json)
        except OSError as error:  # a file the user named cannot be read or written
            if os.environ.get("IOSIZER_DEBUG"):
                raise
            status = _fail(_os_message(error), EXIT_BAD_INPUT, type(error).__name__, as_json)
        except Exception as error:  # a bug: still no traceback for the user
            if os.environ.get("IOSIZER_DEBUG"):
                raise
            if _is_validation_error(error):
                # A model's own input validation (pydantic) caught what the
                # edge did not: still the user's value, so exit 2.
                status = _fail(_validation_message(error), EXIT_BAD_INPUT, "InputError", as_json)
            else:
                status = _fail(
                    f"internal error: {type(error).__name__}: {error} "
                    "(set IOSIZER_DEBUG=1 for the traceback)",
                    EXIT_INTERNAL,
                    type(error).__name__,
                    as_json,
                )
        if standalone_mode:
            sys.exit(status)
        return status


app = typer.Typer(
    cls=_OneLineErrors,
    name="iosizer",
    help=(
        "Estimate server I/O performance with analytical queueing models. "
        "Every command prints a table; --format json|csv for machines."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: typer's rich formatter imports markdown and pygments,
    # which would double the start-up time of every command.
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"iosizer {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Estimate server I/O performance with analytical queueing models."""


#: The root's commands, in ``iosizer --help`` order: name -> (where the command is, its help's first
#: paragraph). The target is ``module:attribute`` (a typer app, a command function or a click command),
#: or ``module:factory()`` called with the name. The text is what ``iosizer --help`` lists before the
#: command is built (tests/cli/test_lazy_cli.py checks it against the built command's own help).
COMMANDS: dict[str, tuple[str, str]] = {
    "families": ("iosizer.cli.families:families",
                 "Every model family: what it models, its source and its data columns."),
    "params": ("iosizer.cli.families:params",
               "Every parameter of a family: unit, shipped value, status (published, derived, assumed, fitted) "
               "and source."),
    "calibrate": ("iosizer.cli.calibration:calibrate",
                  "Fit a family to measured points; print the fit report, save a profile."),
    "extrapolate": ("iosizer.cli.calibration:extrapolate",
                    "Predict a profile for another CPU from profiles of one or more CPUs."),
    "datasets": ("iosizer.cli.calibration:datasets",
                 "List the shipped measurement files (every figure the seeds publish) and their sources."),
    "replication": ("iosizer.cli.questions:family_command()",
                    "Random-write IOPS, throughput and latency of a write-back flash cache replicating to a peer."),
    "run": ("iosizer.cli.scenario:run",
            "Answer every question a scenario file's tables ask: [latency], [pcie], [hba], [loadshare], "
            "[replication]."),
    "report": ("iosizer.cli.report:report",
               "Every model family against every published figure: report.md, report.html and plots."),
    "serve": ("iosizer.cli.serve:serve",  # imports FastAPI only when it runs
              "Serve every command as POST /api/<command> (JSON in, what --format json prints out) and a "
              "what-if page at /."),
    "queue": ("iosizer.cli.queue:app",
              "Open queues (M/M/1, M/M/c, M/G/1, M/D/1, G/G/c) and closed networks (MVA)."),
    "latency": ("iosizer.cli.questions:builtin_group()",
                "Throughput lost to added I/O latency: DMA devices, OLTP curve, budgets, switch tiers (seed 000)."),
    "pcie": ("iosizer.cli.pcie:app",
             "PCIe write path: link bandwidth, 64-byte-unaligned accesses, RMW contention (seed 001)."),
    "hba": ("iosizer.cli.questions:family_group()",
            "virtual FC ports sharing one physical port and its HBA cores: isolation and response (seed 002) "
            "(family 'hba'; iosizer params hba)."),
    "loadshare": ("iosizer.cli.loadshare:app",
                  "Which policy spreads storage-port queues over cores best (seed 003)."),
    "size": ("iosizer.cli.size:app",
             "Sizing: the smallest servers, cores, ports or outstanding I/Os for a target, and the largest load "
             "or latency within one."),
    "device": ("iosizer.cli.device:app",
               "Storage device from a fio queue-depth sweep: latency floor, parallel units, unit service."),
    "simulate": ("iosizer.cli.simulate:app",
                 "Simulate a family's question (numpy, vectorised; Ciw or SimPy as the second engine) and compare "
                 "with its analytic answer: mean, 95 % interval, inside or not."),
}


def _build(name: str, target: str) -> Any:
    """Root command ``name``, built from its :data:`COMMANDS` target as typer would have built it."""
    built = command_of(load(target, name), name, pretty_exceptions_short=app.pretty_exceptions_short,
                       suggest_commands=app.suggest_commands, rich_markup_mode=app.rich_markup_mode)
    if not built.help:  # a group generated from the registry (iosizer latency): the help its listing shows
        built.help = COMMANDS[name][1]
    return built


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point."""
    app(args=list(argv) if argv is not None else None, prog_name="iosizer")
