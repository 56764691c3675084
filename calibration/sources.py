"""Measurements from benchmark tools: fio JSON, elbencho CSV, vdbench flatfile.

A benchmark run is a set of *load points*: at a concurrency N (I/Os kept
outstanding) the system completed X I/Os per second with a mean latency R.
Each reader below turns a tool's own output into load points, and
:func:`dataset_from_points` lays them out in a family's column schema by
what the columns mean (a family's ``population``, ``threads`` or
``outstanding`` is N; its ``throughput_per_s``, ``iops`` or
``arrival_rate_per_s`` is X; its ``response_time_s``, ``mean_response_s``,
``response_us`` or ``latency_us`` is R in that unit; ``block_kib`` and
``transfer_bytes`` are the block size). A column no load point can fill is
an error naming it, so a file never feeds a family silently wrong.

Readers
-------
fio (``--output-format=json`` or ``json+``, fio 3.x, times in ns):
  one load point per job (by ``jobname`` and ``groupid``). Clones of a job
  reported without ``group_reporting`` are summed: IOPS add, latency is the
  I/O-weighted mean. N = ``iodepth`` x ``numjobs``, each merged from the
  job's ``"job options"`` over ``"global options"`` (strings with unit
  suffixes such as ``4k`` are parsed), except that a synchronous
  ``ioengine`` (:data:`SYNC_ENGINES`; fio's default, psync, is one) keeps
  one I/O in flight per job whatever ``iodepth`` says, as fio does ("queue
  depth will be capped at 1"): N = ``numjobs``. X = ``read.iops`` + ``write.iops``;
  R = the IOPS-weighted ``lat_ns.mean`` (or ``clat_ns.mean`` +
  ``slat_ns.mean`` where ``lat_ns`` is absent). Also read: block size
  ``bs``, the read fraction (``rwmixread``, else the I/O counts), CPU time
  per I/O ((``usr_cpu`` + ``sys_cpu``) / 100 x runtime / I/Os), device
  utilisation (``disk_util[].util``) and the completion-latency percentiles
  (``clat_ns.percentile``; ``lat_ns.percentile``, the whole latency, where
  fio ran with ``--lat_percentiles=1``). A job whose ``error`` is not 0 failed: it is
  refused, naming the job, unless the caller keeps failed jobs (``--force``
  then leaves them out with a warning). A fio job has no think time unless
  it sets ``thinktime``: each point says so (:attr:`LoadPoint.think_time_s`).
  A family with a ``direction`` setting (``device``) counts one direction: a
  job with only the other, or with both when none is named, is an error.
elbencho (``--csvfile``): one load point per row; N = ``hosts`` x
  ``threads`` x ``IO depth``, X = ``IOPS [last]`` (+ ``rwmix read IOPS
  [last]``), R = ``IO lat us [avg]`` (us), block size ``block size``.
vdbench (``flatfile.html``): the run averages (``Interval`` starting with
  ``avg``; every interval when there are none); N = ``threads``, X =
  ``rate``, R = ``resp`` (ms), block size ``bytes/io``.

Little's law N = X R holds exactly for a closed loop with no think time, so
every point is checked: a point whose X R differs from N by more than 10 %
is reported (a think time, a rate-limited job, or a mislabelled depth).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from iosizer.errors import DatasetError
from iosizer.model.family import Schema

#: Relative deviation of X R from N above which a point is reported.
LITTLE_TOLERANCE = 0.10
#: A benchmark file larger than this is not a benchmark summary (bounded work).
MAX_SOURCE_BYTES = 256 * 1024 * 1024

_CONCURRENCY = ("population", "threads", "outstanding")
_THROUGHPUT = ("throughput_per_s", "iops", "arrival_rate_per_s")
#: fio engines that complete each I/O before issuing the next (fio's FIO_SYNCIO engines that do block or file
#: I/O): fio caps their depth at 1 per job unless io_submit_mode=offload. posixaio, libaio, io_uring... queue.
SYNC_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2", "mmap", "splice", "ftruncate"})
#: fio's default ioengine on Linux and the other Unixes (windowsaio on Windows, which a JSON file does not say).
DEFAULT_FIO_ENGINE = "psync"
_RESPONSE_SCALE = {"response_time_s": 1.0, "mean_response_s": 1.0, "response_us": 1e6, "latency_us": 1e6,
                   "mean_latency_us": 1e6}


@dataclass(frozen=True)
class LoadPoint:
    """One measured operating point of a benchmark run."""

    label: str
    concurrency: float
    iops: float
    mean_latency_s: float
    block_bytes: float | None = None
    read_fraction: float | None = None
    cpu_per_io_s: float | None = None
    device_utilization_pct: float | None = None
    #: Completion-latency percentiles: percent (99.0) -> seconds.
    percentiles_s: Mapping[float, float] = field(default_factory=dict)
    #: The think time Z the tool states between an I/O's completion and the next (s); None if unknown.
    think_time_s: float | None = None
    #: The tool's error code for the run (fio's job ``error``, an errno); 0 is a clean run.
    error: int = 0
    #: What reading the point corrected (a synchronous engine's depth), one line each.
    notes: tuple[str, ...] = ()


def _fail(path: str, message: str) -> DatasetError:
    return DatasetError(f"{path}: {message}")


def _size_bytes(text: object, path: str, what: str) -> float:
    """fio/elbencho sizes: ``4096``, ``4k``, ``4KiB``, ``1m`` (powers of 1024, as fio's default)."""
    value = str(text).strip()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?", value, re.IGNORECASE)
    if not match:
        # fio also accepts ranges and splits (bs=4k-64k, bssplit): no single block size
        raise _fail(path, f"{what} {value!r} is not a single size (use one block size per job)")
    scale = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}[match.group(2).lower()]
    size = float(match.group(1)) * scale
    if not math.isfinite(size):
        raise _fail(path, f"{what} {_short(value)} is not a finite size")
    return size


def _whole(text: object, path: str, what: str) -> float:
    try:
        value = float(str(text).strip())
    except ValueError:
        raise _fail(path, f"{what} {text!r} is not a number") from None
    if not math.isfinite(value) or value < 1 or value != math.floor(value):
        raise _fail(path, f"{what} must be a whole number >= 1, got {text!r}")
    return value


def _number(value: object, path: str, what: str, default: float = 0.0) -> float:
    """A number of a tool's JSON: a JSON number or numeric text (fio writes options as text), finite.

    Missing (None, "") is ``default``; a bool, an object or a word is a one-line error naming ``what``.
    """
    if value is None or value == "":
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _fail(path, f"{what} is {value!r}, not a number")
    try:
        number = float(value)
    except ValueError:
        raise _fail(path, f"{what} is {value!r}, not a number") from None
    if not math.isfinite(number):
        raise _fail(path, f"{what} is {value!r}, not a finite number")
    return number


def _object(value: object, path: str, what: str) -> Mapping[str, Any]:
    """A JSON object of a tool's output (absent is empty); anything else is a one-line error."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(path, f"{what} is {type(value).__name__} {_short(value)}, not an object")
    return value


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _read_text(path: Path) -> tuple[str, bytes]:
    from iosizer.calibration.files import input_problem

    try:
        problem = input_problem(path)
        if problem is not None:
            raise _fail(str(path), problem)
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            raise _fail(str(path), f"is {size / 2**20:.0f} MiB, more than a benchmark summary "
                                   f"({MAX_SOURCE_BYTES // 2**20} MiB)")
        raw = path.read_bytes()
    except OSError as error:
        raise _fail(str(path), f"cannot read file ({error.strerror or error})") from None
    try:
        return raw.decode("utf-8-sig"), raw
    except UnicodeDecodeError:
        raise _fail(str(path), "not a UTF-8 text file") from None


# --- fio ---------------------------------------------------------------------------


def _fio_direction(job: Mapping[str, Any], name: str, path: str) -> tuple[float, float, float, dict[float, float]]:
    """(iops, mean latency s, I/Os, clat percentiles) of one direction of a fio job."""
    part = job.get(name) or {}
    job_name = f"job {job.get('jobname')!r}"
    if not isinstance(part, Mapping):
        raise _fail(path, f"{job_name}: '{name}' is not an object")
    iops = _number(part.get("iops"), path, f"{job_name}: {name} iops")
    ios = _number(part.get("total_ios"), path, f"{job_name}: {name} total_ios")
    if iops <= 0:
        return 0.0, 0.0, 0.0, {}
    lat = part.get("lat_ns")
    if isinstance(lat, Mapping) and _number(lat.get("mean"), path, f"{job_name}: {name} lat_ns mean") > 0:
        mean_ns = _number(lat["mean"], path, f"{job_name}: {name} lat_ns mean")
    else:
        clat, slat = part.get("clat_ns"), part.get("slat_ns")
        if not isinstance(clat, Mapping):
            raise _fail(path, f"{job_name}: {name} has no lat_ns or clat_ns "
                              "(fio 3.x JSON output is needed; older fio reports microseconds)")
        mean_ns = (_number(clat.get("mean"), path, f"{job_name}: {name} clat_ns mean")
                   + _number(_object(slat, path, f"{job_name}: {name} slat_ns").get("mean"), path,
                             f"{job_name}: {name} slat_ns mean"))
    percentiles: dict[float, float] = {}
    clat = part.get("clat_ns")
    if isinstance(lat, Mapping) and isinstance(lat.get("percentile"), Mapping):
        clat = lat  # fio --lat_percentiles=1: percentiles of the whole latency, submission included
    if isinstance(clat, Mapping) and isinstance(clat.get("percentile"), Mapping):
        for key, value in clat["percentile"].items():
            try:
                percentiles[float(key)] = float(value) * 1e-9
            except (TypeError, ValueError):
                raise _fail(path, f"job {job.get('jobname')!r}: bad percentile {key!r}: {value!r}") from None
    for value, what in ((iops, "iops"), (mean_ns, "latency")):
        if not math.isfinite(value) or value < 0:
            raise _fail(path, f"job {job.get('jobname')!r}: {name} {what} is {value!r}")
    return iops, mean_ns * 1e-9, ios, percentiles


def _directions(clones: list[Mapping[str, Any]], direction: str | None, label: str, name: str) -> tuple[str, ...]:
    """The fio directions a job's load point counts: both (None), ``read`` or ``write``, or
    ``auto``: the job's one direction with I/O (a mixed job must be given one)."""
    if direction is None:
        return ("read", "write")
    done = [side for side in ("read", "write")
            if any(_number(_object(c.get(side), label, f"job {name!r}: '{side}'").get("iops"), label,
                           f"job {name!r}: {side} iops") > 0 for c in clones)]
    if direction == "auto":
        if len(done) == 2:
            raise _fail(label, f"job {name!r} mixes reads and writes; say which to model with "
                               "--set direction=read or --set direction=write")
        return tuple(done) or ("read", "write")
    if not done:
        raise _fail(label, f"job {name!r} completed no reads or writes")
    if direction not in done:
        other = "write" if direction == "read" else "read"
        raise _fail(label, f"job {name!r} has no {direction}s, only {other}s; --set direction={other} "
                           f"models the {other}s")
    return (direction,)


def _fio_error(clones: list[Mapping[str, Any]], label: str, name: str) -> int:
    """The first non-zero ``error`` of a job's clones (fio's errno for the job), 0 for a clean run."""
    for clone in clones:
        code = _number(clone.get("error"), label, f"job {name!r}: error")
        if code != 0:
            return int(code)
    return 0


def error_text(code: int) -> str:
    import errno
    import os

    symbol = errno.errorcode.get(code)
    return f"fio error {code}" + (f" ({symbol}: {os.strerror(code)})" if symbol else "")


def _fio_depth(options: Mapping[str, Any], label: str, name: str) -> tuple[float, tuple[str, ...]]:
    """I/Os a job keeps in flight per clone: ``iodepth``, or 1 for a synchronous engine (as fio runs it)."""
    depth = _whole(options.get("iodepth", 1), label, f"job {name!r}: iodepth")
    engine = str(options.get("ioengine") or DEFAULT_FIO_ENGINE).strip().lower()
    offload = str(options.get("io_submit_mode", "")).strip().lower() == "offload"
    if engine in SYNC_ENGINES and not offload and depth > 1:
        return 1.0, (f"ioengine {engine} is synchronous: fio runs it at depth 1 per job, so iodepth "
                     f"{depth:g} is read as 1 (outstanding I/Os = numjobs)",)
    return depth, ()


def _fio_think_time(options: Mapping[str, Any]) -> float | None:
    """0 for a job with no ``thinktime``; None (unknown to the reader) for one that sets it."""
    text = str(options.get("thinktime", "0")).strip().lower()
    return 0.0 if re.fullmatch(r"0+(\.0*)?\s*[a-z]*", text) else None


def read_fio(path: str | Path, direction: str | None = None, *, keep_failed: bool = False) -> list[LoadPoint]:
    """Load points of one fio JSON (or json+) output file; see the module docstring.

    ``direction``: None counts reads and writes together; ``read`` or
    ``write`` only that one (a job without it is an error); ``auto`` the
    job's one direction (a job with both is an error).

    A job whose ``error`` is not 0 is a :class:`DatasetError` naming it; with
    ``keep_failed`` it is returned with its :attr:`LoadPoint.error` set, for
    the caller to leave out and say so.
    """
    path = Path(path)
    label = str(path)
    jobs, global_options, util = _fio_document(path, label)
    return [_fio_point(path, label, name, clones, global_options, util, direction, keep_failed)
            for (name, _), clones in _fio_groups(jobs, label).items()]


def _fio_document(path: Path, label: str) -> tuple[list[Any], dict[str, Any], float | None]:
    """(the jobs, the global options, the devices' highest utilisation) of a fio JSON file."""
    text, _ = _read_text(path)
    # fio may print notes before the JSON document: start at the first brace.
    start = text.find("{")
    if start < 0:
        raise _fail(label, "not a fio JSON file (no JSON object; run fio with --output-format=json)")
    try:
        document = json.loads(text[start:])
    except json.JSONDecodeError as error:
        raise _fail(label, f"not a fio JSON file (line {error.lineno}: {error.msg})") from None
    jobs = document.get("jobs") if isinstance(document, Mapping) else None
    if not isinstance(jobs, list) or not jobs:
        raise _fail(label, "has no 'jobs' list: not fio JSON output")
    global_options = _object(document.get("global options"), label, "'global options'")
    disks = document.get("disk_util") or []
    if not isinstance(disks, list):
        raise _fail(label, f"'disk_util' is {type(disks).__name__} {_short(disks)}, not a list")
    utilization = [_number(d.get("util"), label, "disk_util util", math.nan) for d in disks
                   if isinstance(d, Mapping)]
    return jobs, global_options, max(utilization) if utilization else None


def _fio_groups(jobs: list[Any], label: str) -> dict[tuple[str, Any], list[Mapping[str, Any]]]:
    """The jobs by (name, group): the clones of one job (numjobs) reported one by one."""
    groups: dict[tuple[str, Any], list[Mapping[str, Any]]] = {}
    for job in jobs:
        if not isinstance(job, Mapping):
            raise _fail(label, "a 'jobs' entry is not an object")
        group = job.get("groupid")
        if not (group is None or isinstance(group, (int, str))) or isinstance(group, bool):
            raise _fail(label, f"job {str(job.get('jobname', ''))!r}: 'groupid' is {type(group).__name__} "
                               f"{_short(group)}, not a number")
        groups.setdefault((str(job.get("jobname", "")), group), []).append(job)
    return groups


def _fio_point(path: Path, label: str, name: str, clones: list[Mapping[str, Any]], global_options: Mapping[str, Any],
               util: float | None, direction: str | None, keep_failed: bool) -> LoadPoint:
    """One job's load point: its clones' IOPS summed, latency and percentiles IOPS-weighted."""
    options = {**global_options, **_object(clones[0].get("job options"), label, f"job {name!r}: 'job options'")}
    error = _fio_error(clones, label, name)
    if error and not keep_failed:
        raise _fail(label, f"job {name!r} failed ({error_text(error)}): its numbers are not a measurement; "
                           "rerun it, or pass --force to calibrate on the other jobs")
    depth, notes = _fio_depth(options, label, name)
    numjobs = _whole(options.get("numjobs", 1), label, f"job {name!r}: numjobs")
    if len(clones) not in (1, int(numjobs)):
        raise _fail(label, f"job {name!r} appears {len(clones)} times but numjobs is {numjobs:g}")
    total_iops = weighted_latency = reads = writes = cpu_s = 0.0
    percentiles: dict[float, list[tuple[float, float]]] = {}
    counted = ("read", "write") if error else _directions(clones, direction, label, name)
    for clone in clones:
        for side in ("read", "write"):
            iops, latency, ios, pct = _fio_direction(clone, side, label)
            if side == "read":
                reads += ios
            else:
                writes += ios
            if side not in counted:
                continue
            total_iops += iops
            weighted_latency += iops * latency
            for p, v in pct.items():
                percentiles.setdefault(p, []).append((iops, v))
        runtime_s = _number(clone.get("job_runtime"), label, f"job {name!r}: job_runtime") / 1e3
        cpu_s += (_number(clone.get("usr_cpu"), label, f"job {name!r}: usr_cpu")
                  + _number(clone.get("sys_cpu"), label, f"job {name!r}: sys_cpu")) / 100.0 * runtime_s
    if total_iops <= 0 and not error:
        raise _fail(label, f"job {name!r} completed no reads or writes")
    if "rwmixread" in options:
        read_fraction = _number(options["rwmixread"], label, f"job {name!r}: rwmixread") / 100.0
    else:
        read_fraction = reads / (reads + writes) if reads + writes > 0 else None
    bs = options.get("bs") or options.get("blocksize")
    total_ios = reads + writes
    return LoadPoint(
        label=f"{path.name}:{name}",
        concurrency=depth * numjobs,
        iops=total_iops,
        mean_latency_s=weighted_latency / total_iops if total_iops > 0 else math.nan,
        block_bytes=_size_bytes(bs, label, f"job {name!r}: bs") if bs is not None else None,
        read_fraction=read_fraction,
        cpu_per_io_s=cpu_s / total_ios if total_ios > 0 and cpu_s > 0 else None,
        device_utilization_pct=util,
        # A clone's percentile is not additive: the IOPS-weighted mean is an approximation,
        # exact when the clones are alike (fio's group_reporting merges histograms instead).
        percentiles_s={p: sum(w * v for w, v in vs) / sum(w for w, _ in vs) for p, vs in percentiles.items()
                       if sum(w for w, _ in vs) > 0},
        think_time_s=_fio_think_time(options),
        error=error,
        notes=notes,
    )


# --- elbencho ------------------------------------------------------------------------

_ELBENCHO_IOPS = "IOPS [last]"
_ELBENCHO_LATENCY = "IO lat us [avg]"


def is_elbencho_header(header: Iterable[str]) -> bool:
    names = {h.strip() for h in header}
    return _ELBENCHO_IOPS in names and _ELBENCHO_LATENCY in names


def read_elbencho(path: str | Path) -> list[LoadPoint]:
    """Load points of an elbencho ``--csvfile``: one per row with I/O."""
    import csv
    import io

    path = Path(path)
    label = str(path)
    text, _ = _read_text(path)
    try:
        rows = list(csv.DictReader(io.StringIO(text)))
    except csv.Error as error:
        raise _fail(label, f"not a readable CSV file ({error})") from None
    points = []
    for line, row in enumerate(rows, start=2):
        def number(key: str, default: float | None = None) -> float:
            cell = (row.get(key) or "").strip()
            if not cell:
                if default is None:
                    raise _fail(label, f"line {line}: column '{key}' is empty")
                return default
            try:
                value = float(cell)
            except ValueError:
                raise _fail(label, f"line {line}: column '{key}': expected a number, got {cell!r}") from None
            if not math.isfinite(value) or value < 0:
                raise _fail(label, f"line {line}: column '{key}': expected a finite number >= 0, got {cell}")
            return value

        iops = number(_ELBENCHO_IOPS, 0.0) + number("rwmix read IOPS [last]", 0.0)
        if iops <= 0:
            continue  # a metadata phase (mkdirs, stat) with no block I/O
        hosts, threads, depth = number("hosts", 1.0), number("threads", 1.0), number("IO depth", 1.0)
        points.append(LoadPoint(
            label=f"{path.name}:{line}",
            concurrency=max(hosts, 1.0) * max(threads, 1.0) * max(depth, 1.0),
            iops=iops,
            mean_latency_s=number(_ELBENCHO_LATENCY) * 1e-6,
            block_bytes=number("block size", 0.0) or None,
        ))
    if not points:
        raise _fail(label, "has no rows with block I/O (IOPS [last] > 0)")
    return points


# --- vdbench -------------------------------------------------------------------------


def is_vdbench(text: str) -> bool:
    head = text[:4096].lower()
    return "interval" in head and " resp" in head and " rate" in head


def read_vdbench(path: str | Path) -> list[LoadPoint]:
    """Load points of a vdbench ``flatfile.html``: the run averages (every interval if none)."""
    path = Path(path)
    label = str(path)
    text, _ = _read_text(path)
    header: list[str] | None = None
    rows: list[list[str]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("*", "<", "#")):
            continue
        fields = stripped.split()
        if header is None:
            lowered = [f.lower() for f in fields]
            if "rate" in lowered and "resp" in lowered:
                header = lowered
            continue
        if len(fields) == len(header):
            rows.append(fields)
    if header is None:
        raise _fail(label, "no vdbench flatfile header (a line naming 'rate' and 'resp')")
    index = {name: i for i, name in enumerate(header)}
    for needed in ("rate", "resp", "threads"):
        if needed not in index:
            raise _fail(label, f"vdbench flatfile has no '{needed}' column")
    interval = index.get("interval")
    averages = [r for r in rows if interval is not None and r[interval].lower().startswith("avg")]
    chosen = averages or rows
    points = []
    for number, row in enumerate(chosen, start=1):
        try:
            rate = float(row[index["rate"]])
            resp_ms = float(row[index["resp"]])
            threads = float(row[index["threads"]])
            size = float(row[index["bytes/io"]]) if "bytes/io" in index else None
        except ValueError:
            raise _fail(label, f"row {number}: a rate, resp, threads or bytes/io field is not a number") from None
        if not all(math.isfinite(v) and v >= 0 for v in (rate, resp_ms, threads)):
            raise _fail(label, f"row {number}: negative or non-finite rate, resp or threads")
        if rate > 0:
            points.append(LoadPoint(label=f"{path.name}:{number}", concurrency=max(threads, 1.0), iops=rate,
                                    mean_latency_s=resp_ms * 1e-3, block_bytes=size or None))
    if not points:
        raise _fail(label, "has no intervals with I/O")
    return points


# --- into a family's schema -------------------------------------------------------------


def little_violations(points: list[LoadPoint]) -> list[str]:
    """Points where X R differs from N by more than :data:`LITTLE_TOLERANCE`."""
    found = []
    for p in points:
        implied = p.iops * p.mean_latency_s
        if p.concurrency > 0 and abs(implied / p.concurrency - 1.0) > LITTLE_TOLERANCE:
            found.append(f"{p.label}: Little's law: X R = {implied:.3g} I/Os in flight but N = "
                         f"{p.concurrency:g} ({100 * (implied / p.concurrency - 1):+.0f} %)")
    return found


def point_columns(points: list[LoadPoint], schema: Schema, path: str) -> dict[str, np.ndarray]:
    """The family's columns filled from the load points by meaning; a column none can fill is an error."""
    values: dict[str, np.ndarray] = {}
    for column in schema.columns:
        name = column.name
        if name in _CONCURRENCY:
            values[name] = np.array([p.concurrency for p in points])
        elif name in _THROUGHPUT:
            values[name] = np.array([p.iops for p in points])
        elif name in _RESPONSE_SCALE:
            values[name] = np.array([p.mean_latency_s * _RESPONSE_SCALE[name] for p in points])
        elif name in ("block_kib", "transfer_bytes", "block_bytes"):
            sizes = [p.block_bytes for p in points]
            if any(s is None for s in sizes):
                if column.required:
                    raise _fail(path, f"column '{name}' needs a block size, and a job gives none")
                continue
            values[name] = np.array(sizes, dtype=float) / (1024.0 if name == "block_kib" else 1.0)
        elif column.required:
            raise _fail(path, f"a benchmark file cannot give column '{name}' ({column.unit}) "
                              f"that family '{schema.name}' needs; write a CSV in its columns instead")
    return values


def read_points(paths: list[Path], direction: str | None = None, *,
                keep_failed: bool = False) -> tuple[list[LoadPoint], str]:
    """Load points of one or more benchmark files, and the SHA-256 over all of them.

    ``direction``: which fio directions count (:func:`read_fio`); other tools report one total.
    ``keep_failed``: failed fio jobs come back marked (:attr:`LoadPoint.error`) instead of refused.
    """
    digest = hashlib.sha256()
    points: list[LoadPoint] = []
    for path in paths:
        kind = source_kind(path)
        if kind == "csv":
            raise _fail(str(path), "is a plain CSV; give CSV files one at a time in the family's columns")
        if kind == "fio":
            points.extend(read_fio(path, direction, keep_failed=keep_failed))
        else:
            points.extend(read_elbencho(path) if kind == "elbencho" else read_vdbench(path))
        digest.update(_read_text(path)[1])
    return points, digest.hexdigest()


def source_kind(path: Path) -> str:
    """``fio``, ``elbencho``, ``vdbench`` or ``csv``, from the name and the first bytes."""
    from iosizer.calibration.files import input_problem

    try:
        problem = input_problem(path)
    except OSError as error:
        raise _fail(str(path), f"cannot read file ({error.strerror or error})") from None
    if problem is not None:  # before a byte is read: a pipe would wait, a device never end
        raise _fail(str(path), problem)
    if path.suffix.lower() == ".json":
        return "fio"
    try:
        with open(path, "rb") as stream:
            head = stream.read(4096).decode("utf-8-sig", errors="replace")
    except OSError as error:
        raise _fail(str(path), f"cannot read file ({error.strerror or error})") from None
    if head.lstrip().startswith("{") or '"fio version"' in head:
        return "fio"
    first_line = head.splitlines()[0] if head.splitlines() else ""
    if is_elbencho_header(first_line.split(",")):
        return "elbencho"
    if path.name.lower().startswith("flatfile") or is_vdbench(head):
        return "vdbench"
    return "csv"
