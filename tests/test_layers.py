"""The layers hold: nothing imports upward and no modules import each other in a cycle.

Bottom to top (DESIGN.md, "Layout"): errors/units -> model -> calibration ->
(report, simulate) -> the public API (the package root and ``api.py``) ->
serve -> cli. Every import statement of every module is read with ``ast``,
the ones inside functions included (a lazy import is still a dependency).

No edge is allowed to break the rule (issue 24 removed the last ones: the
server and :func:`iosizer.ask` read the declarations, never the CLI).
"""

from __future__ import annotations

import ast
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]

#: Source folder -> import name (pyproject's [tool.setuptools.package-dir]).
FOLDERS = {"common": "iosizer", "model": "iosizer.model", "calibration": "iosizer.calibration",
           "report": "iosizer.report", "simulate": "iosizer.simulate", "serve": "iosizer.serve",
           "cli": "iosizer.cli", "data": "iosizer.data"}

#: Layer of a module, by its longest matching prefix; higher layers may import lower ones.
LAYERS = {
    "iosizer.errors": 0, "iosizer.units": 0, "iosizer._version": 0, "iosizer.data": 0,
    "iosizer.frames": 0,  # answers as tables (errors, units only): every layer's result types inherit it
    "iosizer.model": 1,
    "iosizer.calibration": 2,
    "iosizer.report": 3, "iosizer.simulate": 3,
    "iosizer": 4, "iosizer.api": 4,
    "iosizer.serve": 5,
    "iosizer.cli": 6,
}



def _module_name(path: Path) -> str:
    relative = path.relative_to(ROOT)
    package = FOLDERS[relative.parts[0]]
    parts = list(relative.parts[1:])
    parts[-1] = parts[-1].removesuffix(".py")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def _modules() -> dict[str, Path]:
    found = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def _target(name: str, imported: str | None) -> str | None:
    """The iosizer module an import names: ``from iosizer.cli import ask`` is iosizer.cli.ask."""
    if imported is not None and f"{name}.{imported}" in MODULES:
        return f"{name}.{imported}"
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [_target(alias.name, None) for alias in node.names if alias.name.startswith("iosizer")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if not base.startswith("iosizer"):
                continue
            targets = [_target(base, alias.name) for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t is not None and t != module)
    return found


GRAPH = {module: _imports(module) for module in MODULES}


def layer(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


def _upward() -> set[tuple[str, str]]:
    return {(a, b) for a, targets in GRAPH.items() for b in targets if layer(b) > layer(a)}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), allowed edges left out."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for nxt in sorted(GRAPH[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    return found


def test_the_import_reader_sees_function_level_imports() -> None:
    assert "iosizer.generated" in GRAPH["iosizer.catalogue"]  # imported inside command_specs()
    assert "iosizer.model.registry" in GRAPH["iosizer.calibration.frozen"]


def test_nothing_imports_upward() -> None:
    upward = sorted(_upward())
    assert not upward, "upward imports (importer -> imported): " + "; ".join(f"{a} -> {b}" for a, b in upward)


def test_no_import_cycles() -> None:
    cycles = _cycles()
    assert not cycles, "modules importing each other: " + "; ".join(" <-> ".join(c) for c in cycles)
