"""The family registry: every model family by name, read from its module's declaration.

Families are found in two places, and a module is imported only when one of
its families is asked for (``iosizer --help`` and a single what-if import no
other family):

- the built-in modules of :mod:`iosizer.model` listed in
  :data:`FAMILY_MODULES`, each declaring ``FAMILIES``, a tuple of
  :class:`~iosizer.model.family.Family`; :data:`BUILTIN_FAMILIES` says which
  module declares which family, so one family loads one module (a family
  missing from it is still found, by importing every built-in module);
- installed packages, through the entry-point group ``iosizer.families``:
  an entry point ``NAME = "package.module"`` names a family and the module
  that declares it in ``FAMILIES``. Installing the package is all it takes.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import import_module

from typing import TYPE_CHECKING

from iosizer.errors import InputError, PluginError

if TYPE_CHECKING:  # listing the plugins' names imports no declaration machinery
    from iosizer.model.family import Family, ScenarioTable

__all__ = ["BUILTIN_FAMILIES", "BUILTIN_GROUPS", "ENTRY_POINT_GROUP", "FAMILY_MODULES", "declaration", "family_names",
           "module_of", "scenario_tables", "plugin_module", "plugin_names"]

#: Modules of :mod:`iosizer.model` that declare families, in presentation order.
FAMILY_MODULES: tuple[str, ...] = ("queueing", "mva", "latency", "pcie", "hba", "loadshare", "replication", "device")

#: Which built-in module declares each family, so asking for one imports one module
#: (tests/test_plugin.py checks it against the modules' declarations).
BUILTIN_FAMILIES: dict[str, str] = {
    "mmc": "queueing", "closed-network": "mva", "dma": "latency", "oltp": "latency", "pcie-link": "pcie",
    "rmw": "pcie", "hba": "hba", "loadshare": "loadshare", "replication": "replication", "device": "device",
}

#: Command groups that hold built-in families' questions under another word than the family's name
#: (``iosizer queue mmc`` is family mmc's question ``queue mmc``): which families answer under each
#: (tests/test_plugin.py checks it against the questions' paths).
BUILTIN_GROUPS: dict[str, tuple[str, ...]] = {
    "queue": ("mmc", "closed-network"), "latency": ("dma", "oltp"), "pcie": ("pcie-link", "rmw"),
}

#: The entry-point group through which installed packages declare families.
ENTRY_POINT_GROUP = "iosizer.families"


@lru_cache(maxsize=1)
def _plugins() -> dict[str, str]:
    """Installed plugins' families: name -> the module that declares it (nothing is imported).

    Reads the ``[iosizer.families]`` section of each installed distribution's
    ``entry_points.txt`` (``*.dist-info`` or ``*.egg-info`` on ``sys.path``,
    the first one found per distribution winning, as importlib.metadata
    does) without importing importlib.metadata, which would double the
    start-up of ``iosizer --help`` (tests/test_plugin.py checks both agree).
    """
    import os
    import sys

    found: dict[str, str] = {}
    seen: set[str] = set()
    for folder in sys.path:
        try:
            entries = sorted(os.scandir(folder or "."), key=lambda e: e.name)
        except OSError:  # a zip file, a folder that does not exist
            continue
        for entry in entries:
            if not entry.name.endswith((".dist-info", ".egg-info")):
                continue
            distribution = entry.name.rsplit("-", 1)[0].split("-")[0].lower().replace("_", "-")
            if distribution in seen:
                continue
            seen.add(distribution)
            for name, module in _group(os.path.join(entry.path, "entry_points.txt")):
                found.setdefault(name, module)
    return dict(sorted(found.items()))


def _group(path: str) -> list[tuple[str, str]]:
    """(name, module) of each entry point of :data:`ENTRY_POINT_GROUP` in one ``entry_points.txt``."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    points, inside = [], False
    for line in (raw.strip() for raw in lines):
        if line.startswith("["):
            inside = line == f"[{ENTRY_POINT_GROUP}]"
        elif inside and "=" in line and not line.startswith(("#", ";")):
            name, value = (part.strip() for part in line.split("=", 1))
            points.append((name, value.split(":")[0].strip()))
    return points


def plugin_module(name: str) -> str:
    """The module a plugin's entry point names for family ``name`` (not imported)."""
    return _plugins()[name]


def plugin_names() -> list[str]:
    """The families installed packages declare, by name (their modules are not imported)."""
    return [name for name in _plugins() if name not in BUILTIN_FAMILIES]


@lru_cache(maxsize=None)
def _module(path: str) -> "dict[str, Family]":
    """The families one module declares, by name."""
    from iosizer.model.family import Family

    builtin = path.startswith("iosizer.")
    try:
        module = import_module(path)
    except Exception as error:  # noqa: BLE001  (a plugin's failure is its own, named; a built-in's is a bug)
        if builtin:
            raise
        raise PluginError(f"plugin module '{path}' does not import: {type(error).__name__}: {error}") from None
    declared = getattr(module, "FAMILIES", None)
    if not isinstance(declared, tuple) or not all(isinstance(f, Family) for f in declared):
        message = f"module {path} declares no FAMILIES tuple of iosizer.model.family.Family"
        raise RuntimeError(message) if builtin else PluginError(message)
    return {family.name: family for family in declared}


def _path(module: str) -> str:
    return f"iosizer.model.{module}" if module in FAMILY_MODULES else module


@lru_cache(maxsize=1)
def _builtins() -> "dict[str, tuple[Family, str]]":
    """Every built-in family (every built-in module imported), in presentation order."""
    found: "dict[str, tuple[Family, str]]" = {}
    for module_name in FAMILY_MODULES:
        for name, family in _module(_path(module_name)).items():
            if name in found:
                raise RuntimeError(f"family '{name}' is declared twice")
            found[name] = (family, module_name)
    return found


def family_names() -> list[str]:
    """Every declared family: the built-in ones in presentation order, then the plugins' by name (a plugin
    whose module does not load is left out with a warning; naming it is its one-line error)."""
    return list(_builtins()) + [name for name in plugin_names() if _plugin_loads(name)]


@lru_cache(maxsize=None)
def _plugin_loads(name: str) -> bool:
    import warnings

    try:
        _locate(name)
    except PluginError as error:
        warnings.warn(f"iosizer: family '{name}' left out: {error}", stacklevel=2)
        return False
    return True


def scenario_tables() -> "list[ScenarioTable]":
    """The scenario tables of several questions the family modules declare (``TABLES``: a tuple of
    :class:`~iosizer.model.family.ScenarioTable`), the built-in modules' in presentation order, then the
    plugins'."""
    modules = [_path(m) for m in FAMILY_MODULES] + list(dict.fromkeys(_plugins()[n] for n in plugin_names()
                                                                      if _plugin_loads(n)))
    return [table for path in modules for table in getattr(import_module(path), "TABLES", ())]


def _locate(name: str) -> "tuple[Family, str] | None":
    module = BUILTIN_FAMILIES.get(name)
    if module is None and name in _plugins():
        module = _plugins()[name]
    if module is not None:
        family = _module(_path(module)).get(name)
        if family is None:
            message = f"module {_path(module)} was named for family '{name}' but does not declare it"
            raise RuntimeError(message) if name in BUILTIN_FAMILIES else PluginError(message)
        return family, module
    return _builtins().get(name)


def declaration(name: str) -> "Family":
    """The declaration of family ``name``; an unknown name is a one-line :class:`InputError`."""
    found = _locate(name) if isinstance(name, str) else None
    if found is None:
        raise InputError(f"unknown family '{name}'; families: {', '.join(family_names())}")
    return found[0]


def module_of(name: str) -> str:
    """The module that declares ``name``: the short name of a built-in :mod:`iosizer.model` module
    (``latency``, one of :data:`FAMILY_MODULES`), or a plugin's module path (``iosizer_mm1k``)."""
    found = _locate(name) if isinstance(name, str) else None
    if found is None:
        raise InputError(f"unknown family '{name}'; families: {', '.join(family_names())}")
    return found[1]
