"""One-way layering: offloader.core <- workspaces <- the rest of offloader, and no import cycle.

import-linter checks the named layers (``lint-imports``); these tests check every
module, including ones added later, with the same import graph (grimp).
"""

from __future__ import annotations

import subprocess
import sys

import grimp
import pytest


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("offloader", "workspaces", exclude_type_checking_imports=True, cache_dir=None)


def _ours(graph: grimp.ImportGraph, module: str) -> set[str]:
    imported = graph.find_modules_directly_imported_by(module)
    return {m for m in imported if m.split(".")[0] in ("offloader", "workspaces")}


def test_core_imports_nothing_above_it(graph: grimp.ImportGraph) -> None:
    for module in graph.find_descendants("offloader.core") | {"offloader.core"}:
        above = {m for m in _ours(graph, module) if not (m == "offloader.core" or m.startswith("offloader.core."))}
        assert not above, f"{module} imports {sorted(above)}"


def test_workspaces_imports_only_the_core(graph: grimp.ImportGraph) -> None:
    for module in graph.find_descendants("workspaces") | {"workspaces"}:
        bad = {m for m in _ours(graph, module) if m.split(".")[0] == "offloader" and not m.startswith("offloader.core")}
        assert not bad, f"{module} imports {sorted(bad)}"


def test_offloader_package_never_reaches_workspaces(graph: grimp.ImportGraph) -> None:
    chain = graph.find_shortest_chain(importer="offloader", imported="workspaces")
    assert chain is None, f"import offloader loads workspaces via {chain}"
    code = "import sys, offloader; print(sorted(m for m in sys.modules if m.split('.')[0] == 'workspaces'))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_no_import_cycle(graph: grimp.ImportGraph) -> None:
    """No module reaches itself through runtime imports (Tarjan's strongly connected components)."""
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for m in modules:
        if m not in index:
            visit(m)
    assert not cycles, f"import cycles: {cycles}"
