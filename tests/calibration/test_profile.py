"""Profiles: round trip, atomic writes, clear errors for bad files."""

from __future__ import annotations

import json
import re
import os
from pathlib import Path

import pytest

from iosizer.calibration.profile import ParameterEstimate, Profile, load_profile, save_profile
from iosizer.errors import ProfileError


def sample(**changes) -> Profile:
    base = Profile(
        model="mmc",
        options={"servers": 4},
        parameters={"service_rate_per_s": ParameterEstimate(value=1.0, ci_low=0.9, ci_high=1.1,
                                                            stderr=0.05, unit="1/s")},
        cpu_name="Xeon E5-2698 v4",
        cpu_speed=1.0,
    )
    return base.model_copy(update=changes)


def test_round_trip(tmp_path: Path) -> None:
    path = save_profile(sample(), tmp_path / "p.json")
    loaded = load_profile(path, "mmc")
    assert loaded == sample().model_copy(update={"created_at": loaded.created_at})
    assert loaded.value("service_rate_per_s") == 1.0
    document = json.loads(path.read_text())
    assert document["tool_version"] and document["created_at"]


def test_a_failed_write_leaves_the_old_file_and_no_debris(tmp_path: Path, monkeypatch) -> None:
    path = save_profile(sample(), tmp_path / "p.json")
    before = path.read_bytes()

    def broken_replace(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        save_profile(sample(cpu_speed=2.0), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["p.json"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not a JSON profile (line 1"),
        ('{"model": "mmc"}', "invalid profile at 'parameters': Field required"),
        (
            '{"model": "mmc", "parameters": {"mu": {"value": "fast"}}}',
            "invalid profile at 'parameters.mu.value'",
        ),
        ('{"model": "mmc", "parameters": {}, "surprise": 1}', "invalid profile at 'surprise'"),
        ('{"model": "mmc", "parameters": {}, "cpu_speed": -1}', "invalid profile at 'cpu_speed'"),
    ],
)
def test_corrupt_profiles(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(caught.value).startswith(f"{path}: {message}")


def test_profile_for_another_model(tmp_path: Path) -> None:
    path = save_profile(sample(), tmp_path / "p.json")
    with pytest.raises(ProfileError, match="profile is for model 'mmc', this command needs 'closed-network'"):
        load_profile(path, "closed-network")


def test_missing_folder_and_file(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="does not exist"):
        save_profile(sample(), tmp_path / "nowhere" / "p.json")
    with pytest.raises(ProfileError, match="cannot read profile"):
        load_profile(tmp_path / "absent.json")


def test_endpoint_propagation_is_exact_for_one_monotone_parameter() -> None:
    from iosizer.calibration.uncertainty import propagate
    from iosizer.model.queueing import mm1

    profile = sample(
        options={"servers": 1},
        parameters={"service_rate_per_s": ParameterEstimate(value=2.0, ci_low=1.5, ci_high=3.0)},
    )
    band = propagate(profile, lambda p: mm1(1.0, p["service_rate_per_s"]).to_dict())
    # W = 1/(mu - lambda) is decreasing in mu: the band is its image of [1.5, 3].
    assert band["mean_response"] == pytest.approx((1 / (3.0 - 1.0), 1 / (1.5 - 1.0)))
    assert band["mean_wait"][0] > 0  # asymmetric, never below the physical floor
    unstable = sample(
        options={"servers": 1},
        parameters={"service_rate_per_s": ParameterEstimate(value=2.0, ci_low=0.9, ci_high=3.0)},
    )
    low, high = propagate(unstable, lambda p: mm1(1.0, p["service_rate_per_s"]).to_dict())["mean_response"]
    assert high == float("inf") and low == float("-inf")


def test_what_if_band_from_a_fitted_profile_equals_the_fit_prediction(tmp_path: Path) -> None:
    # Review finding: bands must honour parameter correlations, as predict() does.
    from importlib import resources

    import numpy as np

    import iosizer
    from iosizer.calibration.calibrate import calibrate

    with resources.as_file(resources.files("iosizer.data") / "examples" / "load_test.csv") as data:
        calibration = calibrate("closed-network", data, {"stations": 3})
    saved = load_profile(save_profile(calibration.profile, tmp_path / "p.json"))
    band = iosizer.family("closed-network").ask("queue mva", saved, population=5).records()[0]
    predicted = calibration.fit.predict({"population": np.array([5.0])})
    assert band["response_time_ci_low"] == pytest.approx(predicted.lower["response_time_s"][0], rel=1e-4)
    assert band["response_time_ci_high"] == pytest.approx(predicted.upper["response_time_s"][0], rel=1e-4)


def test_undefined_intervals_make_unbounded_bands() -> None:
    from iosizer.calibration.uncertainty import propagate

    exact = sample(parameters={"service_rate_per_s": ParameterEstimate(value=2.0)})
    low, high = propagate(exact, lambda p: {"w": 1 / (p["service_rate_per_s"] - 1.0)})["w"]
    assert low == float("-inf") and high == float("inf")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"options": {"servers": 4.7}}, "--servers must be a whole number, got 4.7"),
        ({"options": {}}, "family 'mmc' needs --servers"),
        ({"model": "nope"}, "unknown family 'nope'"),
        ({"parameters": {"mu": {"value": 1.0}}}, "has parameters service_rate_per_s; the profile has mu"),
        ({"parameters": {"service_rate_per_s": {"value": 1.0, "ci_low": 5000}}}, "ci_low 5000 is above the value 1"),
    ],
)
def test_profiles_are_checked_against_their_model(tmp_path: Path, change: dict, message: str) -> None:
    document = json.loads(sample().model_dump_json())
    document.update(change)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ProfileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_profile(path)


@pytest.mark.parametrize(("path", "message"), [
    ("", "the profile's path is empty"),
    (None, "expected the path of a profile file, got NoneType None"),
    (5, "expected the path of a profile file, got int 5"),
    ("{tmp}", "cannot read profile: is a folder, not a file"),
    pytest.param("/dev/zero", "is not a regular file",
                 marks=pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")),
])
def test_a_profile_path_that_is_no_file_is_one_clear_error(tmp_path: Path, path, message: str) -> None:
    # '' said "': cannot read profile (Is a directory)"; None and 5 were TypeErrors; /dev/zero filled memory.
    if isinstance(path, str):
        path = path.replace("{tmp}", str(tmp_path))
    with pytest.raises(ProfileError, match=re.escape(message)):
        load_profile(path)


def test_a_file_far_larger_than_any_profile_is_not_read(tmp_path: Path, monkeypatch) -> None:
    from iosizer.calibration import profile as module

    monkeypatch.setattr(module, "MAX_PROFILE_BYTES", 1024)
    big = tmp_path / "big.json"
    big.write_text(" " * 2048)
    with pytest.raises(ProfileError, match="more than any profile"):
        load_profile(big)


@pytest.mark.parametrize(("change", "message"), [
    # Each of these loaded: a KeyError later (an unknown covariance name), a zero-width band (a negative
    # variance), a wrong band (a covariance of another shape), or a bool taken as a number.
    (lambda d: d.update(covariance_parameters=["bogus"], covariance=[[1.0]]), "names 'bogus', which is not a parameter"),
    (lambda d: d.update(covariance=[[1.0, 2.0]]), "covariance must be 1 x 1"),
    (lambda d: d.update(covariance=[[-1.0]]), "the variance of 'service_rate_per_s' is -1, below 0"),
    (lambda d: d["parameters"]["service_rate_per_s"].update(stderr=-1), "stderr': must be >= 0, got -1"),
    (lambda d: d["options"].update(servers=True), "option 'servers' is true, not a number or a name"),
    (lambda d: d.update(cpu_speed=1e9), "cpu_speed': must lie in [0.015625, 64]"),
])
def test_a_hand_edited_profile_is_checked_whole(tmp_path: Path, change, message: str) -> None:
    import iosizer

    mmc = iosizer.family("mmc")
    document = json.loads(mmc.calibrate(mmc.example(), servers=4).profile.model_dump_json())
    assert document["covariance_parameters"] == ["service_rate_per_s"]
    change(document)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ProfileError, match=re.escape(message)) as caught:
        load_profile(path)
    assert "Value error" not in str(caught.value)
