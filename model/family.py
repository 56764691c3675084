"""Model-family declarations: the one place a family's numbers are stated.

A *family* is a physical system and the model that answers questions about
it (an M/M/c queue, a DMA engine under added latency, a shared FC port...).
Its module in :mod:`iosizer.model` holds the formulas and, beside them, one
:class:`Family` declaration:

- ``parameters``: every number the model uses, each a :class:`ParameterSpec`
  with its unit, shipped value, bounds, status (``published`` = a number a
  seed states, ``derived`` = computed from published numbers or a standard,
  ``assumed`` = chosen by us, with the reason as its source, ``fitted`` =
  calibrated from measured points) and how it scales with per-core CPU
  speed. ``kind="setting"`` marks structural choices (servers, lanes,
  terminals) that a planner sets rather than fits;
- ``columns``: the measured-data schema the family calibrates from (column
  names carry units; inputs and observed outputs);
- ``solve``: a pure, vectorised function ``solve(values, inputs) -> outputs``
  from parameter values and input arrays to the output columns;
- ``fit``: how it is calibrated (which parameters the data identify, their
  data-driven start, an analytic Jacobian where one exists);
- ``questions``: what the family answers. A :class:`Question` that declares
  its own ``solve`` (with :class:`Input` and :class:`Output` declarations)
  is answered on every surface by the registry: the CLI command, the HTTP
  endpoint, ``iosizer.ask``, the scenario table (see :class:`Question`);
- ``service_time``: the service-time assumption behind the answers.

Everything else (the CLI's defaults, ``iosizer params``, calibration,
scenario files, the report, the public API) reads these declarations; no
default is written twice. :mod:`iosizer.model.registry` lists the families.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Sequence

if TYPE_CHECKING:  # numpy only names array types here: importing the registry stays light
    import numpy as np

from iosizer.errors import InputError

__all__ = [
    "CPU_SPEED",
    "STATUSES",
    "Column",
    "CpuScaling",
    "Family",
    "FitPlan",
    "ParameterSpec",
    "Input",
    "Output",
    "Plot",
    "Question",
    "QuestionSolve",
    "Reference",
    "Repeated",
    "Role",
    "DECLARED_OR_SHIPPED",
    "SIMULATED_SCV",
    "SimulateOption",
    "Simulation",
    "Sizing",
    "SizingCommand",
    "Schema",
    "Ask",
    "Asked",
    "ScenarioTable",
    "TableKey",
    "TableRow",
    "TableState",
    "changes_note",
    "check_cpu_name",
    "check_value",
    "check_values",
    "parse_grid",
    "MAX_GRID_POINTS",
    "parse_choices",
    "reject_repeats",
    "cpu_speed_factor",
]

Status = Literal["published", "derived", "assumed", "fitted"]
STATUSES: tuple[str, ...] = ("published", "derived", "assumed", "fitted")


class CpuScaling(str, Enum):
    """How a parameter changes with relative per-core CPU speed s.

    ``fixed``: independent of the CPU (wire latency, think time).
    ``inverse``: proportional to 1/s (a CPU-bound service demand).
    ``power``: proportional to s^e with the exponent e fitted from profiles
    of two or more CPUs; with one CPU, e spans ``exponent_bounds``.
    """

    fixed = "fixed"
    inverse = "inverse"
    power = "power"


class Role(str, Enum):
    input = "input"
    observed = "observed"


@dataclass(frozen=True)
class Column:
    """One numeric column of measured data: its name (with unit), role and domain."""

    name: str
    role: Role
    unit: str
    description: str = ""
    required: bool = True
    minimum: float = 0.0
    minimum_inclusive: bool = True
    #: A value above this is impossible for the model: a physical ceiling
    #: (a link's bandwidth) or the solver's declared range.
    maximum: float = math.inf
    integer: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role.value, "unit": self.unit,
                "description": self.description, "required": self.required}


@dataclass(frozen=True)
class Schema:
    """The columns a family reads; ``weight``, ``stderr``, ``source`` are implicit."""

    name: str
    columns: tuple[Column, ...]

    @property
    def inputs(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.role is Role.input)

    @property
    def observed(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.role is Role.observed)

    #: The measured outputs, under the name the public API uses.
    outputs = observed

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(name)


def _given(value: float) -> str:
    """A refused value in full where %g would round it onto a bound (99.99999999999 is not 100)."""
    text = _number(value)
    return text if float(text) == value else repr(value)


def _number(value: float) -> str:
    """A bound or a value as a user reads it: whole numbers in full (16777216), others as %g."""
    if math.isfinite(value) and value == math.floor(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:g}"


def check_value(spec: "ParameterSpec | Input", value: object, label: str | None = None) -> Any:
    """``value`` checked against a declaration (name, unit, bounds, integer, choices): the one check
    of a number a planner gives, for parameters, settings and question inputs alike."""
    name = label or spec.name
    # A bool is an int to Python, but never a count or a rate to a planner: only a declared
    # on/off switch (a whole number in [0, 1], such as ECRC) takes True or False.
    if isinstance(value, bool) and not (spec.integer and spec.bounds == (0, 1)):
        raise InputError(f"{name} must be a number ({spec.unit}), got {value!r}")
    if spec.choices and isinstance(spec.choices[0], str):
        text = str(value).strip().lower()
        if text not in spec.choices:
            raise InputError(f"{name} must be one of {', '.join(spec.choices)}, got {value!r}")
        return text
    try:
        number = float(value)  # type: ignore[arg-type]
    except OverflowError:  # a whole number beyond any float
        number = math.inf if value > 0 else -math.inf  # type: ignore[operator]
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number ({spec.unit}), got {value!r}") from None
    if not math.isfinite(number):
        raise InputError(f"{name} must be finite, got {number}")
    if spec.choices and number not in spec.choices:
        allowed = ", ".join(_number(c) for c in spec.choices)
        raise InputError(f"{name} must be one of {allowed}, got {_number(number)}")
    low, high = spec.bounds
    if not low <= number <= high:
        raise InputError(f"{name} must lie in [{_number(low)}, {_number(high)}] ({spec.unit}), "
                         f"got {_given(number)}")
    if spec.integer and number != math.floor(number):
        raise InputError(f"{name} must be a whole number, got {_number(number)}")
    return int(number) if spec.integer else number


@dataclass(frozen=True)
class ParameterSpec:
    """One number a model uses, declared once.

    ``value`` is the shipped value; it is ``None`` only for a ``fitted``
    parameter, whose shipped value is what the family's shipped calibration
    finds (see ``iosizer.family(name).parameters``), and for a setting that
    has no default (the planner must give it). ``bounds`` is the physical
    range the model accepts, inclusive.
    """

    name: str
    unit: str
    value: float | None
    bounds: tuple[float, float]
    status: Status
    source: str
    description: str = ""
    cpu_scaling: CpuScaling = CpuScaling.fixed
    #: Bounding exponents of a power-law CPU scaling when only one CPU is known.
    exponent_bounds: tuple[float, float] = (0.0, 0.0)
    kind: Literal["parameter", "setting"] = "parameter"
    integer: bool = False
    #: The only values allowed, where the hardware offers a fixed set (MPS)
    #: or the setting names a variant (a mode, a policy, a link).
    choices: tuple[Any, ...] = ()
    #: A setting written as text: ``parse(value, label)`` checks it and returns its normal form
    #: (closed-network's ``servers``, ``1,4,delay``; a link's other names); bounds then do not apply.
    parse: Callable[[object, str], Any] | None = None
    #: Settings this one replaces (a port mix instead of a named scenario): giving both is an error.
    excludes: tuple[str, ...] = ()
    #: False: a choice the question asks about (a port mix, a policy), not a property of the calibrated
    #: system: a declared question takes the declared value unless it is given, never a profile's.
    from_profile: bool = True
    #: A setting whose choice names one of the family's shipped profiles (``shipped(family, variant)``):
    #: choosing it takes every value that profile ships, so one option sets several parameters (an FC
    #: speed sets the link rate). Values given beside it still win. A planner's profile holds its own
    #: values, so the setting is refused with one, unless the family's calibration module carries a
    #: profile to another choice (``variant_profile(family, profile, choice)``: replication's link of the
    #: same protocol stack). At most one per family.
    variant: bool = False

    def __post_init__(self) -> None:
        if self.variant and (self.kind != "setting" or not self.choices):
            raise ValueError(f"{self.name}: a variant is a setting with named choices")
        if self.status not in STATUSES:
            raise ValueError(f"{self.name}: status must be one of {STATUSES}, got {self.status!r}")
        if not self.source.strip():
            raise ValueError(f"{self.name}: every parameter names its source (or the reason it is assumed)")
        low, high = self.bounds
        if not low <= high:
            raise ValueError(f"{self.name}: bounds {self.bounds} are not ordered")
        if self.value is None:
            if self.status != "fitted" and self.kind != "setting":
                raise ValueError(f"{self.name}: only fitted parameters and settings may lack a value")
        else:
            self.check(self.value)

    @property
    def switch(self) -> bool:
        """An on/off setting (a whole number in [0, 1], such as ECRC): the CLI takes ``--name/--no-name``."""
        return self.kind == "setting" and self.integer and tuple(self.bounds) == (0, 1)

    def check(self, value: object, label: str | None = None) -> Any:
        """``value`` as a float inside the declared domain, or a one-line :class:`InputError`."""
        if self.parse is not None:  # a setting written as text (a list per station)
            return self.parse(value, label or self.name)
        return check_value(self, value, label)

    def with_value(self, value: float | None, status: Status | None = None,
                   source: str | None = None) -> "ParameterSpec":
        return replace(self, value=value, status=status or self.status, source=source or self.source)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "unit": self.unit,
            "value": self.value,
            "bounds": list(self.bounds),
            "status": self.status,
            "source": self.source,
            "kind": self.kind,
            "cpu_scaling": self.cpu_scaling.value,
            "exponent_bounds": list(self.exponent_bounds),
            "description": self.description,
        }


#: Relative per-core speed of a CPU (1 = the reference), declared once for every
#: family: ``--cpu-speed`` of calibrate, extrapolate and the what-ifs, and the
#: factor between any two CPUs a parameter is carried across.
CPU_SPEED = ParameterSpec(
    "cpu_speed", "x", 1.0, (1.0 / 64.0, 64.0), "assumed",
    "successive CPU generations differ by 1.1-1.5x per core, and a power-law CPU scaling is an "
    "extrapolation that holds over a few generations at most; 64x either way (about a dozen generations) "
    "is past anything it can represent: a parameter carried further is no prediction",
    "per-core speed of a CPU relative to the reference CPU", kind="setting")


def check_cpu_name(name: object, label: str = "--cpu-name") -> str | None:
    """The name of the CPU a profile was measured on or is carried to: None, or non-blank text."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise InputError(f"{label} must be text (the CPU's name), got {type(name).__name__} {name!r}")
    text = " ".join(name.split())  # one line: it is printed in notes and tables
    if not text:
        raise InputError(f"{label} is empty; name the CPU (e.g. 'Xeon E5-2698 v4') or leave the option out")
    return text


def cpu_speed_factor(target: float, measured: float, label: str = "cpu_speed") -> float:
    """``target / measured``: the factor a parameter is carried by between two CPUs.

    Both speeds and the factor itself must lie in :data:`CPU_SPEED`'s bounds;
    the error names ``label`` (the user's flag) and the bound.
    """
    CPU_SPEED.check(target, label)
    CPU_SPEED.check(measured, "the profile's cpu_speed")
    factor = float(target) / float(measured)
    low, high = CPU_SPEED.bounds
    if not low <= factor <= high:
        raise InputError(
            f"{label} {float(target):g} is {factor:g} x the speed of the CPU the profile was measured on "
            f"({float(measured):g}); iosizer carries a parameter at most {high:g} x faster or slower"
        )
    return factor


# --- a sweep as a planner types it: 3.2, 1,8,16 or 0:2100:300 (stop included) ---

#: A sweep is for a table or a curve: more points than any plot resolves is
#: almost certainly a typo in the step, and every command answers this many in
#: about a second (lists count as well as ranges).
MAX_GRID_POINTS = 10_000


def parse_grid(text: str, name: str, spec: "ParameterSpec | Input | None" = None) -> list[Any]:
    """Values of ``--name``: ``x``, ``a,b,c`` or ``start:stop:step`` (stop included); for an input
    declared ``doubling`` (a size) also ``start:stop``, doubling (``4:256``: 4, 8, ..., 256).

    With ``spec`` (the option's declaration) every value is checked against
    its bounds, and the error names the flag and the bound.
    """
    text = text.strip()
    if getattr(spec, "doubling", False) and text.count(":") == 1:
        return _doubling(text, name, spec)
    separator = ":" if ":" in text else ","
    named = getattr(spec, "named", None) or {}
    try:  # a name an input declares (a published case) stands for its value
        values = [float(spec.value_of(p) if named else p) for p in text.split(separator)]  # type: ignore[union-attr]
    except ValueError:
        values = []
    if not values or (separator == ":" and len(values) != 3):
        cases = f" or one of {', '.join(named)}" if named else ""
        raise InputError(
            f"--{name}: expected a number, a list like 1,8,16 or a range like "
            f"0:2100:300{cases}, got {text!r}"
        )
    if separator == ":":
        values = _range(*values, name)
    elif len(values) > MAX_GRID_POINTS:
        raise InputError(f"--{name}: the list has {len(values)} values, more than {MAX_GRID_POINTS}")
    return check_values(values, name, spec)


def _doubling(text: str, name: str, spec: "Input") -> list[Any]:
    """``start:stop`` doubling from start while at most stop (the way I/O sizes are swept)."""
    try:
        start, stop = (float(p) for p in text.split(":"))
    except ValueError:
        start = stop = math.nan
    if not (math.isfinite(start) and math.isfinite(stop) and 0 < start <= stop):
        raise InputError(f"--{name}: a doubling range start:stop needs 0 < start <= stop, got {text!r}")
    count = int(math.floor(math.log2(stop / start) + 1e-9)) + 1
    if count > 64:
        raise InputError(f"--{name}: {text!r} doubles more than 64 times")
    return check_values([start * 2.0**i for i in range(count)], name, spec)


def check_values(values: list[float], name: str, spec: "ParameterSpec | Input | None") -> list[Any]:
    """``values`` checked against ``spec`` (if given), the first bad one named with ``--name``."""
    return values if spec is None else [spec.check(v, f"--{name}") for v in values]


def _range(start: float, stop: float, step: float, name: str) -> list[float]:
    if not (math.isfinite(start) and math.isfinite(stop) and math.isfinite(step)):
        raise InputError(f"--{name}: range bounds and step must be finite")
    if step <= 0 or stop < start:
        raise InputError(
            f"--{name}: range start:stop:step needs step > 0 and stop >= start, "
            f"got {start:g}:{stop:g}:{step:g}"
        )
    count = math.floor((stop - start) / step * (1 + 1e-12)) + 1
    if count > MAX_GRID_POINTS:
        raise InputError(f"--{name}: range has {count} points, more than {MAX_GRID_POINTS}")
    return [start + i * step for i in range(count)]


def parse_choices(value: object, spec: "ParameterSpec", label: str | None = None) -> list[Any]:
    """The choices of a setting a question sweeps (``Question.sweeps``): ``1g,10g``, a list, or ``all``
    (``both`` for a setting of two choices).

    Each item is checked by the setting's declaration (``parse`` or ``choices``), in the normal form it
    returns; an empty item or one given twice is a one-line :class:`InputError` naming ``label``.
    """
    flag = label or "--" + spec.name.replace("_", "-")
    if isinstance(value, (list, tuple)) and len(value) == 1:  # an HTTP list of one: ["all"] is "all"
        value = value[0]
    # 'both' is 'all' for a setting of two choices (a mode: --mode both).
    if isinstance(value, str) and value.strip().lower() in ("all", "both" if len(spec.choices) == 2 else "all"):
        return list(spec.choices)
    items = [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value).split(",")
    given = [item.strip() for item in items]
    if not any(given):
        raise InputError(f"{flag}: expected one of {', '.join(map(str, spec.choices))}, got {value!r}")
    if not all(given):  # '1g,' or '1g,,10g': a typo, never a silently shorter list
        example = ",".join(map(str, spec.choices[:2]))
        raise InputError(f"{flag}: {value!r} has an empty item; give {spec.name}s separated by single commas, "
                         f"such as {example}")
    chosen = [spec.check(item, flag) for item in given]
    reject_repeats(chosen, flag, given)
    return chosen


def reject_repeats(values: list[Any], flag: str, shown: list[str] | None = None) -> None:
    """Refuse a value given twice (``--link 1g,1g``): say which, rather than drop it silently."""
    words = shown or [str(v) for v in values]
    seen: dict[Any, int] = {}
    for i, value in enumerate(values):
        if value in seen:
            first, again = words[seen[value]], words[i]
            which = "given twice" if first == again else f"'{first}' again"
            raise InputError(f"{flag}: '{again}' is {which}; list each once")
        seen[value] = i


#: A computed default of an input (:class:`Input`): (values, earlier inputs' values) -> one value or a sweep.
DefaultFunction = Callable[[Mapping[str, Any], Mapping[str, Any]], Any]


@dataclass(frozen=True)
class Input:
    """What a planner sweeps in a question (an arrival rate, a block size), declared once.

    Inputs are a role of their own, apart from parameters (numbers the model
    uses, fitted or published) and settings (structural choices), as lmfit
    keeps independent variables apart from its ``Parameters``. ``name``
    carries its unit suffix where the unit has one (``block_kib``); ``unit``
    is the unit itself (see :data:`iosizer.units.UNITS`). ``bounds`` are
    inclusive. ``default`` is the sweep a planner gets when the input is left
    out: one value or a tuple of them; None makes the input required.

    A default that depends on the values may be a function ``default(values,
    given) -> value or tuple``: ``values`` are the answer's parameters and
    settings (a profile's, or given), ``given`` the 1-D values of every input
    the planner gave and of the defaults computed before this one (in
    declaration order). It runs once per answer,
    before the grid is built (a disturbing load swept from 0 up to a port's
    ceiling, which depends on the port and the block size); its docstring's
    first line is the default's text in help and the API's schema. It may
    return NaN: the point is then left to the solve, which decides at the
    values it is evaluated at, a band's included (a load at its own limit).

    ``named``: names that stand for values (a published case, ``{"B": 520}``),
    matched without regard to case wherever a value is given. ``argument``:
    the CLI takes the input as its positional argument. ``repeatable``: the CLI's option may be
    given several times (``--hop-ns 150 --hop-ns 500``), each a sweep, answered in turn.
    """

    name: str
    unit: str
    bounds: tuple[float, float] = (0.0, math.inf)
    default: float | tuple[float, ...] | DefaultFunction | None = None
    description: str = ""
    integer: bool = False
    named: Mapping[str, float] = field(default_factory=dict)
    argument: bool = False
    repeatable: bool = False

    #: An input takes numbers only (settings carry the named choices).
    choices: tuple[Any, ...] = ()
    #: A size swept the way I/O sizes are: a two-part range ``4:256`` doubles (4, 8, ..., 256);
    #: ``4:256:4`` keeps the linear step.
    doubling: bool = False
    #: The question's own settings a computed default reads (``queue erlang``'s offered load from
    #: ``arrival_rate``): giving the input and one of them is refused, as one of the two would be ignored.
    reads: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        low, high = self.bounds
        if not low <= high:
            raise ValueError(f"input {self.name}: bounds {self.bounds} are not ordered")
        for value in self.sweep():
            self.check(value)

    def check(self, value: object, label: str | None = None) -> Any:
        """One value of the input, checked against its declaration (one-line :class:`InputError`)."""
        return check_value(self, self.value_of(value), label)

    def value_of(self, value: object) -> object:
        """``value``, or the value a name in ``named`` stands for."""
        if isinstance(value, str) and self.named:
            key = value.strip().upper()
            return next((v for name, v in self.named.items() if name.upper() == key), value)
        return value

    def sweep(self, values: Mapping[str, Any] | None = None,
              given: Mapping[str, Any] | None = None) -> tuple[float, ...]:
        """The default sweep (empty when the input is required); a computed default at ``values`` and the
        other inputs' ``given`` values (empty without ``values``: it depends on them)."""
        default = self.default
        if callable(default):
            if values is None:
                return ()
            default = default(values, given or {})
        if default is None:
            return ()
        return tuple(default) if isinstance(default, (tuple, list)) else (default,)

    @property
    def required(self) -> bool:
        """Whether a planner must give the input (it declares no default)."""
        return self.default is None

    @property
    def default_text(self) -> str:
        """The default as help and the API's schema state it: the values, or a computed default's rule."""
        if callable(self.default):
            return (self.default.__doc__ or "computed from the values").strip().splitlines()[0].rstrip(".")
        return ",".join(f"{v:g}" for v in self.sweep())

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "unit": self.unit, "bounds": list(self.bounds), "default": list(self.sweep()),
                "integer": self.integer, "description": self.description,
                **({"default_rule": self.default_text} if callable(self.default) else {})}


@dataclass(frozen=True)
class Output:
    """One column of a question's answer: its name (unit suffix where there is one), unit and meaning.

    ``text``: the values are words, not numbers (a layout, the bound that limits a rate): ``solve``
    returns them as an array of ``str``; they are shown in tables, CSV and JSON as they are and are
    never banded, plotted or sized.
    """

    name: str
    unit: str
    description: str = ""
    #: The measured column (of the family's schema) this output predicts: a prediction band
    #: (``--band prediction``) adds that column's residual scatter of the fit.
    measured: str = ""
    text: bool = False
    #: Each value is a list of numbers of its own length (a policy's switching loads).
    vector: bool = False
    #: Whether the answer gives it a 95 % band (False: a normalised figure whose band would only repeat
    #: another output's in other units).
    band: bool = True
    #: A parameter whose shipped value is a placeholder: the output is answered only when that value is
    #: the planner's (their profile, given, or carried to another CPU): IOPS from an assumed time per I/O.
    only_with: str = ""
    #: Whole numbers (a count of cores): JSON prints them without a decimal point.
    integer: bool = False
    #: A key that appears only where it has a value: the solve may leave it out (a measured error, stated
    #: only where it passes the rule), or give NaN (None for an object) at the points where it has none (a
    #: published figure at its own latency): the record then has no such key. Otherwise a missing value is
    #: printed as null.
    optional: bool = False
    #: ``"number"``: an array over the points (banded where a profile's intervals reach it);
    #: ``"object"``: one JSON value (a mapping or a list) for the whole answer, carried into every
    #: record as it is (a formula's text, LaTeX and symbols), never broadcast or banded.
    kind: Literal["number", "object"] = "number"
    #: The physical range of the output: its value and its band's ends are clipped to it (a loss
    #: cannot exceed the whole throughput, however far an interval propagated from a fit reaches).
    bounds: tuple[float, float] = (-math.inf, math.inf)

    def to_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "unit": self.unit, "description": self.description}
        return {**out, "text": True} if self.text else out


@dataclass(frozen=True)
class Reference:
    """Published figures a plot shows as points beside its output ``output``: the rows of a shipped
    measurement file (``measurement`` in ``data/measurements``; columns ``x`` and ``y``, one series per
    value of the column ``group`` where given), or, without ``measurement``, the one point whose
    coordinates are the answer's values named ``x`` and ``y`` (a catalogue entry's published figure)."""

    output: str
    x: str
    y: str
    label: str
    measurement: str = ""
    group: str = ""


@dataclass(frozen=True)
class Plot:
    """What ``--plot`` draws: ``y`` (outputs) against ``x`` (an input), one curve per value of ``series``
    (an input or setting name, or None for one curve per output). ``beside``: ``(y, name)`` pairs drawn
    dashed on ``y``'s panel: an output (an asymptotic bound of it), or a setting of the question, a level
    at its value across the panel (a loss budget); ``references``: published figures drawn as points
    (:class:`Reference`)."""

    x: str
    y: tuple[str, ...]
    series: str | None = None
    beside: tuple[tuple[str, str], ...] = ()
    references: tuple[Reference, ...] = ()


@dataclass(frozen=True)
class Repeated:
    """A list a planner gives one item at a time (``--demand 0.005 --demand 0.003``; HTTP: a list), one
    item per element of the system (a station).

    With ``item`` (``item(k)``: the parameter the k-th value sets, k from 1), each value sets that
    parameter (checked by its declaration) and the list's length sets the integer setting ``count``
    (a closed network's ``demand_k_s`` and ``stations``). Without it, ``name`` is a text setting of the
    family and the values, joined by commas, are its value (``--servers 4 --servers delay``: ``4,delay``).
    """

    name: str
    description: str
    count: str = ""
    item: Callable[[int], str] | None = None


@dataclass(frozen=True)
class Sizing:
    """An inverse question a planner may ask of a question: the ``smallest`` (or largest) value of
    ``search`` (an input of the question, or a whole-number setting of the family whose solve
    broadcasts it) for which ``output`` stays at most (``at_most=True``) or at
    least a target the planner gives.

    The feasible values must form one interval: ``[answer, upper]`` when ``smallest``, ``[lower,
    answer]`` otherwise (``output`` monotone in ``search``). Every surface is generated from it
    (:mod:`iosizer.calibration.declared_sizing`): ``iosizer size <family> --<target>``,
    ``POST /api/size/<family>``, ``iosizer.family(name).size(...)``. The other inputs of the question
    are options (a list sweeps them: one answer per combination). Optional:

    - ``target``: the target's name (option ``--target-...`` and JSON key), default ``target_<output>``;
    - ``percentile``: ``--percentile P`` puts the target on the question's P-th percentile (its
      ``percentiles`` hook must return one key per percentile);
    - ``metric``: the word the answer's ``metric`` key says without a percentile (default: ``output``);
    - ``report``: the output the answer is about when it is not ``search`` itself (the largest IOPS
      within a latency): it is the one that carries the 95 % interval;
    - ``keys``: ``(generic, published)`` pairs: when given, the answer holds exactly these keys in this
      order, renamed (generic names: ``target``, ``metric``, ``search``'s name, each output's, ``limit``,
      ``measure`` (the targeted measure at the answer: ``output`` or its percentile));
    - ``limit(values) -> float``: the output's supremum (``at_most=False``) or infimum over every
      ``search``: a target past it is unreachable; printed as ``ceiling_<output>`` (``floor_<output>``);
    - ``stop(values) -> float``: the last ``search`` value worth searching (past it ``report`` grows
      no more), a bound on the work; with ``bracket`` a real search bisects ``[lowest, stop]`` at once
      (no galloping: the interval is known);
    - ``unreachable``: the words of the error for a target past ``limit`` (``{target}`` and ``{limit}``
      formatted in);
    - ``out_of_reach(values, target, percentile) -> str | None``: the reason no ``search`` value reaches
      the target (one line, an error), checked before the search;
    - ``reason(values, point) -> str``: a target out of reach of every ``search`` value is no error: the
      answer is empty (null) and the generic key ``reason`` says why (``""`` where there is an answer);
    - ``interval``: False: no 95 % interval for this answer, even with a profile;
    - ``at_answer(values, point, answer, target) -> {key: value}``: what the answer implies, computed once
      per row at it (None where out of reach) rather than at every probe: the cores each group of ports
      gets there, the largest load within the target at the given count; its keys are generic keys.
    - ``intervals``: the generic keys that carry the 95 % interval (default: ``report``'s, else ``search``'s);
    - ``command``: the command's name, ``iosizer size <command>`` (default: the family's name); the
      sizings of one command are its targets. Several families may declare sizings of one command: it
      takes every family's options, and the profile given (else the options given) picks the family;
    - ``alone``: the target is given alone, never with another of its command;
    - ``target_bounds``: the target's bounds (lower excluded, upper included; default any number > 0);
    - ``percentile`` may name the quantity whose ``<quantity>_pP`` the percentiles hook returns among
      others (``"response"``: ``response_p99``);
    - ``lowest(values, inputs) -> array``: the first ``search`` value worth trying at each point (the
      smallest stable server count), below which the question has no answer; generic key ``lowest``.
    The command's help line and the options it publishes under older names are its
    :class:`SizingCommand`'s (``summary``, ``flags``).

    ``search`` may also name a whole-number parameter or setting of the family (bounds from its
    declaration): ``solve`` then finds the searched values among its inputs under that name, and the
    option sets it where another sizing searches something else. Several sizings may share a target:
    one target answers them all, each searching its own input with the others' at their given values
    (ports at the given cores, cores at the given ports), their keys merged into one record. Generic
    keys besides those above: ``one_fewer`` (the measure one whole step short of the answer, empty where
    that is out of the search's range or unstable), ``one_more`` (one step past the largest), ``lowest``,
    ``percentile`` (the P given; no key without one), ``reason``, and the name of any input or value (a
    setting or parameter as answered); a published name may hold ``{measure}`` (the targeted measure's
    key). With ``keys``, a record holds those keys alone (the inputs no
    sizing searches lead it otherwise). The command's presentation, from the first sizing that declares
    it: ``title(values, targets, inputs)``, ``notes(values, records, inputs)`` (replacing the generic
    notes; ``inputs``: the inputs no sizing searches, as answered; ``values`` also hold
    ``profile_origin``, ``values_source`` and ``cpu_speed``, and for the notes ``measure``, the targeted
    measure's key, and ``profile_name``, the profile as the planner named it, or None), ``columns`` (the
    table's) and ``words`` (``(key, text(value))`` pairs: how the table and CSV show a key whose value is
    no number).
    """

    search: str
    output: str
    at_most: bool = True
    smallest: bool = True
    target: str = ""
    percentile: bool | str = False
    metric: str = ""
    report: str = ""
    keys: tuple[tuple[str, str], ...] = ()
    limit: Callable[[Mapping[str, Any]], float] | None = None
    stop: Callable[[Mapping[str, Any]], float] | None = None
    unreachable: str = ""
    reason: Callable[[Mapping[str, Any], Mapping[str, Any]], str] | None = None
    interval: bool = True
    at_answer: Callable[[Mapping[str, Any], Mapping[str, Any], Any, float], Mapping[str, Any]] | None = None
    title: Callable[[Mapping[str, Any], Mapping[str, float], Mapping[str, Any]], str] | None = None
    notes: Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]], Mapping[str, Any]], Sequence[str]] | None = None
    columns: tuple[str, ...] = ()
    words: tuple[tuple[str, Callable[[Any], str]], ...] = ()
    #: The :class:`SizingCommand` (its ``name``) that answers it, when not ``iosizer size <family>``.
    command: str = ""
    #: The model's own inverse, used in place of the generic search where one exists (a closed form,
    #: Brent's method on a curve, a bisection on a text output such as the binding cap):
    #: ``invert(values, point, target) -> record`` at one point (``point``: each other input's value),
    #: the record's keys as published (a number that is not finite, an unbounded answer, is published as
    #: null); it checks its target (its one-line error is the answer's) and
    #: raises :class:`~iosizer.model.sizing.UnreachableTargetError` where no value reaches it.
    invert: Callable[[Mapping[str, Any], Mapping[str, Any], Any], Mapping[str, Any]] | None = None
    #: Answered on every call at no target of the planner's (no option: ``invert`` gets None), a
    #: by-product every answer of its command carries (the largest block still protocol-bound). A command
    #: may be made of such sizings alone: its targets are then settings of the question, with defaults.
    always: bool = False
    #: Answered once per call, at no point (``invert`` gets an empty ``point``): what does not depend on
    #: the other inputs (the largest latency within a budget, before the tiers of each hop). Its record
    #: leads the command's published record (:attr:`SizingCommand.gather`).
    once: bool = False
    #: False: an interval unbounded at both ends (an exact fit) adds no ``_ci`` keys to this answer
    #: (True: they are null).
    unbounded: bool = True
    alone: bool = False
    target_bounds: tuple[float, float] = (0.0, math.inf)
    lowest: Callable[[Mapping[str, Any], Mapping[str, Any]], Any] | None = None
    out_of_reach: Callable[[Mapping[str, Any], float, float | None], str | None] | None = None
    bracket: bool = False
    intervals: tuple[str, ...] = ()

    @property
    def target_name(self) -> str:
        return self.target or f"target_{self.output}"


#: Where an option's default comes from, in a simulation option's help: the declaration, never a number.
DECLARED_OR_SHIPPED = "[declared or shipped value; see `iosizer params FAMILY`]"


@dataclass(frozen=True)
class SimulateOption:
    """An option of a :class:`Simulation`'s command: ``name`` is its keyword (the HTTP field), ``flag`` its
    CLI spelling, ``kind`` float, int or str, ``many`` a repeatable flag (HTTP: a list); no ``default``
    and ``required``: the command needs it. ``keyword``: the system builder's keyword when it is not
    ``name`` (``--mps`` builds with ``mps_bytes``)."""

    name: str
    flag: str
    help: str
    kind: type = float
    default: Any = None
    required: bool = False
    many: bool = False
    metavar: str | None = None
    keyword: str = ""


#: ``--service-scv`` of a simulation: the variability of its queueing stations' service times.
SIMULATED_SCV = SimulateOption(
    "service_scv", "--service-scv",
    "Squared coefficient of variation of service times at the queueing stations (1 exponential, the model's "
    "assumption [default]; 0 constant). The analytic column stays the exponential model, so the gap measures "
    "that assumption; where the family corrects for it (hba, oltp, rmw: their own --service-scv) the notes give "
    "its answer.")


@dataclass(frozen=True)
class Simulation:
    """How a question is simulated where its simulation asks options of its own (LINE's model/solver
    split: the simulated system beside the analytic answer, one row per metric).

    ``iosizer simulate <command>`` (two words: a group, ``hba response``; ``group`` its help),
    ``POST /api/simulate/<command>`` and ``iosizer.simulate.simulate(family, question, ...)`` are
    generated from it (:mod:`iosizer.cli.simulate`, :mod:`iosizer.simulate.systems`): the command takes
    ``options`` and the run's options of every simulation. ``prepare(given) -> keywords`` turns what a
    planner gave (by option name) into the builder's keywords where one option depends on another (a
    one-line error naming the flags); without it each option is its builder keyword. The builder
    (``build(**keywords) -> Experiment``: the simulated system and the analytic answer) of a built-in
    family is registered in :data:`iosizer.simulate.systems.SYSTEMS` by (family, question), as the model
    layer may not import the simulation layer; a plugin may name it here. ``refused``: the question is
    not simulated, and this line says why (its command, if any, exits 2 with it); ``command`` empty: no
    command (the library alone says why).

    One road (LINE: the same table from another solver): the analytic value of every metric is the
    question's own answer (:func:`iosizer.calibration.questions.answer`), never a copy of its formula in the
    builder. ``metrics`` name the simulated metrics with the outputs they estimate and ``system`` builds the
    simulated system at an answer's values and one point: with them the question's ``--simulate`` puts each
    simulated mean beside its output (``<output>_model``, ``_sim_low``, ``_sim_high``), and a Simulation
    with no builder gets its ``iosizer simulate`` command from them alone.
    """

    command: str
    summary: str = ""
    options: tuple[SimulateOption, ...] = ()
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    build: Callable[..., Any] | None = None
    refused: str = ""
    group: str = ""
    #: The simulated metrics, as ``iosizer simulate`` names them, each with the question's output it
    #: estimates (``("throughput_per_s", "throughput")``; a bare name: the output of that name). The
    #: question's ``--simulate`` puts each simulated mean beside that output (``<output>_model``,
    #: ``_sim_low``, ``_sim_high``).
    metrics: tuple[str | tuple[str, str], ...] = ()
    #: ``system(values, point, *, run_length=None) -> model``: the simulated system at an answer's values
    #: and one point (``point``: each input's value); its ``run(streams)`` reports :attr:`metrics`. A
    #: built-in family registers it in :data:`iosizer.simulate.systems.SYSTEMS_AT` (the layer rule).
    system: Callable[..., Any] | None = None
    #: Older question names :func:`iosizer.simulate.simulate` still takes for this simulation (deprecated),
    #: where the simulation moved to another question of its family.
    aliases: tuple[str, ...] = ()

    @property
    def outputs(self) -> dict[str, str]:
        """Each simulated metric's output of the question (:attr:`metrics`), in order."""
        return dict((m, m) if isinstance(m, str) else m for m in self.metrics)

    def keywords(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The builder's keywords of the options ``given`` by name (``prepare``, else renamed)."""
        if self.prepare is not None:
            return self.prepare(dict(given))
        renamed = {o.name: o.keyword or o.name for o in self.options}
        return {renamed.get(name, name): value for name, value in given.items()}


@dataclass(frozen=True)
class TableRow:
    """One answer a question gives in its family's scenario table (``Question.table``): what it is
    (``question``, the row's label), its value, unit, note and 95 % band.

    ``derive``: a figure computed from several of the answer's records (one swept choice's IOPS over the
    first's): ``derive(records)`` is the value; with a profile or a CPU its band moves the fitted parameters
    through every record at once (a joint band, not two records' bands apart).
    """

    question: str
    value: Any
    unit: str
    note: str = ""
    ci_low: float | None = None
    ci_high: float | None = None
    derive: Callable[[list[Mapping[str, Any]]], float] | None = None

    @classmethod
    def of(cls, record: Mapping[str, Any], key: str, question: str, unit: str, note: str = "") -> "TableRow":
        """The row of output ``key`` of one record, with its band where the answer gives one."""
        return cls(question, record[key], unit, note, record.get(f"{key}_ci_low"), record.get(f"{key}_ci_high"))


def changes_note(changes: Mapping[str, Any]) -> str:
    """``; given k = v, ...``: how an answer names the values a planner set over a profile's (empty: none)."""
    return ("; given " + ", ".join(f"{k} = {v:g}" if isinstance(v, (int, float)) else f"{k} = {v}"
                                   for k, v in changes.items())) if changes else ""


#: A question's scenario rows: (the answer's records, the table's context) -> rows. The context holds
#: ``source``: where the values come from when the table names a profile or a CPU (None otherwise),
#: ``values``: the values the answer used (its first swept choice's), ``given``: the keys the table sets.
TableFunction = Callable[[list[dict[str, Any]], Mapping[str, Any]], list[TableRow]]


@dataclass(frozen=True)
class TableKey:
    """A key of a scenario table of several questions (:class:`ScenarioTable`): its name (unit in it), type
    (``int``, ``float``, ``str``, ``bool``: strict, a number is no text), default (a value, or a function of
    nothing that reads a declaration when the key is left out), bounds (``ge``/``gt``/``le``/``lt``) and, for
    a name of a shipped catalogue, ``catalogue``: (family, setting) whose calibration module's
    ``catalogue_entry`` checks it and brings its values (``TableState.entries``)."""

    name: str
    kind: type = float
    default: Any = None
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    catalogue: tuple[str, str] | None = None
    description: str = ""


@dataclass(frozen=True)
class Asked:
    """One asked question's answer, as a table's later asks and rows read it: the records and the values
    the answer used."""

    records: list[dict[str, Any]]
    values: Mapping[str, Any]


@dataclass(frozen=True)
class TableState:
    """What a table of several questions knows while it is answered: every key's value (``keys``, defaults
    filled), the keys the file sets (``given``), the planner's profiles by family as the file spells them
    (``profiles``), where each family's values come from when the table names a profile or a CPU
    (``sources``: the note's words), ``cpu_speed``, the catalogue entries' values by key (``entries``) and
    the answers so far by ask (``answered``)."""

    keys: Mapping[str, Any]
    given: frozenset[str] = frozenset()
    profiles: Mapping[str, str] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    cpu_speed: float | None = None
    entries: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    answered: Mapping[str, Asked] = field(default_factory=dict)

    def calibrated(self, family: str) -> bool:
        """Whether ``family`` answers from the planner's profile or is carried to a CPU (then banded)."""
        return family in self.profiles or self.cpu_speed is not None


@dataclass(frozen=True)
class Ask:
    """One question a table of several questions asks, in order: ``question`` of ``family`` at
    ``inputs(state)`` (its inputs and settings by name, from the table's keys and the earlier asks'
    answers: one row's output is the next question's input), when ``when(state)`` holds.

    ``profile``: which of the table's sources answer it: ``"table"`` (the planner's profile of the family,
    else the shipped one, carried to the table's ``cpu_speed``), ``"profile"`` (the planner's profile and
    the CPU only with it: a family no CPU moves unless its own profile says so), ``"none"`` (the shipped
    declaration alone: geometry).
    """

    name: str
    family: str
    question: str
    inputs: Callable[[TableState], Mapping[str, Any]]
    when: Callable[[TableState], bool] | None = None
    profile: Literal["table", "profile", "none"] = "table"


@dataclass(frozen=True)
class ScenarioTable:
    """A scenario table answered from several questions, possibly of several families (a module's
    ``TABLES``): ``[<key>]`` takes ``keys`` (and ``profile``, a list of the ``families``' profiles, and
    ``cpu_speed``), ``check(keys)`` checks them together (an :class:`~iosizer.errors.InputError` is the
    table's one-line error), ``asks`` are answered in order on the one road and ``rows(state)`` are its
    answers (:class:`TableRow`). The families it answers from get no table of their own."""

    key: str
    summary: str
    families: tuple[str, ...]
    keys: tuple[TableKey, ...]
    asks: tuple[Ask, ...]
    rows: Callable[[TableState], list[TableRow]]
    check: Callable[[Mapping[str, Any]], None] | None = None


@dataclass(frozen=True)
class SizingCommand:
    """``iosizer size <name>``: the sizings of a question that name it (``Sizing.command``), answered by one
    command, its HTTP route and ``iosizer.family(f).size(..., command=name)``, in the record a planner
    already reads where it is not the generic one. It is where every sizing command publishes its help line
    (``summary``; default: the family's summary and the targets) and its options' names (``flags``); the
    rest below is read where its sizings ``invert`` (a search's presentation is its sizings').

    - ``needs``: the one-line error when no target is given (default: "give --a and/or --b");
    - ``shape(values, point, record) -> record``: the published record from the answered sizings' records
      merged in declaration order (``point``: the other inputs' values); a pure rearrangement (a
      setting put first), nothing computed;
    - ``title(values, record) -> str``: the table's title; ``notes``: lines (or ``(values, record) -> str |
      None``) the answer carries;
    - ``refused``: settings a planner's own profile holds: giving one with ``--profile`` is this error;
    - ``settings``: the command's own options (``ParameterSpec``, kind "setting": a bound on the search),
      checked by their declarations and handed to each ``invert`` in ``values``;
    - ``flags``: the option (and HTTP field) a name (an input, setting, parameter or repeated value) is
      published under where it is not the declared name (``{"transfer_bytes": "--pattern"}``); the declared
      flag stays an alias;
    - ``required``: targets a planner must give (the CLI and HTTP refuse their absence);
    - ``gather``: the answer is one published record: the ``once`` sizings' records merged, then the
      records of every point (each shaped) listed under this key (``switches``); the table and CSV
      show that list, a row per point.
    ``title`` reads the first published record, ``notes`` the first answer as merged (after the ``once``
    sizings' records), before ``shape``.
    """

    name: str
    summary: str = ""
    needs: str = ""
    shape: Callable[[Mapping[str, Any], Mapping[str, Any], dict[str, Any]], dict[str, Any]] | None = None
    title: Callable[[Mapping[str, Any], Mapping[str, Any]], str] | None = None
    notes: tuple[str | Callable[[Mapping[str, Any], Mapping[str, Any]], str | None], ...] = ()
    refused: Mapping[str, str] = field(default_factory=dict)
    settings: tuple[ParameterSpec, ...] = ()
    flags: Mapping[str, str] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    gather: str = ""


#: A question's solve: values (parameters and settings by name) and broadcast input arrays ->
#: every declared output as an array shaped like the inputs. Pure, vectorised, no I/O.
QuestionSolve = Callable[[Mapping[str, Any], Mapping[str, "np.ndarray"]], Mapping[str, "np.ndarray"]]
#: A question's percentiles: (values, inputs, percentiles) -> ``<quantity>_pP`` arrays named as
#: :func:`iosizer.model.percentiles.percentile_key` spells them (the response at 99: ``response_p99``;
#: at 99.9: ``response_p99_9``). Each gets its 95 % band like any output.
PercentileFunction = Callable[[Mapping[str, Any], Mapping[str, "np.ndarray"], "tuple[float, ...]"],
                              Mapping[str, "np.ndarray"]]


@dataclass(frozen=True)
class Question:
    """One question a family answers, declared once; every surface is generated from it.

    Minimal form (a label, as older families declare them): ``command`` (the
    CLI path, ``"queue mmc"``), ``summary``, and input and output names.

    A question that declares ``solve`` is answered by the registry on every
    surface, with nothing else written: ``iosizer <family> <command>`` (a
    ``command`` of one word is under the family's name; one with a space is
    a full CLI path), ``POST /api/<family>/<command>``, ``iosizer.ask``,
    ``iosizer.family(name).ask(command, ...)`` and a ``[<family>]`` table in
    scenario files. Then:

    - ``inputs`` are :class:`Input` declarations (name with unit, bounds,
      default sweep) and ``outputs`` :class:`Output` ones, derived outputs
      included (a percentage change is computed in ``solve``, not by a
      surface);
    - ``solve(values, inputs)``: ``values`` holds every parameter and
      setting of the family by name (the shipped profile's, a planner's
      profile, or given), ``inputs`` the input arrays broadcast together;
      it returns every output as an array of the inputs' shape. Bounds are
      checked before it runs: it trusts its arguments;
    - ``notes``: lines every answer carries (the sources of the values used,
      the approximation's measured error);
    - ``plot``: what ``--plot`` draws;
    - ``simulate``: optionally the same question solved by simulation (LINE's model/solver split):
      ``simulate(values, inputs, *, run_length=None, percentiles=())`` builds the simulated system at
      the answer's values and its points (``inputs``: each input flat, one entry per point): an object
      whose ``run(streams)`` returns one replication's :class:`iosizer.simulate.stats.Sample` with a
      metric ``<output>_at_<k>`` per output and point k (and ``<percentile key>_at_<k>`` for each of
      ``percentiles``: that replication's empirical percentile); optionally ``run_batch`` with
      ``vectorised = True`` (the numpy engine), ``simulator`` (its library: ``"SimPy"``),
      ``analytic_method`` and ``notes``. ``iosizer simulate <family>`` and ``POST /api/simulate/<family>``
      are generated from it (:mod:`iosizer.simulate.declared`): the analytic answer beside the
      simulated mean and its 95 % replication interval, with every run option of ``iosizer simulate``.
      A built-in family registers its hook in :mod:`iosizer.simulate.hooks` (the model layer may not
      import the simulation layer); a plugin may declare it here. A :class:`Simulation` instead: a
      simulation with options of its own and a system builder that states its metrics;
    - ``sizing``: inverse questions (:class:`Sizing`): each gives ``iosizer size <family>`` a
      ``--target-...`` option, generated with nothing else written (the library's road is
      :func:`iosizer.calibration.declared_sizing.size`, ``iosizer.family(name).size``);
    - ``percentiles``: optionally ``(values, inputs, ps) -> {"response_pP": array}``;
      the question then takes ``--percentile`` (repeatable; HTTP ``percentile``: a list);
    - ``aliases``: older names of an input or parameter (``{"service_rate_per_s":
      ("service_rate",)}``): a CLI flag and an HTTP field each, kept as documented
      deprecated spellings;
    - ``shipped``: whether the family's shipped profile answers when the planner gives
      neither a profile nor every parameter (False: a question of the planner's own
      system, such as an M/M/c queue of given service rate, needs them given);
    - ``takes``: the family's parameters and settings it offers as options (None: all); ``fixed``:
      values it fixes (``{"servers": 1}``); ``settings``: options of its own (``ParameterSpec``s, such as
      a G/G/c queue's ``arrival_scv``) handed to ``solve`` in ``values``; ``scenario=False`` leaves it out
      of the family's scenario table (a variant that the table's values would not fit); ``optional``:
      own settings that may be left out; a question with ``takes=()`` asked without a profile is answered
      from its inputs alone (no profile is built: ``queue erlang``);
    - a note may be a callable ``(values, outputs) -> str | None``: a line that depends
      on the values used or on what was computed (percentile keys among the outputs);
    - ``repeated``: lists given one item at a time (:class:`Repeated`), a repeatable flag and an
      HTTP list each (a closed network's demand per station);
    - ``defaults``: what a parameter is when the planner gives neither it nor a profile
      (``{"think_time_s": 0.0}``: no think time unless one is given); with a profile, the profile's;
    - ``shape(records, values) -> records``: only where a published JSON shape cannot be
      declared otherwise, a pure rearrangement of the generic records (one per point) into the
      published ones (keys nested, reordered, dropped); nothing is computed there. ``--format
      json``, HTTP and ``iosizer.ask`` answer the shaped records, one point's alone. With
      ``shape_table``, the CLI's table and CSV show the shaped records too (flat ones), keys named
      in ``aliases`` left out (one point: a metric per row), as a hand-written command showed them;
    - an output declared ``Output(..., text=True)`` answers words (``solve`` returns an array
      of ``str``): shown as they are in tables, CSV and JSON, never banded; a plot or a sizing
      may not name it;
    - ``settings`` (the question's own options, see below): ``shape`` finds them in its ``values``
      (a device's name put first in the published record); one with bounds (0, 1), whole, is an
      on/off switch (``--show-formula``);
    - ``catalogue``: a setting of the question that names an entry of the family's shipped catalogue
      (``--device e1000``, a table 4-1 device): the answer then comes from the profile fitted to that
      entry (no ``--profile`` with it; one of the two is needed) with the values the entry brings
      (its burst size, its published figures) in ``values``; the family's calibration module finds
      them (``catalogue_entry(family, setting, name)``, :mod:`iosizer.calibration.family_modules`);
    - ``also``: other families whose profiles may answer the question (a loss budget asked of the
      OLTP network or of a DMA device): the profile given, or the catalogue entry's, names the
      family whose values ``solve`` gets, with its name in ``values["family"]``;
    - ``solve`` finds the inputs left to their default sweep in ``values["defaulted"]`` (a
      catalogue's own entries are named, a planner's own value is not), and where the planner's
      profile was read from and the CPU it names in ``values["profile_origin"]`` and
      ``values["profile_cpu_name"]`` (an answer that names its source);
    - ``several_profiles``: ``--profile`` may be repeated (profiles of CPUs of different speeds,
      combined by extrapolation to ``--cpu-speed``); the library and HTTP take a list of profiles for
      every question;
    - ``own_cpu``: settings that, when one is given, make ``--cpu-speed`` the question's own CPU
      assumption instead of the declared exponent ranges: the profile is not carried and ``solve``
      finds the target's speed over the profile's CPU in ``values["cpu_speed_factor"]``;
    - ``Output(..., vector=True)``: each value is a list of numbers (a sequence
      per point); ``band=False``: never banded; ``only_with="<parameter>"``: left out of the answer
      unless that parameter's value is the planner's (see :class:`Output`);
    - ``rows``: the model picks the answer's points (a curve up to its own maximum, both sides of
      each jump; one row per policy): the question has no inputs and ``solve`` returns each output
      with one length n, the answer's n records. Bands move the parameters at the
      same rows: ``solve(moved_values, rows)`` gets the answer's own outputs as ``inputs`` and
      answers at them (at least the banded outputs); its ``percentiles`` get those rows as inputs.
      A setting declared with ``excludes`` replaces those settings: giving both is an error;
    - percentile outputs sit after the declared outputs, before the first one declared
      ``optional`` or ``only_with``; ``percentile_bands=False``: they carry no band;
    - ``sweeps``: settings of named choices the question sweeps (``("link",)``): the option takes one
      choice, a list ``1g,10g`` or ``all``; each choice is answered on its own values (a setting
      declared ``variant`` from its own shipped profile, see :class:`ParameterSpec`), and the
      records are the choices' records in the order given, each led by the choice as a text column.
      A choice whose outputs no varying parameter moves has no band (``local``: no replica);
    - ``sweep_all``: swept settings whose default, in this question, is every choice rather
      than the profile's one (``--mode`` answers every mode unless told);
    - ``flat_bands``: an output no varying parameter moves keeps its band (low = high = the
      answer: it does not depend on the fitted values) instead of losing it, where a published
      answer always carried both ends;
    - ``shipped_bands``: False when an answer from the shipped profile on its own CPU carries no band
      (the shipped calibration's intervals describe a fit to a seed's statements, not measurements;
      they band a profile the planner gives or carries to another CPU);
    - ``always_list``: the JSON is a list of records even for one point;
    - ``table(records, context)``: the question's rows in its family's scenario table (:class:`TableRow`:
      label, value, unit, note, band; ``derive`` for a figure over several records, banded jointly);
      ``table_keys``: a table key's older names, kept as aliases; ``table_defaults``: what a table naming
      neither a profile nor a CPU takes for a key it leaves out, where it differs from the command's;
    - an input may carry the name of one of its family's settings (a block size the family's data
      hold per row): the question sweeps it, its option and key are the input's, and its default is
      the input's declared sweep, not the profile's setting;
    - a question whose ``command`` is its family's name is asked at the family's own path:
      ``iosizer replication``, ``POST /api/replication``, ``iosizer.ask("replication")``. Such a
      family has no other question under its name.

    Example (the M/M/1/K plugin in ``examples/iosizer-mm1k``)::

        Question("queue", "blocking, throughput and response of M/M/1/K",
                 inputs=(Input("arrival_rate", "1/t", (0, 1e12), default=(0.5, 0.9),
                               description="arrivals per unit time"),),
                 outputs=(Output("blocking_probability", "1"), Output("mean_response", "t")),
                 solve=solve_queue, plot=Plot("arrival_rate", ("mean_response",)))
    """

    command: str
    summary: str
    inputs: tuple[str | Input, ...] = ()
    outputs: tuple[str | Output, ...] = ()
    solve: QuestionSolve | None = None
    notes: tuple[str | Callable[[Mapping[str, Any], Mapping[str, Any]], str | None], ...] = ()
    plot: Plot | None = None
    simulate: Callable[..., Mapping[str, "np.ndarray"]] | Simulation | None = None
    sizing: tuple[Sizing, ...] = ()
    #: The ``iosizer size`` commands its sizings name (:class:`SizingCommand`).
    sizing_commands: tuple[SizingCommand, ...] = ()
    percentiles: PercentileFunction | None = None
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    shipped: bool = True
    #: ``--simulate``: ``(values, inputs, percentiles) -> (one {<percentile key>: Estimate} per point, note)``
    #: answers the percentiles by simulation (:mod:`iosizer.simulate.answered`); a built-in family registers
    #: it in :data:`iosizer.simulate.hooks.SIMULATED_PERCENTILES` instead (the layer rule).
    simulate_percentiles: Callable[..., Any] | None = None
    repeated: tuple[Repeated, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    shape: Callable[[list[dict[str, Any]], Mapping[str, Any]], list[dict[str, Any]]] | None = None
    shape_table: bool = False
    rows: bool = False
    percentile_bands: bool = True
    sweeps: tuple[str, ...] = ()
    sweep_all: tuple[str, ...] = ()
    flat_bands: bool = False
    shipped_bands: bool = True
    always_list: bool = False
    #: The family's parameters and settings the question offers as options (None: every one).
    takes: tuple[str, ...] | None = None
    #: Values the question fixes: a family setting (an M/M/1 queue is family mmc's with ``servers`` 1; a
    #: profile calibrated at another value is refused) or a value handed to ``solve`` as it is.
    fixed: Mapping[str, Any] = field(default_factory=dict)
    #: The question's own settings (``ParameterSpec``, kind "setting"): options beside the family's, checked
    #: by their declarations and handed to ``solve`` in ``values``; one without a value is required. They
    #: are not the family's: ``iosizer params`` and calibration do not list them.
    settings: tuple[ParameterSpec, ...] = ()
    #: Whether the family's scenario table (``[<family>]``) answers it at the table's values.
    scenario: bool = True
    #: How the answer reads in the scenario table: its rows (:class:`TableRow`) from the records; without
    #: it, one row per output and point.
    table: TableFunction | None = None
    #: Older names of a scenario table's keys (``{"link": ("links",)}``), kept as documented aliases.
    table_keys: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: What a table that names neither a profile nor a CPU takes for a key it leaves out, where a
    #: system description wants more than the command's default (two links to compare, not one).
    table_defaults: Mapping[str, Any] = field(default_factory=dict)
    #: Own ``settings`` without a value that may be left out (absent from ``values``: a computed input
    #: default reads them, ``queue erlang``'s ``arrival_rate``); others without a value are required.
    optional: tuple[str, ...] = ()
    own_cpu: tuple[str, ...] = ()
    several_profiles: bool = False
    catalogue: str = ""
    also: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.solve is None:
            return
        if self.rows and self.inputs:
            raise ValueError(f"question '{self.command}': a question whose solve picks its rows has no inputs")
        for what, items, kind in (("input", self.inputs, Input), ("output", self.outputs, Output)):
            loose = [i for i in items if not isinstance(i, kind)]
            if loose:
                raise ValueError(f"question '{self.command}': a question with a solve declares each {what} "
                                 f"as {kind.__name__}(name, unit, ...), got {loose[0]!r}")
        names = self.input_names + self.output_names
        if len(set(names)) != len(names):
            raise ValueError(f"question '{self.command}': an input or output is declared twice")
        stray = [name for name in (*self.own_cpu, *([self.catalogue] if self.catalogue else []))
                 if name not in {s.name for s in self.settings}]
        if stray:
            raise ValueError(f"question '{self.command}': own_cpu or catalogue names {stray}, not settings of "
                             "the question")
        if self.plot is not None:
            drawn = (*self.plot.y, *(other for _, other in self.plot.beside))
            levels = {s.name for s in self.settings}  # a setting beside a curve: a level at its value
            unknown = [n for n in (self.plot.x, *drawn) if n not in names and n not in levels]
            unknown += [n for n in (*(y for y, _ in self.plot.beside), *(r.output for r in self.plot.references))
                        if n not in self.plot.y]
            if unknown:
                raise ValueError(f"question '{self.command}': plot names {unknown}, not inputs or outputs (a bound or "
                                 "a reference on an output it does not draw)")
        words = set(self.text_outputs)
        plotted = (*self.plot.y, *(other for _, other in self.plot.beside)) if self.plot else ()
        named = [n for n in (*plotted, *(s.output for s in self.sizing if s.invert is None)) if n in words]
        if named:
            raise ValueError(f"question '{self.command}': {named[0]} is a text output: it cannot be plotted or sized")

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(i.name if isinstance(i, Input) else i for i in self.inputs)

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(o.name if isinstance(o, Output) else o for o in self.outputs)

    @property
    def text_outputs(self) -> tuple[str, ...]:
        """Names of the outputs whose values are words (``Output.text``)."""
        return tuple(o.name for o in self.outputs if isinstance(o, Output) and o.text)

    @property
    def input_specs(self) -> tuple[Input, ...]:
        return tuple(i for i in self.inputs if isinstance(i, Input))

    @property
    def output_specs(self) -> tuple[Output, ...]:
        return tuple(o for o in self.outputs if isinstance(o, Output))

    @property
    def answerable(self) -> bool:
        """Whether the registry answers it (it declares a solve) on every surface."""
        return self.solve is not None

    def path(self, family: str) -> tuple[str, ...]:
        """The CLI path: ``(family, command)`` for a one-word command, else the command's words; a
        command that is the family's name is at the family's own path (``iosizer replication``)."""
        words = tuple(self.command.split())
        if words == (family,):
            return words
        return words if len(words) > 1 else (family, *words)

    def input(self, name: str) -> Input:
        for spec in self.input_specs:
            if spec.name == name:
                return spec
        raise InputError(f"question '{self.command}' has no input '{name}'")

    def options(self, family_specs: "tuple[ParameterSpec, ...]") -> "tuple[ParameterSpec, ...]":
        """The parameters and settings the question takes as options: the family's it takes (``takes``,
        less the ``fixed``), then its own ``settings``."""
        return tuple(s for s in family_specs if (self.takes is None or s.name in self.takes)
                     and s.name not in self.fixed) + self.settings

    def option(self, family_specs: "tuple[ParameterSpec, ...]", name: str) -> "ParameterSpec":
        for spec in self.options(family_specs):
            if spec.name == name:
                return spec
        raise InputError(f"question '{self.command}' takes no {name}"
                         + (f" (it fixes {name} = {self.fixed[name]})" if name in self.fixed else ""))


#: values (parameters and settings by name) and input arrays -> output arrays.
SolveFunction = Callable[[Mapping[str, Any], Mapping[str, "np.ndarray"]], Mapping[str, "np.ndarray"]]
#: Analytic Jacobian: output name -> (n_points, n_free) array, free parameters in order.
JacobianFunction = Callable[[Mapping[str, Any], Mapping[str, "np.ndarray"]], Mapping[str, "np.ndarray"]]


@dataclass(frozen=True)
class FitPlan:
    """How a family is calibrated from data in its ``columns`` schema.

    ``start(data, settings)`` returns start values (and, where the data set
    them, bounds as ``(value, low, high)``) for the parameters it names;
    those are the ones the data identify and the fit varies, unless the
    planner holds one (``holdable``). Every other parameter is held at its
    declared value and reported as fixed.
    ``relative``: fit relative errors (noise proportional to the value).
    """

    start: Callable[[Mapping[str, np.ndarray], Mapping[str, Any]], Mapping[str, Any]]
    jacobian: Callable[[Mapping[str, Any]], JacobianFunction | None] = lambda settings: None
    relative: bool = False
    #: Parameters the planner may hold at a known value by option (a measured think time).
    holdable: tuple[str, ...] = ()
    #: Whole-number parameters fitted by profile likelihood (:mod:`iosizer.calibration.whole`):
    #: ``start`` without one in its settings gives ``(value, low, high)``, the counts to search;
    #: with it, the starts of the others at that count. Each must be ``holdable``.
    whole: tuple[str, ...] = ()
    #: Parameters varied only when measured percentiles are fitted (a service-time variability).
    tail_free: tuple[str, ...] = ()
    #: The measured percentiles checked against the model and fitted by ``--fit-percentiles`` (all when empty).
    percentiles: tuple[float, ...] = ()
    #: Fit the measured percentiles by default where the data carry them (``tail_free`` held at their
    #: declared values unless ``--fit-percentiles`` frees them); a refused percentile fit falls back to
    #: the means, and says so. For a family whose means alone may not identify a parameter (a count).
    percentiles_by_default: bool = False


@dataclass(frozen=True)
class Family:
    """A model family: parameters, data schema, solve function and questions, declared once."""

    name: str
    summary: str
    #: Where the family comes from: a seed document and section, or a textbook.
    source: str
    parameters: tuple[ParameterSpec, ...]
    columns: Schema
    solve: SolveFunction
    service_time: str
    questions: tuple[Question, ...] = ()
    #: The model's equations in one paragraph of plain text: what every answer of the family computes.
    formula: str = ""
    fit: FitPlan | None = None
    #: Parameters whose number depends on a setting (one demand per station).
    expand: Callable[[Mapping[str, Any]], tuple[ParameterSpec, ...]] | None = None
    #: The shipped example measurement file (in ``data/examples``) and the settings it needs.
    example: str = ""
    example_settings: Mapping[str, Any] = field(default_factory=dict)
    #: The shipped measurement files (``data/measurements``) this family reproduces.
    measurements: tuple[str, ...] = ()
    #: Response-time percentiles: ``tail(values, inputs, P)`` -> the P-th percentile at each
    #: point, in the unit of ``tail_unit``; measured ``response_pP_<unit>`` columns are then
    #: checked against the fitted model (:func:`iosizer.calibration.calibrate.tail_check`).
    tail: Callable[[Mapping[str, Any], Mapping[str, np.ndarray], float], np.ndarray] | None = None
    tail_unit: str = "s"
    #: The ``iosizer size`` command that sizes this family where another family's question declares it
    #: (dma: ``size latency``, of the oltp tiers question; a family whose questions declare :class:`Sizing`
    #: is sized by the command they name).
    sizing_command: str = ""

    def __post_init__(self) -> None:
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            raise ValueError(f"family {self.name}: a parameter is declared twice")
        if sum(p.variant for p in self.parameters) > 1:
            raise ValueError(f"family {self.name}: at most one setting names the shipped profile's variant")
        settings = {p.name: p for p in self.parameters if p.kind == "setting"}
        for question in self.questions:
            # One name, one role: an option or a JSON key must mean one thing. A question may sweep a
            # setting as an input (the question's option is the input; a profile's value of the setting
            # is not its default: the input's declared sweep is).
            clash = set(question.input_names) & (set(names) - set(settings)) if question.answerable else set()
            if clash:
                raise ValueError(f"family {self.name}: question '{question.command}' declares "
                                 f"{sorted(clash)} as inputs and as parameters")
            # An own setting may stand in for a family setting the question does not take (a block size
            # per tenant where the family's is one number); never for one it takes, nor a parameter.
            taken = set(names) if question.takes is None else \
                set(question.takes) | (set(names) - set(settings))
            own = {s.name for s in question.settings} & taken if question.answerable else set()
            if own:
                raise ValueError(f"family {self.name}: question '{question.command}' declares {sorted(own)} "
                                 "as its own settings and as the family's parameters")
            unknown = [n for n in (*question.sweeps, *question.sweep_all)
                       if not (n in settings and settings[n].choices and n in question.sweeps)]
            if unknown:
                raise ValueError(f"family {self.name}: question '{question.command}' sweeps {unknown}, "
                                 "not settings of named choices")
        own = [q for q in self.questions if q.path(self.name) == (self.name,)]
        if own and any(q.path(self.name)[0] == self.name for q in self.questions if q is not own[0]):
            raise ValueError(f"family {self.name}: a question at the family's own path leaves no room for "
                             "others under its name")

    def question(self, command: str) -> Question:
        """The question ``command`` (its command, or its CLI path joined by spaces)."""
        for question in self.questions:
            if command in (question.command, " ".join(question.path(self.name))):
                return question
        known = ", ".join(q.command for q in self.questions) or "none"
        raise InputError(f"family '{self.name}' has no question '{command}'; its questions: {known}")

    # --- reading the declaration ------------------------------------------

    def specs(self, settings: Mapping[str, Any] | None = None) -> tuple[ParameterSpec, ...]:
        """Every parameter and setting, with the per-setting ones expanded (``settings`` may hold
        parameter values too: a profile's values; only its settings are read)."""
        if self.expand is None:
            return self.parameters
        names = {s.name for s in self.settings}
        return self.parameters + self.expand(self.check_settings({k: v for k, v in (settings or {}).items()
                                                                  if k in names}))

    def spec(self, name: str, settings: Mapping[str, Any] | None = None) -> ParameterSpec:
        # A declared one needs no settings; a per-setting one (a station's demand) is expanded by them.
        for spec in self.parameters:
            if spec.name == name:
                return spec
        for spec in self.specs(settings) if self.expand is not None else ():
            if spec.name == name:
                return spec
        raise InputError(f"family '{self.name}' has no parameter '{name}'")

    @property
    def settings(self) -> tuple[ParameterSpec, ...]:
        return tuple(p for p in self.parameters if p.kind == "setting")

    @property
    def variant(self) -> ParameterSpec | None:
        """The setting that names a shipped profile's variant (:attr:`ParameterSpec.variant`), if any."""
        return next((p for p in self.parameters if p.variant), None)

    def default(self, name: str) -> Any:
        """The declared value of ``name``: the one place a default is read from."""
        return self.spec(name).value

    def check_settings(self, given: Mapping[str, Any],
                       labels: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Settings validated against their declarations; unknown ones are an error.

        ``labels`` name a setting as the caller's user typed it (``--gen``
        for ``generation``) in error messages; by default ``--name``.
        """
        labels = labels or {}
        known = {s.name: s for s in self.settings}
        unknown = sorted(k for k, v in given.items() if v is not None and k not in known)
        if unknown:
            flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
            raise InputError(f"{flags} does not apply to family '{self.name}'")
        checked: dict[str, Any] = {}
        for name, spec in known.items():
            value = given.get(name)
            if value is None:
                value = spec.value
            label = labels.get(name, "--" + name.replace("_", "-"))
            if value is None:
                raise InputError(f"family '{self.name}' needs {label} ({spec.description or spec.unit})")
            checked[name] = spec.check(value, label)
        return checked

    def values(self, settings: Mapping[str, Any] | None = None,
               overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Declared values (settings checked), with ``overrides`` checked against their bounds."""
        checked = self.check_settings(settings or {})
        values: dict[str, Any] = {}
        for spec in self.specs(checked):
            if spec.kind == "setting":
                values[spec.name] = checked[spec.name]
            elif spec.value is not None:
                values[spec.name] = spec.value
        for name, value in (overrides or {}).items():
            values[name] = self.spec(name, checked).check(value)
        return values
