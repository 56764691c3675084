"""The ``iosizer`` command: ``iosizer <family> <question>``.

Commands parse their options, call one library function and hand the answer
to :mod:`iosizer.cli.output`. Errors never reach the user as a traceback:
bad input is one line on stderr and exit status 2; a failed internal
self-check is one line and exit status 1 (``IOSIZER_DEBUG=1`` shows the
traceback).
"""

from __future__ import annotations

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


def _fail(message: str, status: int) -> int:
    # One line, whatever the message held: a user reads it, a script greps it.
    sys.stderr.write("iosizer: error: " + " ".join(message.split()) + "\n")
    return status


class _OneLineErrors(TyperGroup):
    """Turn every error into one stderr line and an exit status."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
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
            status = _fail("aborted", EXIT_INTERNAL)
        except typer.TyperException as error:  # usage errors: missing option, bad value
            context = getattr(error, "ctx", None)
            where = f" (see '{context.command_path} --help')" if context else ""
            status = _fail(error.format_message() + where, EXIT_BAD_INPUT)
        except (ConsistencyError, ConvergenceError) as error:
            if os.environ.get("IOSIZER_DEBUG"):
                raise
            status = _fail(str(error), EXIT_INTERNAL)
        except IosizerError as error:
            if os.environ.get("IOSIZER_DEBUG"):
                raise
            status = _fail(str(error), EXIT_BAD_INPUT)
        except Exception as error:  # a bug: still no traceback for the user
            if os.environ.get("IOSIZER_DEBUG"):
                raise
            status = _fail(
                f"internal error: {type(error).__name__}: {error} "
                "(set IOSIZER_DEBUG=1 for the traceback)",
                EXIT_INTERNAL,
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
    from iosizer.cli import calibration, families, hba, latency, loadshare, pcie, queue, replication, scenario
    from iosizer.cli import report as report_cli

    app.add_typer(queue.app, name="queue")
    app.add_typer(latency.app, name="latency")
    app.add_typer(pcie.app, name="pcie")
    app.add_typer(hba.app, name="hba")
    app.add_typer(loadshare.app, name="loadshare")
    app.command("families")(families.families)
    app.command("params")(families.params)
    app.command("calibrate")(calibration.calibrate)
    app.command("extrapolate")(calibration.extrapolate)
    app.command("datasets")(calibration.datasets)
    app.command("replication")(replication.replication)
    app.command("run")(scenario.run)
    app.command("report")(report_cli.report)
    from iosizer.cli.serve import serve  # imports FastAPI only when it runs

    app.command("serve")(serve)


_register()


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point."""
    app(args=list(argv) if argv is not None else None, prog_name="iosizer")
