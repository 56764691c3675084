"""The server's declared limits, importable without the server (``iosizer serve --help`` stays light).

Each is an ``iosizer serve`` option; a simulation's request may ask for less
(``replications``, ``workers``, ``max_seconds``, ``max_memory_mb``), never more.
"""

from __future__ import annotations

import enum

from iosizer.model.family import ParameterSpec

__all__ = ["JOB_SECONDS", "MAX_MEMORY", "MAX_REPLICATIONS", "REQUEST_TIMEOUT", "REQUEST_TIMEOUT_S", "VIEW_HELP", "View",
           "WAIT"]

#: How long a request may take in the workers (``iosizer serve --request-timeout-s``).
REQUEST_TIMEOUT = ParameterSpec(
    "request_timeout_s", "s", 900.0, (1.0, 86400.0), "assumed",
    "assumed: long enough for the report and a calibration of a million rows on a slow machine, so only a "
    "run that ignores its own bounds (a bug, a pathological input) reaches it; from 1 s (below it a fresh "
    "worker's first answer may not arrive) to a day",
    "longest a what-if, fit or report may wait for and run in a worker before it is answered 504",
    kind="setting")
REQUEST_TIMEOUT_S = float(REQUEST_TIMEOUT.value)

#: Longest wall time of one simulation job (``--max-job-seconds``); a request's ``max_seconds`` may ask less.
JOB_SECONDS = ParameterSpec(
    "max_job_seconds", "s", 600.0, (1.0, 86400.0), "assumed",
    "assumed: iosizer simulate's own default budget (600 s), which its --max-seconds caps at an hour",
    "longest a simulation job runs; its max_seconds budget defaults to it and may not exceed it",
    kind="setting")

#: Most replications one simulation may ask for (``--max-replications``).
MAX_REPLICATIONS = ParameterSpec(
    "max_replications", "1", 1000.0, (2.0, 1e6), "assumed",
    "assumed: fifty times simulate's default of 20; a 95 % interval narrows by sqrt(n), so past a thousand "
    "a tighter answer is a longer run_length's job, not more replications",
    "most replications a simulation request may ask for", kind="setting", integer=True)

#: Memory a worker process may map (``--max-memory-mb``): RLIMIT_DATA of fits and simulations.
MAX_MEMORY = ParameterSpec(
    "max_memory_mb", "MiB", 2048.0, (256.0, 1048576.0), "assumed",
    "assumed: a warm worker's data segment is about 150-250 MiB (numpy, scipy, simulators imported); a "
    "million-row calibration peaks near 700 MiB; 2 GiB leaves room for both and keeps one request from "
    "taking a small machine's memory; from 256 MiB (below it the imports fail) to 1 TiB",
    "largest data segment (heap and private mappings) of a fit or simulation process, and of each process "
    "a simulation starts (a simulation request's max_memory_mb may ask for less); the request gets 413 past it",
    kind="setting")

#: How long ``POST /api/simulate/...`` waits before it answers 202 with a job (``--wait-seconds``).
WAIT = ParameterSpec(
    "wait_seconds", "s", 10.0, (0.0, 86400.0), "assumed",
    "assumed: a short simulation (the defaults, 20 replications of a queue) takes 1-5 s on two busy CPUs, "
    "so it keeps answering synchronously as before; longer runs become jobs a client polls",
    "how long a simulation request is answered synchronously before it becomes a job (202)", kind="setting")


class View(str, enum.Enum):
    """How a what-if route answers (``?view=``): every route, command or declared question, takes it."""

    json = "json"
    page = "page"


VIEW_HELP = ("json: exactly what the command prints with --format json; "
             "page: {data, title, columns, rows, notes, plot} as the what-if page draws it")
