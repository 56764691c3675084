"""The frozen family: each family's shipped profile, built once from its declaration and data.

A family's calibration module (``iosizer.calibration.<module>``) may build
its shipped profile from the seed figures (``shipped_profile``) and fill
values a profile cannot hold (``complete_values``). Otherwise the shipped
profile is the family's example file fitted with its declared settings, or,
for a family with nothing to fit, its declared values. Every shipped profile
names a CPU: the reference one (relative speed 1) unless it names its own.

This sits in the calibration layer so that calibration never reaches up to
the public API (:mod:`iosizer.api` re-exports it); the per-family hooks are
read by :mod:`iosizer.calibration.family_modules`.

A shipped profile that is fitted (the device family's takes seconds) is
kept in a user cache file (:func:`cache_folder`), keyed by everything the
fit reads: the package version, the example and shipped data, and the code
that declares and fits the family (each source file's size and time). A
change to any of them is a new key, so a cached profile is always the one a
fresh fit gives (tests/calibration/test_frozen_cache.py); an unwritable
cache folder only means the fit runs on every call.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iosizer.errors import InputError

if TYPE_CHECKING:
    from iosizer.calibration.profile import Profile

__all__ = ["CACHE_ENV", "REFERENCE_CPU_SPEED", "cache_folder", "example_fit", "example_path", "shipped"]

#: The cache folder's environment variable (default: $XDG_CACHE_HOME/iosizer, else ~/.cache/iosizer);
#: the value ``off`` turns the cache off.
CACHE_ENV = "IOSIZER_CACHE_DIR"

#: Relative per-core speed of the CPU behind every shipped profile: the scale
#: that ``--cpu-speed`` and :func:`iosizer.extrapolate` measure other CPUs against.
REFERENCE_CPU_SPEED = 1.0


def example_path(name: str) -> Path:
    """The family's shipped example measurement file: in ``iosizer.data/examples`` for a built-in
    family, beside its declaring module for a plugin's."""
    from iosizer.model.registry import FAMILY_MODULES, declaration, module_of

    family = declaration(name)
    if not family.example:
        raise InputError(f"family '{name}' ships no example file")
    module = module_of(name)
    if module not in FAMILY_MODULES:  # a plugin ships its example in its own package
        resource = resources.files(module).joinpath(family.example)
    else:
        resource = resources.files("iosizer.data").joinpath("examples", family.example)
    return Path(str(resource))


@lru_cache(maxsize=None)
def shipped(name: str, variant: str | None = None) -> "Profile":
    """The shipped profile, on the reference CPU (speed 1) unless it names its own."""
    profile = _cached(name, variant)
    if profile.cpu_speed is None:
        profile = profile.model_copy(update={"cpu_speed": REFERENCE_CPU_SPEED,
                                             "cpu_name": profile.cpu_name or "the shipped data's CPU"})
    return profile


def _build(name: str, variant: str | None) -> "Profile":
    """The family's calibration module builds it, or its example is fitted, or it is declared."""
    from iosizer.model.registry import declaration

    from iosizer.calibration.family_modules import calibration_module

    builder = getattr(calibration_module(name), "shipped_profile", None)
    if builder is not None:
        return builder(name, variant)
    family = declaration(name)
    if variant is not None:
        raise InputError(f"family '{name}' ships one profile; it has no variant '{variant}'")
    if family.fit is not None and family.example:
        return example_fit(name)
    from iosizer.calibration.profile import declared_profile

    return declared_profile(name)


def example_fit(name: str) -> "Profile":
    """The family calibrated from its shipped example file with the settings it declares."""
    from iosizer.calibration.calibrate import calibrate
    from iosizer.model.registry import declaration

    settings = dict(declaration(name).example_settings)
    # The means only: the shipped profile is built in every process that answers from it, and a default
    # percentile fit (device: fio's clat percentiles) would cost seconds there each time; the shipped
    # device sweep's percentiles are no queue's anyway (its percentile fit is refused, README).
    return calibrate(name, example_path(name), settings, fit_percentiles=False).profile


# --- the cache of built shipped profiles ---------------------------------------------


def cache_folder() -> Path | None:
    """Where built shipped profiles are kept (None: the cache is off)."""
    chosen = os.environ.get(CACHE_ENV, "")
    if chosen.strip().lower() == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "iosizer"


def _signature(folder: Path, digest: "hashlib._Hash") -> None:
    """Each source or data file under ``folder``: its path, size and modification time."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.is_dir() and not entry.name.startswith((".", "__pycache__")):
            _signature(Path(entry.path), digest)
        elif entry.name.endswith((".py", ".csv", ".json", ".toml")):
            status = entry.stat()
            digest.update(f"{entry.path}\0{status.st_size}\0{status.st_mtime_ns}\n".encode())


def _folders(name: str) -> list[Path]:
    """The source folders a built profile depends on: the package's (models, calibration, data) and, for
    a plugin's family, the plugin's own."""
    import importlib.util

    import iosizer.calibration
    import iosizer.data
    import iosizer.errors
    import iosizer.model
    from iosizer.model.registry import FAMILY_MODULES, module_of

    folders = [Path(iosizer.errors.__file__).parent]  # the package root's own modules
    folders += [Path(p) for package in (iosizer.model, iosizer.calibration, iosizer.data) for p in package.__path__]
    module = module_of(name)
    if module not in FAMILY_MODULES:
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin:
            folders.append(Path(spec.origin).parent)
    return folders


def _cache_key(name: str, variant: str | None) -> str:
    """A hash of everything a built profile depends on (see the module's docstring)."""
    import importlib.util

    import numpy

    from iosizer._version import __version__

    digest = hashlib.sha256()
    scipy = importlib.util.find_spec("scipy")  # located, not imported: its version is its files'
    digest.update(json.dumps([1, name, variant, __version__, sys.version, numpy.__version__,
                              scipy.origin if scipy else None]).encode())
    if scipy is not None and scipy.origin:
        status = os.stat(scipy.origin)
        digest.update(f"{status.st_size}:{status.st_mtime_ns}".encode())
    for folder in _folders(name):
        _signature(folder, digest)
    try:  # the example's bytes themselves, whatever their times
        digest.update(example_path(name).read_bytes())
    except (InputError, OSError):
        pass
    return digest.hexdigest()


def _cached(name: str, variant: str | None) -> "Profile":
    """The built profile from the cache, or built now and kept there (when the folder is writable)."""
    from iosizer.calibration.profile import Profile

    folder = cache_folder()
    if folder is None:
        return _build(name, variant)
    path = folder / "shipped" / f"{name}-{variant or 'default'}-{_cache_key(name, variant)[:40]}.json"
    try:
        profile = Profile.model_validate_json(path.read_bytes())
        if profile.model == name:
            return profile
    except (OSError, ValueError):  # not there yet, unreadable, or damaged: built again
        pass
    profile = _build(name, variant)
    _keep(path, profile)
    return profile


def _keep(path: Path, profile: "Profile") -> None:
    """Write the profile to the cache atomically; a folder that cannot be written is no error."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(profile.model_dump_json().encode())
            os.replace(temporary, path)  # readers see the whole file or none
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    except OSError:
        pass
