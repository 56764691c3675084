"""``iosizer serve``: the HTTP API and the what-if page (:mod:`iosizer.serve`, extra ``iosizer[serve]``)."""

from __future__ import annotations

import re
import sys
from typing import Annotated, Any

import typer

from iosizer.errors import InputError
from iosizer.serve.limits import JOB_SECONDS, MAX_MEMORY, MAX_REPLICATIONS, REQUEST_TIMEOUT, WAIT  # no FastAPI: --help stays fast

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_WILDCARDS = {"0.0.0.0", "::", ""}


def _range(spec: Any) -> str:
    return f"[{spec.bounds[0]:g}, {spec.bounds[1]:g}; {spec.value:g}]"


# Each option a named type (typer reads the Annotated metadata), so the command reads as what it does.
_Host = Annotated[str, typer.Option("--host", help="Address to listen on; loopback unless told otherwise.")]
_Port = Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")]
_Workers = Annotated[
    int | None,
    typer.Option("--workers", min=1, max=256,
                 help="Worker processes for what-ifs [CPUs, at least 2]; fits and reports get half as many."),
]
_Jobs = Annotated[
    int, typer.Option("--jobs", min=1, max=64, help="Simulations run at once, each in its own process group.")]
_JobQueue = Annotated[
    int, typer.Option("--job-queue", min=0, max=10000,
                      help="Simulations that may wait for one to finish; past it the answer is 503 "
                           "with Retry-After.")]
_SimulationWorkers = Annotated[
    int | None, typer.Option("--simulation-workers", min=1, max=256,
                             help="Most processes one simulation may use (its 'workers') [CPUs].")]
_MaxReplications = Annotated[
    int, typer.Option("--max-replications", help=f"Most replications one simulation may ask for "
                                                 f"{_range(MAX_REPLICATIONS)}.")]
_MaxJobSeconds = Annotated[
    float, typer.Option("--max-job-seconds", help=f"Longest a simulation runs, s; its max_seconds may ask for "
                                                  f"less {_range(JOB_SECONDS)}.")]
_MaxMemoryMb = Annotated[
    float, typer.Option("--max-memory-mb", help=f"Memory (data segment) of each fit or simulation process, MiB "
                                                f"{_range(MAX_MEMORY)}; past it the answer is 413.")]
_WaitSeconds = Annotated[
    float, typer.Option("--wait-seconds", help=f"A simulation ending within this many seconds is answered "
                                               f"directly, a longer one with 202 and a job to poll "
                                               f"{_range(WAIT)}.")]
_Scheduler = Annotated[
    str | None, typer.Option("--scheduler", metavar="ADDRESS",
                             help="Run simulations' replications on this Dask scheduler (tcp://host:port; "
                                  "needs iosizer[cluster]); requests cannot name one.")]
_MaxUploadMb = Annotated[
    float, typer.Option("--max-upload-mb", min=0.001, help="Largest request body (uploaded data), MiB.")]
_RequestTimeout = Annotated[
    float, typer.Option("--request-timeout-s",
                        help=f"Longest a what-if, fit or report may wait for and run in a worker, s "
                             f"{_range(REQUEST_TIMEOUT)}; beyond it the answer is 504 and its worker is "
                             "killed and replaced.")]
_AllowedHost = Annotated[
    list[str] | None,
    typer.Option("--allowed-host", help="A Host name the server answers besides the loopback ones (the "
                                        "name clients use to reach it; * for any); repeat for several."),
]
_CorsOrigin = Annotated[
    list[str] | None,
    typer.Option("--cors-origin", help="A browser origin (https://host:port, or *) allowed to call the API "
                                       "from its own pages; repeat for several. Same origin only by default."),
]
_LogLevel = Annotated[str, typer.Option("--log-level", help="Server log level: critical, error, warning, info, debug.")]


def serve(
    host: _Host = "127.0.0.1",
    port: _Port = 8000,
    workers: _Workers = None,
    jobs: _Jobs = 1,
    job_queue: _JobQueue = 4,
    simulation_workers: _SimulationWorkers = None,
    max_replications: _MaxReplications = int(MAX_REPLICATIONS.value),
    max_job_seconds: _MaxJobSeconds = float(JOB_SECONDS.value),
    max_memory_mb: _MaxMemoryMb = float(MAX_MEMORY.value),
    wait_seconds: _WaitSeconds = float(WAIT.value),
    scheduler: _Scheduler = None,
    max_upload_mb: _MaxUploadMb = 50.0,
    request_timeout_s: _RequestTimeout = float(REQUEST_TIMEOUT.value),
    allowed_host: _AllowedHost = None,
    cors_origin: _CorsOrigin = None,
    log_level: _LogLevel = "info",
) -> None:
    """Serve every command as POST /api/<command> (JSON in, what --format json prints out) and a what-if page at /."""
    try:
        import uvicorn

        from iosizer.serve.app import Limits, create_app
    except ImportError as error:
        raise InputError(f"iosizer serve needs the serve extra ({error.name} is missing): "
                         "pip install 'iosizer[serve]'") from None
    if log_level not in {"critical", "error", "warning", "info", "debug"}:
        raise InputError(f"--log-level: expected critical, error, warning, info or debug, got {log_level!r}")
    if host not in _LOOPBACK:
        sys.stderr.write(f"iosizer: warning: listening on {host}: reachable from other machines, "
                         "with no authentication\n")
    limits = Limits(
        request_timeout_s=REQUEST_TIMEOUT.check(request_timeout_s, "--request-timeout-s"),
        max_job_seconds=JOB_SECONDS.check(max_job_seconds, "--max-job-seconds"),
        max_replications=int(MAX_REPLICATIONS.check(max_replications, "--max-replications")),
        simulation_workers=simulation_workers or _cpus(),
        max_memory_mb=MAX_MEMORY.check(max_memory_mb, "--max-memory-mb"),
        wait_seconds=WAIT.check(wait_seconds, "--wait-seconds"),
        scheduler=_scheduler(scheduler),
    )
    origins, hosts = _origins(cors_origin), _hosts(allowed_host, host)
    app = create_app(workers=workers, max_upload_bytes=int(max_upload_mb * 2**20), request_timeout_s=limits.request_timeout_s,
                     cors_origins=origins, allowed_hosts=hosts, jobs=jobs, job_queue=job_queue, limits=limits)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=3)
    _Server(config, app.state.lanes, app.state.server).run()


def _origins(cors_origin: list[str] | None) -> list[str]:
    """The browser origins allowed, each * or scheme://host[:port]."""
    origins = [o.strip() for o in cors_origin or []]
    for origin in origins:
        if origin != "*" and not re.fullmatch(r"https?://[^/\s]+", origin):
            raise InputError(f"--cors-origin: expected * or scheme://host[:port] with no path, got {origin!r}")
    return origins


def _hosts(allowed_host: list[str] | None, host: str) -> list[str]:
    """The Host names the server answers: those allowed, and the address it listens on."""
    hosts = [h.strip() for h in allowed_host or []]
    for name in hosts:
        if not re.fullmatch(r"\*|\[?[A-Za-z0-9_.:-]+\]?", name):
            raise InputError(f"--allowed-host: expected a host name or address (no scheme, port or path), got {name!r}")
    if host not in _WILDCARDS:
        hosts.append(host)  # the address it listens on is a name clients may use
    return hosts


def _cpus() -> int:
    import os

    return os.cpu_count() or 1


def _scheduler(address: str | None) -> str | None:
    if address is not None and not re.fullmatch(r"[a-z]+://[^/\s]+/?", address.strip()):
        raise InputError(f"--scheduler: expected a Dask scheduler address such as tcp://host:8786, got {address!r}")
    return address.strip() if address else None


def _server_class() -> Any:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, which on the first Ctrl-C or SIGTERM also kills every worker's process group.

        uvicorn alone waits for requests in flight; a simulation's would hold
        it (and its processes) for minutes. Killed workers answer their
        requests 503 at once, so the connections close and uvicorn stops.
        """

        def __init__(self, config: Any, lanes: Any, server: Any) -> None:
            super().__init__(config)
            self.lanes = lanes
            self.iosizer = server

        def handle_exit(self, sig: int, frame: Any) -> None:
            for lane in self.lanes:
                lane.closed = True
                for worker in list(lane.workers):
                    worker.kill_now()  # at once, from the signal handler: only a system call
            loop = getattr(self.lanes, "loop", None)
            if loop is not None:  # the rest in the event loop: waiting requests answered 503
                loop.call_soon_threadsafe(self._stop_waiting)
            super().handle_exit(sig, frame)

        def _stop_waiting(self) -> None:
            self.iosizer.jobs.cancel_all()
            self.lanes.close()

    return Server


def _Server(config: Any, lanes: Any, server: Any) -> Any:  # noqa: N802  (a class made on first use: uvicorn is lazy)
    return _server_class()(config, lanes, server)
