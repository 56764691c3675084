"""The public Python API: one interface over every model family.

In the spirit of scipy.stats, every family answers the same verbs::

    >>> import iosizer
    >>> "mmc" in iosizer.families()
    True
    >>> mmc = iosizer.family("mmc")
    >>> [c.name for c in mmc.columns.inputs], [c.name for c in mmc.columns.outputs]
    (['arrival_rate_per_s'], ['mean_response_s'])
    >>> answer = mmc.predict({"service_rate_per_s": 1000.0, "servers": 4}, arrival_rate_per_s=[2000.0, 3000.0])
    >>> [f"{r * 1e3:.4f} ms" for r in answer.mean_response_s]
    ['1.0870 ms', '1.5094 ms']

- ``family.parameters``: every declared number with unit, value, bounds,
  status (published, derived, assumed, fitted) and source; fitted values
  are the shipped calibration's;
- ``family.columns``: the measured-data schema (``.inputs``, ``.outputs``);
- ``family.formula`` and ``family.service_time``: the model's equations and
  the service-time assumption behind them;
- ``family.shipped()``: the profile calibrated from the shipped data (the
  "frozen" family);
- ``family.predict(params, **inputs)``: the outputs for parameter values
  (a profile, a mapping over the shipped values, or None for the shipped
  profile) at input arrays, vectorised; a profile's 95 % intervals give
  ``<output>_ci_low`` / ``<output>_ci_high``;
- ``family.calibrate(data, **options)``: a fit of the family to a CSV path
  (or a mapping of columns) that reports itself and gives a profile;
- ``family.example()``: the shipped example data file in ``.columns`` form;
- ``family.size(params, target_<output>=..., **inputs)``: the declared sizing targets of its questions
  (``iosizer size FAMILY``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from iosizer.errors import InputError, ProfileError
from iosizer.frames import Table, TableView, viewed

if TYPE_CHECKING:  # the heavy modules load on first use
    from iosizer.calibration.questions import Answer
    from iosizer.calibration.calibrate import Calibration
    from iosizer.calibration.extrapolate import Extrapolation
    from iosizer.calibration.profile import Profile
    from iosizer.model.family import Family, ParameterSpec, Question, Schema


def families() -> list[str]:
    """The name of every model family, in presentation order."""
    from iosizer.model.registry import family_names

    return family_names()


def family(name: str) -> "ModelFamily":
    """The family ``name`` (see :func:`families`); an unknown name raises :class:`InputError`."""
    if not isinstance(name, str):  # a list was a TypeError from the cache
        raise InputError(f"a family is named by text (see iosizer.families()), got {type(name).__name__} {name!r}")
    return _family(name)


@lru_cache(maxsize=None)
def _family(name: str) -> "ModelFamily":
    from iosizer.model.registry import declaration

    return ModelFamily(declaration(name))


def ask(command: str | Sequence[str], /, *arguments: Any, **options: Any) -> Any:
    """The answer of a declared question (``"mm1k queue"``: a family and a question with a solve), as
    ``iosizer <family> <question> ... --format json`` prints it, in Python values, through
    :meth:`ModelFamily.ask`: keyword arguments are its inputs, the family's settings and parameters,
    ``profile`` (a path or a :class:`Profile`), ``cpu_speed``, ``band`` and ``percentile``.
    :func:`iosizer.ask` (:mod:`iosizer.catalogue`) answers every command and passes questions here.
    """
    import json

    asked = _declared_question(command)
    if asked is None:
        raise InputError(f"{command!r} is no declared question (iosizer.ask answers every command)")
    chosen, question = asked
    if arguments:
        raise InputError(f"iosizer {' '.join(question.path(chosen.name))} takes its values by name, "
                         f"got {len(arguments)} by position")
    profile = options.pop("profile", None)
    if profile is not None and not hasattr(profile, "model"):
        if not isinstance(profile, (str, Path, list, tuple)):
            raise InputError(f"profile: expected a path or a profile, got {type(profile).__name__} {profile!r}")
        from iosizer.calibration.profile import load_profile as load

        several = isinstance(profile, (list, tuple))  # profiles of several CPUs, extrapolated to cpu_speed
        models = (chosen.name, *question.also) if question.also else chosen.name
        given_profiles: list[Any] = list(profile) if isinstance(profile, (list, tuple)) else [profile]
        profile = [p if hasattr(p, "model") else load(p, models) for p in given_profiles]
        profile = profile if several else profile[0]
    percentile = options.pop("percentile", None)
    percentiles = None if percentile is None else (percentile if isinstance(percentile, (list, tuple))
                                                    else [percentile])
    answer = chosen.ask(question.command, profile, cpu_speed=options.pop("cpu_speed", None),
                        percentiles=percentiles, band=options.pop("band", None) or "parameter",
                        simulate=bool(options.pop("simulate", False)), **options)
    return viewed(json.loads(answer.to_json()), answer.table())


def is_question(command: str | Sequence[str]) -> bool:
    """Whether ``command`` names a declared question by its CLI path (``"queue mmc"``, ``"replication"``)."""
    return _declared_question(command) is not None


def _declared_question(command: str | Sequence[str]) -> "tuple[ModelFamily, Question] | None":
    """(family, question) when ``command`` names a declared question by its CLI path, else None."""
    words = tuple(command.split()) if isinstance(command, str) else tuple(command) \
        if isinstance(command, (list, tuple)) else ()
    if len(words) not in (1, 2) or not all(isinstance(w, str) for w in words):
        return None  # a question's path: 'family question', or 'family' for one at the family's own path
    from iosizer.model.registry import BUILTIN_GROUPS, declaration

    for name in BUILTIN_GROUPS.get(words[0], (words[0],)):  # 'queue mmc' is family mmc's question
        try:
            declared = declaration(name)
        except InputError:
            return None
        for question in declared.questions:
            if question.answerable and question.path(declared.name) == words:
                return _family(declared.name), question
    return None


def __getattr__(name: str) -> Any:
    if name == "Answer":  # the answer of a declared question (iosizer.Answer), from the layer that computes it
        from iosizer.calibration.questions import Answer

        return Answer
    raise AttributeError(f"module 'iosizer.api' has no attribute {name!r}")


def load_profile(path: str | Path) -> "Profile":
    """Read and validate a profile written by ``iosizer calibrate`` or :meth:`FitReport.save`."""
    from iosizer.calibration.profile import load_profile as load

    return load(path)


def extrapolate(profiles: Sequence["Profile | str | Path"], cpu_speed: float,
                cpu_name: str | None = None) -> "Extrapolation":
    """Carry profiles measured on one or more CPUs to a CPU of relative per-core speed ``cpu_speed``.

    Returns the extrapolation: ``.profile`` (usable wherever a profile is),
    ``.parameters`` (how each parameter was carried) and ``.warnings``.
    """
    import os

    from iosizer.calibration.extrapolate import extrapolate as carry
    from iosizer.calibration.profile import Profile

    if isinstance(profiles, (str, os.PathLike, Profile)):  # one profile (a path's letters are not profiles)
        profiles = [profiles]
    if not isinstance(profiles, Sequence):
        raise InputError(f"extrapolate takes profiles (or their paths) in a list, got {type(profiles).__name__}")
    loaded = [p if isinstance(p, Profile) else load_profile(p) for p in profiles]
    return carry(loaded, cpu_speed, cpu_name)


@dataclass(frozen=True, repr=False)  # repr: the table of TableView
class Prediction(TableView):
    """A family's outputs at the given inputs, with their 95 % bands where the profile has intervals.

    Fields are the output names (units in the names), and for each
    ``<name>_ci_low`` / ``<name>_ci_high`` when a band exists. Values are
    numpy arrays shaped like the broadcast inputs.
    """

    family: str
    inputs: Mapping[str, Any]
    outputs: Mapping[str, Any]
    bands: Mapping[str, tuple[Any, Any]]

    def __getattr__(self, name: str) -> Any:
        if name in self.outputs:  # an output alone: its band is not computed
            return self.outputs[name]
        fields = self.to_arrays()
        if name in fields:
            return fields[name]
        raise AttributeError(f"prediction of '{self.family}' has no field '{name}'; fields: {', '.join(fields)}")

    def to_arrays(self) -> dict[str, Any]:
        out = dict(self.outputs)
        for name, (low, high) in self.bands.items():
            out[f"{name}_ci_low"] = low
            out[f"{name}_ci_high"] = high
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain lists and floats, infinite band ends as None (what ``--format json`` prints)."""
        import math

        import numpy as np

        def plain(value: Any) -> Any:
            array = np.asarray(value, dtype=np.float64)
            listed = array.tolist()
            if array.ndim == 0:
                return listed if math.isfinite(listed) else None
            return [v if math.isfinite(v) else None for v in array.ravel().tolist()]

        record = {name: plain(value) for name, value in self.inputs.items()}
        record.update({name: plain(value) for name, value in self.to_arrays().items()})
        return record

    def table(self) -> Table:
        """One row per point: inputs, then each output with its band (``to_frame()``, ``repr()``)."""
        from iosizer.frames import record_table

        schema = family(self.family).columns
        units = {c.name: c.unit for c in (*schema.inputs, *schema.outputs)}
        banded = " with 95 % bands" if self.bands else ""
        return record_table(self.to_dict(), list(self.inputs), list(self.outputs), units,
                            title=f"{self.family} prediction{banded}")


class _LazyBands(Mapping[str, tuple[Any, Any]]):
    """A prediction's 95 % bands, computed by ``compute`` when first read (then kept)."""

    def __init__(self, compute: Any) -> None:
        self._compute = compute
        self._bands: dict[str, tuple[Any, Any]] | None = None

    def _read(self) -> dict[str, tuple[Any, Any]]:
        if self._bands is None:
            self._bands = dict(self._compute())
            self._compute = None
        return self._bands

    def __getitem__(self, name: str) -> tuple[Any, Any]:
        return self._read()[name]

    def __iter__(self) -> Any:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __repr__(self) -> str:
        return repr(self._read())


class FitReport(TableView):
    """A calibration of a family to measured data: values, 95 % intervals, goodness of fit, profile.

    ``repr()`` is :meth:`fit_report`; ``to_frame()`` the parameter table;
    ``to_dict()`` what ``iosizer calibrate --format json`` prints.
    """

    def __init__(self, calibration: "Calibration") -> None:
        self.calibration = calibration

    @property
    def profile(self) -> "Profile":
        return self.calibration.profile

    @property
    def params(self) -> dict[str, float]:
        return dict(self.calibration.fit.params)

    @property
    def intervals(self) -> dict[str, tuple[float, float]]:
        return dict(self.calibration.fit.intervals)

    @property
    def free(self) -> tuple[str, ...]:
        return self.calibration.fit.free

    @property
    def rmse(self) -> float:
        return self.calibration.fit.rmse

    @property
    def r2(self) -> float:
        return self.calibration.fit.r2

    @property
    def residuals(self) -> dict[str, Any]:
        return dict(self.calibration.fit.residuals)

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.calibration.fit.warnings

    @property
    def tails(self) -> dict[str, dict[str, Any]]:
        """Measured response percentiles against the fitted model's, per percentile column."""
        return dict(self.calibration.tails)

    def predict(self, **inputs: Any) -> Any:
        """The fitted model at new inputs with its 95 % band (delta method)."""
        return self.calibration.fit.predict(inputs)

    def report(self) -> str:
        return self.calibration.fit.report()

    def to_dict(self, profile_path: str | Path | None = None) -> dict[str, Any]:
        """What ``iosizer calibrate --format json`` prints (``profile``: where it was written, if it was)."""
        from iosizer.calibration.calibrate import tail_summary
        from iosizer.calibration.fit import CONFIDENCE_CONVENTION

        fit = self.calibration.fit
        parameters = {
            name: {"value": e.value, "ci_low": e.ci_low, "ci_high": e.ci_high, "unit": e.unit, "fixed": not e.vary}
            for name, e in self.profile.parameters.items()
        }
        return {
            "model": self.profile.model,
            "parameters": parameters,
            "rmse": fit.rmse,
            "r2": fit.r2,
            "n_points": fit.n_points,
            "dof": fit.dof,
            "columns": {k: {"rmse": s.rmse, "r2": s.r2, "n_points": s.n_points} for k, s in fit.statistics.items()},
            "warnings": list(fit.warnings),
            "notes": list(self.calibration.notes),
            "tails": dict(self.calibration.tails),
            "tail_summary": tail_summary(self.calibration.tails),
            "confidence": CONFIDENCE_CONVENTION,
            "profile": str(profile_path) if profile_path is not None else None,
        }

    def table(self) -> Table:
        """One row per parameter: value, standard error, 95 % interval, unit, held or fitted."""
        from iosizer.frames import fit_table

        return fit_table(self.to_dict(), dict(self.calibration.fit.stderr), self.calibration.dataset.path)

    def fit_report(self) -> str:
        """The fit as lmfit prints one: statistics, parameters (+/- standard error, 95 % interval), warnings."""
        from iosizer.frames import fit_report

        return fit_report(self.to_dict(), dict(self.calibration.fit.stderr), self.calibration.dataset.path)

    def __repr__(self) -> str:
        return self.fit_report()

    def save(self, path: str | Path) -> Path:
        """Write the profile as JSON, atomically."""
        from iosizer.calibration.profile import save_profile

        return save_profile(self.profile, path)


class ModelFamily:
    """One model family as the public API offers it (see the module docstring)."""

    def __init__(self, declaration: "Family") -> None:
        self._declaration = declaration

    def __repr__(self) -> str:
        return f"<iosizer family {self.name!r}: {self.summary}>"

    # --- what the family is ------------------------------------------------

    @property
    def name(self) -> str:
        return self._declaration.name

    @property
    def summary(self) -> str:
        return self._declaration.summary

    @property
    def source(self) -> str:
        return self._declaration.source

    @property
    def service_time(self) -> str:
        """The service-time assumption behind every answer of this family."""
        return self._declaration.service_time

    @property
    def formula(self) -> str:
        """The model's equations, in plain text: what every answer of this family computes."""
        return self._declaration.formula

    @property
    def questions(self) -> tuple["Question", ...]:
        return self._declaration.questions

    @property
    def columns(self) -> "Schema":
        return self._declaration.columns

    @property
    def declaration(self) -> "Family":
        return self._declaration

    @cached_property
    def parameters(self) -> tuple["ParameterSpec", ...]:
        """Every parameter and setting at its shipped value (fitted ones from :meth:`shipped`).

        A value the shipped calibration fitted says ``fitted``, whatever the declaration assumed; one it
        holds at another value than the declared one says so in its source.
        """
        shipped = self.shipped()
        filled = []
        for spec in self._declaration.specs(shipped.options):
            if spec.name in shipped.parameters:
                estimate = shipped.parameters[spec.name]
                if estimate.vary and spec.status != "fitted":
                    spec = spec.with_value(estimate.value, "fitted", f"fitted by the shipped calibration "
                                                                     f"(declared {spec.status}: {spec.source})")
                elif spec.value is not None and estimate.value != spec.value:
                    spec = spec.with_value(estimate.value, source=(
                        f"the shipped profile holds it at {estimate.value:g} (declared {spec.value:g}; "
                        f"iosizer calibrate holds the declared value unless told): {spec.source}"))
                else:
                    spec = spec.with_value(estimate.value)
            elif spec.value is None and isinstance(option := shipped.options.get(spec.name), (int, float)):
                spec = spec.with_value(option)  # a count the profile records (servers, stations)
            filled.append(spec)
        return tuple(filled)

    # --- the verbs -----------------------------------------------------------

    def shipped(self, variant: str | None = None) -> "Profile":
        """The profile calibrated from the shipped data (seed figures, or the example file).

        ``variant`` picks one where the family ships several (a device of
        seed 000 table 4-1, a link of seed 004).
        """
        return _shipped(self.name, variant)

    def example(self) -> Path:
        """Path of the shipped example measurement file in this family's ``columns`` schema."""
        from iosizer.calibration.frozen import example_path

        return example_path(self.name)

    def predict(self, params: "Profile | Mapping[str, Any] | None" = None, **inputs: Any) -> Prediction:
        """Outputs (``columns.outputs``) at ``inputs`` for parameter values ``params``.

        ``params``: a profile (its intervals give 95 % bands), a mapping of
        values laid over the shipped profile (``{"servers": 8}``), or None
        for the shipped profile. Inputs are the ``columns.inputs`` names.
        """
        import numpy as np

        from iosizer.calibration.profile import Profile, profile_values

        if params is None:  # the shipped profile's values, resolved once per family
            profile, resolved = self._shipped_values
            values = dict(resolved)
        else:
            profile = params if isinstance(params, Profile) else self.shipped()
            if profile.model != self.name:
                raise ProfileError(f"profile is for family '{profile.model}', not '{self.name}'")
            values = profile_values(profile)
        if isinstance(params, Mapping):
            family = self._declaration
            settings = {s.name: params.get(s.name, values.get(s.name)) for s in family.settings}
            checked = family.check_settings(settings)
            overrides = {k: v for k, v in params.items() if k not in checked}
            values = {**values, **checked, **{k: family.spec(k, checked).check(v) for k, v in overrides.items()}}
        if params is not None:
            values = _complete(self.name, values)
        arrays = self._inputs(inputs)
        outputs = {k: np.asarray(v, dtype=np.float64) for k, v in self._declaration.solve(values, arrays).items()}
        bands: Mapping[str, tuple[Any, Any]] = {}
        if not isinstance(params, Mapping) and any(e.vary for e in profile.parameters.values()):
            from iosizer.calibration.uncertainty import propagate

            held = {k: np.array(v) for k, v in arrays.items()}  # the caller's arrays may change before it is read

            def evaluate(fitted: Mapping[str, float]) -> Mapping[str, Any]:
                return self._declaration.solve({**values, **fitted}, held)

            # The band costs a solve per fitted parameter and one more: done when first read, so a caller
            # that wants only the outputs of one point pays one solve.
            bands = _LazyBands(lambda: propagate(profile, evaluate))
        return Prediction(self.name, arrays, outputs, bands)

    @cached_property
    def _shipped_values(self) -> "tuple[Profile, dict[str, Any]]":
        """The shipped profile and its values completed for the solve (:meth:`predict` without params)."""
        from iosizer.calibration.profile import profile_values

        profile = self.shipped()
        if profile.model != self.name:
            raise ProfileError(f"profile is for family '{profile.model}', not '{self.name}'")
        return profile, _complete(self.name, profile_values(profile))

    def _inputs(self, given: Mapping[str, Any]) -> dict[str, Any]:
        import numpy as np

        names = [c.name for c in self.columns.inputs]
        unknown = sorted(set(given) - set(names))
        missing = [c.name for c in self.columns.inputs if c.required and c.name not in given]
        if unknown or missing:
            raise InputError(
                f"family '{self.name}' takes inputs {', '.join(names)}"
                + (f"; unknown: {', '.join(unknown)}" if unknown else "")
                + (f"; missing: {', '.join(missing)}" if missing else "")
            )
        arrays = {}
        for column in self.columns.inputs:
            if column.name not in given:  # an optional input (device: a row's block size)
                continue
            given_value = given[column.name]
            try:
                kind = np.asarray(given_value).dtype
                array = np.asarray(given_value, dtype=np.float64)
            except (TypeError, ValueError):  # a word, a mapping, ragged lists
                raise InputError(f"{column.name} ({column.unit}) must be a number or an array of numbers, "
                                 f"got {_shown(given_value)}") from None
            if kind == np.bool_ or kind == np.object_:  # True is not a rate; None is not a number
                raise InputError(f"{column.name} ({column.unit}) must be numbers, got {_shown(given_value)}")
            bad = ~np.isfinite(array) | (array < column.minimum) | (array > column.maximum)
            if column.integer:
                bad |= array != np.floor(array)
            if bad.any():
                raise InputError(f"{column.name} ({column.unit}) out of its domain: {array[bad].flat[0]:g}")
            arrays[column.name] = array
        shapes = np.broadcast_shapes(*(a.shape for a in arrays.values())) if arrays else ()
        return {k: np.broadcast_to(v, shapes) for k, v in arrays.items()}

    def ask(self, question: str, params: "Profile | Mapping[str, Any] | None" = None, *,
            cpu_speed: float | None = None, percentiles: Sequence[float] | None = None,
            band: str = "parameter", simulate: bool = False, **given: Any) -> "Answer":
        """Answer a declared question (one with a ``solve``): the one road every surface takes.

        ``params``: a profile (the planner's calibration; its intervals give
        95 % bands), a mapping of values laid over the shipped profile, or
        None for the shipped profile. ``cpu_speed`` carries the profile to a
        CPU of that relative per-core speed (the band widens). ``given``:
        the question's inputs (a number or a list: the answer covers every
        combination; a left-out input takes its default sweep) and any of
        the family's settings and parameters by name (a given parameter is
        fixed: no band comes from it). ``percentiles``: where the question
        declares them, ``<output>_pP`` columns. ``band``: ``parameter`` (the
        parameters' uncertainty) or ``prediction`` (plus the fit's residual
        scatter). ``simulate``: where the question has a percentile simulation,
        the percentiles are answered by simulation with their 95 % intervals
        (:mod:`iosizer.simulate.answered`). Every value is checked once, by its
        declaration; a bad one is a one-line :class:`InputError`. See
        :func:`iosizer.calibration.questions.answer`.
        """
        from iosizer.calibration.questions import answer

        answered = answer(self.name, question, params, cpu_speed=cpu_speed, percentiles=percentiles, band=band,
                          **given)
        if not simulate:
            return answered
        from iosizer.simulate.answered import simulate_percentiles
        from iosizer.simulate.hooks import answer_simulation, percentile_simulation

        whole = answer_simulation(self.name, self.declaration.question(question))
        if whole is not None:  # the question simulates its own answer (a curve's means)
            simulated: "Answer" = whole(answered)
            return simulated
        hook = percentile_simulation(self.name, self.declaration.question(question))
        if hook is None:
            from iosizer.simulate.answered import means_simulation, simulate_means

            means = means_simulation(self.name, self.declaration.question(question))
            if means is not None:  # the question's declared Simulation: its outputs' means
                return simulate_means(answered, means)
            raise InputError(f"question '{question}' of family '{self.name}' has no simulation of its percentiles")
        return simulate_percentiles(answered, hook, percentiles or ())

    def size(self, params: "Profile | Mapping[str, Any] | None" = None, *, percentile: float | None = None,
             cpu_speed: float | None = None, command: str | None = None, profile_name: str | None = None,
             **given: Any) -> Any:
        """Answer the family's declared sizing targets (``target_iops=40000``; see ``Question.sizing``).

        Keyword arguments named as a declared target (``target_<output>`` or the declaration's own
        name) are targets; the others are the question's other inputs, settings and parameters, as
        :meth:`ask` takes them. ``params``: a profile (its intervals give each answer's interval), a
        mapping of values, or None for the shipped profile. Returns a
        :class:`~iosizer.calibration.declared_sizing.SizingAnswer` (``to_data()`` is what ``iosizer size
        <family> --format json`` prints). ``command``: the ``iosizer size`` command whose sizings answer,
        where the declaration names one other than the family's (``"outstanding"`` of ``replication``);
        ``profile_name``: the profile as the planner named it (for the notes).
        """
        from iosizer.calibration.declared_sizing import size, sizing_question

        question = sizing_question(self._declaration)
        names = {s.target_name for s in question.sizing if not s.always and (command is None or (
            s.command or self.name) == command)} if question is not None else set()
        targets = {k: given.pop(k) for k in list(given) if k in names}
        return size(self.name, params, targets=targets, percentile=percentile, cpu_speed=cpu_speed, command=command,
                    profile_name=profile_name, **given)

    def calibrate(self, data: "str | Path | Mapping[str, Any]", **options: Any) -> FitReport:
        """Fit the family to measured data: a CSV path in ``columns`` form, or a mapping of columns.

        ``options`` are the family's settings (``servers=4``) and held
        parameters (``think_time_s=0.1``), plus ``cpu_name`` and
        ``cpu_speed`` to record the CPU the data were measured on, and
        ``fit_percentiles=True`` to fit measured percentile columns too (False: the means only; left out:
        the family's default, which for ``device`` fits them where the data carry them).
        """
        from iosizer.calibration.calibrate import calibrate, calibrate_dataset

        cpu_name, cpu_speed = options.pop("cpu_name", None), options.pop("cpu_speed", None)
        fit_percentiles = options.pop("fit_percentiles", None)  # None: the family's default
        if isinstance(fit_percentiles, (int, float)) and not isinstance(fit_percentiles, bool):
            fit_percentiles = bool(fit_percentiles)
        if isinstance(data, Mapping):
            return FitReport(calibrate_dataset(self.name, _dataset(self.columns, data), options, cpu_name=cpu_name,
                                               cpu_speed=cpu_speed, fit_percentiles=fit_percentiles))
        return FitReport(calibrate(self.name, data, options, cpu_name=cpu_name, cpu_speed=cpu_speed,
                                   fit_percentiles=fit_percentiles))


#: How an error names data given as a mapping of columns (a CSV "line" is its row + 1, the header being 1).
_IN_MEMORY = "<in-memory columns>"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _dataset(schema: "Schema", columns: Mapping[str, Any]) -> Any:
    """An in-memory dataset, checked like a CSV file's rows."""
    import csv
    import io
    import tempfile

    from iosizer.calibration.dataset import load_dataset

    from iosizer.errors import DatasetError

    names = list(columns)
    if not names:
        raise InputError(f"no columns given; {schema.name} calibrates from "
                         f"{', '.join(c.name for c in schema.columns if c.required)}")
    for name in names:
        if isinstance(columns[name], (str, bytes)) or not hasattr(columns[name], "__len__"):
            raise InputError(f"column '{name}' must be a list or an array of values, got {_shown(columns[name])}")
    lengths = {len(list(columns[n])) for n in names}
    if len(lengths) != 1:
        raise InputError(f"columns {', '.join(names)} differ in length")
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(names)
    writer.writerows(zip(*(list(columns[n]) for n in names)))
    # One validation path for files and mappings: the CSV loader's row checks.
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.csv"
        path.write_text(text.getvalue(), encoding="utf-8")
        try:
            dataset = load_dataset(path, schema)
        except DatasetError as error:  # name the columns as the caller gave them, not a temporary file
            raise DatasetError(str(error).replace(str(path), _IN_MEMORY)) from None
    return replace(dataset, path=_IN_MEMORY)


# The shipped ("frozen") profiles are built in the calibration layer; these names stay for callers.
from iosizer.calibration.frozen import REFERENCE_CPU_SPEED  # noqa: E402


def _complete(name: str, values: dict[str, Any]) -> dict[str, Any]:
    from iosizer.calibration.family_modules import complete_values

    return complete_values(name, values)


def _shipped(name: str, variant: str | None) -> "Profile":
    from iosizer.calibration.frozen import shipped

    return shipped(name, variant)
