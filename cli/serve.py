"""``iosizer serve``: the HTTP API and the what-if page (:mod:`iosizer.serve`, extra ``iosizer[serve]``)."""

from __future__ import annotations

import re
import sys
from typing import Annotated

import typer

from iosizer.errors import InputError
from iosizer.serve.limits import REQUEST_TIMEOUT  # no FastAPI, no asyncio: --help stays fast

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on; loopback unless told otherwise.")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8000,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, max=256,
                     help="Worker processes for what-ifs [CPUs, at least 2]; fits and reports get half as many."),
    ] = None,
    max_upload_mb: Annotated[
        float, typer.Option("--max-upload-mb", min=0.001, help="Largest request body (uploaded data), MiB.")
    ] = 50.0,
    request_timeout_s: Annotated[
        float, typer.Option("--request-timeout-s",
                            help=f"Longest a request may wait for and run in a worker, s "
                                 f"[{REQUEST_TIMEOUT.bounds[0]:g}, {REQUEST_TIMEOUT.bounds[1]:g}]; beyond it "
                                 "the answer is 503 and its worker pool restarts.")
    ] = float(REQUEST_TIMEOUT.value),
    cors_origin: Annotated[
        list[str] | None,
        typer.Option("--cors-origin", help="A browser origin (https://host:port, or *) allowed to call the API "
                                           "from its own pages; repeat for several. Same origin only by default."),
    ] = None,
    log_level: Annotated[
        str, typer.Option("--log-level", help="Server log level: critical, error, warning, info, debug.")
    ] = "info",
) -> None:
    """Serve every command as POST /api/<command> (JSON in, what --format json prints out) and a what-if page at /."""
    try:
        import uvicorn

        from iosizer.serve.app import create_app
    except ImportError as error:
        raise InputError(f"iosizer serve needs the serve extra ({error.name} is missing): "
                         "pip install 'iosizer[serve]'") from None
    if log_level not in {"critical", "error", "warning", "info", "debug"}:
        raise InputError(f"--log-level: expected critical, error, warning, info or debug, got {log_level!r}")
    if host not in _LOOPBACK:
        sys.stderr.write(f"iosizer: warning: listening on {host}: reachable from other machines, "
                         "with no authentication\n")
    request_timeout_s = REQUEST_TIMEOUT.check(request_timeout_s, "--request-timeout-s")
    origins = [o.strip() for o in cors_origin or []]
    for origin in origins:
        if origin != "*" and not re.fullmatch(r"https?://[^/\s]+", origin):
            raise InputError(f"--cors-origin: expected * or scheme://host[:port] with no path, got {origin!r}")
    app = create_app(workers=workers, max_upload_bytes=int(max_upload_mb * 2**20),
                     request_timeout_s=request_timeout_s, cors_origins=origins)
    uvicorn.run(app, host=host, port=port, log_level=log_level)
