"""A band's moved parameter sets solved in one vectorised call: the same numbers as one set at a time."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pytest

import iosizer
from iosizer.calibration import uncertainty
from iosizer.calibration.profile import FitStatistics, ParameterEstimate, Profile
from iosizer.calibration.uncertainty import propagate, stacked
from iosizer.errors import InputError


def _two_parameters(covariance: bool = True) -> Profile:
    estimates = {"a": ParameterEstimate(value=2.0, ci_low=1.6, ci_high=2.4, stderr=0.2),
                 "b": ParameterEstimate(value=0.5, ci_low=0.3, ci_high=0.7, stderr=0.1)}
    if not covariance:
        return Profile(model="toy", parameters=estimates)
    return Profile(model="toy", parameters=estimates, covariance=[[0.04, 0.01], [0.01, 0.01]],
                   covariance_parameters=["a", "b"], statistics=FitStatistics(rmse=0.1, n_points=9, dof=7,
                                                                              quantile=2.36))


X = np.array([0.5, 1.0, 4.0])


def _vectorised(values: Mapping[str, Any]) -> dict[str, Any]:
    return {"y": np.asarray(values["a"]) * np.log1p(X) / (1.0 + np.asarray(values["b"]) * X), "k": 3.0}


def _scalar_only(values: Mapping[str, Any]) -> dict[str, Any]:
    return {"y": float(values["a"]) * np.log1p(X) / (1.0 + float(values["b"]) * X), "k": 3.0}


def _mixing(values: Mapping[str, Any]) -> dict[str, Any]:
    # Broadcasts without complaint, but reads the largest a of the stack: wrong rows, caught by the first.
    return {"y": np.max(values["a"]) * np.log1p(X) / (1.0 + np.asarray(values["b"]) * X), "k": 3.0}


@pytest.mark.parametrize("covariance", [True, False], ids=["delta", "endpoints"])
@pytest.mark.parametrize("solve", [_vectorised, _scalar_only, _mixing], ids=["vectorised", "scalar", "mixing"])
def test_a_stack_gives_the_loop_s_band_bit_for_bit(solve: Any, covariance: bool) -> None:
    profile = _two_parameters(covariance)
    values = profile.values()
    alone = propagate(profile, lambda moved: solve({**values, **moved}))
    key = ("toy", solve.__name__, covariance)
    together = propagate(profile, lambda moved: solve({**values, **moved}),
                         evaluate_stack=stacked(solve, values, solve(values), 1, key))
    assert set(together) == set(alone) == {"y", "k"}
    for name, (low, high) in alone.items():
        assert np.array_equal(together[name][0], low) and np.array_equal(together[name][1], high)
        assert np.shape(together[name][0]) == np.shape(low)
    # A solve that cannot take a stack is remembered (by the names moved) and not tried again.
    assert any(k[0] == key for k in uncertainty._UNSTACKABLE) is (solve is not _vectorised)


def test_a_stack_is_one_solve() -> None:
    profile = _two_parameters()
    values = profile.values()
    calls = []

    def counted(given: Mapping[str, Any]) -> dict[str, Any]:
        calls.append(np.shape(given["a"]))
        return _vectorised(given)

    propagate(profile, lambda moved: counted({**values, **moved}),
              evaluate_stack=stacked(counted, values, _vectorised(values), 1))
    assert calls == [(), (5, 1)]  # the centre, then the centre and the four moved sets at once


def test_a_set_the_model_refuses_is_found_by_the_loop_and_not_remembered() -> None:
    profile = _two_parameters()
    values = profile.values()

    def refusing(given: Mapping[str, Any]) -> dict[str, Any]:
        if np.any(np.asarray(given["b"]) > 0.5):  # the upward step of b leaves the model's domain
            raise InputError("b must be <= 0.5")
        return _vectorised(given)

    alone = propagate(profile, lambda moved: refusing({**values, **moved}))
    key = ("toy", "refusing")
    together = propagate(profile, lambda moved: refusing({**values, **moved}),
                         evaluate_stack=stacked(refusing, values, refusing(values), 1, key))
    for name, (low, high) in alone.items():
        assert np.array_equal(together[name][0], low) and np.array_equal(together[name][1], high)
    assert all(math.isfinite(v) for v in together["y"][1])  # one-sided slope of b: still bounded
    assert not any(k[0] == key for k in uncertainty._UNSTACKABLE)


@pytest.mark.parametrize("given", [
    {"outstanding": 1},
    {"outstanding": [1, 2, 4, 8, 16, 32, 64, 128]},
    {"outstanding": [3, 300], "band": "prediction"},
    {"outstanding": [2, 8], "block_kib": 16},
    {"outstanding": [2, 8], "parallel_units": 4},  # 4 given, 4.0 in the profile: one value, not stacked
    {"outstanding": [3, 9], "cpu_speed": 1.3},  # interval ends, parallel_units moving too: one at a time
    {"outstanding": [2, 8], "percentiles": [99]},  # the percentile solve takes scalars: one at a time
], ids=str)
def test_device_curve_answers_the_same_stacked_or_not(given: dict[str, Any], monkeypatch) -> None:
    family = iosizer.family("device")
    used = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        stack = stacked(*args, **kwargs)

        def call(moves: Any) -> Any:
            found = stack(moves)
            used.append(found is not None)
            return found

        return call

    monkeypatch.setattr(uncertainty, "stacked", watched)
    together = family.ask("curve", **given)
    monkeypatch.setattr(uncertainty, "stacked", lambda *args, **kwargs: lambda moves: None)
    alone = family.ask("curve", **given)
    assert together.records() == alone.records()
    one_at_a_time = "cpu_speed" in given or "percentiles" in given
    assert used == [not one_at_a_time]
