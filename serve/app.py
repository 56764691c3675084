"""The FastAPI application: every command as an endpoint (from the declarations), the error contract, the page.

Routes (generated from the declarations: :mod:`iosizer.serve.questions` and :mod:`iosizer.catalogue`):

- ``POST /api/A/B``: ``iosizer A B`` with the JSON body's options; answers
  exactly what ``--format json`` prints (``?view=page`` adds the table,
  notes and curves the page draws);
- ``POST /api/simulate/...``: a simulation, run as a job: answered as above
  when it ends within ``--wait-seconds`` (or with ``?wait=true``), else 202
  with the job (``?wait=false``: at once); ``GET /api/jobs/{id}`` polls its
  progress and answer, ``DELETE /api/jobs/{id}`` cancels it;
- ``POST /api/calibrate/{family}``: the measured data as a multipart upload
  (field ``file``, CSV or fio JSON, repeatable) and calibrate's options as
  form fields, with the header ``X-Iosizer: 1``; the answer's ``profile`` is
  the fitted profile document, which every what-if taking ``--profile``
  accepts inline as ``"profile"``;
- ``GET /api/families``, ``GET /api/families/{name}/parameters``: what
  ``iosizer families`` and ``iosizer params NAME`` print;
- ``GET /api/catalogue``: every served command's fields and each family's questions for the page
  (:mod:`iosizer.serve.page`);
- ``GET /``: the planner's page; ``/openapi.json``.

Every answer that is not 2xx is ``{"error": LINE, "kind": CLASS, "field": KEY}``:
422 for anything the request says wrongly (a value that does not validate,
that the command line would refuse, or that the model refuses: an unstable
queue), 413 for a body or a memory need over the limit, 503 busy (with
``Retry-After``), 504 past the time limit, 403 for a host not allowed or a
cross-site form. The guards are application-wide (:class:`_Guard`, the
exception handlers), so every route, generated or not, inherits them.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import os
import re
import shutil
import tempfile
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Annotated, Any, AsyncIterator, Sequence

from fastapi import Body, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, ValidationError, create_model
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute, Match, NoMatchFound, get_route_path

from iosizer import __version__
from iosizer.errors import ConsistencyError, ConvergenceError, InputError, IosizerError
from iosizer.frames import JSON_SHAPE_RULE
from iosizer.catalogue import command_specs
from iosizer.commands import CommandSpec, Role, body_values
from iosizer.serve.limits import JOB_SECONDS, MAX_MEMORY, MAX_REPLICATIONS, REQUEST_TIMEOUT_S, VIEW_HELP, WAIT, View
from iosizer.serve.worker import Busy, Lanes, direct, field_of, write_profiles

#: Largest request body (an upload of measured data), bytes.
MAX_UPLOAD_BYTES = 50 * 1024 * 1024

#: Host names the server answers by default: loopback only (a DNS-rebinding page has another name).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

#: Names the server gives the files of a request (uploads never take them).
_OUTPUT_NAME = "output.json"
_PLOT_NAME = "plot.png"
_CALIBRATE = ("calibrate",)
_SIMULATE = "simulate"
_STATIC = resources.files("iosizer.serve") / "static"

#: Options of a simulation the server owns: not request fields (a Dask scheduler reaches other machines).
SERVER_OPTIONS = {"scheduler": "--scheduler"}


class ErrorBody(BaseModel):
    """Every error the API answers."""

    error: str
    kind: str
    field: str | None = None


_ERRORS = {
    403: {"model": ErrorBody, "description": "Host not allowed (--allowed-host), or a cross-site form without X-Iosizer"},
    413: {"model": ErrorBody, "description": "Request body over the upload limit, or work over the memory limit"},
    422: {"model": ErrorBody, "description": "The request says something wrongly: it does not validate, the "
                                             "command line would refuse it, or the model does (an unstable queue)"},
    503: {"model": ErrorBody, "description": "Busy: every worker is taken and the waiting line is full (Retry-After)"},
    504: {"model": ErrorBody, "description": "The request ran past the server's time limit"},
}
_KINDS = {400: "BadRequest", 404: "NotFound", 405: "MethodNotAllowed", 413: "PayloadTooLarge"}


def _error(status: int, message: str, kind: str, field: str | None = None,
           headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split()), "kind": kind, "field": field},
                        status_code=status, headers=headers)


def _where(error: dict[str, Any]) -> str:
    return ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "form", "query"))


def _validation_message(errors: list[Any], required: Sequence[str] = ()) -> str:
    """One line for pydantic's errors."""
    return _validation_parts(errors, required)[0]


def _validation_parts(errors: list[Any], required: Sequence[str] = ()) -> tuple[str, str | None]:
    """One line for pydantic's errors, and the first field they name."""
    parts = []
    fields = []
    for error in errors[:6]:
        kind = error.get("type")
        where = _where(error)
        if kind == "json_invalid":
            parts.append(f"request body is not valid JSON ({(error.get('ctx') or {}).get('error', 'parse error')})")
            continue
        if kind == "missing" and not where:  # an empty body: name what it lacks
            names = list(required) or ["a JSON object"]
            parts.append(f"{', '.join(names)}: Field required (the request body is empty)")
            fields.append(names[0] if required else None)
            continue
        if kind == "extra_forbidden" and where in SERVER_OPTIONS:
            parts.append(f"{where}: a server option (iosizer serve {SERVER_OPTIONS[where]}), not a request field")
            fields.append(where)
            continue
        message = str(error.get("msg", "")).removeprefix("Value error, ")  # our validators' own words
        given = error.get("input")
        if isinstance(given, (str, int, float)) and kind != "missing" and repr(given) not in message:
            message += f", got {given!r}"  # as the command line says it: what was sent
        parts.append(f"{where}: {message}" if where else message)
        fields.append(where or "body")  # no place inside it: the body itself (a list, a number) is wrong
    more = len(errors) - len(parts)
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else ""), next((f for f in fields if f), None)


def _answer_error(answer: dict[str, Any]) -> JSONResponse:
    headers = {"Retry-After": str(answer["retry_after_s"])} if "retry_after_s" in answer else None
    return _error(answer["status"], answer["error"], answer["kind"], answer.get("field"), headers)


# --- application-wide guards ------------------------------------------------------------


class _Guard:
    """Every request passes here first: the Host allow-list, the non-simple rule for work, the body limit.

    - ``Host`` must be an allowed name (loopback by default): a page that
      rebinds its own DNS name to 127.0.0.1 reaches the port but not the API.
    - A ``POST`` makes the server work, so it must be a request a browser
      sends cross-site only after a CORS preflight: ``Content-Type:
      application/json``, or any body with the header ``X-Iosizer``
      (multipart calibration). A form or a text/plain body from a foreign
      page is refused before it costs anything.
    - A body over ``limit`` bytes is refused by its Content-Length, or while it streams in.
    """

    def __init__(self, app: Any, limit: int, hosts: Sequence[str]) -> None:
        self.app = app
        self.limit = limit
        self.hosts = {h.lower().strip("[]") for h in hosts}

    def _host_allowed(self, host: str) -> bool:
        if "*" in self.hosts:
            return True
        name = host.strip().lower()
        name = name[1:].split("]")[0] if name.startswith("[") else name.rsplit(":", 1)[0] if name.count(":") == 1 else name
        return name in self.hosts

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        if not self._host_allowed(host):
            await _error(403, f"host {host!r} is not allowed (iosizer serve --allowed-host NAME adds one)",
                         "HostNotAllowed", "host")(scope, receive, send)
            return
        if scope["method"] == "POST" and scope["path"].startswith("/api/"):
            refused = self._simple_request(headers)
            if refused is not None:
                await refused(scope, receive, send)
                return
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await _error(413, _too_large(self.limit), "PayloadTooLarge")(scope, receive, send)
            return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise HTTPException(413, _too_large(self.limit))
            return message

        await self.app(scope, counted, send)

    @staticmethod
    def _simple_request(headers: dict[bytes, bytes]) -> JSONResponse | None:
        content_type = headers.get(b"content-type", b"").decode("latin-1").split(";")[0].strip().lower()
        marked = b"x-iosizer" in headers
        if content_type == "application/json" or content_type.endswith("+json"):
            return None
        if content_type == "multipart/form-data":
            if marked:
                return None
            return _error(403, "a form posted without the header 'X-Iosizer: 1' is refused (a page of another "
                               "site could send it); add the header", "CrossSiteRefused", "x-iosizer")
        if not content_type and marked and headers.get(b"content-length", b"0") in (b"", b"0"):
            return None  # no body at all, and a header no foreign page can add without asking
        given = f"Content-Type {content_type}" if content_type else "no Content-Type"
        return _error(422, f"send the request body as JSON with 'Content-Type: application/json' (it came with "
                           f"{given}, which a page of another site could send without asking; an empty body is "
                           f"'{{}}')", "ContentTypeError", "content-type")


def _too_large(limit: int) -> str:
    return f"request body over the limit of {limit / 2**20:g} MiB (iosizer serve --max-upload-mb)"


# --- jobs ---------------------------------------------------------------------------------


@dataclass
class Job:
    """A simulation run for a client who polls it."""

    id: str
    command: str
    submitted: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    status: str = "queued"  # queued, running, done, failed, cancelled
    progress: tuple[int, int] | None = None
    answer: dict[str, Any] | None = None
    task: asyncio.Task[Any] | None = None

    def document(self, with_result: bool = True) -> dict[str, Any]:
        now = time.time()
        document: dict[str, Any] = {
            "job": self.id,
            "url": f"/api/jobs/{self.id}",
            "command": self.command,
            "status": self.status,
            "progress": ({"done": self.progress[0], "total": self.progress[1]} if self.progress else None),
            "elapsed_s": round((self.finished or now) - (self.started or now), 3) if self.started else 0.0,
        }
        if with_result and self.answer is not None:
            if self.answer["status"] == 200:
                document["result"] = self.answer["body"]
            else:
                document["error"] = {k: self.answer.get(k) for k in ("error", "kind", "field")}
                document["status_code"] = self.answer["status"]
        return document


class Jobs:
    """The simulations the server runs, by id; finished ones are kept for ``keep_s`` (at most ``keep``)."""

    def __init__(self, keep: int = 200, keep_s: float = 3600.0) -> None:
        self.by_id: dict[str, Job] = {}
        self.keep = keep
        self.keep_s = keep_s
        self._ids = itertools.count(1)

    def new(self, command: str) -> Job:
        self._forget_old()
        job = Job(f"{next(self._ids)}-{os.urandom(4).hex()}", command)
        self.by_id[job.id] = job
        return job

    def _forget_old(self) -> None:
        finished = [j for j in self.by_id.values() if j.finished is not None]
        now = time.time()
        for job in finished:
            if now - job.finished > self.keep_s or len(self.by_id) > self.keep:  # type: ignore[operator]
                del self.by_id[job.id]

    def cancel_all(self) -> None:
        for job in self.by_id.values():
            if job.task is not None and not job.task.done():
                job.task.cancel()


# --- answering ---------------------------------------------------------------------------


@dataclass
class Limits:
    """What one request may use, set by ``iosizer serve`` (module :mod:`iosizer.serve.limits`)."""

    request_timeout_s: float = REQUEST_TIMEOUT_S
    max_job_seconds: float = float(JOB_SECONDS.value)
    max_replications: int = int(MAX_REPLICATIONS.value)
    simulation_workers: int = 1
    max_memory_mb: float = float(MAX_MEMORY.value)
    wait_seconds: float = float(WAIT.value)
    scheduler: str | None = None


class Server:
    """The served commands and the workers behind the routes."""

    def __init__(self, lanes: Lanes, limits: Limits) -> None:
        self.lanes = lanes
        self.limits = limits
        self.jobs = Jobs()
        specs, self.not_served = command_specs()
        self.commands = {spec.path: _server_owned(spec) for spec in specs}
        #: The declared questions' routes as the catalogue lists them (:func:`iosizer.serve.questions.describe`).
        self.questions: dict[tuple[str, ...], dict[str, Any]] = {}
        self._shapes: dict[tuple[str, ...], tuple[tuple[str, ...], bool]] = {}

    def lane(self, spec: CommandSpec) -> Any:
        if spec.path[0] == _SIMULATE:
            return self.lanes.jobs
        return self.lanes.fits if spec.heavy else self.lanes.quick

    async def answer(self, spec: CommandSpec, values: dict[str, Any], view: View,
                     workdir: str | None = None, names: dict[str, Any] | None = None,
                     wait: bool | None = None) -> Response:
        """Answer ``spec`` with validated ``values`` as the API does (a simulation as a job)."""
        if spec.path[0] == _SIMULATE:
            refused = self._over_the_limits(values)
            if refused is not None:
                return refused
            return await self._simulate(spec, values, view, wait)
        try:
            task = await self._task(spec, values, view, workdir, names)
        except InputError as error:
            return _error(422, str(error), "ValidationError", field_of(str(error), spec.path))
        if isinstance(task, Response):
            return task
        return await self.call(self.lane(spec), task, view)

    async def call(self, lane: Any, task: dict[str, Any], view: View = View.json) -> Response:
        """``task`` answered by a worker of ``lane`` within the server's time limit, as the API answers
        (503 busy, 504 late, a model's error 422 naming its field); a task's ``workdir`` is removed after."""
        cheap = self.lanes.cheap
        kind = cheap.takes(task) if lane is self.lanes.quick else None
        try:
            if kind is not None:
                answer = cheap.call(kind, task)
            else:
                answer = await lane.call(task, self.limits.request_timeout_s)
                if lane is self.lanes.quick:
                    cheap.learn(task, answer)
        except Busy as busy:
            return _error(503, str(busy), "Busy", headers={"Retry-After": str(busy.retry_after_s)})
        finally:
            if task.get("workdir"):
                await asyncio.to_thread(shutil.rmtree, task["workdir"], True)
        return _respond(answer, view)

    async def _task(self, spec: CommandSpec, values: dict[str, Any], view: View, workdir: str | None,
                    names: dict[str, Any] | None) -> dict[str, Any]:
        profile_keys, answered_directly = self._shape(spec)
        profiles = {key: values.pop(key) for key in profile_keys if values.get(key) is not None}
        if workdir is None and answered_directly:
            return {"kind": "quick", "path": spec.path, "values": values, "profiles": profiles,
                    "view": view is View.page}
        workdir = workdir or await asyncio.to_thread(tempfile.mkdtemp, prefix="iosizer-serve-")
        names = dict(names or {})
        names.update(await asyncio.to_thread(write_profiles, spec, profiles, workdir))
        output = None
        for f in spec.role_fields(Role.output):
            names[f.key] = output = _OUTPUT_NAME
        if view is View.page:
            for f in spec.role_fields(Role.plot):
                names[f.key] = _PLOT_NAME
        try:
            spec.argv(values, names)  # an argument left out before one given: refused as the command line does
        except InputError:
            await asyncio.to_thread(shutil.rmtree, workdir, True)
            raise
        # The command's function, in the folder of its files.
        return {"kind": "declared", "path": spec.path, "values": values, "names": names, "workdir": workdir,
                "view": view is View.page, "output": output}

    def _shape(self, spec: CommandSpec) -> tuple[tuple[str, ...], bool]:
        """``spec``'s profile keys and whether a worker calls it directly (:func:`direct`): worked out once."""
        shape = self._shapes.get(spec.path)
        if shape is None:
            shape = self._shapes[spec.path] = (tuple(f.key for f in spec.role_fields(Role.profile)), direct(spec))
        return shape

    def _over_the_limits(self, values: dict[str, Any]) -> JSONResponse | None:
        """A simulation asking for more than the server allows: 422 naming the field and the option."""
        limits = self.limits
        for key, most, option in (("replications", limits.max_replications, "--max-replications"),
                                  ("workers", limits.simulation_workers, "--simulation-workers"),
                                  ("max_seconds", limits.max_job_seconds, "--max-job-seconds"),
                                  (MEMORY_FIELD, limits.max_memory_mb, "--max-memory-mb")):
            given = values.get(key)
            if given is not None and given > most:
                return _error(422, f"{key}: at most {most:g} on this server (iosizer serve {option}), got {given:g}",
                              "LimitError", key)
        values.setdefault("workers", limits.simulation_workers)
        values.setdefault("max_seconds", limits.max_job_seconds)
        return None

    async def _simulate(self, spec: CommandSpec, values: dict[str, Any], view: View, wait: bool | None) -> Response:
        lane = self.lanes.jobs
        if len(lane.waiters) >= lane.waiting_limit and not lane.idle:
            busy = Busy("simulation", 10)
            return _error(503, str(busy), "Busy", headers={"Retry-After": "10"})
        job = self.jobs.new(spec.name)
        memory_mb = values.pop(MEMORY_FIELD, None)
        task = {"kind": "quick", "path": spec.path, "values": values, "view": view is View.page,
                "memory_bytes": int(memory_mb * 2**20) if memory_mb is not None else None,
                "profiles": {f.key: values.pop(f.key) for f in spec.role_fields(Role.profile)
                             if values.get(f.key) is not None},
                "server_values": {"scheduler": self.limits.scheduler} if self.limits.scheduler else None}
        # The job's own budget is held by the simulation; the worker is killed a little past it.
        timeout_s = float(values["max_seconds"]) * 1.1 + 10.0
        job.task = asyncio.create_task(self._run_job(job, task, timeout_s, view))
        if wait is False:
            return _accepted(job)
        budget = None if wait else self.limits.wait_seconds
        try:
            await asyncio.wait_for(asyncio.shield(job.task), budget)
        except asyncio.TimeoutError:
            return _accepted(job)
        except asyncio.CancelledError:
            if not job.task.cancelled():
                raise
            if self.lanes.jobs.closed:
                return _error(503, "the server is shutting down", "ShuttingDown")
            return _error(409, "the simulation was cancelled (DELETE /api/jobs/{id})", "Cancelled", "job")
        return _respond(job.answer or {}, view)

    async def _run_job(self, job: Job, task: dict[str, Any], timeout_s: float, view: View) -> None:
        def started(worker: Any) -> None:
            job.status, job.started = "running", time.time()

        def progress(done: int, total: int) -> None:
            job.progress = (done, total)

        try:
            answer = await self.lanes.jobs.call(task, timeout_s, progress, started, include_wait=False)
        except Busy as busy:
            answer = {"status": 503, "error": str(busy), "kind": "Busy", "field": None, "retry_after_s": 10}
        except asyncio.CancelledError:
            job.status, job.finished = "cancelled", time.time()
            job.answer = {"status": 409, "error": "the simulation was cancelled", "kind": "Cancelled", "field": None}
            raise
        if answer.get("status") == 504:
            answer = {**answer, "error": f"the simulation ran past its {task['values']['max_seconds']:g} s budget "
                                         "and was stopped (max_seconds; iosizer serve --max-job-seconds)",
                      "field": "max_seconds"}
        if answer.get("status") == 413 and task.get("memory_bytes"):
            answer = {**answer, "error": f"the simulation needs more than the {task['memory_bytes'] / 2**20:g} MiB "
                                         f"it asked for ({MEMORY_FIELD}); ask for more (at most "
                                         f"{self.limits.max_memory_mb:g}, iosizer serve --max-memory-mb) or for "
                                         "less work", "field": MEMORY_FIELD}
        if answer["status"] == 200:
            answer = {**answer, "body": _body(answer, view)}
        job.answer = answer
        job.status = "done" if answer["status"] == 200 else "failed"
        job.finished = time.time()
        job.started = job.started or job.finished

    def spec(self, *path: str) -> CommandSpec:
        return self.commands[path]


def _server_owned(spec: CommandSpec) -> CommandSpec:
    """``spec`` less the options the server owns (:data:`SERVER_OPTIONS`): out of the request model; a
    simulation's request model also takes the memory it may use (:data:`MEMORY_FIELD`)."""
    if any(f.key in SERVER_OPTIONS for f in spec.body_fields):
        fields = [replace(f, role=Role.server) if f.key in SERVER_OPTIONS else f for f in spec.fields]
        spec = replace(spec, fields=fields)
    if spec.path[0] == _SIMULATE:
        spec = replace(spec)  # the catalogue's own spec keeps its model
        spec.model = create_model(spec.model.__name__, __base__=spec.model, **{MEMORY_FIELD: (
            float | None, Field(None, gt=0, description=_MEMORY_HELP, json_schema_extra={"x-unit": "MiB"}))})
    return spec


#: A simulation request's own memory limit: less than the server's (--max-memory-mb), never more.
MEMORY_FIELD = "max_memory_mb"
_MEMORY_HELP = ("Most memory (data segment) the simulation and each process it starts may use, MiB; at most the "
                "server's --max-memory-mb, which it defaults to. Past it the answer is 413.")


def _memory_field(limit_mb: float) -> dict[str, Any]:
    """:data:`MEMORY_FIELD` as the catalogue lists a command's field (the page builds its input from it)."""
    return {"key": MEMORY_FIELD, "flag": None, "argument": False, "kind": "number", "many": False,
            "required": False, "default": None, "help": _MEMORY_HELP, "metavar": None, "unit": "MiB",
            "bounds": [0, limit_mb], "choices": None, "declared": limit_mb, "suggestions": []}


def _body(answer: dict[str, Any], view: View) -> Any:
    data = json.loads(answer["json"])
    return {"data": data, **answer.get("view", {})} if view is View.page else data


def _respond(answer: dict[str, Any], view: View) -> Response:
    if answer.get("status") != 200:
        return _answer_error(answer)
    headers = {"X-Iosizer-Exit": str(answer["exit"])}
    if view is View.page:
        return JSONResponse(answer.get("body") or _body(answer, view), headers=headers)
    return Response(answer["json"], media_type="application/json", headers=headers)


def _accepted(job: Job) -> JSONResponse:
    return JSONResponse(job.document(), status_code=202, headers={"Location": job.document()["url"]})


# --- routes -----------------------------------------------------------------------

_VIEW_HELP = VIEW_HELP
_WAIT_HELP = ("Simulations only. Left out: the answer if the run ends within the server's --wait-seconds, else "
              "202 with the job to poll; true: wait for the answer (up to the job's time limit); false: 202 at once.")


def _command_endpoint(server: Server, spec: CommandSpec) -> Any:
    model = spec.model

    async def endpoint(body: Any = None, view: View = View.json, wait: bool | None = None) -> Response:
        return await server.answer(spec, body_values(body), view, wait=wait)

    required = any(f.required for f in spec.body_fields)
    body_type = Annotated[model, Body()] if required else Annotated[model | None, Body()]
    parameters = [
        inspect.Parameter("body", inspect.Parameter.KEYWORD_ONLY, annotation=body_type,
                          default=inspect.Parameter.empty if required else None),
        inspect.Parameter("view", inspect.Parameter.KEYWORD_ONLY,
                          annotation=Annotated[View, Query(description=_VIEW_HELP)], default=View.json),
    ]
    if spec.path[0] == _SIMULATE:
        parameters.append(inspect.Parameter("wait", inspect.Parameter.KEYWORD_ONLY,
                                            annotation=Annotated[bool | None, Query(description=_WAIT_HELP)],
                                            default=None))
    endpoint.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return endpoint


def _cli_line(spec: CommandSpec) -> str:
    return f"Mirrors `iosizer {spec.name} ... --format json`."


def _add_command_routes(app: FastAPI, server: Server) -> None:
    for spec in server.commands.values():
        if spec.path == _CALIBRATE:
            continue
        responses: dict[int | str, Any] = {200: {"description": "What the command prints with --format json",
                                                 "content": {"application/json": {}}}, **_ERRORS}
        if spec.path[0] == _SIMULATE:
            responses[202] = {"description": "The run became a job: poll its url (GET), cancel it (DELETE)"}
        app.add_api_route(
            spec.url,
            _command_endpoint(server, spec),
            methods=["POST"],
            name="iosizer " + spec.name,
            summary=spec.summary,
            description=f"{spec.help}\n\n{_cli_line(spec)}",
            tags=[spec.path[0] if len(spec.path) > 1 else "commands"],
            operation_id="iosizer_" + "_".join(p.replace("-", "_") for p in spec.path),
            responses=responses,
            response_class=Response,
        )


def _safe_name(filename: str | None, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(filename or "")).lstrip(".") or "data.csv"
    name, count = base, 1
    while name in taken or name in (_OUTPUT_NAME, _PLOT_NAME):
        count += 1
        name = f"{count}-{base}"
    taken.add(name)
    return name


def _form_schema(spec: CommandSpec) -> dict[str, Any]:
    schema = spec.model.model_json_schema(by_alias=True)
    upload = spec.role_fields(Role.upload)[0]
    schema["properties"] = {
        "file": {"type": "array", "items": {"type": "string", "format": "binary"},
                 "description": upload.help + " Repeat the field for several files."},
        **schema.get("properties", {}),
    }
    schema.pop("title", None)
    return {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": schema}}},
            "parameters": [{"name": "X-Iosizer", "in": "header", "required": True, "schema": {"type": "string"},
                            "description": "Any value: a form without it is refused (a page of another site "
                                           "could post one)"}]}


async def _save_uploads(files: list[Any]) -> tuple[str, list[str]]:
    """The uploads written to a new folder (off the event loop); their safe names."""
    workdir = await asyncio.to_thread(tempfile.mkdtemp, prefix="iosizer-serve-")
    taken: set[str] = set()
    names: list[str] = []
    for upload_file in files:
        name = _safe_name(upload_file.filename, taken)
        upload_file.file.seek(0)
        await asyncio.to_thread(_copy, upload_file.file, os.path.join(workdir, name))
        names.append(name)
    return workdir, names


def _copy(source: Any, target: str) -> None:
    with open(target, "wb") as handle:
        shutil.copyfileobj(source, handle, 1 << 20)


def _add_calibrate_route(app: FastAPI, server: Server) -> None:
    if _CALIBRATE not in server.commands:
        return
    spec = server.spec(*_CALIBRATE)
    route = spec.role_fields(Role.route)[0]
    upload = spec.role_fields(Role.upload)[0]
    keys = {f.key: f for f in spec.body_fields}

    async def calibrate(family: str, request: Request, view: Annotated[View, Query(description=_VIEW_HELP)] = View.json
                        ) -> Response:
        form = await request.form(max_files=64, max_fields=256)
        try:
            unknown = sorted(k for k in form.keys() if k not in keys and k != "file")
            if unknown:
                return _error(422, f"{', '.join(unknown)}: not an option of calibrate", "ValidationError", unknown[0])
            given = {k: (form.getlist(k) if f.many else form.get(k)) for k, f in keys.items() if k in form}
            try:
                body = spec.model.model_validate(given)
            except ValidationError as error:
                return _validation_error(error.errors())
            files = [f for f in form.getlist("file") if hasattr(f, "read")]
            if not files:
                return _error(422, "file: no measured data uploaded (a multipart field 'file', CSV or fio JSON)",
                              "ValidationError", "file")
            workdir, names = await _save_uploads(files)
        finally:
            await form.close()
        return await server.answer(spec, body_values(body), view, workdir, {route.key: family, upload.key: names})

    app.add_api_route(
        "/api/calibrate/{family}",
        calibrate,
        methods=["POST"],
        name="iosizer calibrate",
        summary=spec.summary,
        description=(f"{spec.help}\n\nMirrors `iosizer calibrate FAMILY FILE... --output P --format json`: "
                     "the measured data is uploaded as `file` (CSV in the family's columns, fio JSON, elbencho "
                     "CSV or vdbench flatfile; repeatable), the options are form fields, the header `X-Iosizer: 1` "
                     "is required, and the answer's `profile` is the fitted profile document (pass it back as "
                     "`\"profile\"` to a what-if)."),
        tags=["calibration"],
        operation_id="iosizer_calibrate",
        responses={200: {"description": "The fit report; 'profile' holds the profile document",
                         "content": {"application/json": {}}}, **_ERRORS},
        response_class=Response,
        openapi_extra=_form_schema(spec),
    )


def _validation_error(errors: list[Any], required: Sequence[str] = ()) -> JSONResponse:
    message, where = _validation_parts(errors, required)
    return _error(422, message, "ValidationError", where)


def _catalogue(server: Server) -> dict[str, Any]:
    """Everything the page builds its forms from: families, their questions, every command's fields."""
    from iosizer.model.registry import declaration, family_names
    from iosizer.serve.examples import STARTING_INPUTS, STARTING_WITH_PROFILE

    families = []
    for name in family_names():
        family = declaration(name)
        families.append({
            "name": name,
            "summary": family.summary,
            "source": family.source,
            "calibratable": family.fit is not None,
            "example": family.example or None,
            "example_settings": dict(family.example_settings),
            # The calibrate options that apply to this family: its settings and the parameters it may hold.
            "calibrate_options": [s.name for s in family.settings] + list(family.fit.holdable if family.fit else ()),
            "questions": [{"command": " ".join(path), "summary": q.summary} for q in family.questions
                          if (path := _served_path(server, name, q)) is not None],
        })
    commands = [spec.describe() for spec in server.commands.values() if spec.path != _CALIBRATE]
    for command in commands:
        if command["path"][0] == _SIMULATE:
            command["fields"].append(_memory_field(server.limits.max_memory_mb))
    commands += list(server.questions.values())
    calibrate = None
    if _CALIBRATE in server.commands:
        calibrate = server.spec(*_CALIBRATE).describe() | {"url": "/api/calibrate/{family}"}
    return {
        "version": __version__,
        "families": families,
        "commands": commands,
        "calibrate": calibrate,
        "not_served": [{"command": k, "reason": v} for k, v in server.not_served.items()],
        "starting_inputs": STARTING_INPUTS,
        "starting_with_profile": STARTING_WITH_PROFILE,
    }


def _served_path(server: Server, family: str, question: Any) -> tuple[str, ...] | None:
    """The path a family's question is served at: a declared question's route, or the command it names."""
    for path in (question.path(family), tuple(question.command.split())):
        if path in server.questions or path in server.commands:
            return path
    return None


def _add_fixed_routes(app: FastAPI, server: Server) -> None:
    from iosizer.serve.page import page_catalogue

    catalogue: dict[str, Any] = {}

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse((_STATIC / "index.html").read_text(encoding="utf-8"))

    @app.get("/api/catalogue", tags=["page"], summary="Every served command's fields, for the what-if page")
    async def get_catalogue() -> dict[str, Any]:
        if not catalogue:  # built once, after every route (the declared questions' too) is mounted
            catalogue.update(page_catalogue(_catalogue(server)))
        return catalogue

    @app.get("/api/health", tags=["page"], summary="The server is up")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "version": __version__}

    @app.get("/api/families", tags=["families"], summary="What `iosizer families --format json` prints",
             responses=_ERRORS, response_class=Response)
    async def families() -> Response:
        return await server.answer(server.spec("families"), {}, View.json)

    @app.get("/api/families/{name}/parameters", tags=["families"],
             summary="What `iosizer params NAME --format json` prints", responses=_ERRORS, response_class=Response)
    async def parameters(name: str) -> Response:
        return await server.answer(server.spec("params"), {"family": name}, View.json)

    @app.get("/api/families/{name}/example", tags=["families"],
             summary="The family's shipped example data file (CSV in its columns)", responses=_ERRORS,
             response_class=FileResponse)
    async def example(name: str) -> Response:
        import iosizer

        try:
            path = iosizer.family(name).example()
        except InputError as error:
            return _error(422, str(error), type(error).__name__, "name")
        return FileResponse(path, media_type="text/csv", filename=path.name)


def _add_job_routes(app: FastAPI, server: Server) -> None:
    def find(job_id: str) -> Job | JSONResponse:
        job = server.jobs.by_id.get(job_id)
        if job is None:
            return _error(404, f"no job {job_id!r} (finished jobs are kept for an hour)", "NotFound", "job")
        return job

    @app.get("/api/jobs", tags=["jobs"], summary="The simulations the server knows, newest last")
    async def list_jobs() -> dict[str, Any]:
        return {"jobs": [job.document(with_result=False) for job in server.jobs.by_id.values()]}

    @app.get("/api/jobs/{job_id}", tags=["jobs"], summary="A simulation's status, progress and, once done, answer",
             responses=_ERRORS)
    async def get_job(job_id: str) -> Any:
        job = find(job_id)
        return job if isinstance(job, JSONResponse) else job.document()

    @app.delete("/api/jobs/{job_id}", tags=["jobs"], responses=_ERRORS,
                summary="Cancel a simulation: its processes are killed")
    async def cancel_job(job_id: str) -> Any:
        job = find(job_id)
        if isinstance(job, JSONResponse):
            return job
        if job.task is not None and not job.task.done():
            job.task.cancel()
            with_cancel = asyncio.gather(job.task, return_exceptions=True)
            await with_cancel
        return job.document()


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        required: list[str] = []
        body_field = getattr(request.scope.get("route"), "body_field", None)
        model = getattr(getattr(body_field, "field_info", None), "annotation", None)
        for candidate in getattr(model, "__args__", None) or (model,):
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                required = [info.alias or name for name, info in candidate.model_fields.items() if info.is_required()]
        return _validation_error(list(error.errors()), required)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return _error(error.status_code, str(error.detail), _KINDS.get(error.status_code, "HTTPError"),
                      headers=getattr(error, "headers", None))

    @app.exception_handler(IosizerError)
    async def model_error(request: Request, error: IosizerError) -> JSONResponse:
        # A route that lets a model error rise (a generated question's) answers as every other route.
        status = 500 if isinstance(error, (ConsistencyError, ConvergenceError)) else 422
        return _error(status, str(error), type(error).__name__)

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> JSONResponse:
        return _error(500, f"internal error: {type(error).__name__}", "InternalError")


#: The OpenAPI document's description of the API as a whole.
_API_DESCRIPTION = (
    "Every command `iosizer A B --some-option v` is `POST /api/A/B` with the JSON body "
    "`{\"some_option\": v}` (repeatable options as lists, sweeps as on the command line: "
    "`\"0:2100:300\"`) and answers exactly what `--format json` prints. Units are in the "
    "option names and help texts (`x-unit`). Profiles are passed inline as `\"profile\": {...}`. "
    "Simulations may become jobs (202; GET and DELETE /api/jobs/{id}). Errors: "
    "`{\"error\", \"kind\", \"field\"}` with 422 (the request says something wrongly), 413 (too large), "
    "503 (busy, Retry-After), 504 (past the time limit), 403 (host not allowed, cross-site form).\n\n"
    + JSON_SHAPE_RULE + " Over HTTP, `?view=page` always answers rows: `{\"data\": ..., \"rows\": [...]}` "
    "with `data` as above and `rows` a list, one object per row of the table, whatever the input."
)


def create_app(workers: int | None = None, heavy_workers: int | None = None,
               max_upload_bytes: int = MAX_UPLOAD_BYTES, request_timeout_s: float = REQUEST_TIMEOUT_S,
               cors_origins: Sequence[str] = (), allowed_hosts: Sequence[str] = (), jobs: int = 1, job_queue: int = 4,
               limits: Limits | None = None) -> FastAPI:
    """The application; ``workers`` processes answer what-ifs, ``heavy_workers`` fits and reports,
    ``jobs`` simulations (each limited by ``limits``).

    ``request_timeout_s``: a what-if's or fit's longest run in a worker (504 beyond it).
    ``cors_origins``: browser origins (``https://host:port``, or ``*``) allowed to
    call the API from their own pages; none by default (same origin only).
    ``allowed_hosts``: Host names answered besides the loopback ones (``*``: any).
    """
    cpus = os.cpu_count() or 1
    limits = limits or Limits(simulation_workers=cpus)
    limits.request_timeout_s = float(request_timeout_s)
    lanes = Lanes(quick=workers or max(2, cpus), fits=heavy_workers or max(1, cpus // 2), jobs=jobs,
                  memory_bytes=int(limits.max_memory_mb * 2**20), jobs_waiting=job_queue)
    server = Server(lanes, limits)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await lanes.start()
        yield
        server.jobs.cancel_all()
        lanes.close()

    app = FastAPI(
        title="iosizer",
        version=__version__,
        summary="Analytical queueing models for server I/O capacity planning, over HTTP",
        description=_API_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # Swagger UI would load its scripts from a CDN: the page links /openapi.json instead
        redoc_url=None,
    )
    app.state.server = server
    app.state.lanes = lanes
    if cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Content-Type", "X-Iosizer"], expose_headers=["X-Iosizer-Exit"])
    # Added last, so it runs first: a refused host or form costs nothing else.
    app.add_middleware(_Guard, limit=max_upload_bytes, hosts=[*LOOPBACK_HOSTS, *allowed_hosts])
    _add_error_handlers(app)
    _add_fixed_routes(app, server)
    _add_job_routes(app, server)
    _add_calibrate_route(app, server)
    from iosizer.serve.questions import add_question_routes  # declared questions, from the registry

    add_question_routes(app, server, _ERRORS)
    _add_command_routes(app, server)
    app.mount("/static", StaticFiles(directory=str(_STATIC)), name="static")
    app.router.routes.insert(0, _ExactPaths(app.router.routes))
    return app


class _ExactPaths(BaseRoute):
    """Every route of a fixed path found by one dict lookup: the router otherwise tries each route's
    pattern in turn (about 60 of them, 70-100 us per request on a busy 2-core machine). Only finds
    the route: matching the method and handling are the route's own, and a path it does not know
    (or a method the route refuses: 405) goes on to the router's usual search."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.by_path: dict[str, list[APIRoute]] = {}
        for route in routes:
            if isinstance(route, APIRoute) and "{" not in route.path:
                self.by_path.setdefault(route.path, []).append(route)

    def matches(self, scope: Any) -> tuple[Match, dict[str, Any]]:
        if scope["type"] == "http":
            for route in self.by_path.get(get_route_path(scope), ()):
                match, child_scope = route.matches(scope)
                if match is Match.FULL:
                    return match, {**child_scope, "route": route}
        return Match.NONE, {}

    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        await scope["route"].handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> Any:
        raise NoMatchFound(name, path_params)  # the routes themselves name their paths
