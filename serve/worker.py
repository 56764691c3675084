"""Running ``iosizer`` commands for the server, in worker processes.

A command runs in a worker process, never in the server's event loop: solves
are CPU-bound (numpy and scipy hold the GIL for much of their work) and
commands print. Workers come in three lanes, each with its own processes, so
one kind of work never waits for another (:class:`Lanes`):

- ``quick``: what-ifs, at normal priority;
- ``fits``: calibration, the report, scenario runs, at niceness 5;
- ``jobs``: simulations, at niceness 10, each bounded by the server's limits.

A what-if of a kind a worker answered within :data:`CHEAP_CPU_S` of CPU is
then answered in one thread of the server's process (:class:`Cheap`): handing it to a
process would cost it more than the answer.

Each worker process leads its own process group (a simulation's joblib
processes join it), so a timeout, a cancelled job or shutdown kills the
group at once. A fit or simulation process and its children may map at most
``--max-memory-mb`` (RLIMIT_DATA).

A command is its spec's function (:mod:`iosizer.catalogue`: the same one
the CLI runs) called with the request's validated values; the answer's JSON
is ``to_json(report.data)`` of the :class:`~iosizer.frames.Report` it
returns: what ``--format json`` prints. :func:`answer_quick` answers a
command that reads and writes no file; :func:`answer_declared` one that does
(uploads, ``--output``), in a temporary folder; :func:`answer_question` a
declared question.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import io
import json
import logging
import math
import multiprocessing
import os
import re
import shutil
import signal
import tempfile
import time
import traceback
import warnings
from typing import Any, Callable, Iterator

log = logging.getLogger("iosizer.serve")

#: Scheduling priority of each lane's workers: when the CPUs are short, what-ifs go first, then fits.
NICENESS = {"quick": 0, "fits": 5, "jobs": 10}


def _error(status: int, kind: str, message: str, field: str | None = None) -> dict[str, Any]:
    return {"status": status, "kind": kind, "error": " ".join(str(message).split()) or kind, "field": field}


# --- in the worker process -------------------------------------------------------------


def _limit_self(lane: str, memory_bytes: int | None) -> None:
    # Its own process group, which a simulation's joblib workers join: killing the group stops them too.
    os.setpgrp()
    with contextlib.suppress(Exception):  # Linux: die with the server even if it is killed outright
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if NICENESS[lane]:
        with contextlib.suppress(OSError):
            os.nice(NICENESS[lane])
    if memory_bytes:
        import resource

        _blas_before_the_limit()
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))


def _blas_before_the_limit() -> None:
    """OpenBLAS allocates its working buffers on first use and aborts the process when that fails
    ("Memory allocation still failed ... giving up"): under a memory limit a fit would kill its worker
    instead of answering 413. So a limited worker's BLAS runs on one thread (a simulation's parallelism
    is its processes) and allocates its buffer now, before the limit."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # read when numpy loads OpenBLAS, just below
    import numpy as np

    square = np.ones((256, 256))
    square @ square


@contextlib.contextmanager
def _memory_limit(memory_bytes: int | None) -> Iterator[None]:
    """A request's own memory limit for its run: the soft RLIMIT_DATA lowered to it (processes the run
    starts inherit it), then raised back to the lane's (the hard limit, which no request raises)."""
    if not memory_bytes:
        yield
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    lowered = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (lowered, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def warm_up(lane: str) -> None:
    """Answer the page's starting questions once, so no request pays for the imports and shipped
    calibrations a command loads on its first call; the fit and job lanes also import the simulators
    and scipy.stats (one to two seconds on a busy machine)."""
    from iosizer.catalogue import command_specs
    from iosizer.serve.examples import STARTING_INPUTS

    if lane != "quick":
        with contextlib.suppress(ImportError):  # without iosizer[simulate], simulate answers a one-line error
            from scipy.stats import t  # noqa: F401  (the replications' interval)

            from iosizer.simulate.engine import import_simulators

            import_simulators()
        command_specs()
        return  # the what-ifs' first calls are the quick lane's to pay, not every process's
    specs = {spec.name: spec for spec in command_specs()[0]}
    for name, body in STARTING_INPUTS.items():
        spec = specs.get(name)
        if spec is not None and not spec.heavy and direct(spec):
            answer_quick(spec.path, spec.model.model_validate(body).model_dump(by_alias=True, exclude_unset=True))


def serve_forever(conn: Any, lane: str, memory_bytes: int | None, scratch: str) -> None:
    """A worker's life: limits, warm-up, then one task at a time from ``conn`` until it closes."""
    _limit_self(lane, memory_bytes)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides when its workers stop
    folder = os.path.join(scratch, f"worker-{os.getpid()}")
    os.makedirs(folder, exist_ok=True)
    os.chdir(folder)  # a command's own relative names (plot.png) land here, never in the server's folder
    warm_up(lane)
    conn.send(("ready", os.getpid()))
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] > 0.2 or done >= total:
            last[0] = now
            conn.send(("progress", done, total))

    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        kind = task.pop("kind")
        started = time.thread_time()
        try:
            with _memory_limit(task.pop("memory_bytes", None)):
                if kind == "question":
                    answer = answer_question(**task)
                elif kind == "declared":
                    answer = answer_declared(**task)
                elif kind == "quick":
                    answer = answer_quick(**task, progress=progress)
                else:  # the server's own mistake: an answer, never a dead worker
                    answer = _error(500, "InternalError", f"internal error: no task of kind {kind!r}")
        except MemoryError as error:  # past the limit before a command's own handling (an import, a setup)
            answer = _failure(error, (), os.getcwd())
        answer["cpu_s"] = time.thread_time() - started  # what the server learns cheap kinds of request from
        conn.send(("answer", answer))


def direct(spec: Any) -> bool:
    """Whether ``spec`` can be answered by :func:`answer_quick`: it reads and writes no file of its own."""
    from iosizer.commands import Role

    return not any(f.role in (Role.upload, Role.output, Role.server, Role.route) for f in spec.fields)


def field_of(message: str, path: tuple[str, ...], keys: Any = None,
             values: dict[str, Any] | None = None) -> str | None:
    """The request field an error message names: the first flag it quotes (``--servers``), the key it
    starts with (``servers must be...``), the kind it calls unknown (``unknown device 'x'``), or the
    field whose given value it quotes or starts with (``'x': no such ...``); a word in an explanation
    is not a field. ``keys``: the request's field names, when ``path`` is not a command's (a declared
    question's), each quoted as ``--key-name`` on the command line; ``values``: the request's values."""
    names: dict[str, str] = {}
    for key in keys or ():
        names[key] = names["--" + key.replace("_", "-")] = key
    with contextlib.suppress(Exception):
        for f in ([] if keys else _spec(path).body_fields):
            names[f.key] = f.key
            if f.flag:
                names[f.flag] = f.key
    for flag in _FLAG.findall(message):
        if flag in names:
            return names[flag]
    first = _KEY.match(message)
    if first and first.group(1) in names:
        return names[first.group(1)]
    unknown = _UNKNOWN.search(message)
    if unknown and unknown.group(1) in names:
        return names[unknown.group(1)]
    for key, value in (values or {}).items():
        for item in (value if isinstance(value, (list, tuple)) else [value]):
            text = str(getattr(item, "value", item))
            if text and (f"'{text}'" in message or message.startswith(text + ":")):
                return key
    return None


#: Request fields that carry the offered load, most specific first: an unstable queue's error names the
#: first of them the request has (the load is what a planner lowers; the message names no field).
LOAD_FIELDS = ("arrival_rate", "offered_load", "load_cores", "load_fraction", "lpar2_iops", "tenant_iops",
               "target_iops", "threads", "outstanding", "population")


def load_field(path: tuple[str, ...], keys: Any = None) -> str | None:
    """The request field holding the offered load of ``path`` (a command's, or a question's ``keys``)."""
    names: set[str] = set(keys or ())
    if not names:
        with contextlib.suppress(Exception):
            names = {f.key for f in _spec(path).body_fields}
    return next((name for name in LOAD_FIELDS if name in names), None)


_FLAG = re.compile(r"--[a-z0-9][a-z0-9-]*")
_KEY = re.compile(r"([a-z][a-z0-9_]*)\b")
_UNKNOWN = re.compile(r"\bunknown ([a-z][a-z0-9_]*) '")


_SPECS: dict[tuple[str, ...], Any] = {}


def _spec(path: tuple[str, ...]) -> Any:
    """The served command at ``path``; one the list lacks is looked up alone (an unknown path: a one-line
    InputError, answered as a 422 by the caller, never a dead worker)."""
    if path not in _SPECS:
        from iosizer.catalogue import command_spec, command_specs

        _SPECS.update({spec.path: spec for spec in command_specs()[0]})
        if path not in _SPECS:
            _SPECS[path] = command_spec(path)
    return _SPECS[path]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # as the CLI: floating-point warnings never reach the answer
        yield


def answer_quick(path: tuple[str, ...], values: dict[str, Any], profiles: dict[str, Any] | None = None,
                 view: bool = False, server_values: dict[str, Any] | None = None,
                 progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Answer ``iosizer PATH`` for validated ``values`` (by JSON key) by its spec's function.

    The values were validated once, by the request model. ``profiles`` holds
    the profile documents given inline (by key): read from memory by the
    names the answers quote (no file is written). ``server_values`` fill
    options the server owns (a simulation's ``scheduler``). The answer is a
    plain, picklable dict.
    """
    from iosizer.calibration.profile import profiles_in_memory
    from iosizer.commands import call

    try:
        spec = _spec(path)
        names: dict[str, Any] = {}
        documents: dict[str, Any] = {}
        for key, (name, document) in _profile_names(spec, profiles or {}).items():
            field = next(f for f in spec.fields if f.key == key)
            documents.update(zip(name, document) if field.many else [(name, document)])
            names[key] = list(name) if field.many else name
        with _quiet(), profiles_in_memory(documents):
            report = call(spec, {**values, **names, **(server_values or {})}, progress)
        return _answer([report], report.exit_code, view, None, os.getcwd())
    except Exception as error:  # noqa: BLE001  (every failure becomes one answer)
        return _failure(error, path, os.getcwd(), values=values)


def answer_question(family: str, question: str, values: dict[str, Any], keys: list[str],
                    view: bool = False) -> dict[str, Any]:
    """``POST /api/FAMILY/QUESTION`` answered from the declaration (:mod:`iosizer.serve.questions`), as
    :func:`answer_quick` answers a command; ``keys`` are the request's field names (an error names one)."""
    from iosizer.serve import questions

    try:
        with _quiet():
            answer = questions.ask(family, question, values)
            # json_text(to_data()) is Answer.to_json() byte for byte (tests/serve/test_speed.py), in one pass
            text = json_text(answer.to_data()) + "\n"
            return {"status": 200, "json": text, "exit": 0, **({"view": questions.view(answer)} if view else {})}
    except Exception as error:  # noqa: BLE001  (every failure becomes one answer)
        return _failure(error, (family, question), os.getcwd(), keys, values)


def answer_declared(path: tuple[str, ...], values: dict[str, Any], names: dict[str, Any], workdir: str,
                    view: bool = False, output: str | None = None) -> dict[str, Any]:
    """A command that reads or writes files, answered in ``workdir``: ``names`` are its files' names there
    (profiles, uploads, ``output``), whose documents replace them in the answer."""
    from iosizer.commands import call

    here = os.getcwd()
    try:
        os.chdir(workdir)
        with _quiet():
            report = call(_spec(path), {**values, **names})
        return _answer([report], report.exit_code, view, output, workdir)
    except Exception as error:  # noqa: BLE001  (every failure becomes one answer)
        return _failure(error, path, workdir, values=values)
    finally:
        os.chdir(here)


def _profile_names(spec: Any, profiles: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """The names the answers quote for the profile documents given inline, by key: (name, document),
    or (names, documents) for a repeatable option."""
    named: dict[str, tuple[Any, Any]] = {}
    for f in spec.fields:
        documents = profiles.get(f.key)
        if documents is None:
            continue
        if f.many:
            named[f.key] = ([f"{f.key}-{i}.json" for i in range(1, len(documents) + 1)], list(documents))
        else:
            named[f.key] = (f"{f.key}.json", documents)
    return named


def write_profiles(spec: Any, profiles: dict[str, Any], folder: str) -> dict[str, Any]:
    """The profile documents given inline written to ``folder``, as the names the answers quote, by key."""
    names: dict[str, Any] = {}
    for key, (name, document) in _profile_names(spec, profiles).items():
        pairs = zip(name, document) if isinstance(name, list) else [(name, document)]
        for one, content in pairs:
            with open(os.path.join(folder, one), "w", encoding="utf-8") as handle:
                json.dump(content, handle)
        names[key] = name
    return names


def _failure(error: BaseException, path: tuple[str, ...], workdir: str, keys: Any = None,
             values: dict[str, Any] | None = None) -> dict[str, Any]:
    """An exception as the API answers it (issue 26: one status per class of error)."""
    from iosizer.errors import ConsistencyError, ConvergenceError, IosizerError, UnstableQueueError

    if isinstance(error, MemoryError):
        return _error(413, "MemoryLimit", "the request needs more memory than the server allows "
                                          "(iosizer serve --max-memory-mb); ask for less work")
    if isinstance(error, (ConsistencyError, ConvergenceError)):  # the solver failed, not the request
        message = _local(str(error), workdir)
        return _error(500, type(error).__name__, message, field_of(message, path, keys, values))
    if isinstance(error, IosizerError):
        message = _local(str(error), workdir)
        field = getattr(error, "field", None) or field_of(message, path, keys, values)
        if field is None and isinstance(error, UnstableQueueError):
            field = load_field(path, keys)
        return _error(422, type(error).__name__, message, field)
    if isinstance(error, OSError):
        reason = error.strerror or str(error)
        message = _local(f"'{error.filename}': {reason}" if error.filename else reason, workdir)
        return _error(422, type(error).__name__, message, field_of(message, path, keys, values))
    # A bug: logged with its traceback, never sent.
    log.error("iosizer %s failed:\n%s", " ".join(path), "".join(traceback.format_exception(error)))
    return _error(500, "InternalError", f"internal error: {type(error).__name__}: {error}")


def _local_text(text: str, workdir: str) -> str:
    """:func:`_local` of a JSON text: the folder's name is written the same inside a JSON string (an ASCII
    path, '/' unescaped), so one search of the text replaces walking the document."""
    for folder in _folders(workdir):
        if folder in text:
            text = text.replace(folder + os.sep, "")
    return text


@functools.lru_cache(maxsize=64)
def _folders(workdir: str) -> tuple[str, ...]:
    return tuple({os.path.realpath(workdir), workdir})


class _NotPlain(Exception):
    """A value :func:`json_text` leaves to :func:`json.dumps` (a key that is not text, an unknown type)."""


def json_text(data: Any) -> str:
    """``iosizer.frames.to_json(data)`` byte for byte (two-space indent, non-finite numbers null),
    written in one pass: :func:`json.dumps` with an indent runs its pure-Python encoder, about 3x slower
    on a what-if's answer. Anything unusual is left to ``to_json`` itself."""
    try:
        return _indented(data, "\n")
    except _NotPlain:
        from iosizer.frames import to_json

        return to_json(data)


def _indented(value: Any, indent: str) -> str:
    if isinstance(value, str):
        return _QUOTE(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return _FLOAT(value) if math.isfinite(value) else "null"
    if isinstance(value, int):
        return _INT(value)
    inner = indent + "  "
    if isinstance(value, dict):
        if not value:
            return "{}"
        if _scalars_only(value.values()) and all(type(key) is str for key in value):
            return "{" + inner + _encoder(inner)(value)[1:-1] + indent + "}"
        parts = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotPlain
            parts.append(_QUOTE(key) + ": " + _indented(item, inner))
        return "{" + inner + ("," + inner).join(parts) + indent + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if _scalars_only(value):
            return "[" + inner + _encoder(inner)(value)[1:-1] + indent + "]"
        return "[" + inner + ("," + inner).join([_indented(item, inner) for item in value]) + indent + "]"
    if hasattr(value, "tolist"):  # numpy scalars and arrays, as to_json's _plain
        return _indented(value.tolist(), indent)
    raise _NotPlain


def _scalars_only(items: Any) -> bool:
    """Whether every item is a plain scalar json.dumps writes as to_json does (finite, not numpy)."""
    for item in items:
        kind = type(item)
        if kind is float:
            if not math.isfinite(item):
                return False
        elif kind not in _SCALARS:
            return False
    return True


@functools.lru_cache(maxsize=32)
def _encoder(inner: str) -> Callable[[Any], str]:
    # A container of scalars only: the C encoder with the indent as its item separator writes the same
    # bytes as the indenting (pure-Python) encoder, less the line breaks after '{' and before '}'.
    return json.JSONEncoder(separators=("," + inner, ": "), allow_nan=False).encode


_SCALARS = frozenset({str, int, bool, type(None)})
_QUOTE = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]
_FLOAT = float.__repr__
_INT = int.__repr__


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
    report = reports[-1] if reports else None
    data = report.data if report is not None else None
    if output is not None and os.path.isfile(output):
        with open(output, encoding="utf-8") as handle:
            document = json.load(handle)
        if isinstance(data, dict):
            data = {k: (document if v == output else v) for k, v in data.items()}
    text = _local_text(json_text(data), workdir)
    answer: dict[str, Any] = {"status": 200, "json": text + "\n", "exit": status}
    if view and report is not None:
        answer["view"] = _local(_view(report, output), workdir)
    return answer


def _view(report: Any, output: str | None) -> dict[str, Any]:
    """What the page shows: title, table, notes and the curves (the --plot panels)."""
    from iosizer.frames import plain as _plain

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


# --- in the server -------------------------------------------------------------------------


class Busy(Exception):
    """Every worker of a lane is taken and its waiting line is full: 503 with Retry-After."""

    def __init__(self, lane: str, retry_after_s: int) -> None:
        super().__init__(f"the server is busy: every {lane} worker is taken and {lane} requests are waiting; "
                         f"retry in {retry_after_s} s")
        self.lane = lane
        self.retry_after_s = retry_after_s


class WorkerGone(Exception):
    """The worker process died (killed by a timeout, a cancel, shutdown, or the kernel)."""


class Worker:
    """One worker process, leader of its own process group, spoken to over a pipe read by the event loop."""

    def __init__(self, lane: "Lane") -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=serve_forever, name=f"iosizer-{lane.name}",
                                       args=(child, lane.name, lane.memory_bytes, lane.scratch))
        self.process.start()
        child.close()
        self.loop = asyncio.get_running_loop()
        self.ready: asyncio.Future[Any] = self.loop.create_future()
        self.pending: asyncio.Future[Any] | None = None
        self.on_progress: Callable[[int, int], None] | None = None
        self.alive = True
        self.killed = False  # by the server (a timeout, a cancel, shutdown), not by its own failure
        self.loop.add_reader(self.conn.fileno(), self._readable)

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def _readable(self) -> None:
        try:
            message = self.conn.recv()
        except (EOFError, OSError):
            self._gone()
            return
        if message[0] == "ready":
            if not self.ready.done():
                self.ready.set_result(message[1])
        elif message[0] == "progress":
            if self.on_progress is not None:
                self.on_progress(message[1], message[2])
        elif message[0] == "answer" and self.pending is not None and not self.pending.done():
            self.pending.set_result(message[1])

    def _gone(self) -> None:
        if not self.alive:
            return
        self.alive = False
        with contextlib.suppress(Exception):
            self.loop.remove_reader(self.conn.fileno())
        for future in (self.ready, self.pending):
            if future is not None and not future.done():
                future.set_exception(WorkerGone())
                future.exception()  # retrieved: no "never retrieved" warning when nobody waits
        with contextlib.suppress(Exception):
            self.conn.close()

    async def call(self, task: dict[str, Any], timeout_s: float | None,
                   on_progress: Callable[[int, int], None] | None = None) -> Any:
        """The worker's answer to ``task``; past ``timeout_s`` the worker is killed and TimeoutError raised."""
        pending = self.pending = self.loop.create_future()
        self.on_progress = on_progress
        timer = None
        if timeout_s is not None:
            timer = self.loop.call_later(max(0.0, timeout_s), self._overdue, pending)
        try:
            self.conn.send(task)
            return await pending
        finally:
            if timer is not None:
                timer.cancel()
            self.pending = None
            self.on_progress = None

    def _overdue(self, pending: asyncio.Future[Any]) -> None:
        if not pending.done():
            pending.set_exception(asyncio.TimeoutError())
            self.kill()

    def kill_now(self) -> None:
        """Kill the process and its group; safe in a signal handler (the event loop sees the pipe close)."""
        pid = self.process.pid
        self.killed = True
        with contextlib.suppress(Exception):
            if pid and os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)  # type: ignore[arg-type]

    def kill(self) -> None:
        """Kill the process and its group now (a running task is lost)."""
        self.kill_now()
        self._gone()


class Lane:
    """``size`` workers of one kind and a bounded line of requests waiting for one."""

    def __init__(self, name: str, size: int, waiting: int, memory_bytes: int | None, scratch: str) -> None:
        self.name = name
        self.size = max(1, size)
        self.waiting_limit = waiting
        self.memory_bytes = memory_bytes
        self.scratch = scratch
        self.workers: list[Worker] = []
        self.idle: collections.deque[Worker] = collections.deque()
        self.waiters: collections.deque[asyncio.Future[Worker]] = collections.deque()
        self.closed = False
        self.failed_starts = 0

    def start(self) -> list[asyncio.Future[Any]]:
        while len(self.workers) < self.size:
            self._spawn()
        return [w.ready for w in self.workers]

    def _spawn(self) -> None:
        worker = Worker(self)
        self.workers.append(worker)
        worker.ready.add_done_callback(lambda ready: self._ready(worker, ready))

    def _ready(self, worker: Worker, ready: asyncio.Future[Any]) -> None:
        if ready.cancelled() or ready.exception() is not None:
            self.failed_starts += 1
            if self.failed_starts > 3:  # a worker that cannot start: say so rather than respawn forever
                log.error("%s workers die while starting; not restarting them", self.name)
                self.closed = True
            self._replace(worker)
        else:
            self.failed_starts = 0
            self.release(worker)

    def _replace(self, worker: Worker) -> None:
        if worker in self.workers:
            self.workers.remove(worker)
        with contextlib.suppress(ValueError):
            self.idle.remove(worker)
        multiprocessing.active_children()  # reaps the dead
        if not self.closed:
            self._spawn()

    def retry_after_s(self) -> int:
        return 1 if self.name == "quick" else 5

    def _idle_worker(self) -> Worker | None:
        while self.idle:
            worker = self.idle.popleft()
            if worker.alive:
                return worker
        return None

    async def acquire(self) -> Worker:
        worker = self._idle_worker()
        if worker is not None:
            return worker
        if len(self.waiters) >= self.waiting_limit:
            raise Busy(self.name, self.retry_after_s())
        waiter: asyncio.Future[Worker] = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        try:
            return await waiter
        except BaseException:
            with contextlib.suppress(ValueError):
                self.waiters.remove(waiter)
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self.release(waiter.result())  # handed over as this request gave up
            raise

    def release(self, worker: Worker) -> None:
        if not worker.alive:
            self._replace(worker)
            return
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        self.idle.append(worker)

    async def call(self, task: dict[str, Any], timeout_s: float,
                   on_progress: Callable[[int, int], None] | None = None,
                   on_start: Callable[[Worker], None] | None = None, include_wait: bool = True) -> dict[str, Any]:
        """``task`` answered by one of this lane's workers within ``timeout_s`` (its wait for a worker
        included, unless not ``include_wait``: a queued job's time starts when it runs).

        Past the limit the worker is killed with its group and replaced: 504.
        """
        deadline = time.monotonic() + timeout_s
        worker = self._idle_worker()
        if worker is None:
            try:
                worker = await asyncio.wait_for(self.acquire(), timeout_s if include_wait else None)
            except asyncio.TimeoutError:
                return _timeout(timeout_s)
        if not include_wait:
            deadline = time.monotonic() + timeout_s
        if on_start is not None:
            on_start(worker)
        try:
            answer = await worker.call(task, deadline - time.monotonic(), on_progress)
        except asyncio.TimeoutError:
            log.error("a %s request ran past its %g s limit; its worker was killed", self.name, timeout_s)
            return _timeout(timeout_s)
        except asyncio.CancelledError:
            worker.kill()  # a cancelled job, or shutdown: what it started stops too
            raise
        except WorkerGone:
            if self.closed:
                return _error(503, "ShuttingDown", "the server is shutting down")
            if not worker.killed and (task.get("memory_bytes") or self.memory_bytes):
                # Under a memory limit a failed allocation in C code (BLAS, the allocator, a thread's stack)
                # can abort the process instead of raising MemoryError: the limit, not a bug.
                log.warning("a %s worker died under its memory limit; it is replaced", self.name)
                return _error(413, "MemoryLimit", "the request needs more memory than the server allows "
                                                  "(iosizer serve --max-memory-mb); ask for less work")
            log.error("a %s worker died while answering a request; it is replaced", self.name)
            return _error(500, "WorkerError", "the worker process answering this request died")
        finally:
            self.release(worker)
        return answer

    def close(self) -> None:
        self.closed = True
        for waiter in self.waiters:
            if not waiter.done():
                waiter.cancel()
        for worker in list(self.workers):
            worker.kill()


#: The most CPU a worker's answer took for its kind of what-if to be answered on the server's event loop,
#: which it holds for about as long (a declared question's point: about 0.3-0.6 ms).
CHEAP_CPU_S = 0.002


class Cheap:
    """What-ifs answered on the server's event loop, without the hand-off to a worker process.

    A kind of request (:func:`cost_class`: the route and each value's order
    of magnitude) is answered here once a worker has answered one of its kind
    in at most ``cpu_s`` of CPU, and no longer once one here took more:
    sub-millisecond answers skip the pipe, two process wake-ups and the
    pickling, which cost them more than the answer itself, while anything
    longer, or never seen, keeps a worker of its own (a killable process
    with a time limit). Called directly, as a framework's handler computes:
    a thread of the server holds the GIL for the same time, and passing
    each answer to it and back cost more than the answer (measured with
    benchmarks/bench_serve.py at 8 clients: 720 against 1,030 requests/s,
    p50 10.3 against 7.1 ms). The loop is held for at most about ``cpu_s``
    per answer, once more than that for a kind whose answer turns dear.
    """

    def __init__(self, cpu_s: float = CHEAP_CPU_S, remembered: int = 4096) -> None:
        self.cpu_s = cpu_s
        self.remembered = remembered
        self.known: set[Any] = set()

    def takes(self, task: dict[str, Any]) -> Any:
        """``task``'s kind if it is known cheap, else None."""
        kind = cost_class(task)
        return kind if kind is not None and kind in self.known else None

    def learn(self, task: dict[str, Any], answer: dict[str, Any]) -> None:
        """Remember ``task``'s kind as cheap if a worker answered it within ``cpu_s``."""
        cpu_s = answer.get("cpu_s")
        if cpu_s is not None and cpu_s <= self.cpu_s and len(self.known) < self.remembered:
            kind = cost_class(task)
            if kind is not None:
                self.known.add(kind)

    def call(self, kind: Any, task: dict[str, Any]) -> dict[str, Any]:
        """``task`` answered here; a kind whose answer took more than ``cpu_s`` goes back to the workers."""
        answer = _answer_here(dict(task))
        if answer.get("cpu_s", 0.0) > self.cpu_s:
            self.known.discard(kind)
        return answer


def _answer_here(task: dict[str, Any]) -> dict[str, Any]:
    started = time.thread_time()
    kind = task.pop("kind")
    answer = answer_question(**task) if kind == "question" else answer_quick(**task)
    answer["cpu_s"] = time.thread_time() - started
    return answer


def cost_class(task: dict[str, Any]) -> Any:
    """A quick task's kind of cost: its route and each value's kind and order of magnitude (a power of
    2; a list's length too). None for a task the event loop must not answer: one that reads or
    writes a file, draws a plot (``?view=page``), or carries a document (an inline profile) whose cost
    its size does not tell."""
    if task.get("view") or task.get("profiles") or task["kind"] not in ("question", "quick"):
        return None
    route = (task["family"], task["question"]) if task["kind"] == "question" else task["path"]
    kinds = []
    for key, value in sorted(task["values"].items()):
        value = getattr(value, "value", value)  # an enum's value
        if isinstance(value, (list, tuple)):
            if not all(_plain_number(v) for v in value):
                return None
            kinds.append((key, len(value).bit_length(), max((_magnitude(v) for v in value), default=0)))
        elif _plain_number(value):
            kinds.append((key, _magnitude(value)))
        elif isinstance(value, (str, bool)) or value is None:
            kinds.append((key, value))
        else:
            return None
    return (task["kind"], route, tuple(kinds))


def _plain_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _magnitude(value: float) -> tuple[bool, int]:
    return value < 0, math.frexp(float(value))[1]


def _timeout(timeout_s: float) -> dict[str, Any]:
    return _error(504, "Timeout", f"the request ran past the server's {timeout_s:g} s limit "
                                  "(iosizer serve --request-timeout-s); ask for less work")


class Lanes:
    """The server's three lanes of workers (module docstring) and their scratch folder."""

    def __init__(self, quick: int, fits: int, jobs: int, memory_bytes: int | None,
                 quick_waiting: int = 512, fits_waiting: int = 16, jobs_waiting: int = 4) -> None:
        self.scratch = tempfile.mkdtemp(prefix="iosizer-serve-")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.quick = Lane("quick", quick, quick_waiting, None, self.scratch)
        self.fits = Lane("fits", fits, fits_waiting, memory_bytes, self.scratch)
        self.jobs = Lane("jobs", jobs, jobs_waiting, memory_bytes, self.scratch)
        self.cheap = Cheap()

    def __iter__(self) -> Iterator[Lane]:
        return iter((self.quick, self.fits, self.jobs))

    async def start(self) -> None:
        """Start every worker and wait until each has imported the models and answered once."""
        self.loop = asyncio.get_running_loop()
        await asyncio.gather(*(ready for lane in self for ready in lane.start()))

    def close(self) -> None:
        """Kill every worker with its group now (a running simulation is not waited for)."""
        for lane in self:
            lane.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def pids(self) -> list[int]:
        return [w.pid for lane in self for w in lane.workers if w.pid]
