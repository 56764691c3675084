"""Running ``iosizer`` commands for the server, in worker processes.

A command runs in a worker process of a pool, never in the server's event
loop: solves are CPU-bound (numpy and scipy hold the GIL for much of their
work), and the command functions print. In its process a worker runs one
command at a time, so it may change the working folder (each request gets an
empty temporary one holding the request's files) and redirect stdout and
stderr without racing another request.

The command runs through the same click command tree as the CLI, with
``--format json``; :func:`iosizer.cli.output.capture` hands over the
:class:`~iosizer.cli.output.Report` it emits, and the answer's body is
``to_json(report.data)``: what the CLI prints. Two pools keep a long
calibration from holding up a quick what-if (:data:`~iosizer.cli.catalogue.HEAVY_GROUPS`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import multiprocessing
import os
import tempfile
import traceback
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from iosizer.serve.limits import REQUEST_TIMEOUT, REQUEST_TIMEOUT_S

log = logging.getLogger("iosizer.serve")

_ROOT: Any = None


def _root() -> Any:
    global _ROOT
    if _ROOT is None:
        from iosizer.cli.catalogue import root_command

        _ROOT = root_command()
    return _ROOT


#: Scheduling priority of the fit/report workers: when the CPUs are short, what-ifs go first.
HEAVY_NICENESS = 10


def warm_up(heavy: bool = False) -> None:
    """Pool initializer: answer the page's starting questions once, so no request pays for the
    imports and shipped calibrations a command loads on its first call (up to half a second); a heavy
    worker also imports the simulators and scipy.stats (one to two seconds on a busy machine)."""
    from iosizer.cli.catalogue import command_specs

    if hasattr(os, "setpgrp"):
        # Its own process group, which the simulation's joblib workers join: killing the group stops
        # them too (killed alone, a worker left its replications running as orphans).
        os.setpgrp()
    if heavy and hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(HEAVY_NICENESS)
    from iosizer.serve.examples import STARTING_INPUTS

    if heavy:
        with contextlib.suppress(ImportError):  # without iosizer[simulate], simulate answers a one-line error
            from scipy.stats import t  # noqa: F401  (the replications' interval)

            from iosizer.simulate.engine import import_simulators

            import_simulators()
    specs = {spec.name: spec for spec in command_specs()[0]}
    with tempfile.TemporaryDirectory(prefix="iosizer-warm-") as folder:
        for name, body in STARTING_INPUTS.items():
            if name in specs and not specs[name].heavy:
                run(specs[name].argv(body), folder)


def pid() -> int:
    return os.getpid()


def _error(status: int, kind: str, message: str) -> dict[str, Any]:
    return {"status": status, "kind": kind, "error": " ".join(str(message).split()) or kind}


def run(argv: list[str], workdir: str, view: bool = False, output: str | None = None) -> dict[str, Any]:
    """Run ``iosizer ARGV`` in ``workdir``; the answer as a plain, picklable dict.

    ``{"status": 200, "json": TEXT, "exit": CODE}`` (with ``"view"``, the
    report's title, table, notes and plot panels, when ``view``), or
    ``{"status": 4xx/5xx, "error": LINE, "kind": CLASS}``. ``output`` names
    the file ``--output`` was given: its document replaces the name in the
    answer.
    """
    import typer
    from typer.core import TyperGroup

    from iosizer.cli.output import capture
    from iosizer.errors import IosizerError

    here = os.getcwd()
    status = 0
    try:
        os.chdir(workdir)
        with capture() as reports, contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            # As the CLI: floating-point warnings never reach the answer.
            warnings.simplefilter("ignore", RuntimeWarning)
            # The CLI's own error handling (_OneLineErrors) is bypassed so the
            # error's class survives as the answer's "kind".
            result = TyperGroup.main(_root(), args=argv, prog_name="iosizer", standalone_mode=False)
            status = result if isinstance(result, int) else 0
        return _answer(reports, status, view, output, workdir)
    except typer.Exit as stop:  # raised past main() by an eager callback
        return {"status": 200, "json": "null\n", "exit": stop.exit_code}
    except typer.TyperException as error:  # click's usage errors: a value the command line would refuse
        return _error(422, type(error).__name__, _local(error.format_message(), workdir))
    except IosizerError as error:
        return _error(400, type(error).__name__, _local(str(error), workdir))
    except OSError as error:
        reason = error.strerror or str(error)
        message = f"'{error.filename}': {reason}" if error.filename else reason
        return _error(400, type(error).__name__, _local(message, workdir))
    except Exception as error:  # a bug: logged with its traceback, never sent
        log.error("iosizer %s failed:\n%s", " ".join(argv), traceback.format_exc())
        return _error(500, "InternalError", f"internal error: {type(error).__name__}: {error}")
    finally:
        os.chdir(here)


def _local(value: Any, workdir: str) -> Any:
    """``value`` with the request's folder taken out of every text: no server path leaves the server."""
    if isinstance(value, str):
        for folder in {os.path.realpath(workdir), workdir}:
            value = value.replace(folder + os.sep, "")
        return value
    if isinstance(value, dict):
        return {k: _local(v, workdir) for k, v in value.items()}
    if isinstance(value, list):
        return [_local(v, workdir) for v in value]
    return value


def _answer(reports: list[Any], status: int, view: bool, output: str | None, workdir: str) -> dict[str, Any]:
    from iosizer.cli.output import to_json

    report = reports[-1] if reports else None
    data = _local(report.data, workdir) if report is not None else None
    if output is not None and os.path.isfile(output):
        with open(output, encoding="utf-8") as handle:
            document = _local(json.load(handle), workdir)
        if isinstance(data, dict):
            data = {k: (document if v == output else v) for k, v in data.items()}
    answer: dict[str, Any] = {"status": 200, "json": to_json(data) + "\n", "exit": status}
    if view and report is not None:
        answer["view"] = _local(_view(report, output), workdir)
    return answer


def _view(report: Any, output: str | None) -> dict[str, Any]:
    """What the page shows: title, table, notes and the curves (the --plot panels)."""
    from iosizer.cli.output import _plain

    rows = report.rows if isinstance(report.rows, list) else []
    columns = list(report.columns or (rows[0].keys() if rows and isinstance(rows[0], dict) else []))
    panels = [
        {
            "title": panel.title or report.title,
            "x_label": panel.x_label,
            "y_label": panel.y_label,
            "series": [
                {"label": s.label, "kind": s.kind, "x": _plain(list(s.x)), "y": _plain(list(s.y)),
                 "y_high": _plain(list(s.y_high)) if s.y_high is not None else None}
                for s in panel.series
            ],
        }
        for panel in (report.plot or [])
    ]
    notes = [n for n in report.notes if output is None or output not in n]
    return {"title": report.title, "columns": columns, "rows": _plain(rows), "notes": notes, "plot": panels}




class Workers:
    """Two process pools: ``quick`` for what-ifs, ``heavy`` for fits, the report and simulations.

    A request not answered ``timeout_s`` after it was handed to its pool (its
    wait for a free worker included; a pool's start-up not) is answered 503 and
    the pool is restarted: a process pool cannot cancel a running task, so its
    workers are killed (the other requests in that pool at that moment are
    answered 503 too, and can be sent again).
    """

    def __init__(self, quick: int, heavy: int, timeout_s: float = REQUEST_TIMEOUT_S) -> None:
        self.sizes = {False: max(1, quick), True: max(1, heavy)}
        self.timeout_s = float(REQUEST_TIMEOUT.check(timeout_s, "request_timeout_s"))
        self._context = multiprocessing.get_context("spawn")
        self._pools: dict[bool, ProcessPoolExecutor] = {}
        self._ready: dict[bool, asyncio.Future[Any]] = {}

    def _pool(self, heavy: bool) -> ProcessPoolExecutor:
        pool = self._pools.get(heavy)
        if pool is None:
            pool = ProcessPoolExecutor(self.sizes[heavy], mp_context=self._context, initializer=warm_up,
                                       initargs=(heavy,))
            self._pools[heavy] = pool
            # Every worker started and warmed up (one trivial task each).
            self._ready[heavy] = asyncio.gather(
                *(asyncio.wrap_future(pool.submit(pid)) for _ in range(self.sizes[heavy])))
        return pool

    async def start(self) -> None:
        """Start every worker process and wait until each has imported the models."""
        for heavy in self.sizes:
            self._pool(heavy)
        await asyncio.gather(*self._ready.values())

    async def run(self, heavy: bool, argv: list[str], workdir: str, view: bool = False,
                  output: str | None = None) -> dict[str, Any]:
        pool = self._pool(heavy)
        try:
            # A fresh pool's start-up (process spawn, imports, warm-up) is not the request's time.
            await asyncio.shield(self._ready[heavy])
        except BrokenProcessPool:
            pass  # answered below, as the submit fails the same way
        try:
            return await asyncio.wait_for(asyncio.wrap_future(pool.submit(run, argv, workdir, view, output)),
                                          self.timeout_s)
        except asyncio.TimeoutError:
            log.error("iosizer %s ran past the %g s request limit; restarting its pool", " ".join(argv),
                      self.timeout_s)
            self._restart(heavy, pool, kill=True)
            return _error(503, "Timeout", f"the request ran past the server's {self.timeout_s:g} s limit "
                                          "(iosizer serve --request-timeout-s); ask for less work")
        except BrokenProcessPool:
            if pool is not self._pools.get(heavy):  # killed by another request's timeout
                return _error(503, "WorkerRestarted", "the worker pool was restarted while this request ran "
                                                      "(another request ran past the time limit); send it again")
            # A worker died (killed, out of memory): replace the pool, answer this request with the failure.
            log.error("a worker process died running iosizer %s; restarting the pool", " ".join(argv))
            self._restart(heavy, pool)
            return _error(500, "WorkerError", "the worker process answering this request died")

    def _restart(self, heavy: bool, pool: ProcessPoolExecutor, kill: bool = False) -> None:
        """Drop ``pool`` (the next request starts a fresh one); with ``kill``, stop its workers now."""
        if self._pools.get(heavy) is pool:
            del self._pools[heavy]
        if kill:
            _kill_workers(pool)
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop every worker and what it started now: a running simulation is not waited for."""
        for pool in self._pools.values():
            _kill_workers(pool)
            pool.shutdown(wait=False, cancel_futures=True)
        self._pools.clear()


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """Kill ``pool``'s worker processes with their process groups (each worker leads its own, see
    :func:`warm_up`). The executor has no public way to stop a running task; its workers are in
    ``_processes`` (CPython 3.8+), and killing one breaks the pool as a crash would."""
    import signal

    for process in list(getattr(pool, "_processes", {}).values()):
        with contextlib.suppress(Exception):
            if hasattr(os, "killpg") and process.pid and os.getpgid(process.pid) == process.pid:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
