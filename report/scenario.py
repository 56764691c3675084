"""Scenario files: one TOML description of a system, answered by every family that applies.

A scenario names a system and has one optional table per model family::

    name = "Replicated flash cache"
    description = "write-back cache on ESXi, replica over 10GbE or IPoIB"

    [replication]
    links = ["10g", "ipoib56"]
    block_kib = 4
    outstanding = 32

Keys carry their unit in the name (``added_latency_ns``, ``block_kib``,
``budget_pct``), so values are plain numbers: a string such as ``"4KB"``
where a number is expected is an error, and so is a key in another unit
than the schema's (``added_latency_us`` for ``added_latency_ns``), with a
hint. Every error is one :class:`~iosizer.errors.ScenarioError` line naming
the file and the key path (``scenario.toml: replication.block_kib: must be
> 0, got -4``).

Extending: a family is one pydantic section model (``extra="forbid"``,
strict types) and one evaluator returning :class:`Answer` rows; appending a
:class:`Family` to :data:`FAMILIES` adds its table to the schema, to the
evaluation and to the error hints. Sections are evaluated in the order of
:data:`FAMILIES`.

Shipped examples live in :mod:`iosizer.data.scenarios`; :func:`resolve_source`
accepts a path or an example's bare name.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator, model_validator

from iosizer.errors import IosizerError, ScenarioError

__all__ = [
    "FAMILIES",
    "Answer",
    "Family",
    "ScenarioResult",
    "example_names",
    "load_scenario",
    "parse_scenario",
    "resolve_source",
    "run_scenario",
]


@dataclass(frozen=True)
class Answer:
    """One answer of a scenario: which family, what question, the value and its unit."""

    family: str
    question: str
    value: float | int | str | None
    unit: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def declared(family: str, name: str) -> Callable[[], Any]:
    """A default factory reading a family's declared value when a section leaves it out."""

    def default() -> Any:
        from iosizer.model.registry import declaration

        return declaration(family).default(name)

    return default


class Section(BaseModel):
    """Base of every family's table: unknown keys and loose types are errors."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# --------------------------------------------------------------------------
# [latency]: seed 000, switch tiers and added latency
# --------------------------------------------------------------------------


class LatencySection(Section):
    """Switch tiers between a server and its adapters (seed 000).

    ``switch``: a table 3-3 switch (asi, infiniband, fc, fcoe) or ``hop_ns``
    (one-way hop latency, ns); ``tiers`` of them add 2 x tiers x hop round
    trip, plus ``added_latency_ns``. ``budget_pct``: the acceptable OLTP loss.
    ``device``: optionally, a DMA device (e1000, bcm5700, nic-recv, hba-write).
    """

    switch: str | None = None
    hop_ns: float | None = Field(None, ge=0)
    tiers: int = Field(1, ge=0, le=64)
    added_latency_ns: float = Field(0.0, ge=0)
    budget_pct: float = Field(5.0, gt=0, lt=100)
    device: str | None = None

    @model_validator(mode="after")
    def _one_hop(self) -> LatencySection:
        if (self.switch is None) == (self.hop_ns is None):
            raise ValueError("give either 'switch' (a table 3-3 name) or 'hop_ns', not both or neither")
        return self

    @field_validator("switch")
    @classmethod
    def _known_switch(cls, value: str | None) -> str | None:
        if value is None:
            return value
        from iosizer.calibration.latency import switch_catalogue

        names = [s["switch"] for s in switch_catalogue()]
        if value not in names:
            raise ValueError(f"unknown switch '{value}'; table 3-3 has {', '.join(names)}")
        return value

    @field_validator("device")
    @classmethod
    def _known_device(cls, value: str | None) -> str | None:
        if value is None:
            return value
        from iosizer.calibration.latency import device_names

        if value not in device_names():
            raise ValueError(f"unknown device '{value}'; known devices: {', '.join(device_names())}")
        return value


def evaluate_latency(section: LatencySection) -> list[Answer]:
    from iosizer.calibration import latency as family
    from iosizer.model.latency import dma, oltp_degradation_pct, round_trip_latency_ns

    if section.switch is not None:
        hop = next(s["hop_ns"] for s in family.switch_catalogue() if s["switch"] == section.switch)
        label = f"{section.switch} switch, {hop:g} ns hop"
    else:
        hop = float(section.hop_ns)  # type: ignore[arg-type]
        label = f"{hop:g} ns hop"
    added = float(round_trip_latency_ns(section.tiers, hop)) + section.added_latency_ns
    network = family.oltp_network(family.oltp_profile())
    plan = family.tier_plan([{"switch": label, "hop_ns": hop}], section.budget_pct)[0]
    answers = [
        Answer("latency", "added round-trip latency", added, "ns",
               f"{section.tiers} tiers x 2 x {hop:g} ns + {section.added_latency_ns:g} ns (seed 000 sec 3.2)"),
        Answer("latency", "OLTP throughput loss", float(oltp_degradation_pct(network, added)), "%",
               "TPC-C-like 16-terminal closed network (MVA), calibrated to seed 000"),
        Answer("latency", f"most switch tiers within {section.budget_pct:g} % OLTP loss", plan["max_tiers"],
               "tiers", label),
    ]
    if section.device is not None:
        result = dma(family.device(section.device), added)
        throughput = result.throughput_mbps
        answers.append(Answer("latency", f"{section.device} DMA loss", float(result.degradation_pct), "%",
                              "posted writes lose nothing" if throughput is None else "table 4-1 device model"))
        if throughput is not None:
            answers.append(Answer("latency", f"{section.device} DMA throughput", float(throughput), "MB/s",
                                  "non-posted reads, Little's law"))
    return answers


# --------------------------------------------------------------------------
# [pcie]: seed 001, the write path and RMW contention
# --------------------------------------------------------------------------


class PcieSection(Section):
    """Devices writing through PCIe ports into the root complex (seed 001).

    ``ports`` x ``lanes_per_port`` lanes of PCIe ``generation``, Max Payload
    Size ``mps_bytes``, sequential writes of ``transfer_bytes`` each (520 for
    512 B sectors with an 8 B T10-DIF); ``split_at_64``: the device cuts
    writes at 64-byte boundaries.
    """

    generation: int = Field(default_factory=declared("pcie-link", "generation"))
    lanes_per_port: int = Field(default_factory=declared("rmw", "lanes_per_port"))
    ports: int = Field(1, ge=1, le=16)
    mps_bytes: int = Field(default_factory=declared("pcie-link", "mps_bytes"))
    transfer_bytes: int = Field(512, ge=1)
    split_at_64: bool = False

    @model_validator(mode="after")
    def _valid_link(self) -> PcieSection:
        from iosizer.calibration.pcie import link_config

        try:
            link_config({"lanes": "lanes_per_port", "generation": "generation", "mps_bytes": "mps_bytes"},
                        generation=self.generation, lanes=self.lanes_per_port, mps_bytes=self.mps_bytes)
        except IosizerError as error:
            raise ValueError(str(error)) from None
        return self


def evaluate_pcie(section: PcieSection) -> list[Answer]:
    from iosizer.calibration import pcie as family
    from iosizer.model.pcie import access_pattern, link_bandwidth, rmw_throughput

    link = family.link_config(generation=section.generation, lanes=section.lanes_per_port,
                              mps_bytes=section.mps_bytes)
    bandwidth = link_bandwidth(link, section.transfer_bytes)
    pattern = access_pattern(section.transfer_bytes, section.mps_bytes, section.split_at_64)
    lanes = section.ports * section.lanes_per_port
    platform = family.platform(section.mps_bytes, section.generation, section.lanes_per_port)
    contention = rmw_throughput(platform, pattern, [lanes])
    where = f"Gen{section.generation} x{section.lanes_per_port}, MPS {section.mps_bytes}"
    return [
        Answer("pcie", "effective write bandwidth per port", float(bandwidth.effective_gbps), "GB/s",
               f"{where}, {section.transfer_bytes} B transfers"),
        Answer("pcie", "64-byte-unaligned accesses", float(pattern.unaligned_per_kib), "per KiB",
               "seed 001 table 2 layout" + (", split at 64 B" if section.split_at_64 else "")),
        Answer("pcie", f"write throughput, {section.ports} ports ({lanes} lanes)",
               float(contention.throughput_gbps[0]), "GB/s", "shared RMW unit, credit loops (MVA)"),
        Answer("pcie", "loss to read-modify-write contention", float(contention.loss_pct[0]), "%",
               "calibrated to seed 001 sec 4 (Xeon E5-2698 v4)"),
    ]


# --------------------------------------------------------------------------
# [replication]: seed 004, a write-back cache with a synchronous replica
# --------------------------------------------------------------------------


def _replication_default(name: str) -> Any:
    from iosizer.calibration.replication import default

    return default(name)


class ReplicationSection(Section):
    """A write-back flash cache replicating every write to a peer (seed 004).

    ``links``: the interconnects to compare (1g, 10g, ipoib56, local), the
    first is the baseline of the gains (by default the family's declared
    link, then ipoib56); ``block_kib`` the write size (KiB) and
    ``outstanding`` the writes in flight, by default the declared values
    (``iosizer params replication``).
    """

    links: list[str] = Field(default_factory=lambda: [_replication_default("link"), "ipoib56"], min_length=1)
    block_kib: float = Field(default_factory=lambda: float(_replication_default("block_kib")), gt=0)
    outstanding: int = Field(default_factory=lambda: int(_replication_default("outstanding")), ge=1, le=1_000_000)

    @field_validator("links")
    @classmethod
    def _known_links(cls, value: list[str]) -> list[str]:
        from iosizer.calibration.replication import resolve_link

        try:
            return list(dict.fromkeys(resolve_link(v) for v in value))
        except IosizerError as error:
            raise ValueError(str(error)) from None


def evaluate_replication(section: ReplicationSection) -> list[Answer]:
    from iosizer.calibration.replication import evaluate

    answers = []
    baseline = None
    for link in section.links:
        point = evaluate(link, section.block_kib, section.outstanding).point()
        where = f"{link}, {section.block_kib:g} KiB, {section.outstanding} outstanding"
        answers += [
            Answer("replication", f"write IOPS over {link}", point["iops"], "IOPS", where),
            Answer("replication", f"write throughput over {link}", point["throughput_mbps"], "MB/s", where),
            Answer("replication", f"write latency over {link}", point["latency_us"], "us", where),
            Answer("replication", f"binding cap over {link}", point["bound"], "",
                   "protocol, bandwidth or concurrency"),
        ]
        if baseline is None:
            baseline = (link, point["iops"])
        else:
            answers.append(Answer("replication", f"IOPS gain of {link} over {baseline[0]}",
                                  100.0 * (point["iops"] / baseline[1] - 1.0), "%", "seed 004 model"))
    return answers


# --------------------------------------------------------------------------
# [hba]: seed 002, tenants sharing one FC port and its HBA cores
# --------------------------------------------------------------------------


def _hba_declared(name: str) -> Any:
    """The hba family's declared value of ``name``, for a key the table leaves out."""
    from iosizer.model.registry import declaration

    return declaration("hba").default(name)


def _hba_measured_speed() -> str:
    from iosizer.calibration.hba import MEASURED_SPEED

    return MEASURED_SPEED


class HbaSection(Section):
    """Virtual FC ports sharing one physical port (seed 002).

    ``port``: 8GFC, 16GFC or 32GFC; ``mode``: shared or occupancy (HBA-core
    occupancy); ``offered_iops`` and ``block_kib``: one entry per virtual
    port (LPAR); ``threads`` and ``storage_us``: the response question for
    the first virtual port alone.
    """

    port: str = Field(default_factory=_hba_measured_speed)
    mode: str = Field(default_factory=lambda: _hba_declared("mode"))
    offered_iops: list[float] = Field(min_length=1)
    block_kib: list[float] = Field(min_length=1)
    cores: int | None = Field(None, ge=1)
    core_iops: float | None = Field(None, gt=0)
    threads: int = Field(16, ge=1, le=100_000)
    storage_us: float = Field(default_factory=lambda: _hba_declared("storage_us"), ge=0)

    @field_validator("port")
    @classmethod
    def _port(cls, value: str) -> str:
        from iosizer.calibration.hba import speeds

        known = {name.lower(): name for name in speeds()}
        if value.lower() not in known:
            raise ValueError(f"unknown fc port '{value}'; choose one of {', '.join(known.values())}")
        return known[value.lower()]

    @field_validator("mode")
    @classmethod
    def _mode(cls, value: str) -> str:
        from iosizer.model.hba import MODES

        if value not in MODES:
            raise ValueError(f"mode must be {' or '.join(MODES)}, got {value!r}")
        return value

    @field_validator("offered_iops", "block_kib")
    @classmethod
    def _non_negative(cls, value: list[float]) -> list[float]:
        if any(not v >= 0 for v in value):
            raise ValueError(f"every entry must be >= 0, got {value}")
        return value

    @model_validator(mode="after")
    def _one_entry_per_port(self) -> "HbaSection":
        if len(self.offered_iops) != len(self.block_kib):
            raise ValueError(f"offered_iops has {len(self.offered_iops)} entries, block_kib "
                             f"{len(self.block_kib)}: give one of each per virtual port")
        if any(v <= 0 for v in self.block_kib):
            raise ValueError("block_kib entries must be > 0")
        return self


def evaluate_hba(section: HbaSection) -> list[Answer]:
    import numpy as np

    from iosizer.calibration.hba import fc_port
    from iosizer.model.hba import port_ceiling_iops, response, virtual_port_iops

    port = fc_port(section.port, section.cores, section.core_iops)
    sizes = np.array(section.block_kib) * 1024
    carried = virtual_port_iops(port, section.mode, np.array(section.offered_iops), sizes)
    answers = []
    for i, (offered, got) in enumerate(zip(section.offered_iops, carried)):
        answers.append(Answer("hba", f"virtual port {i + 1} IOPS ({section.mode})", float(got), "IOPS",
                              f"offered {offered:,.0f} at {section.block_kib[i]:g} KiB; "
                              f"{100 * (got / offered - 1) if offered else 0.0:+.1f} % of its demand"))
    answers.append(Answer("hba", "port throughput", float((carried * sizes).sum() / 1e6), "MB/s",
                          f"{section.port}, usable {port.link_mbps:,.0f} MB/s"))
    alone = response(port, section.mode, [section.threads], float(sizes[0]), section.storage_us)
    answers += [
        Answer("hba", "virtual port 1 ceiling alone", float(port_ceiling_iops(port, section.mode, sizes[0])),
               "IOPS", f"{section.mode} mode"),
        Answer("hba", f"virtual port 1 response at {section.threads} threads", float(alone.response_us[0]),
               "us", f"MVA, storage delay {section.storage_us:g} us (assumed)"),
    ]
    return answers


# --------------------------------------------------------------------------
# [loadshare]: seed 003, storage-port queues over controller cores
# --------------------------------------------------------------------------


def _all_policies() -> list[str]:
    """Every policy the model knows: the default ``policies`` (the model is imported only here)."""
    from iosizer.model.loadshare import POLICIES

    return list(POLICIES)


class LoadshareSection(Section):
    """Port load shares on a multi-core controller (seed 003).

    ``port_shares``: each port's share of the I/O (any positive scale) or
    ``scenario``: one-port, system or skew; ``policies`` to compare;
    ``utilization``: the operating point as a fraction of each policy's
    own maximum throughput. ``cores``, ``comm_overhead_pct``, ``threshold``,
    ``non_core_pct`` (a write hit's time outside the cores, % of a service
    time) and ``switch_rule`` (multi-stage's) left out are the ``loadshare``
    family's declared values (``cores``: the scenario's, when one is named).
    """

    scenario: str | None = None
    port_shares: list[float] | None = None
    cores: int | None = Field(None, ge=1, le=1024)
    policies: list[str] = Field(default_factory=_all_policies, min_length=1)
    comm_overhead_pct: float | None = Field(None, ge=0)
    threshold: float | None = Field(None, gt=0, lt=1)
    non_core_pct: float | None = Field(None, ge=0, allow_inf_nan=False)
    switch_rule: str | None = None
    # The answer's operating point, not the switching threshold: a planning
    # choice of this file (70 % of each policy's own maximum), no model number.
    utilization: float = Field(0.7, gt=0, lt=1)

    @field_validator("policies")
    @classmethod
    def _policies(cls, value: list[str]) -> list[str]:
        from iosizer.model.loadshare import POLICIES

        unknown = [v for v in value if v not in POLICIES]
        if unknown:
            raise ValueError(f"unknown policy {unknown[0]!r}; choose from {', '.join(POLICIES)}")
        return value

    @field_validator("switch_rule")
    @classmethod
    def _switch_rule(cls, value: str | None) -> str | None:
        from iosizer.model.loadshare import SWITCH_RULES

        if value is not None and value not in SWITCH_RULES:
            raise ValueError(f"unknown switch_rule {value!r}; choose from {', '.join(SWITCH_RULES)}")
        return value

    @field_validator("scenario")
    @classmethod
    def _scenario(cls, value: str | None) -> str | None:
        from iosizer.calibration.loadshare import scenario

        if value is not None:
            try:
                scenario(value)
            except IosizerError as error:
                raise ValueError(str(error)) from None
        return value

    @model_validator(mode="after")
    def _one_load_description(self) -> "LoadshareSection":
        if (self.scenario is None) == (self.port_shares is None):
            raise ValueError("give either scenario or port_shares")
        if self.port_shares is not None and (any(not v >= 0 for v in self.port_shares)
                                             or sum(self.port_shares) <= 0):
            raise ValueError("port_shares must be >= 0 with a positive sum")
        return self


def evaluate_loadshare(section: LoadshareSection) -> list[Answer]:
    from iosizer.calibration.loadshare import policy_params, scenario
    from iosizer.model.loadshare import evaluate, policy_curve

    chosen = scenario(section.scenario) if section.scenario else None
    shares = chosen.port_shares if chosen else tuple(section.port_shares or ())
    cores = chosen.cores if section.cores is None and chosen else section.cores
    params = policy_params(cores, section.comm_overhead_pct, section.threshold, section.non_core_pct,
                           section.switch_rule)
    curves = {p: policy_curve(p, shares, params, points=20) for p in section.policies}
    best = max(curves.values(), key=lambda c: c.max_throughput)
    answers = [Answer("loadshare", "policy with the highest throughput", best.policy, "",
                      f"{best.max_throughput:.3g} cores of I/O work")]
    for policy, curve in curves.items():
        point = evaluate(policy, [section.utilization * curve.max_throughput], shares, params)
        answers += [
            Answer("loadshare", f"{policy}: maximum throughput", curve.max_throughput, "cores",
                   "I/Os per service time; 1 = one core's worth"),
            Answer("loadshare", f"{policy}: mean response at {section.utilization:.0%} of its maximum",
                   float(point.response[0]), "service times",
                   f"M/M/k port groups (Erlang C) plus the non-core part, {params.non_core_pct:g} % of a service time"),
            Answer("loadshare", f"{policy}: largest response jump at a switch", 100 * curve.singularity, "%",
                   f"threshold {params.threshold:g} of a core" if policy == "one-stage" or params.switch_rule ==
                   "threshold" else f"{params.switch_rule} switching" if policy == "multi-stage" else "no switch"),
        ]
    return answers


# --------------------------------------------------------------------------
# Registry and schema
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """One scenario table: its key, its schema, its evaluator."""

    key: str
    section: type[Section]
    evaluate: Callable[[Any], list[Answer]]
    summary: str


_TABLES = {table.key: table for table in (
    Family("latency", LatencySection, evaluate_latency, "switch tiers and added I/O latency (seed 000)"),
    Family("pcie", PcieSection, evaluate_pcie, "PCIe write path and RMW contention (seed 001)"),
    Family("hba", HbaSection, evaluate_hba, "tenants sharing an FC port and its HBA cores (seed 002)"),
    Family("loadshare", LoadshareSection, evaluate_loadshare,
           "load-sharing policies for storage-port queues (seed 003)"),
    Family("replication", ReplicationSection, evaluate_replication,
           "write-back cache with a synchronous replica (seed 004)"),
)}


def _tables_in_registry_order() -> list[Family]:
    """A table per model module of the family registry, in the registry's order; a table keyed
    by anything else is a mistake caught at import (the registry is the one list of families)."""
    from iosizer.model.registry import FAMILY_MODULES

    stray = sorted(set(_TABLES) - set(FAMILY_MODULES))
    if stray:
        raise RuntimeError(f"scenario tables {stray} name no module of the family registry")
    return [_TABLES[module] for module in FAMILY_MODULES if module in _TABLES]


FAMILIES: list[Family] = _tables_in_registry_order()


def _scenario_model() -> type[BaseModel]:
    """The whole file's schema, built from :data:`FAMILIES` (rebuilt when it grows)."""
    fields: dict[str, Any] = {"name": (str, "unnamed scenario"), "description": (str, "")}
    for family in FAMILIES:
        fields[family.key] = (family.section | None, None)
    return create_model(
        "Scenario", __config__=ConfigDict(extra="forbid", strict=True, frozen=True), **fields
    )


# --------------------------------------------------------------------------
# Errors as one line naming the key path
# --------------------------------------------------------------------------

_UNIT_SUFFIXES = {"_ns": "ns", "_us": "us", "_s": "s", "_kib": "KiB", "_bytes": "bytes", "_pct": "%",
                  "_mbps": "MB/s", "_gbps": "GB/s", "_iops": "IOPS"}


def _unit_of(key: str) -> str | None:
    return next((unit for suffix, unit in _UNIT_SUFFIXES.items() if key.endswith(suffix)), None)


def _stem(key: str) -> str:
    return next((key[: -len(s)] for s in _UNIT_SUFFIXES if key.endswith(s)), key)


def _keys_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys the schema allows in the table at ``loc``."""
    for part in loc:
        field = model.model_fields.get(str(part))
        if field is None:
            return []
        annotation = field.annotation
        inner = [a for a in getattr(annotation, "__args__", (annotation,)) if isinstance(a, type)]
        model = next((a for a in inner if issubclass(a, BaseModel)), None)  # type: ignore[assignment]
        if model is None:
            return []
    return list(model.model_fields)


def _hint(key: str, allowed: list[str]) -> str:
    same_stem = [k for k in allowed if _stem(k) == _stem(key) and k != key]
    if same_stem:
        unit = _unit_of(same_stem[0])
        return (f" (wrong unit? the schema says {same_stem[0]}, in {unit})" if unit
                else f" (wrong unit? the schema key is {same_stem[0]}; see its description in --help)")
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]}?)"
    return f"; allowed keys: {', '.join(allowed)}" if allowed else ""


def _describe(error: dict[str, Any], model: type[BaseModel]) -> str:
    loc = tuple(error["loc"])
    path = ".".join(str(p) for p in loc)
    kind = error["type"]
    given = error.get("input")
    if kind == "extra_forbidden":
        where = ".".join(str(p) for p in loc[:-1])
        return f"{where + ': ' if where else ''}unknown key '{loc[-1]}'{_hint(str(loc[-1]), _keys_at(model, loc[:-1]))}"
    ctx = error.get("ctx", {})
    key = str(loc[-1]) if loc else ""
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        op = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}[kind]
        limit = next(iter(ctx.values()))
        shown = f"{limit:g}" if isinstance(limit, (int, float)) else str(limit)
        return f"{path}: must be {op} {shown}, got {given!r}"
    if kind in ("float_type", "int_type", "float_parsing", "int_parsing", "int_from_float"):
        unit = _unit_of(key)
        wanted = "a whole number" if kind.startswith("int") else "a number"
        extra = f" (the unit, {unit}, is in the key's name)" if unit and isinstance(given, str) else ""
        return f"{path}: expected {wanted}, got {given!r}{extra}"
    if kind in ("string_type", "bool_type", "list_type", "model_type", "dict_type"):
        wanted = {"string_type": "text", "bool_type": "true or false", "list_type": "a list",
                  "model_type": "a table", "dict_type": "a table"}[kind]
        return f"{path}: expected {wanted}, got {given!r}"
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{path + ': ' if path else ''}{message}"


# --------------------------------------------------------------------------
# Loading and running
# --------------------------------------------------------------------------


def _examples() -> Any:
    return resources.files("iosizer.data").joinpath("scenarios")


def example_names() -> list[str]:
    """Shipped example scenarios (``data/scenarios/*.toml``), by bare name."""
    return sorted(p.name[:-5] for p in _examples().iterdir() if p.name.endswith(".toml"))


def resolve_source(source: str | Path) -> tuple[str, str]:
    """(label, text) of a scenario: a file path, or a shipped example's bare name."""
    path = Path(source)
    if path.is_file():
        try:
            return str(source), path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ScenarioError(f"{source}: cannot read: {error}") from None
    name = str(source).removesuffix(".toml")
    if path.parent == Path(".") and name in example_names():
        return f"{name}.toml", _examples().joinpath(f"{name}.toml").read_text(encoding="utf-8")
    if path.exists():
        raise ScenarioError(f"{source}: not a file")
    raise ScenarioError(f"{source}: no such file (shipped examples: {', '.join(example_names())})")


def parse_scenario(text: str, label: str = "scenario.toml") -> BaseModel:
    """Validate a scenario's TOML text; errors name ``label`` and the key path."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"{label}: malformed TOML: {error}") from None
    model = _scenario_model()
    try:
        scenario = model.model_validate(raw)
    except ValidationError as error:
        problems = error.errors()
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ScenarioError(f"{label}: {_describe(problems[0], model)}{more}") from None
    if all(getattr(scenario, f.key) is None for f in FAMILIES):
        tables = ", ".join(f"[{f.key}]" for f in FAMILIES)
        raise ScenarioError(f"{label}: no family table; give at least one of {tables}")
    return scenario


def load_scenario(source: str | Path) -> BaseModel:
    """Read and validate a scenario file (or a shipped example by name)."""
    label, text = resolve_source(source)
    return parse_scenario(text, label)


@dataclass(frozen=True)
class ScenarioResult:
    name: str
    description: str
    source: str
    answers: list[Answer]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "source": self.source,
                "answers": [a.to_dict() for a in self.answers]}


def evaluate_scenario(scenario: BaseModel, label: str = "scenario.toml") -> list[Answer]:
    """Every applicable family's answers, in the order of :data:`FAMILIES`."""
    answers: list[Answer] = []
    for family in FAMILIES:
        section = getattr(scenario, family.key)
        if section is None:
            continue
        try:
            answers.extend(family.evaluate(section))
        except ScenarioError:
            raise
        except IosizerError as error:  # a value the section allowed but the model refuses
            raise ScenarioError(f"{label}: {family.key}: {error}") from None
    return answers


def run_scenario(source: str | Path) -> ScenarioResult:
    """Load, validate and evaluate a scenario file (or a shipped example by name)."""
    label, text = resolve_source(source)
    scenario = parse_scenario(text, label)
    return ScenarioResult(scenario.name, scenario.description, label,  # type: ignore[attr-defined]
                          evaluate_scenario(scenario, label))
