"""The calibratable models: what each reads, which parameters it fits, how.

Each entry ties a model from :mod:`iosizer.model` to the calibration loop:
its dataset :class:`~iosizer.calibration.dataset.Schema`, its parameter
declarations (initial values derived from the data, bounds, CPU scaling) and
the prediction function the fitter calls. Families register here as they
land; the CLI's ``iosizer calibrate MODEL`` lists exactly these names.

- ``closed-network``: a closed network of K single-server stations and a
  think time Z, solved by exact MVA; fits the per-station service demands
  D_k (and Z unless fixed) to measured throughput X(N) and, optionally,
  response time R(N) -- the classic load-test calibration.
- ``mmc``: an M/M/c queue with c known; fits the per-server service rate mu
  to measured mean response times at several arrival rates, with the exact
  sympy derivative dW/dmu as the Jacobian (c <= 64).
- ``dma``: a device's DMA read issue interval I(x) = I_0 + k x against
  added round-trip latency x (seed 000 table 4-1); sympy Jacobian.
- ``rmw``: PCIe write loss against lanes and transfer size from a shared
  RMW unit behind per-port posted-credit loops (seed 001); fits the RMW
  service time per unaligned access and the credits per port.
- ``oltp``: the OLTP degradation curve PD(x) of a closed batch network whose
  serial I/O step grows with x (seed 000 sections 4.3, 6.1); fits the knee
  latency and the serial share, honouring bounds ("5 % or less").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from iosizer.calibration.dataset import Column, Dataset, Role, Schema
from iosizer.calibration.fit import CpuScaling, JacobianFunction, ModelFunction, Parameter
from iosizer.errors import CalibrationError, InputError


@dataclass(frozen=True)
class CalibrationModel:
    """One entry of the registry; ``build`` turns user options into a fit problem."""

    name: str
    summary: str
    schema: Schema
    parameters: Callable[[Dataset, Mapping[str, Any]], list[Parameter]]
    function: Callable[[Mapping[str, Any]], ModelFunction]
    jacobian: Callable[[Mapping[str, Any]], JacobianFunction | None]
    check_options: Callable[[Mapping[str, Any]], dict[str, Any]]
    #: The options this model accepts (the CLI flags without dashes, underscored).
    option_names: tuple[str, ...] = ()
    #: Fit relative errors: measurement noise proportional to the value.
    relative: bool = False
    #: The parameter names a profile of this model must carry, given its options.
    parameter_names: Callable[[Mapping[str, Any]], list[str]] | None = None

    def options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Validate user options: unknown ones are an error, not silently dropped."""
        unknown = sorted(k for k, v in given.items() if v is not None and k not in self.option_names)
        if unknown:
            flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
            raise InputError(f"{flags} does not apply to model '{self.name}'")
        return self.check_options({k: given.get(k) for k in self.option_names})


# --- closed network ----------------------------------------------------------

CLOSED_NETWORK_SCHEMA = Schema(
    "closed-network",
    (
        Column("population", Role.input, "jobs", "jobs in the network (N)", minimum=1, integer=True,
               maximum=1_000_000),
        Column("throughput_per_s", Role.observed, "1/s", "completions per second",
               minimum=0, minimum_inclusive=False),
        Column("response_time_s", Role.observed, "s", "time at the stations, think time excluded",
               required=False, minimum=0, minimum_inclusive=False),
    ),
)


def demand_name(station: int) -> str:
    return f"demand_{station}_s"


def _closed_options(options: Mapping[str, Any]) -> dict[str, Any]:
    stations = options.get("stations")
    if not isinstance(stations, (int, float)) or int(stations) != stations or stations < 1:
        raise InputError(f"closed-network needs --stations K, a whole number >= 1, got {stations!r}")
    think = options.get("think_time_s")
    if think is not None and (not math.isfinite(think) or think < 0):
        raise InputError(f"--think-time-s must be >= 0, got {think}")
    return {"stations": int(stations), "think_time_s": think}


def _closed_parameters(dataset: Dataset, options: Mapping[str, Any]) -> list[Parameter]:
    """Start where the data point: the bottleneck from peak throughput, the
    total demand from the lightest load; stations start unequal so the fit
    is not stuck on the symmetric saddle where all demands are the same."""
    stations = options["stations"]
    population = dataset.values["population"]
    throughput = dataset.values["throughput_per_s"]
    bottleneck_s = 1.0 / float(np.max(throughput))
    lightest = int(np.argmin(population))
    cycle_s = float(population[lightest] / throughput[lightest])  # R + Z at the lightest load
    response = dataset.values.get("response_time_s")
    if options["think_time_s"] is not None:
        think_s = options["think_time_s"]
    elif response is not None and np.isfinite(response[lightest]):
        think_s = max(cycle_s - float(response[lightest]), 0.0)
    else:
        think_s = max(cycle_s - 1.5 * bottleneck_s, 0.0)
    shares = np.linspace(1.0, 0.3, stations)
    parameters = [
        Parameter(
            demand_name(k + 1), bottleneck_s * float(shares[k]), lower=1e-12 * bottleneck_s,
            upper=math.inf, unit="s", description=f"service demand of station {k + 1}",
            cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0),
        )
        for k in range(stations)
    ]
    parameters.append(
        Parameter(
            "think_time_s", float(think_s), lower=0.0, upper=math.inf,
            vary=options["think_time_s"] is None, unit="s",
            description="think time outside the stations", cpu_scaling=CpuScaling.fixed,
        )
    )
    return parameters


def _closed_function(options: Mapping[str, Any]) -> ModelFunction:
    stations = options["stations"]

    def model(params: Mapping[str, float], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from iosizer.model.mva import mva

        population = np.asarray(inputs["population"]).astype(np.int64)
        demands = [params[demand_name(k + 1)] for k in range(stations)]
        curve = mva(demands, params["think_time_s"], int(population.max())).curve
        index = population - 1
        return {
            "throughput_per_s": curve.throughput[index],
            "response_time_s": curve.response_time[index],
        }

    return model


# --- M/M/c -------------------------------------------------------------------

MMC_SCHEMA = Schema(
    "mmc",
    (
        Column("arrival_rate_per_s", Role.input, "1/s", "arrivals per second",
               minimum=0, minimum_inclusive=False),
        Column("mean_response_s", Role.observed, "s", "mean response time",
               minimum=0, minimum_inclusive=False),
    ),
)


def _mmc_options(options: Mapping[str, Any]) -> dict[str, Any]:
    servers = options.get("servers")
    if not isinstance(servers, (int, float)) or int(servers) != servers or servers < 1:
        raise InputError(f"mmc needs --servers C, a whole number >= 1, got {servers!r}")
    return {"servers": int(servers)}


def _mmc_parameters(dataset: Dataset, options: Mapping[str, Any]) -> list[Parameter]:
    servers = options["servers"]
    arrival = dataset.values["arrival_rate_per_s"]
    response = dataset.values["mean_response_s"]
    # Stability: every measured arrival rate must stay below c mu.
    stable_floor = float(np.max(arrival)) / servers * (1 + 1e-9)
    # At the lightest load the response is close to the bare service time.
    start = max(1.0 / float(np.min(response)), stable_floor * 1.05)
    return [
        Parameter(
            "service_rate_per_s", start, lower=stable_floor, unit="1/s",
            description="completions per second of one busy server",
            cpu_scaling=CpuScaling.power, exponent_bounds=(0.0, 1.0),
        )
    ]


def _mmc_function(options: Mapping[str, Any]) -> ModelFunction:
    servers = options["servers"]

    def model(params: Mapping[str, float], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from iosizer.model.queueing import mmc

        result = mmc(inputs["arrival_rate_per_s"], params["service_rate_per_s"], servers)
        return {"mean_response_s": np.asarray(result.mean_response, dtype=np.float64)}

    return model


def _mmc_jacobian(options: Mapping[str, Any]) -> JacobianFunction | None:
    from iosizer.model.symbolic import MAX_SYMBOLIC_SERVERS, mmc_mean_response_and_gradient

    servers = options["servers"]
    if servers > MAX_SYMBOLIC_SERVERS:
        return None  # finite differences beyond the explicit Erlang sum
    _, gradient = mmc_mean_response_and_gradient(servers)

    def jacobian(params: Mapping[str, float], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        lam = np.asarray(inputs["arrival_rate_per_s"], dtype=np.float64)
        d_mu = np.broadcast_to(gradient(lam, params["service_rate_per_s"]), lam.shape)
        return {"mean_response_s": np.asarray(d_mu, dtype=np.float64)[:, None]}

    return jacobian


# --- DMA issue interval under added latency (seed 000 table 4-1) --------------

DMA_SCHEMA = Schema(
    "dma",
    (
        Column("added_latency_ns", Role.input, "ns", "added round-trip latency"),
        Column("issue_interval_ns", Role.observed, "ns", "DMA read (MRd) issue interval",
               minimum=0, minimum_inclusive=False),
    ),
)


def _no_options(options: Mapping[str, Any]) -> dict[str, Any]:
    return {}


def _dma_parameters(dataset: Dataset, options: Mapping[str, Any]) -> list[Parameter]:
    x = dataset.values["added_latency_ns"]
    interval = dataset.values["issue_interval_ns"]
    local = float(interval[np.argmin(x)])
    spread = float(np.ptp(x))
    slope = float(np.polyfit(x, interval, 1)[0]) if spread > 0 else 0.0
    return [
        Parameter("local_issue_interval_ns", local, lower=1e-9 * local, unit="ns",
                  description="issue interval with no added latency",
                  cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0)),
        Parameter("exposed_round_trips", max(slope, 0.0), lower=0.0, upper=1e3, unit="1",
                  description="round trips of added latency each burst waits",
                  cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0)),
    ]


def _dma_function(options: Mapping[str, Any]) -> ModelFunction:
    def model(params: Mapping[str, float], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from iosizer.model.latency import dma_issue_interval_ns

        interval = dma_issue_interval_ns(
            inputs["added_latency_ns"], params["local_issue_interval_ns"], params["exposed_round_trips"]
        )
        return {"issue_interval_ns": np.asarray(interval, dtype=np.float64)}

    return model


def _dma_jacobian(options: Mapping[str, Any]) -> JacobianFunction:
    from iosizer.model.symbolic import dma_functions

    gradient = dma_functions()["issue_interval_gradient"]

    def jacobian(params: Mapping[str, float], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        x = np.asarray(inputs["added_latency_ns"], dtype=np.float64)
        columns = gradient(x, params["local_issue_interval_ns"], params["exposed_round_trips"])
        return {"issue_interval_ns": np.column_stack([np.broadcast_to(c, x.shape) for c in columns])}

    return jacobian


# --- OLTP degradation curve (seed 000 sections 4.3, 6.1) ----------------------

OLTP_SCHEMA = Schema(
    "oltp",
    (
        Column("added_latency_ns", Role.input, "ns", "added round-trip latency"),
        Column("degradation_pct", Role.observed, "%", "throughput loss against local",
               maximum=100.0),
    ),
)


def _oltp_options(options: Mapping[str, Any]) -> dict[str, Any]:
    terminals = options.get("terminals")
    terminals = 16 if terminals is None else terminals  # seed 000 table 3-2
    if int(terminals) != terminals or terminals < 1:
        raise InputError(f"--terminals must be a whole number >= 1, got {terminals!r}")
    return {"terminals": int(terminals)}


def _oltp_parameters(dataset: Dataset, options: Mapping[str, Any]) -> list[Parameter]:
    """Start with the knee where the data first pass 5 % and a mid serial share."""
    x = dataset.values["added_latency_ns"]
    pd = dataset.values["degradation_pct"]
    above = x[pd > 5.0]
    knee = float(above.min()) if above.size else float(max(x.max(), 1.0))
    return [
        Parameter("knee_latency_ns", knee, lower=1.0, upper=1e7, unit="ns",
                  description="added latency where the serial I/O step overtakes the CPU",
                  cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 1.0)),
        Parameter("serial_share", 0.5, lower=1e-3, upper=0.999, unit="1",
                  description="serial-step demand / CPU demand with no added latency",
                  cpu_scaling=CpuScaling.fixed),
    ]


def _oltp_function(options: Mapping[str, Any]) -> ModelFunction:
    terminals = options["terminals"]

    def model(params: Mapping[str, float], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from iosizer.model.latency import OltpNetwork, oltp_degradation_pct

        network = OltpNetwork(
            terminals=terminals, knee_latency_ns=params["knee_latency_ns"],
            serial_share=params["serial_share"],
        )
        return {"degradation_pct": np.asarray(oltp_degradation_pct(network, inputs["added_latency_ns"]))}

    return model


# --- RMW contention in the root complex (seed 001 section 4) ------------------

RMW_SCHEMA = Schema(
    "rmw",
    (
        Column("lanes", Role.input, "lanes", "total PCIe lanes (x8 ports)", minimum=8, integer=True,
               maximum=1024),
        Column("transfer_bytes", Role.input, "bytes", "bytes per write transfer", minimum=1, integer=True),
        Column("loss_pct", Role.observed, "%", "throughput loss against the aligned reference",
               maximum=100.0),
    ),
)


def _rmw_options(options: Mapping[str, Any]) -> dict[str, Any]:
    mps = options.get("mps_bytes") or 256  # seed 001 table 1
    from iosizer.model.pcie import MPS_BYTES

    if mps not in MPS_BYTES:
        raise InputError(f"--mps must be one of {MPS_BYTES}, got {mps}")
    return {"mps_bytes": int(mps)}


def _rmw_parameters(dataset: Dataset, options: Mapping[str, Any]) -> list[Parameter]:
    return [
        Parameter("rmw_service_ns", 5.0, lower=0.01, upper=1e4, unit="ns",
                  description="RMW unit time per unaligned 64 B access",
                  cpu_scaling=CpuScaling.power, exponent_bounds=(-1.0, 0.0)),
        Parameter("posted_credits", 4.0, lower=1.0, upper=256.0, unit="TLPs",
                  description="TLPs a port keeps in flight in its credit loop",
                  cpu_scaling=CpuScaling.fixed),
    ]


def _rmw_function(options: Mapping[str, Any]) -> ModelFunction:
    mps = options["mps_bytes"]

    def model(params: Mapping[str, float], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from iosizer.model.pcie import PcieLink, RmwPlatform, access_pattern, rmw_throughput

        platform = RmwPlatform(link=PcieLink(mps_bytes=mps), rmw_service_ns=params["rmw_service_ns"],
                               posted_credits=params["posted_credits"])
        lanes = np.asarray(inputs["lanes"]).astype(int)
        sizes = np.asarray(inputs["transfer_bytes"]).astype(int)
        loss = [float(rmw_throughput(platform, access_pattern(int(b), mps), [int(l)]).loss_pct[0])
                for l, b in zip(lanes, sizes)]
        return {"loss_pct": np.asarray(loss)}

    return model


REGISTRY: dict[str, CalibrationModel] = {
    model.name: model
    for model in (
        CalibrationModel(
            "closed-network",
            "closed network by exact MVA: station demands and think time from X(N), R(N)",
            CLOSED_NETWORK_SCHEMA,
            _closed_parameters,
            _closed_function,
            lambda options: None,
            _closed_options,
            ("stations", "think_time_s"),
            relative=True,
            parameter_names=lambda o: [demand_name(k + 1) for k in range(o["stations"])] + ["think_time_s"],
        ),
        CalibrationModel(
            "mmc",
            "M/M/c queue: service rate from mean response at several arrival rates",
            MMC_SCHEMA,
            _mmc_parameters,
            _mmc_function,
            _mmc_jacobian,
            _mmc_options,
            ("servers",),
            relative=True,
            parameter_names=lambda o: ["service_rate_per_s"],
        ),
        CalibrationModel(
            "dma",
            "DMA read issue interval I(x) = I_0 + k x under added latency x (seed 000 table 4-1)",
            DMA_SCHEMA,
            _dma_parameters,
            _dma_function,
            _dma_jacobian,
            _no_options,
            parameter_names=lambda o: ["local_issue_interval_ns", "exposed_round_trips"],
        ),
        CalibrationModel(
            "oltp",
            "OLTP degradation PD(x) of a 16-terminal batch closed network with a serial I/O step",
            OLTP_SCHEMA,
            _oltp_parameters,
            _oltp_function,
            lambda options: None,
            _oltp_options,
            ("terminals",),
            parameter_names=lambda o: ["knee_latency_ns", "serial_share"],
        ),
        CalibrationModel(
            "rmw",
            "PCIe write loss from a shared RMW unit behind per-port credit loops (seed 001)",
            RMW_SCHEMA,
            _rmw_parameters,
            _rmw_function,
            lambda options: None,
            _rmw_options,
            ("mps_bytes",),
            parameter_names=lambda o: ["rmw_service_ns", "posted_credits"],
        ),
    )
}


def get_model(name: str) -> CalibrationModel:
    try:
        return REGISTRY[name]
    except KeyError:
        raise CalibrationError(
            f"unknown model '{name}'; calibratable models: {', '.join(sorted(REGISTRY))}"
        ) from None
