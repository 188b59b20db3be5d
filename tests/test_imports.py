"""The import graph of ``conformance``, ``reference`` and ``bench`` (read from the source with
``ast``, lazy imports inside functions included): no module imports itself through others, and no
two rooms import each other (docs/architecture.md names the rooms and their one direction)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("conformance", "reference", "bench")
SUB_ROOMS = ("adapters", "run", "harness", "host", "suite")
"""conformance's sub-packages, each a room."""
ROOM_OF_MODULE = {
    "conformance.api": "conformance.adapters",  # the interface the adapters fill: one room
    "conformance.environment": "base",
    "conformance.profiles": "base",
    "conformance": "top",
    "conformance.__main__": "top",
    "conformance.cli": "top",
    "conformance.testing": "top",
}
"""Modules of conformance's own directory: ``base`` ones import nothing of the project and every
room may use them; ``top`` ones (the command, ``conformance.testing``) wire the rooms together and
no room imports them."""


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the three packages, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imported(name: str, path: Path, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The dotted name each name of an import statement of module ``name`` (file ``path``)
    imports: a module, a submodule, or a name of a module."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, *([base] if base else [])])
    yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph(files: Mapping[str, Path]) -> dict[str, set[str]]:
    """Each module's imports of the project's own modules."""
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _imported(name, path, node):
                while target and target not in files:  # a name of a module: that module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def room(module: str) -> str:
    """The room a module belongs to."""
    if module in ROOM_OF_MODULE:
        return ROOM_OF_MODULE[module]
    parts = module.split(".")
    if parts[0] == "conformance" and len(parts) > 1 and parts[1] in SUB_ROOMS:
        return f"conformance.{parts[1]}"
    return parts[0]


def both_ways(graph: Mapping[str, set[str]]) -> list[str]:
    """Pairs of rooms that import each other, each with the imports that make it."""
    between: dict[tuple[str, str], list[str]] = {}
    for module, targets in graph.items():
        for target in targets:
            if room(module) != room(target):
                between.setdefault((room(module), room(target)), []).append(f"{module} -> {target}")
    return [
        f"{a} <-> {b}: {between[a, b] + between[b, a]}"
        for a, b in sorted(between)
        if a < b and (b, a) in between
    ]


def test_the_graph_is_read() -> None:
    graph = import_graph(module_files())
    assert "conformance.run.suite_plugin" in graph["conformance.run.plugin"]
    assert "conformance.api" in graph["conformance.adapters.namespace"]
    assert "conformance.host.command" in graph["conformance.cli"]  # a lazy import, in a function


def test_a_cycle_and_rooms_both_ways_are_found(tmp_path: Path) -> None:
    (tmp_path / "conformance" / "run").mkdir(parents=True)
    (tmp_path / "conformance" / "harness").mkdir()
    (tmp_path / "reference").mkdir()
    (tmp_path / "bench").mkdir()
    for package in ("conformance", "conformance/run", "conformance/harness", "reference", "bench"):
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "conformance/run/a.py").write_text("import os\nfrom . import d, b\n")
    (tmp_path / "conformance/run/d.py").write_text("")
    (tmp_path / "conformance/run/b.py").write_text("def f():\n    from .a import x\n")
    (tmp_path / "conformance/harness/h.py").write_text("from ..run.a import y\n")
    (tmp_path / "conformance/run/c.py").write_text("import conformance.harness.h\n")
    graph = import_graph(module_files(tmp_path))
    assert cycles(graph) == [["conformance.run.a", "conformance.run.b"]]
    assert [p.partition(":")[0] for p in both_ways(graph)] == [
        "conformance.harness <-> conformance.run"
    ]


def test_no_module_imports_itself_through_others() -> None:
    found = cycles(import_graph(module_files()))
    assert not found, f"import cycles: {found}"


def test_no_two_rooms_import_each_other() -> None:
    found = both_ways(import_graph(module_files()))
    assert not found, "rooms importing each other:\n" + "\n".join(found)


def test_base_modules_import_nothing_of_the_project() -> None:
    graph = import_graph(module_files())
    base = {m: sorted(graph[m]) for m, r in ROOM_OF_MODULE.items() if r == "base"}
    assert base == {m: [] for m in base}
    top = {m for m, r in ROOM_OF_MODULE.items() if r == "top"} - {"conformance"}
    importers = {m: sorted(t & top) for m, t in graph.items() if t & top and room(m) != "top"}
    assert not importers, f"rooms importing the command or conformance.testing: {importers}"
