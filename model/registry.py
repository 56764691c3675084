"""The family registry: every model family by name, read from its module's declaration.

Each module listed in :data:`FAMILY_MODULES` declares ``FAMILIES``, a tuple of
:class:`~iosizer.model.family.Family`. Modules are imported on first use,
so listing the names costs nothing. A new family is one declaration in its
module plus its module's name here.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import import_module

from iosizer.errors import InputError
from iosizer.model.family import Family

#: Modules of :mod:`iosizer.model` that declare families, in presentation order.
FAMILY_MODULES: tuple[str, ...] = ("queueing", "mva", "latency", "pcie", "hba", "loadshare", "replication", "device")


@lru_cache(maxsize=1)
def _families() -> dict[str, tuple[Family, str]]:
    found: dict[str, tuple[Family, str]] = {}
    for module_name in FAMILY_MODULES:
        module = import_module(f"iosizer.model.{module_name}")
        for family in module.FAMILIES:
            if family.name in found:
                raise RuntimeError(f"family '{family.name}' is declared twice")
            found[family.name] = (family, module_name)
    return found


def family_names() -> list[str]:
    """Every declared family, in presentation order."""
    return list(_families())


def declaration(name: str) -> Family:
    """The declaration of family ``name``; an unknown name is a one-line :class:`InputError`."""
    try:
        return _families()[name][0]
    except KeyError:
        raise InputError(f"unknown family '{name}'; families: {', '.join(_families())}") from None


def module_of(name: str) -> str:
    """The short name of the :mod:`iosizer.model` module that declares ``name`` (``latency``)."""
    declaration(name)
    return _families()[name][1]
