"""Profiles: a calibrated model saved as JSON, validated on the way in and out.

A profile records what a fit found and where it came from: the model name
and its options (station count, servers...), each parameter's value with its
95 % interval and unit, the fit statistics, the dataset's path and SHA-256,
the CPU it was measured on, the tool version and the creation time. Every
what-if command accepts one with ``--profile FILE``.

Files are written atomically (a temporary file in the same folder, flushed,
then renamed over the target), so a failed run never leaves half a profile.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import math
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from iosizer._version import __version__
from iosizer.calibration.files import atomic_path
from iosizer.errors import ProfileError

PROFILE_FORMAT = 1
#: A profile is a few KiB (a few hundred parameters with their covariance at most); a file past this is not one.
MAX_PROFILE_BYTES = 16 * 2**20


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ParameterEstimate(_Strict):
    """A fitted (or fixed, or extrapolated) value with its 95 % interval."""

    value: float
    ci_low: float | None = None
    ci_high: float | None = None
    stderr: float | None = None
    unit: str = ""
    vary: bool = True
    cpu_scaling: Literal["fixed", "inverse", "power"] = "fixed"
    exponent_bounds: tuple[float, float] = (0.0, 0.0)

    @field_validator("value")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    @field_validator("stderr")
    @classmethod
    def _spread(cls, value: float | None) -> float | None:
        if value is not None and not (value >= 0):  # nan too; inf is an unbounded estimate
            raise ValueError(f"must be >= 0, got {value:g}")
        return value

    @model_validator(mode="after")
    def _interval_holds_the_value(self) -> "ParameterEstimate":
        if self.ci_low is not None and self.ci_low > self.value:
            raise ValueError(f"ci_low {self.ci_low:g} is above the value {self.value:g}")
        if self.ci_high is not None and self.ci_high < self.value:
            raise ValueError(f"ci_high {self.ci_high:g} is below the value {self.value:g}")
        return self


class ColumnFit(_Strict):
    rmse: float
    r2: float | None = None
    n_points: int = Field(ge=0)
    #: RMS of residual / observed: the scatter of a relative fit (a prediction band's, proportional to the value).
    relative_rmse: float | None = None


class FitStatistics(_Strict):
    rmse: float
    r2: float | None = None
    n_points: int = Field(ge=0)
    dof: int
    #: The multiplier of the standard errors that made the 95 % intervals.
    quantile: float | None = None
    columns: dict[str, ColumnFit] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    confidence: str = ""


class DatasetReference(_Strict):
    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    n_rows: int = Field(ge=1)


class Profile(_Strict):
    """A calibrated model, ready for what-if questions."""

    format: Literal[1] = PROFILE_FORMAT
    model: str
    options: dict[str, float | int | str | None] = Field(default_factory=dict)
    parameters: dict[str, ParameterEstimate]
    #: Covariance of the fitted (free) parameters, rows in ``covariance_parameters`` order.
    covariance: list[list[float | None]] | None = None
    covariance_parameters: list[str] = Field(default_factory=list)
    statistics: FitStatistics | None = None
    dataset: DatasetReference | None = None
    cpu_name: str | None = None
    cpu_speed: float | None = Field(default=None, gt=0)
    extrapolated_from: list[str] = Field(default_factory=list)
    #: Parameters carried from one CPU under one unknown exponent (the same declared range): their
    #: interval ends move together in every band (:mod:`iosizer.calibration.uncertainty`).
    shared_exponent: list[list[str]] = Field(default_factory=list)
    tool_version: str = __version__
    created_at: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))

    @field_validator("options", mode="before")
    @classmethod
    def _no_bools(cls, value: Any) -> Any:
        # A setting is a number or a name: JSON true would be read as 1 (one server).
        if isinstance(value, Mapping):
            for name, setting in value.items():
                if isinstance(setting, bool):
                    raise ValueError(f"option '{name}' is {str(setting).lower()}, not a number or a name")
        return value

    @field_validator("cpu_speed", mode="before")
    @classmethod
    def _speed(cls, value: Any) -> Any:
        from iosizer.model.family import CPU_SPEED

        if value is None:
            return value
        if isinstance(value, bool):
            raise ValueError(f"is {str(value).lower()}, not a relative speed")
        low, high = CPU_SPEED.bounds
        if isinstance(value, (int, float)) and not low <= value <= high:
            raise ValueError(f"must lie in [{low:g}, {high:g}] (relative per-core speed), got {value:g}")
        return value

    @model_validator(mode="after")
    def _covariance_fits_the_parameters(self) -> "Profile":
        """The covariance is square over ``covariance_parameters``, names parameters, and has variances >= 0."""
        names = self.covariance_parameters
        unknown = [n for n in names if n not in self.parameters]
        if unknown:
            raise ValueError(f"covariance_parameters names {unknown[0]!r}, which is not a parameter")
        if len(set(names)) != len(names):
            raise ValueError("covariance_parameters names a parameter twice")
        if self.covariance is None:
            return self
        if len(self.covariance) != len(names) or any(len(row) != len(names) for row in self.covariance):
            raise ValueError(f"covariance must be {len(names)} x {len(names)} (one row and column per "
                             "covariance_parameters entry)")
        for i, row in enumerate(self.covariance):
            if any(v is not None and not math.isfinite(v) for v in row):
                raise ValueError("covariance entries must be finite numbers (or null)")
            if row[i] is not None and row[i] < 0:
                raise ValueError(f"the variance of {names[i]!r} is {row[i]:g}, below 0")
        return self

    def value(self, name: str) -> float:
        try:
            return self.parameters[name].value
        except KeyError:
            raise ProfileError(f"profile for model '{self.model}' has no parameter '{name}'") from None

    def values(self) -> dict[str, float]:
        return {name: p.value for name, p in self.parameters.items()}


def save_profile(profile: Profile, path: str | Path) -> Path:
    """Write ``profile`` as JSON atomically; returns the path written."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise ProfileError(f"{target}: folder '{folder}' does not exist")
    with atomic_path(target) as temporary:
        profile_writer(profile)(temporary)
    return target


def profile_writer(profile: Profile) -> Callable[[Path], None]:
    """A function that writes ``profile`` as JSON to the (temporary) path it is given, durably.

    The CLI hands it to :func:`iosizer.cli.output.emit`, which writes every
    output of a command together, after everything else has succeeded.
    """
    text = profile.model_dump_json(indent=2) + "\n"

    def write(path: Path) -> None:
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())

    return write


#: Profile documents held in memory, by the name a command is given instead of a file (see below).
_IN_MEMORY: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar("iosizer_profiles_in_memory",
                                                                               default={})


@contextlib.contextmanager
def profiles_in_memory(documents: Mapping[str, Any]) -> Iterator[None]:
    """While active, :func:`load_profile` given one of ``documents``' names reads that document from
    memory (:func:`read_profile`), not a file: the server runs a command with inline profiles this way."""
    token = _IN_MEMORY.set(dict(documents))
    try:
        yield
    finally:
        _IN_MEMORY.reset(token)


def load_profile(path: str | Path, model: str | tuple[str, ...] | None = None) -> Profile:
    """Read and validate a profile; ``model`` demands a specific model name (or one of several)."""
    from iosizer.calibration.files import input_problem

    if not isinstance(path, (str, os.PathLike)):
        raise ProfileError(f"expected the path of a profile file, got {type(path).__name__} {path!r}")
    held = _IN_MEMORY.get()
    if str(path) in held:
        return read_profile(held[str(path)], model, name=str(path))
    if not str(path).strip() or str(path) == ".":  # the command line reads an empty --profile as '.'
        raise ProfileError("the profile's path is empty (or the current folder); give the JSON file "
                           "'iosizer calibrate --output' wrote")
    try:
        problem = input_problem(Path(path))
        if problem is None:
            size = Path(path).stat().st_size
            if size > MAX_PROFILE_BYTES:
                problem = (f"is {size / 2**20:.0f} MiB, more than any profile "
                           f"({MAX_PROFILE_BYTES // 2**20} MiB): not a profile")
        if problem is not None:
            raise ProfileError(f"{path}: cannot read profile: {problem}")
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ProfileError(f"{path}: cannot read profile ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise ProfileError(f"{path}: not a JSON profile (not UTF-8 text)") from None
    return read_profile(text, model, name=str(path))


def read_profile(document: str | bytes | Mapping[str, Any], model: str | tuple[str, ...] | None = None,
                 name: str = "profile") -> Profile:
    """A profile from its document in memory (JSON text, or the parsed object), checked as
    :func:`load_profile` checks a file's; errors quote ``name`` where they would quote the path.

    The server takes profiles inline this way, with no temporary file.
    """
    if isinstance(document, (str, bytes)):
        if len(document) > MAX_PROFILE_BYTES:
            raise ProfileError(f"{name}: cannot read profile: is {len(document) / 2**20:.0f} MiB, more than any "
                               f"profile ({MAX_PROFILE_BYTES // 2**20} MiB): not a profile")
        try:
            data = json.loads(document)
        except UnicodeDecodeError:
            raise ProfileError(f"{name}: not a JSON profile (not UTF-8 text)") from None
        except json.JSONDecodeError as error:
            raise ProfileError(f"{name}: not a JSON profile (line {error.lineno}: {error.msg})") from None
    elif isinstance(document, Mapping):
        data = dict(document)
    else:
        raise ProfileError(f"{name}: expected a profile document (a JSON object), got {type(document).__name__}")
    try:
        profile = Profile.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "document"
        raise ProfileError(
            f"{name}: invalid profile at '{where}': {str(first['msg']).removeprefix('Value error, ')} "
            f"({error.error_count()} problem{'s' if error.error_count() > 1 else ''})"
        ) from None
    if isinstance(model, tuple) and profile.model not in model:  # a question several families answer
        raise ProfileError(f"{name}: profile is for model '{profile.model}', this command needs one of "
                           f"{', '.join(repr(m) for m in model)}")
    if isinstance(model, str) and profile.model != model:
        raise ProfileError(f"{name}: profile is for model '{profile.model}', this command needs '{model}'")
    _check_against_model(profile, name)
    _remember(profile, name)
    return profile


#: Where each profile in memory was read from: id -> (a weak reference to it, the path as given or the name
#: an inline document goes by). Provenance for an answer that names its source (``latency budget``'s
#: ``model``), kept beside the profile so that two profiles read alike stay equal.
_ORIGINS: dict[int, tuple[Any, str]] = {}


def _remember(profile: Profile, name: str) -> None:
    import weakref

    key = id(profile)

    def forget(reference: Any) -> None:
        if _ORIGINS.get(key, (None,))[0] is reference:
            del _ORIGINS[key]

    _ORIGINS[key] = (weakref.ref(profile, forget), name)


def origin(profile: Any) -> str | None:
    """Where ``profile`` was read from (:func:`load_profile`'s path as given), or None (built in memory)."""
    entry = _ORIGINS.get(id(profile))
    return entry[1] if entry is not None and entry[0]() is profile else None


def _check_against_model(profile: Profile, path: str | Path) -> None:
    """Options and parameters must be what the family declares.

    Every fitted parameter must be present; a declared (published, derived
    or assumed) one may be absent, and then its declared value applies, so
    a profile written before a family declared more of its numbers still
    loads. A parameter the family does not declare is an error.
    """
    from iosizer.errors import IosizerError
    from iosizer.model.registry import declaration

    try:
        family = declaration(profile.model)
        settings = {s.name: profile.options.get(s.name) for s in family.settings}
        unknown = sorted(set(profile.options) - set(settings) - set(family.fit.holdable if family.fit else ()))
        if unknown:
            raise ProfileError(f"options {', '.join(unknown)} do not apply to family '{profile.model}'")
        specs = {s.name: s for s in family.specs(family.check_settings(settings)) if s.kind == "parameter"}
    except IosizerError as error:
        raise ProfileError(f"{path}: {error}") from None
    missing = [n for n, s in specs.items() if s.status == "fitted" and n not in profile.parameters]
    extra = [n for n in profile.parameters if n not in specs]
    if missing or extra:
        raise ProfileError(
            f"{path}: family '{profile.model}' with these options has parameters "
            f"{', '.join(specs)}; the profile has {', '.join(profile.parameters) or 'none'}"
        )


def profile_values(profile: Profile) -> dict[str, Any]:
    """Every value a family's solve needs: declared values, settings, then the profile's own."""
    from iosizer.model.registry import declaration

    family = declaration(profile.model)
    settings = {s.name: profile.options.get(s.name) for s in family.settings}
    return {**family.values(settings), **profile.values()}


def declared_profile(
    family_name: str,
    settings: Mapping[str, Any] | None = None,
    overrides: Mapping[str, float] | None = None,
    *,
    fitted: Mapping[str, ParameterEstimate] | None = None,
    cpu_name: str | None = None,
    cpu_speed: float | None = None,
) -> Profile:
    """A profile holding a family's declared values: its shipped form when nothing is fitted.

    ``settings`` are checked against their declarations and become the
    profile's options; ``overrides`` replace declared values (bounds
    checked); ``fitted`` supplies estimates (with intervals) for parameters
    a calibration found. Every parameter with no fit is fixed (no interval).
    """
    from iosizer.model.registry import declaration

    family = declaration(family_name)
    checked = family.check_settings(settings or {})
    values = family.values(checked, overrides)
    fitted = dict(fitted or {})
    parameters: dict[str, ParameterEstimate] = {}
    for spec in family.specs(checked):
        if spec.kind == "setting":
            continue
        if spec.name in fitted:
            parameters[spec.name] = fitted[spec.name]
            continue
        if spec.name not in values:
            raise ProfileError(f"family '{family_name}': parameter '{spec.name}' is fitted and was not given")
        parameters[spec.name] = ParameterEstimate(
            value=float(values[spec.name]), unit=spec.unit, vary=False,
            cpu_scaling=spec.cpu_scaling.value, exponent_bounds=spec.exponent_bounds,
        )
    return Profile(model=family_name, options=dict(checked), parameters=parameters,
                   cpu_name=cpu_name, cpu_speed=cpu_speed)


def with_changes(profile: Profile, values: dict[str, Any], changes: Mapping[str, Any],
                 label: Callable[[str], str] = lambda name: name) -> tuple[dict[str, Any], Profile, str]:
    """A what-if's settings and parameters laid over a profile's values, each checked by its declaration.

    ``values``: the profile's (:func:`profile_values`); ``changes``: what the planner sets (None keeps
    a value). A changed setting is checked with the others; a changed parameter is fixed at its new
    value in the returned profile, so no band comes from it. Returns (values, profile, a note naming
    the changes, empty when there are none); errors name a value as ``label(name)``.
    """
    from iosizer.model.registry import declaration

    family = declaration(profile.model)
    values = dict(values)
    given = {k: v for k, v in changes.items() if v is not None}
    setting_names = {s.name for s in family.settings}
    new_settings = {k: v for k, v in given.items() if k in setting_names}
    if new_settings:
        current = {name: values.get(name) for name in setting_names}
        values.update(family.check_settings({**current, **new_settings}))
    fixed = {k: family.spec(k, values).check(v, label(k)) for k, v in given.items() if k not in setting_names}
    if fixed:
        values.update(fixed)
        profile = profile.model_copy(update={"parameters": {
            name: (estimate.model_copy(update={"value": float(fixed[name]), "vary": False, "ci_low": None,
                                               "ci_high": None, "stderr": 0.0})
                   if name in fixed else estimate)
            for name, estimate in profile.parameters.items()}})
    from iosizer.model.family import changes_note

    return values, profile, changes_note({**new_settings, **fixed})

