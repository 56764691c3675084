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

import typer
from typer.core import TyperGroup

from iosizer import __version__
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


class _OneLineErrors(TyperGroup):
    """Turn every error into one stderr line and an exit status; offer every declared question."""

    def list_commands(self, ctx: Any) -> list[str]:
        from iosizer.model.registry import plugin_names  # names only: no family module is imported

        names = super().list_commands(ctx)
        return names + [name for name in plugin_names() if name not in names]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        from iosizer.model.registry import BUILTIN_FAMILIES

        if command is not None and cmd_name not in BUILTIN_FAMILIES:
            return command  # a hand-written command: nothing to add (and no plugin lookup)
        from iosizer.cli.questions import resolve

        return resolve(self, cmd_name, command)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
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


def _register() -> None:
    # Each family lives in its own module; importing them is cheap because
    # they import models (numpy, scipy) only inside the command bodies.
    from iosizer.cli import calibration, device, families, hba, latency, loadshare, pcie, queue, replication, scenario, size
    from iosizer.cli import report as report_cli
    from iosizer.cli import simulate as simulate_cli
    from iosizer.cli import size_families  # noqa: F401  (adds the seed families' sizing commands to size.app)

    app.add_typer(queue.app, name="queue")
    app.add_typer(latency.app, name="latency")
    app.add_typer(pcie.app, name="pcie")
    app.add_typer(hba.app, name="hba")
    app.add_typer(loadshare.app, name="loadshare")
    app.add_typer(size.app, name="size")
    app.add_typer(device.app, name="device")
    app.command("families")(families.families)
    app.command("params")(families.params)
    app.command("calibrate")(calibration.calibrate)
    app.command("extrapolate")(calibration.extrapolate)
    app.command("datasets")(calibration.datasets)
    app.command("replication")(replication.replication)
    app.command("run")(scenario.run)
    app.command("report")(report_cli.report)
    app.add_typer(simulate_cli.app, name="simulate")
    from iosizer.cli.serve import serve  # imports FastAPI only when it runs

    app.command("serve")(serve)


_register()


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point."""
    app(args=list(argv) if argv is not None else None, prog_name="iosizer")
