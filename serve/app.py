"""The FastAPI application: the CLI's commands as endpoints, the error contract, the page.

Routes (all generated from the command tree, see :mod:`iosizer.cli.catalogue`):

- ``POST /api/A/B``: ``iosizer A B`` with the JSON body's options; answers
  exactly what ``--format json`` prints (``?view=page`` adds the table,
  notes and curves the page draws);
- ``POST /api/calibrate/{family}``: the measured data as a multipart upload
  (field ``file``, CSV or fio JSON, repeatable) and calibrate's options as
  form fields; the answer's ``profile`` is the fitted profile document,
  which every what-if taking ``--profile`` accepts inline as ``"profile"``;
- ``GET /api/families``, ``GET /api/families/{name}/parameters``: what
  ``iosizer families`` and ``iosizer params NAME`` print;
- ``GET /api/catalogue``: every served command's fields for the page;
- ``GET /``: the what-if page; ``/openapi.json`` and ``/docs``.

Errors are ``{"error": LINE, "kind": CLASS}``: 422 for a request that does
not validate (or that the command line would refuse), 400 for a model error
(any :class:`~iosizer.errors.IosizerError`: an unstable queue, a work cap),
413 for a body over the upload limit; never a traceback.
"""

from __future__ import annotations

import enum
import inspect
import json
import os
import re
import shutil
import tempfile
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, AsyncIterator, Sequence

from fastapi import Body, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException

from iosizer import __version__
from iosizer.errors import InputError
from iosizer.cli.catalogue import CommandSpec, Role, body_values, command_specs
from iosizer.serve.worker import REQUEST_TIMEOUT_S, Workers

#: Largest request body (an upload of measured data), bytes.
MAX_UPLOAD_BYTES = 50 * 1024 * 1024

#: Names the server gives the files of a request (uploads never take them).
_OUTPUT_NAME = "output.json"
_PLOT_NAME = "plot.png"
_CALIBRATE = ("calibrate",)
_STATIC = resources.files("iosizer.serve") / "static"


class ErrorBody(BaseModel):
    """Every error the API answers."""

    error: str
    kind: str


class View(str, enum.Enum):
    json = "json"
    page = "page"


_ERRORS = {
    400: {"model": ErrorBody, "description": "Model error (any IosizerError: an unstable queue, a work cap...)"},
    413: {"model": ErrorBody, "description": "Request body over the upload limit"},
    503: {"model": ErrorBody, "description": "The request ran past the server's time limit (--request-timeout-s)"},
    422: {"model": ErrorBody, "description": "The request does not validate, or the command line would refuse it"},
}
_KINDS = {400: "BadRequest", 404: "NotFound", 405: "MethodNotAllowed", 413: "PayloadTooLarge"}


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body over the limit of {limit / 2**20:g} MiB")


def _error(status: int, message: str, kind: str) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split()), "kind": kind}, status_code=status)


def _validation_message(errors: list[Any]) -> str:
    parts = []
    for error in errors[:6]:
        if error.get("type") == "json_invalid":
            parts.append(f"request body is not valid JSON ({(error.get('ctx') or {}).get('error', 'parse error')})")
            continue
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "form"))
        message = str(error.get("msg", "")).removeprefix("Value error, ")  # our validators' own words
        given = error.get("input")
        if isinstance(given, (str, int, float)) and error.get("type") != "missing" and repr(given) not in message:
            message += f", got {given!r}"  # as the command line says it: what was sent
        parts.append(f"{where}: {message}" if where else message)
    more = len(errors) - len(parts)
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


class _BodyLimit:
    """Refuse a request body over ``limit`` bytes: by its Content-Length, or while it streams in."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            error = BodyTooLarge(self.limit)
            await _error(413, error.detail, "PayloadTooLarge")(scope, receive, send)
            return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        await self.app(scope, counted, send)


class Server:
    """The served commands and the worker pools behind the routes."""

    def __init__(self, workers: Workers) -> None:
        self.workers = workers
        specs, self.not_served = command_specs()
        self.commands = {spec.path: spec for spec in specs}

    async def answer(self, spec: CommandSpec, values: dict[str, Any], view: View,
                     workdir: str | None = None, names: dict[str, Any] | None = None) -> Response:
        """Run ``spec`` with validated ``values`` in a worker and answer as the API does."""
        workdir = workdir or tempfile.mkdtemp(prefix="iosizer-serve-")
        names = dict(names or {})
        try:
            for field in spec.role_fields(Role.profile):
                documents = values.pop(field.key, None)
                if documents is None:
                    continue
                written = []
                for i, document in enumerate(documents if field.many else [documents], 1):
                    name = f"{field.key}-{i}.json" if field.many else f"{field.key}.json"
                    Path(workdir, name).write_text(json.dumps(document), encoding="utf-8")
                    written.append(name)
                names[field.key] = written if field.many else written[0]
            output = None
            for field in spec.role_fields(Role.output):
                names[field.key] = output = _OUTPUT_NAME
            if view is View.page:
                for field in spec.role_fields(Role.plot):
                    names[field.key] = _PLOT_NAME
            try:
                argv = spec.argv(values, names)
            except InputError as error:
                return _error(422, str(error), "ValidationError")
            result = await self.workers.run(spec.heavy, argv, workdir, view is View.page, output)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        if result["status"] != 200:
            return _error(result["status"], result["error"], result["kind"])
        headers = {"X-Iosizer-Exit": str(result["exit"])}
        if view is View.page:
            return JSONResponse({"data": json.loads(result["json"]), **result.get("view", {})}, headers=headers)
        return Response(result["json"], media_type="application/json", headers=headers)

    def spec(self, *path: str) -> CommandSpec:
        return self.commands[path]


# --- routes -----------------------------------------------------------------------

_VIEW_HELP = ("json: exactly what the command prints with --format json; "
              "page: {data, title, columns, rows, notes, plot} as the what-if page draws it")


def _command_endpoint(server: Server, spec: CommandSpec) -> Any:
    async def endpoint(body: Any = None, view: View = View.json) -> Response:
        return await server.answer(spec, body_values(body), view)

    required = any(f.required for f in spec.body_fields)
    body_type = Annotated[spec.model, Body()] if required else Annotated[spec.model | None, Body()]
    endpoint.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter("body", inspect.Parameter.KEYWORD_ONLY, annotation=body_type,
                          default=inspect.Parameter.empty if required else None),
        inspect.Parameter("view", inspect.Parameter.KEYWORD_ONLY,
                          annotation=Annotated[View, Query(description=_VIEW_HELP)], default=View.json),
    ])
    return endpoint


def _cli_line(spec: CommandSpec) -> str:
    return f"Mirrors `iosizer {spec.name} ... --format json`."


def _add_command_routes(app: FastAPI, server: Server) -> None:
    for spec in server.commands.values():
        if spec.path == _CALIBRATE:
            continue
        app.add_api_route(
            spec.url,
            _command_endpoint(server, spec),
            methods=["POST"],
            name="iosizer " + spec.name,
            summary=spec.summary,
            description=f"{spec.help}\n\n{_cli_line(spec)}",
            tags=[spec.path[0] if len(spec.path) > 1 else "commands"],
            operation_id="iosizer_" + "_".join(p.replace("-", "_") for p in spec.path),
            responses={200: {"description": "What the command prints with --format json",
                             "content": {"application/json": {}}}, **_ERRORS},
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
    return {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": schema}}}}


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
        unknown = sorted(k for k in form.keys() if k not in keys and k != "file")
        if unknown:
            return _error(422, f"{', '.join(unknown)}: not an option of calibrate", "ValidationError")
        given = {k: (form.getlist(k) if f.many else form.get(k)) for k, f in keys.items() if k in form}
        try:
            body = spec.model.model_validate(given)
        except ValidationError as error:
            return _error(422, _validation_message(error.errors()), "ValidationError")
        files = [f for f in form.getlist("file") if hasattr(f, "read")]
        workdir = tempfile.mkdtemp(prefix="iosizer-serve-")
        taken: set[str] = set()
        names: list[str] = []
        for upload_file in files:
            name = _safe_name(upload_file.filename, taken)
            with open(os.path.join(workdir, name), "wb") as handle:
                while chunk := await upload_file.read(1 << 20):
                    handle.write(chunk)
            names.append(name)
        await form.close()
        return await server.answer(spec, body_values(body), view, workdir,
                                   {route.key: family, upload.key: names})

    app.add_api_route(
        "/api/calibrate/{family}",
        calibrate,
        methods=["POST"],
        name="iosizer calibrate",
        summary=spec.summary,
        description=(f"{spec.help}\n\nMirrors `iosizer calibrate FAMILY FILE... --output P --format json`: "
                     "the measured data is uploaded as `file` (CSV in the family's columns, fio JSON, elbencho "
                     "CSV or vdbench flatfile; repeatable), the options are form fields, and the answer's "
                     "`profile` is the fitted profile document (pass it back as `\"profile\"` to a what-if)."),
        tags=["calibration"],
        operation_id="iosizer_calibrate",
        responses={200: {"description": "The fit report; 'profile' holds the profile document",
                         "content": {"application/json": {}}}, **_ERRORS},
        response_class=Response,
        openapi_extra=_form_schema(spec),
    )


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
            "questions": [{"command": q.command, "summary": q.summary} for q in family.questions
                          if tuple(q.command.split()) in server.commands],
        })
    commands = [spec.describe() for spec in server.commands.values() if spec.path != _CALIBRATE]
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


def _add_fixed_routes(app: FastAPI, server: Server) -> None:
    catalogue = _catalogue(server)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse((_STATIC / "index.html").read_text(encoding="utf-8"))

    @app.get("/api/catalogue", tags=["page"], summary="Every served command's fields, for the what-if page")
    async def get_catalogue() -> dict[str, Any]:
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
            return _error(400, str(error), type(error).__name__)
        return FileResponse(path, media_type="text/csv", filename=path.name)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        return _error(422, _validation_message(list(error.errors())), "ValidationError")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return _error(error.status_code, str(error.detail), _KINDS.get(error.status_code, "HTTPError"))

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> JSONResponse:
        return _error(500, f"internal error: {type(error).__name__}", "InternalError")


def create_app(workers: int | None = None, heavy_workers: int | None = None,
               max_upload_bytes: int = MAX_UPLOAD_BYTES, request_timeout_s: float = REQUEST_TIMEOUT_S,
               cors_origins: Sequence[str] = ()) -> FastAPI:
    """The application; ``workers`` processes answer what-ifs, ``heavy_workers`` fits and reports.

    ``request_timeout_s``: a request's longest run in a worker (503 beyond it).
    ``cors_origins``: browser origins (``https://host:port``, or ``*``) allowed to
    call the API from their own pages; none by default (same origin only).
    """
    cpus = os.cpu_count() or 1
    pools = Workers(quick=workers or max(2, cpus), heavy=heavy_workers or max(1, cpus // 2),
                    timeout_s=request_timeout_s)
    server = Server(pools)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await pools.start()
        yield
        pools.close()

    app = FastAPI(
        title="iosizer",
        version=__version__,
        summary="Analytical queueing models for server I/O capacity planning, over HTTP",
        description=(
            "Every command `iosizer A B --some-option v` is `POST /api/A/B` with the JSON body "
            "`{\"some_option\": v}` (repeatable options as lists, sweeps as on the command line: "
            "`\"0:2100:300\"`) and answers exactly what `--format json` prints. Units are in the "
            "option names and help texts (`x-unit`). Profiles are passed inline as `\"profile\": {...}`. "
            "Errors: `{\"error\", \"kind\"}` with 422 (validation), 400 (model error), 413 (body too large), "
            "503 (the request ran past the server's time limit)."
        ),
        lifespan=lifespan,
    )
    app.state.server = server
    app.add_middleware(_BodyLimit, limit=max_upload_bytes)
    if cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["GET", "POST"],
                           allow_headers=["Content-Type"], expose_headers=["X-Iosizer-Exit"])
    _add_error_handlers(app)
    _add_fixed_routes(app, server)
    _add_calibrate_route(app, server)
    from iosizer.serve.questions import add_question_routes  # declared questions, from the registry

    add_question_routes(app, server)
    _add_command_routes(app, server)
    app.mount("/static", StaticFiles(directory=str(_STATIC)), name="static")
    return app
