"""The calibration loop: measured CSV in, fit result and profile out."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from iosizer.calibration.dataset import Dataset, load_dataset
from iosizer.calibration.fit import CONFIDENCE_CONVENTION, FitResult, fit, interval_quantile
from iosizer.calibration.models import get_model
from iosizer.calibration.profile import (
    ColumnFit,
    DatasetReference,
    FitStatistics,
    ParameterEstimate,
    Profile,
)
from iosizer.errors import InputError


@dataclass(frozen=True)
class Calibration:
    """What ``iosizer calibrate`` produces: the fit and the profile that records it."""

    fit: FitResult
    profile: Profile
    dataset: Dataset


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _where(path: str) -> str:
    """An absolute path for a user's file; shipped data keep their package-relative name."""
    return str(Path(path).resolve()) if Path(path).exists() else path


def profile_from_fit(
    result: FitResult,
    model: str,
    options: Mapping[str, Any],
    dataset: Dataset | None = None,
    cpu_name: str | None = None,
    cpu_speed: float | None = None,
) -> Profile:
    parameters = {
        p.name: ParameterEstimate(
            value=result.params[p.name],
            ci_low=_finite_or_none(result.intervals[p.name][0]),
            ci_high=_finite_or_none(result.intervals[p.name][1]),
            stderr=_finite_or_none(result.stderr.get(p.name, 0.0)) if p.vary else 0.0,
            unit=p.unit,
            vary=p.vary,
            cpu_scaling=p.cpu_scaling.value,
            exponent_bounds=p.exponent_bounds,
        )
        for p in result.parameters
    }
    statistics = FitStatistics(
        rmse=result.rmse,
        r2=_finite_or_none(result.r2),
        n_points=result.n_points,
        dof=result.dof,
        quantile=_finite_or_none(interval_quantile(result.dof, result.absolute_sigma)),
        columns={
            name: ColumnFit(rmse=s.rmse, r2=_finite_or_none(s.r2), n_points=s.n_points)
            for name, s in result.statistics.items()
        },
        warnings=list(result.warnings),
        confidence=CONFIDENCE_CONVENTION,
    )
    reference = (
        DatasetReference(path=_where(dataset.path), sha256=dataset.sha256, n_rows=len(dataset))
        if dataset is not None
        else None
    )
    covariance = [[_finite_or_none(v) for v in row] for row in result.covariance.tolist()]
    return Profile(
        model=model,
        options=dict(options),
        parameters=parameters,
        covariance=covariance if result.free else None,
        covariance_parameters=list(result.free),
        statistics=statistics,
        dataset=reference,
        cpu_name=cpu_name,
        cpu_speed=cpu_speed,
    )


def calibrate(
    model_name: str,
    dataset_path: str | Path,
    options: Mapping[str, Any] | None = None,
    *,
    cpu_name: str | None = None,
    cpu_speed: float | None = None,
) -> Calibration:
    """Fit ``model_name`` to the CSV at ``dataset_path`` (see the registry for options)."""
    model = get_model(model_name)
    checked = model.options(dict(options or {}))
    dataset = load_dataset(dataset_path, model.schema)
    return calibrate_dataset(model_name, dataset, checked, cpu_name=cpu_name, cpu_speed=cpu_speed)


def calibrate_dataset(
    model_name: str,
    dataset: Dataset,
    options: Mapping[str, Any] | None = None,
    *,
    cpu_name: str | None = None,
    cpu_speed: float | None = None,
) -> Calibration:
    """Fit ``model_name`` to an already validated :class:`Dataset`."""
    model = get_model(model_name)
    checked = model.options(dict(options or {}))
    if cpu_speed is not None and not (math.isfinite(cpu_speed) and cpu_speed > 0):
        raise InputError(f"--cpu-speed must be > 0, got {cpu_speed}")
    parameters = model.parameters(dataset, checked)
    result = fit(
        model.function(checked),
        parameters,
        dataset.inputs(),
        dataset.observed(),
        weights=dataset.weights,
        stderr=dataset.stderr,
        jacobian=model.jacobian(checked),
        model_name=model_name,
        relative=model.relative,
        bounds=dataset.bounds,
    )
    profile = profile_from_fit(result, model_name, checked, dataset, cpu_name, cpu_speed)
    return Calibration(result, profile, dataset)


def residual_rows(calibration: Calibration) -> list[dict[str, Any]]:
    """One row per measured value: file line, inputs, observed, model, residual."""
    result, dataset = calibration.fit, calibration.dataset
    rows = []
    for column, observed in result.observed.items():
        for i in np.flatnonzero(np.isfinite(observed)):
            row: dict[str, Any] = {"line": int(dataset.lines[i])}
            row.update({name: float(values[i]) for name, values in result.inputs.items()})
            row.update(
                metric=column,
                observed=float(observed[i]),
                model=float(result.predicted[column][i]),
                residual=float(result.residuals[column][i]),
            )
            rows.append(row)
    return rows
