"""The calibratable families, as the fitter sees them: a view of the family registry.

Nothing here is declared per family. Each family in
:mod:`iosizer.model.registry` that has a :class:`~iosizer.model.family.FitPlan`
is calibratable; :class:`CalibrationModel` turns its declaration into a fit
problem: the data schema is the family's ``columns``, the parameters the
data identify start where the plan says (inside their declared bounds,
narrowed by the data where the plan says so), every other parameter is held
at its declared value (or at a value the planner gives for a ``holdable``
one) and reported as fixed, and the prediction is the family's ``solve``.
``iosizer calibrate FAMILY`` lists exactly these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from iosizer.calibration.dataset import Dataset
from iosizer.calibration.fit import JacobianFunction, ModelFunction, Parameter
from iosizer.errors import CalibrationError, InputError
from iosizer.model.family import Family, Schema
from iosizer.model.mva import demand_name  # noqa: F401  (re-exported: profiles name demands with it)
from iosizer.model.registry import declaration, family_names


@dataclass(frozen=True)
class CalibrationModel:
    """One calibratable family; ``options`` are its settings plus held parameters."""

    family: Family

    @property
    def name(self) -> str:
        return self.family.name

    @property
    def summary(self) -> str:
        return self.family.summary

    @property
    def schema(self) -> Schema:
        return self.family.columns

    @property
    def relative(self) -> bool:
        return self.family.fit.relative

    @property
    def option_names(self) -> tuple[str, ...]:
        """The options this family accepts (CLI flags without dashes, underscored)."""
        return tuple(s.name for s in self.family.settings) + self.family.fit.holdable

    def held_names(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """Parameters a planner may hold (``--set NAME=VALUE``): every declared parameter, given the settings
        (a closed network's ``demand_k_s`` exist once ``stations`` is known)."""
        names = [s.name for s in self.family.specs(self._settings(settings)) if s.kind == "parameter"]
        return tuple(dict.fromkeys([*self.family.fit.holdable, *names]))

    def options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Validate user options: settings, and held values of any declared parameter; unknown ones are an
        error, not silently dropped."""
        settings = {s.name: given.get(s.name) for s in self.family.settings}
        checked: dict[str, Any] = self.family.check_settings(settings)
        held = self.held_names(checked)
        unknown = sorted(k for k, v in given.items() if v is not None and k not in settings and k not in held)
        if unknown:
            flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
            raise InputError(f"{flags} does not apply to model '{self.name}' (its settings and parameters: "
                             f"{', '.join([*settings, *held])})")
        for name in held:
            value = given.get(name)
            if value is None and name not in self.family.fit.holdable:
                continue  # (the holdable ones are always named: a profile records them, None when fitted)
            checked[name] = None if value is None else self.family.spec(name, checked).check(
                value, "--" + name.replace("_", "-"))
        return checked

    def _settings(self, options: Mapping[str, Any]) -> dict[str, Any]:
        # A setting left out is its declared default (closed-network's servers: all single).
        return {s.name: options[s.name] if s.name in options else s.value for s in self.family.settings}

    def _solve_settings(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The settings plus what a family's solve needs beyond them (a scenario's port shares)."""
        from iosizer.calibration.family_modules import complete_values

        return complete_values(self.name, self._settings(options))

    def parameters(self, dataset: Dataset, options: Mapping[str, Any],
                   found: list[str] | None = None) -> list[Parameter]:
        """Start values from the family's plan; everything else held at its declaration.

        A start the data put outside the parameter's bounds (a shuffled or
        impossible column) is moved to the nearest bound, so the fit runs and
        its judge names the lines that misfit; ``found`` collects what was moved.
        """
        start = self.family.fit.start(dataset.values, {**options, **self._solve_settings(options)})
        parameters = []
        for spec in self.family.specs(self._settings(options)):
            if spec.kind != "parameter":
                continue
            low, high = spec.bounds
            held = options.get(spec.name)
            if spec.name in start and held is None:
                first = start[spec.name]
                value, low, high = first if isinstance(first, tuple) else (first, low, high)
                vary = True
                if not low <= value <= high and found is not None:
                    columns = ", ".join(c.name for c in self.schema.observed)
                    found.append(f"the data ({columns}) put the start of '{spec.name}' at {value:g} {spec.unit}, "
                                 f"outside its range [{low:g}, {high:g}]: started at the nearest bound")
                value = min(max(value, low), high) if low <= high else value
            else:
                value = held if held is not None else spec.value
                vary = False
                if value is None:
                    raise CalibrationError(f"model '{self.name}': parameter '{spec.name}' has no start value")
            parameters.append(Parameter(
                spec.name, float(value), lower=low, upper=high, vary=vary, unit=spec.unit,
                description=spec.description, cpu_scaling=spec.cpu_scaling,
                exponent_bounds=spec.exponent_bounds,
            ))
        return parameters

    def function(self, options: Mapping[str, Any]) -> ModelFunction:
        settings = self._solve_settings(options)
        solve = self.family.solve

        def model(params: Mapping[str, float], inputs: Mapping[str, Any]) -> Mapping[str, Any]:
            return solve({**settings, **params}, inputs)

        return model

    def with_percentiles(self, options: Mapping[str, Any], percentiles: Mapping[str, float]) -> ModelFunction:
        """The family's solve plus its response percentiles: ``{column: P}``, each in the family's
        ``tail_unit`` (:attr:`iosizer.model.family.Family.tail`)."""
        settings = self._solve_settings(options)
        solve, tail = self.family.solve, self.family.tail
        if tail is None:
            raise InputError(f"family '{self.name}' has no percentile model to fit measured percentiles to")

        def model(params: Mapping[str, float], inputs: Mapping[str, Any]) -> Mapping[str, Any]:
            values = {**settings, **params}
            out = dict(solve(values, inputs))
            for column, percentile in percentiles.items():
                out[column] = tail(values, inputs, percentile)
            return out

        return model

    def jacobian(self, options: Mapping[str, Any]) -> JacobianFunction | None:
        return self.family.fit.jacobian(self._settings(options))


def calibratable_names() -> list[str]:
    """Families that can be fitted to measured data today."""
    return [name for name in family_names() if declaration(name).fit is not None]


def get_model(name: str) -> CalibrationModel:
    try:
        family = declaration(name)
    except InputError:
        family = None
    if family is None or family.fit is None:
        raise CalibrationError(
            f"unknown model '{name}'; calibratable models: {', '.join(sorted(calibratable_names()))}"
        )
    return CalibrationModel(family)


class _Registry(Mapping[str, CalibrationModel]):
    """``REGISTRY[name]``: the calibratable families, read from the family registry."""

    def __getitem__(self, name: str) -> CalibrationModel:
        if name not in calibratable_names():
            raise KeyError(name)
        return get_model(name)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(calibratable_names())

    def __len__(self) -> int:
        return len(calibratable_names())


REGISTRY: Mapping[str, CalibrationModel] = _Registry()


__all__ = ["REGISTRY", "CalibrationModel", "calibratable_names", "get_model"]
