"""The layers point one way and no module imports itself in a circle.

The layer order is rules -> engine -> play | sim -> analysis | learn -> compete -> report -> cli, with the
leaves (``errors``, ``columns``) below them all: a module imports only from its own layer, lower layers and
the leaves. import-linter's contracts (``[tool.importlinter]`` in pyproject.toml) say so, and the first test
runs them; the cycle check below also covers what their no-circles contract does not see, a package's own
``__init__`` in a circle with its modules.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
CONTRACTS = {c["type"]: c for c in CONFIG["contracts"]}


def test_the_import_contracts_hold():
    """``lint-imports``: the layers contract and the no-circles contract, both kept (its report if not)."""
    proc = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()", "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    assert f"Contracts: {len(CONFIG['contracts'])} kept, 0 broken." in report, report


def test_the_layers_contract_names_the_project_order():
    layers = CONTRACTS["layers"]
    assert layers["containers"] == ["simsuite"] and layers["exhaustive"] is True
    assert layers["layers"] == [
        "cli",
        "report",
        "compete",
        "analysis | learn",
        "play | sim",
        "engine",
        "rules",
        "columns | errors",
    ]


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each group of modules that import one another (a strongly connected
    component of more than one module, Tarjan's algorithm): ``[a, b, ..., a]``, from the group's
    first module by name, each step an import."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        on_stack.add(m)
        for n in sorted(edges.get(m, ())):
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in on_stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            group = set()
            while True:
                n = stack.pop()
                on_stack.discard(n)
                group.add(n)
                if n == m:
                    break
            if len(group) > 1:
                groups.append(group)

    for m in sorted(edges):
        if m not in index:
            visit(m)
    out = []
    for group in sorted(groups, key=min):
        start = min(group)
        paths = {start: [start]}  # breadth first, inside the group, back to start
        queue = [start]
        while queue:
            m = queue.pop(0)
            nexts = sorted(n for n in edges.get(m, ()) if n in group)
            if start in nexts:
                out.append(paths[m] + [start])
                break
            for n in nexts:
                if n not in paths:
                    paths[n] = paths[m] + [n]
                    queue.append(n)
    return out


def test_the_circle_finder_finds_a_circle_and_only_circles():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"a"}, "f": {"g"}, "g": {"f"}}
    assert circles(edges) == [["a", "b", "c", "a"], ["f", "g", "f"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_module_imports_itself_in_a_circle():
    """Over every import between simsuite's modules (those inside functions and under TYPE_CHECKING
    too), less the no-circles contract's ``ignore_imports``."""
    import grimp

    graph = grimp.build_graph("simsuite", cache_dir=None)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    for item in CONTRACTS["acyclic_siblings"].get("ignore_imports", []):
        importer, imported = (x.strip() for x in item.split("->"))
        assert "*" not in item and imported in edges[importer], f"ignore_imports: no import {item}"
        edges[importer].discard(imported)
    found = circles(edges)
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)
