"""The cache of built shipped profiles (calibration/frozen.py): what it hands out is a fresh build's
profile, it is rebuilt when damaged, and a folder it cannot write only costs time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iosizer.calibration import frozen


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(frozen.CACHE_ENV, str(folder))
    frozen.shipped.cache_clear()
    yield folder
    frozen.shipped.cache_clear()


def _same(a: object, b: object) -> bool:
    return a.model_copy(update={"created_at": None}) == b.model_copy(update={"created_at": None})  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["device", "mmc", "dma"])
def test_a_cached_profile_is_a_fresh_builds(cache: Path, name: str) -> None:
    """device and mmc are fitted to their examples, dma built from the seed figures: each kept once."""
    first = frozen.shipped(name)
    (kept,) = (cache / "shipped").glob(f"{name}-default-*.json")
    frozen.shipped.cache_clear()
    again = frozen.shipped(name)  # read back from the file
    assert _same(again, first)
    assert _same(frozen._build(name, None).model_copy(update={"cpu_speed": again.cpu_speed,
                                                              "cpu_name": again.cpu_name}), again)
    assert kept.exists() and not list((cache / "shipped").glob("*.tmp"))


def test_a_damaged_file_is_built_again(cache: Path) -> None:
    good = frozen.shipped("mmc")
    (kept,) = (cache / "shipped").glob("mmc-default-*.json")
    kept.write_text('{"model": "mmc", "param', encoding="utf-8")
    frozen.shipped.cache_clear()
    assert _same(frozen.shipped("mmc"), good)
    assert json.loads(kept.read_text(encoding="utf-8"))["model"] == "mmc"  # rewritten whole
    frozen.shipped.cache_clear()
    assert _same(frozen.shipped("mmc"), good)


def test_an_unwritable_folder_or_off_only_costs_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder", encoding="utf-8")
    for setting in (str(blocker / "cache"), "off"):
        monkeypatch.setenv(frozen.CACHE_ENV, setting)
        frozen.shipped.cache_clear()
        assert frozen.shipped("mmc").model == "mmc"
    frozen.shipped.cache_clear()
    assert frozen.cache_folder() is None


def test_the_key_follows_the_example_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    example = tmp_path / "example.csv"
    example.write_text("arrival_rate_per_s,mean_response_s\n1,2\n", encoding="utf-8")
    monkeypatch.setattr(frozen, "example_path", lambda name: example)
    before = frozen._cache_key("mmc", None)
    assert frozen._cache_key("mmc", None) == before  # the same inputs, the same key
    example.write_text("arrival_rate_per_s,mean_response_s\n1,3\n", encoding="utf-8")
    assert frozen._cache_key("mmc", None) != before
    assert frozen._cache_key("mmc", "other") != frozen._cache_key("mmc", None)
