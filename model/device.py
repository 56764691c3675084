"""A storage device under a fio queue-depth sweep: a latency floor in front of C parallel units.

Physical system
---------------
An SSD, a virtual disk or an array LUN serves each I/O in two parts: a
fixed latency (controller firmware, transport, the host's submission and
completion path) that every I/O pays however many are in flight, and the
work of one of C parallel units (flash dies, channels, controller cores)
that the load spreads over; when all C are busy, I/Os queue. fio keeps
``iodepth`` x ``numjobs`` = N I/Os outstanding and issues a new one as each
completes: a closed network of N jobs, a delay station (the floor F) and a
C-server FCFS station (service S per I/O, one unit)::

    iops(N)            = X(N) = E_N[min(j, C)] / S        (exact, product form)
    mean_latency_us(N) = N / X(N)                        (Little's law, no think time)
    latency_pP_us(N)   = F + the P-th percentile of wait + service

with E_N over the product-form queue length of
:mod:`iosizer.model.closed_tails`, and the percentile exact by the arrival
theorem there. The floor is a pure delay: its time distribution changes
none of these (BCMP insensitivity), so a constant floor is exact.

Service-time variability (``service_scv`` other than 1): the means keep the
product form's values (a closed loop whose every unit is busy runs at C / S
whatever the variability, and below the knee few I/Os wait), not MVA's
residual-service correction; the percentiles are a gamma fit per queue
length found (:func:`device_percentile`). Their error against simulation,
and why the correction is not used: :data:`SCV_ERROR`,
docs/validation/device.md.

Source: DESIGN.md family 7; Lazowska et al. 1984 ch. 8 (load-dependent
stations); the fit over whole numbers of units by profile likelihood is
:mod:`iosizer.calibration.whole`.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from iosizer.model._roots import bisect_increasing
from iosizer.model.closed_tails import closed_tails, closed_throughput, throughput_gradient
from iosizer.model.family import (Column, CpuScaling, Family, FitPlan, Input, Output, ParameterSpec, Plot, Question,
                                  Role, Schema, Sizing)

__all__ = ["FAMILIES", "SCV_ERROR", "ceiling_iops", "device_curve", "device_percentile", "saturated_outstanding"]

#: The most outstanding I/Os a question or a measured point may hold (fio allows iodepth 65536 x numjobs).
MAX_OUTSTANDING = 100_000
#: Parallel units the fit searches at most (a device with more never queues at a depth a sweep reaches).
MAX_UNITS = 4096

#: Measured error of the service_scv != 1 forms against event simulation (docs/validation/device.md).
SCV_ERROR = (
    "service_scv other than 1: the means stay the product form's (measured against event simulation, C = 4 "
    "and 16 units, floor 0.4 x the unit service, depths 1-64, 40,000 I/Os: IOPS and mean latency within 1.4 % "
    "at scv 0, 0.5 and 2, where MVA's residual-service correction was 33 % low in IOPS at scv 2 once "
    "saturated); the percentiles are a gamma fit of wait + service per queue length found (p99 within 6.3 % "
    "at scv 0.5, 12.4 % at scv 2, and up to +19.7 % at scv 0, just past the knee; docs/validation/device.md)"
)


def _number(value: Any) -> Any:
    """A parameter's value: a float, or a float64 array where a band's moved values come stacked
    (:func:`iosizer.calibration.uncertainty.stacked`: the curve broadcasts over its parameters)."""
    return float(value) if np.ndim(value) == 0 else np.asarray(value, dtype=np.float64)


def _units(values: Mapping[str, Any]) -> int:
    return int(round(float(values["parallel_units"])))


#: The block size (KiB) ``unit_service_us`` is stated at when a slope in block size is fitted (fio's bs=4k).
REFERENCE_KIB = 4.0


def unit_service(values: Mapping[str, Any], block_kib: object = None) -> Any:
    """One unit's service (us) at ``block_kib`` (default: the setting ``block_kib``): the line
    S(x) = unit_service_us + unit_service_per_kib_us x (x - :data:`REFERENCE_KIB`), fitted from files at
    several block sizes; with the slope held at 0 (one block size) it is ``unit_service_us`` at any x.
    Kept above 1e-6 of ``unit_service_us`` where a line extrapolated below 4 KiB would reach zero."""
    base = _number(values["unit_service_us"])
    slope = values.get("unit_service_per_kib_us")
    slope = 0.0 if slope is None else _number(slope)
    if np.ndim(slope) == 0 and slope == 0.0:
        return base
    x = np.asarray(values.get("block_kib", REFERENCE_KIB) if block_kib is None else block_kib, dtype=np.float64)
    return np.maximum(base + slope * (x - REFERENCE_KIB), 1e-6 * base)


def device_curve(values: Mapping[str, Any], outstanding: object, block_kib: object = None) -> dict[str, np.ndarray]:
    """``iops`` and ``mean_latency_us`` at each ``outstanding`` (module docstring), vectorised; the unit
    service at ``block_kib`` (:func:`unit_service`; default the setting).

    Exact for exponential unit service; the same product-form values are
    used at any ``service_scv`` (:data:`SCV_ERROR`: within 1.4 % of
    simulation at scv 0 to 2, where the MVA residual-service correction
    missed by up to 33 %).
    """
    n = np.asarray(outstanding, dtype=np.float64)
    floor, service = _number(values["latency_floor_us"]), unit_service(values, block_kib)
    per_us = closed_throughput(floor, service, _units(values), n)
    return {"iops": np.asarray(per_us * 1e6, dtype=np.float64), "mean_latency_us": np.asarray(n / per_us)}


#: Below this scv the gamma of the scv != 1 percentile form is taken as this (a near-constant time).
_SMALLEST_SCV = 1e-4


def device_percentile(values: Mapping[str, Any], outstanding: object, percentile: float,
                      block_kib: object = None) -> np.ndarray:
    """The ``percentile`` (percent) of the I/O latency (us) at each ``outstanding``.

    scv 1: floor + the exact station quantile (:mod:`iosizer.model.closed_tails`).
    Otherwise (approximation, :data:`SCV_ERROR`): an I/O finding j >= C
    waits for k = j - C + 1 departures of C busy units, about k S / C with
    variance k scv (S / C)^2 (renewal departures), then its own service
    (mean S, variance scv S^2); the sum is taken as a gamma of that mean and
    variance, j distributed as in the exponential product form. The quantile
    of the mixture is found by bisection to 1e-10 relative.
    """
    from scipy.special import gammaincc

    n = np.asarray(outstanding, dtype=np.float64)
    floor, service = float(values["latency_floor_us"]), unit_service(values, block_kib)
    units, scv = _units(values), float(values.get("service_scv", 1.0))
    solved = closed_tails(floor, service, units, n)
    service = np.broadcast_to(service, n.shape).reshape(-1) if np.ndim(service) else service
    if scv == 1.0:
        return floor + solved.station_quantile(percentile)
    scv = max(scv, _SMALLEST_SCV)
    found = np.exp(solved._log_found)  # P(k ahead), k = 1.., per point
    k = np.arange(1, found.shape[1] + 1, dtype=np.float64)[None, :]
    weights = np.concatenate([np.exp(solved._log_no_wait)[:, None], found], axis=1)
    ahead = np.concatenate([np.zeros((found.shape[0], 1)), np.broadcast_to(k, found.shape)], axis=1)
    mean = 1.0 + ahead / units                              # service units
    shape = mean**2 / (scv * (1.0 + ahead / units**2))      # mean^2 / variance
    tail = 1.0 - percentile / 100.0
    high = np.max(np.where(weights > 0, mean, 0.0), axis=1) * (1.0 + 40.0 * np.sqrt(scv)) + 50.0 * scv

    def excess(t: np.ndarray) -> np.ndarray:  # the mixture's CDF past the percentile: increasing in t
        return tail - np.sum(weights * gammaincc(shape, shape * t[:, None] / mean), axis=1)

    found = bisect_increasing(excess, np.zeros(weights.shape[0]), high, rtol=1e-10)
    return floor + (service * found).reshape(np.shape(n))


def ceiling_iops(values: Mapping[str, Any]) -> float:
    """C / S: the IOPS of every unit busy, which X(N) approaches as N grows (the sizing's ``limit``)."""
    return _units(values) / float(unit_service(values)) * 1e6


def saturated_outstanding(values: Mapping[str, Any]) -> int:
    """The first N whose IOPS reach the ceiling C / S to 1e-9: past it more I/Os add latency and no IOPS
    (the sizing's ``stop``: a latency search ends there, and a percentile is never solved at a needless
    10^5 states). Galloping then bisection (:func:`iosizer.model.sizing.smallest_integer`)."""
    from iosizer.model.sizing import smallest_integer

    ceiling = ceiling_iops(values)
    return smallest_integer(lambda n: float(device_curve(values, n)["iops"]) >= ceiling * (1 - 1e-9), 1,
                            MAX_OUTSTANDING) or MAX_OUTSTANDING


def _curve_percentiles(values, inputs, percentiles):
    """``latency_pP_us`` (``latency_p99_us``, ``latency_p99_9_us``) at each outstanding count."""
    from iosizer.model.percentiles import percentile_key

    return {f"latency_{percentile_key(p)}_us": device_percentile(values, inputs["outstanding"], p)
            for p in percentiles}


def _solve(values, inputs):
    return device_curve(values, inputs["outstanding"], _blocks(inputs))


def _tail(values, inputs, percentile):
    return device_percentile(values, inputs["outstanding"], percentile, _blocks(inputs))


def _blocks(inputs: Mapping[str, Any]) -> Any:
    """Measured rows' block sizes (KiB) where the data give them (files at several sizes), else None."""
    block = inputs.get("block_kib")
    if block is None:
        return None
    block = np.asarray(block, dtype=np.float64)
    return block if np.all(np.isfinite(block)) else None


def _several_blocks(data: Mapping[str, Any]) -> bool:
    block = _blocks(data)
    return block is not None and block.size > 0 and float(np.ptp(block)) > 0


def _jacobian(settings):
    """d iops and d mean_latency_us by (latency_floor_us, unit_service_us), exact
    (:func:`~iosizer.model.closed_tails.throughput_gradient`; the means do not depend on service_scv)."""

    def jacobian(values, inputs):
        n = np.asarray(inputs["outstanding"], dtype=np.float64)
        block = _blocks(inputs)
        floor, service = float(values["latency_floor_us"]), unit_service(values, block)
        per_us, by_floor, by_service = throughput_gradient(floor, service, _units(values), n)
        columns = [by_floor, by_service]
        if _several_blocks(inputs):  # the slope is free: dS / d slope = x - 4 KiB (the clip is never active
            columns.append(by_service * (block - REFERENCE_KIB))  # at a fit's rows, which measure S > 0)
        slopes = np.stack(columns, axis=-1)  # d ln X
        return {"iops": (per_us * 1e6)[..., None] * slopes, "mean_latency_us": -(n / per_us)[..., None] * slopes}

    return jacobian


def _start(data, settings):
    """Start from the lightest load (R(1) = F + S exactly) and the peak IOPS (X <= C / S).

    Without ``parallel_units`` in ``settings`` it returns the counts to search:
    1 to the largest outstanding (C at or past every N never queues: all such
    C give the same curve).
    """
    n = np.asarray(data["outstanding"], dtype=np.float64)
    iops = np.asarray(data["iops"], dtype=np.float64)
    latency = data.get("mean_latency_us")
    light = n == n.min()
    if latency is not None and np.all(np.isfinite(latency[light])):
        lightest_us = float(np.mean(latency[light]))
    else:
        lightest_us = float(np.mean(n[light] / iops[light])) * 1e6
    units = settings.get("parallel_units")
    start: dict[str, Any] = {}
    if units is None:
        units = int(min(max(n.max(), 1), MAX_UNITS))
        start["parallel_units"] = (units, 1, units)
    peak_per_us = float(iops.max()) / 1e6
    service = min(float(units) / peak_per_us, 0.8 * lightest_us)
    floor = max(lightest_us - service, 0.05 * lightest_us)
    start["latency_floor_us"] = (floor, 0.0, math.inf)
    start["unit_service_us"] = (service, 1e-9 * lightest_us, math.inf)
    if _several_blocks(data):  # files at several block sizes: the unit service's line in block size
        start["unit_service_per_kib_us"] = (0.0, 0.0, math.inf)
    return start


_OUTSTANDING = ParameterSpec(
    "outstanding", "I/Os", None, (1, MAX_OUTSTANDING), "assumed",
    "fio's iodepth x numjobs; 100,000 is past any queue a device exposes (NVMe: 64k per queue)",
    "I/Os kept in flight (the closed population N)", kind="setting", integer=True)


FAMILIES = (
    Family(
        name="device",
        summary="storage device from a fio queue-depth sweep: latency floor, parallel units, unit service",
        source="DESIGN.md family 7; closed network of a delay and a C-server FCFS station (Lazowska et al. "
               "1984 ch. 8), exact by product form; percentiles by the arrival theorem",
        formula=("N = outstanding I/Os; p_N(j) = [F^(N-j) / (N-j)!] [S^j / prod_{i<=j} min(i, C)] / G(N); "
                 "iops = E_N{min(j, C)} / S; mean_latency_us = N / iops (Little); an I/O finding j >= C "
                 "(distribution p_{N-1}) waits Erlang(j - C + 1, C / S): latency = F + wait + Exp(S); at block size x "
                 "S = unit_service_us + unit_service_per_kib_us (x - 4 KiB)"),
        parameters=(
            ParameterSpec("latency_floor_us", "us", None, (0.0, 1e7), "fitted",
                          "calibrated from the planner's fio sweep (the latency every I/O pays)",
                          "fixed latency per I/O: controller, transport, host submission and completion",
                          cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0)),
            ParameterSpec("parallel_units", "units", None, (1, MAX_UNITS), "fitted",
                          "calibrated over the whole numbers by profile likelihood; its interval is the 95 % "
                          "set of plausible counts (likelihood ratio against chi-square(1))",
                          "parallel units the load spreads over (dies, channels, controller cores)",
                          integer=True),
            ParameterSpec("unit_service_us", "us", None, (1e-6, 1e8), "fitted",
                          "calibrated from the sweep at its block size; files at several block sizes give "
                          "unit_service_us as a linear function of block size, S(x) = unit_service_us + "
                          "unit_service_per_kib_us x (x - 4 KiB): unit_service_us is then the service at "
                          "4 KiB and --block-kib picks the size a question is asked at",
                          "time one unit is busy per I/O"),
            ParameterSpec("unit_service_per_kib_us", "us/KiB", 0.0, (0.0, 1e7), "assumed",
                          "held at 0 for a sweep at one block size (the service is then the same at any "
                          "--block-kib: the profile holds for its block size only); fitted when the files hold "
                          "several block sizes (the slope of the unit service in block size, transfer time "
                          "per KiB)",
                          "growth of one unit's service per KiB of block size"),
            ParameterSpec("service_scv", "1", 1.0, (0.0, 100.0), "assumed",
                          "assumed exponential (cv^2 = 1), under which the answers are exact, and held there "
                          "when calibrate fits the data's percentiles by default; fitted by calibrate "
                          "--fit-percentiles. " + SCV_ERROR,
                          "squared coefficient of variation of one unit's service time"),
            ParameterSpec("block_kib", "KiB", 4.0, (0.5, 65536.0), "assumed",
                          "the block size the sweep was run at (fio bs; read from fio files); the profile "
                          "holds for that size only, unless files at several block sizes fitted "
                          "unit_service_per_kib_us (then a question's --block-kib moves the unit service "
                          "along that line)",
                          "I/O size of the sweep", kind="setting"),
            ParameterSpec("direction", "name", "auto", (0.0, 0.0), "assumed",
                          "fio reports reads and writes apart; auto takes each job's one direction (randread: "
                          "read) and refuses a mixed job, which must name the one to model",
                          "which fio direction to model: auto, read or write", kind="setting",
                          choices=("auto", "read", "write")),
        ),
        columns=Schema("device", (
            Column("outstanding", Role.input, "I/Os", "I/Os in flight: fio iodepth x numjobs", minimum=1,
                   integer=True, maximum=MAX_OUTSTANDING),
            Column("iops", Role.observed, "1/s", "I/Os completed per second", minimum=0,
                   minimum_inclusive=False),
            Column("mean_latency_us", Role.observed, "us", "mean latency per I/O, submission to completion",
                   required=False, minimum=0, minimum_inclusive=False),
            Column("block_kib", Role.input, "KiB", "block size of the row (fio bs); rows at several sizes fit "
                   "the unit service's line in block size", required=False, minimum=0, minimum_inclusive=False),
        )),
        solve=_solve,
        service_time="exponential unit service, FCFS over C units behind a constant floor (exact); "
                     "other service_scv approximate",
        questions=(
            Question(
                "curve", "IOPS, mean latency and latency percentiles against the I/Os kept outstanding",
                inputs=(Input("outstanding", "I/Os", (1, MAX_OUTSTANDING), default=(1, 2, 4, 8, 16, 32, 64),
                              description="I/Os in flight (fio iodepth x numjobs)", integer=True),),
                outputs=(Output("iops", "IOPS", "I/Os completed per second"),
                         Output("mean_latency_us", "us", "mean latency per I/O, submission to completion")),
                solve=_solve,
                percentiles=_curve_percentiles,
                notes=("a latency floor, then FCFS over the parallel units: a closed network of N = outstanding "
                       "I/Os, exact for exponential unit service (product form; percentiles by the arrival "
                       "theorem); bands at the profile's fitted count of units, its plausible counts in "
                       "'iosizer params device' and the calibration",),
                plot=Plot("outstanding", ("iops", "mean_latency_us")),
                # IOPS and latency both rise with the outstanding I/Os (towards C / S): each sizing is a
                # monotone search on the curve (iosizer.calibration.declared_sizing); the keys are the
                # ones 'iosizer size device' published before it was generated.
                sizing=(Sizing("outstanding", "iops", at_most=False, smallest=True, limit=ceiling_iops),
                        Sizing("outstanding", "mean_latency_us", at_most=True, smallest=False,
                               target="target_latency_us", percentile=True, metric="mean", report="iops",
                               stop=saturated_outstanding,
                               keys=(("target", "target_latency_us"), ("metric", "latency_metric"),
                                     ("iops", "max_iops_within_latency"), ("outstanding", "outstanding_at_max_iops"),
                                     ("measure", "latency_at_max_iops_us")))),
            ),
        ),
        fit=FitPlan(_start, _jacobian, relative=True, holdable=("parallel_units", "service_scv"),
                    whole=("parallel_units",), tail_free=("service_scv",),
                    percentiles=(50.0, 90.0, 99.0), percentiles_by_default=True),
        tail=_tail,
        tail_unit="us",
        example="device/sweep.csv",
    ),
)
