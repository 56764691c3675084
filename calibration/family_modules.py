"""A built-in family's calibration module and the values it fills in, found from the registry.

``iosizer.calibration.<module>`` (named after the family's model module) may
define ``shipped_profile(family, variant)`` (the shipped profile built from
the seed figures), ``complete_values(family, values)`` (values a solve
needs that a profile cannot hold, such as lists read from shipped tables)
and ``variant_profile(family, profile, choice)`` (a planner's profile carried
to another choice of the family's ``variant`` setting, where that makes sense).
A plugin's family has neither: its declaration is all there is.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from typing import Any

__all__ = ["calibration_module", "complete_values"]


@lru_cache(maxsize=None)
def calibration_module(name: str) -> Any:
    """``iosizer.calibration.<module>`` of a built-in family's model module, where one exists (looked up
    once per family: a module that does not exist is otherwise searched for on every answer)."""
    from iosizer.model.registry import FAMILY_MODULES, module_of

    module = module_of(name)
    if module not in FAMILY_MODULES:  # a plugin's family: its declaration is all there is
        return None
    try:
        return import_module(f"iosizer.calibration.{module}")
    except ModuleNotFoundError:
        return None


def complete_values(name: str, values: dict[str, Any]) -> dict[str, Any]:
    """Values a solve needs that a profile cannot hold (lists read from shipped tables)."""
    completer = getattr(calibration_module(name), "complete_values", None)
    return values if completer is None else completer(name, values)
