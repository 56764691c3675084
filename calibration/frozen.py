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
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iosizer.errors import InputError

if TYPE_CHECKING:
    from iosizer.calibration.profile import Profile

__all__ = ["REFERENCE_CPU_SPEED", "example_fit", "example_path", "shipped"]

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
    profile = _build(name, variant)
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
