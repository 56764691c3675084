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

Service-time variability (``service_scv`` other than 1): the means come from
:func:`iosizer.model.mva.mva` with its stated correction
(:data:`iosizer.model.mva.SCV_APPROXIMATION`: the exact load-dependent wait
scaled by (1 + cv^2) / 2), the percentiles from the two-moment form of
:mod:`iosizer.model.percentiles` (an atom at no wait with the exponential
model's P(wait), an exponential conditional wait of the corrected mean, a
gamma service time of the given scv). Its error against simulation is
:data:`SCV_ERROR` (docs/validation/device.md).

Source: DESIGN.md family 7; Lazowska et al. 1984 ch. 8 (load-dependent
stations); the fit over whole numbers of units by profile likelihood is
:mod:`iosizer.calibration.whole`.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from iosizer.model.closed_tails import closed_tails, throughput_gradient
from iosizer.model.family import Column, CpuScaling, Family, FitPlan, ParameterSpec, Question, Role, Schema

__all__ = ["FAMILIES", "SCV_ERROR", "device_curve", "device_percentile"]

#: The most outstanding I/Os a question or a measured point may hold (fio allows iodepth 65536 x numjobs).
MAX_OUTSTANDING = 100_000
#: Parallel units the fit searches at most (a device with more never queues at a depth a sweep reaches).
MAX_UNITS = 4096

#: Measured error of the service_scv != 1 correction against event simulation (docs/validation/device.md).
SCV_ERROR = (
    "service_scv other than 1 is an approximation (SCV_APPROXIMATION of iosizer.model.mva for the means, "
    "the two-moment percentile form of iosizer.model.percentiles); against event simulation of C = 4 and 16 "
    "units, floor 20-50 % of the unit service, depths 1-64: see docs/validation/device.md"
)


def _units(values: Mapping[str, Any]) -> int:
    return int(round(float(values["parallel_units"])))


def device_curve(values: Mapping[str, Any], outstanding: object) -> dict[str, np.ndarray]:
    """``iops`` and ``mean_latency_us`` at each ``outstanding`` (module docstring).

    Exact for ``service_scv`` 1 (vectorised over the points); otherwise
    :func:`iosizer.model.mva.mva` with its residual-service correction.
    """
    n = np.asarray(outstanding, dtype=np.float64)
    floor, service = float(values["latency_floor_us"]), float(values["unit_service_us"])
    units, scv = _units(values), float(values.get("service_scv", 1.0))
    if scv == 1.0:
        per_us = throughput_gradient(floor, service, units, n)[0]
        latency = n / per_us
    else:
        per_us, latency = _corrected(floor, service, units, scv, n)
    return {"iops": np.asarray(per_us * 1e6, dtype=np.float64), "mean_latency_us": np.asarray(latency)}


def _corrected(floor: float, service: float, units: int, scv: float, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """X (per us) and N / X at each N by MVA with the service_scv correction (one recursion to max N)."""
    from iosizer.model.mva import mva

    top = int(np.max(n))
    # A floor of 0 is a delay station of no time: MVA needs a positive demand, and 1e-12 us changes nothing.
    curve = mva([max(floor, 1e-12 * service), service], 0.0, top, [math.inf, units],
                service_scv=[1.0, scv]).curve
    index = n.astype(np.int64) - 1
    return np.asarray(curve.throughput)[index], np.asarray(curve.response_time)[index]


def device_percentile(values: Mapping[str, Any], outstanding: object, percentile: float) -> np.ndarray:
    """The ``percentile`` (percent) of the I/O latency (us) at each ``outstanding``.

    scv 1: floor + the exact station quantile (:mod:`iosizer.model.closed_tails`).
    Otherwise the two-moment approximation of the module docstring.
    """
    n = np.asarray(outstanding, dtype=np.float64)
    floor, service = float(values["latency_floor_us"]), float(values["unit_service_us"])
    units, scv = _units(values), float(values.get("service_scv", 1.0))
    solved = closed_tails(floor, service, units, n)
    if scv == 1.0:
        return floor + solved.station_quantile(percentile)
    from iosizer.model.percentiles import _gamma_service_response

    _, latency = _corrected(floor, service, units, scv, n)
    wait = np.maximum(latency - floor - service, 0.0)
    p_wait = np.clip(solved.p_wait, 1e-300, 1.0)
    # conditional wait Exp of mean wait / P(wait): its rate in service units, r = P S / W
    rate = np.where(wait > 0, p_wait * service / np.where(wait > 0, wait, 1.0), 1.0)
    log_p = np.where(wait > 0, np.log(p_wait), -np.inf)
    q = np.full(n.shape, percentile / 100.0)
    return floor + service * _gamma_service_response(log_p, rate, np.full(n.shape, scv), q)


def _solve(values, inputs):
    return device_curve(values, inputs["outstanding"])


def _tail(values, inputs, percentile):
    return device_percentile(values, inputs["outstanding"], percentile)


def _jacobian(settings):
    """d iops and d mean_latency_us by (latency_floor_us, unit_service_us), exact at service_scv 1
    (:func:`~iosizer.model.closed_tails.throughput_gradient`); central differences otherwise."""

    def jacobian(values, inputs):
        n = np.asarray(inputs["outstanding"], dtype=np.float64)
        floor, service = float(values["latency_floor_us"]), float(values["unit_service_us"])
        if float(values.get("service_scv", 1.0)) != 1.0:
            columns: dict[str, list[np.ndarray]] = {"iops": [], "mean_latency_us": []}
            for name, value in (("latency_floor_us", floor), ("unit_service_us", service)):
                step = 1e-6 * max(value, service)
                up = device_curve({**values, name: value + step}, n)
                down = device_curve({**values, name: max(value - step, 0.0)}, n)
                for key in columns:
                    columns[key].append((up[key] - down[key]) / (value + step - max(value - step, 0.0)))
            return {k: np.stack(v, axis=-1) for k, v in columns.items()}
        per_us, by_floor, by_service = throughput_gradient(floor, service, _units(values), n)
        slopes = np.stack([by_floor, by_service], axis=-1)  # d ln X
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
                 "iops = E_N[min(j, C)] / S; mean_latency_us = N / iops (Little); an I/O finding j >= C "
                 "(distribution p_{N-1}) waits Erlang(j - C + 1, C / S): latency = F + wait + Exp(S)"),
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
                          "calibrated from the sweep at its block size; it grows with the block size "
                          "(roughly linearly: fit one profile per block size, iosizer does not yet fit "
                          "the line through several)",
                          "time one unit is busy per I/O"),
            ParameterSpec("service_scv", "1", 1.0, (0.0, 100.0), "assumed",
                          "assumed exponential (cv^2 = 1), under which the answers are exact; fitted "
                          "(calibrate --fit-percentiles) where the data give percentiles. " + SCV_ERROR,
                          "squared coefficient of variation of one unit's service time"),
            ParameterSpec("block_kib", "KiB", 4.0, (0.5, 65536.0), "assumed",
                          "the block size the sweep was run at (fio bs; read from fio files); the profile "
                          "holds for that size only",
                          "I/O size of the sweep", kind="setting"),
            ParameterSpec("direction", "name", "read", (0.0, 0.0), "assumed",
                          "fio reports reads and writes apart; the sweep's direction (randread: read)",
                          "which fio direction to read: read or write", kind="setting",
                          choices=("read", "write")),
        ),
        columns=Schema("device", (
            Column("outstanding", Role.input, "I/Os", "I/Os in flight: fio iodepth x numjobs", minimum=1,
                   integer=True, maximum=MAX_OUTSTANDING),
            Column("iops", Role.observed, "1/s", "I/Os completed per second", minimum=0,
                   minimum_inclusive=False),
            Column("mean_latency_us", Role.observed, "us", "mean latency per I/O, submission to completion",
                   required=False, minimum=0, minimum_inclusive=False),
        )),
        solve=_solve,
        service_time="exponential unit service, FCFS over C units behind a constant floor (exact); "
                     "other service_scv approximate",
        questions=(
            Question("device curve", "IOPS, mean and percentile latency against outstanding I/Os",
                     ("outstanding",), ("iops", "mean_latency_us")),
        ),
        fit=FitPlan(_start, _jacobian, relative=True, holdable=("parallel_units", "service_scv"),
                    whole=("parallel_units",), tail_free=("service_scv",),
                    percentiles=(50.0, 90.0, 99.0)),
        tail=_tail,
        tail_unit="us",
        example="device/sweep.csv",
    ),
)
