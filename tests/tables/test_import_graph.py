"""The modules of ``tables/`` import one another in one direction (issue 12): what drives
bots and timers (tasks, drivers) sits above the services it calls; no import hides in a function."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "tables"


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(imported tables module, whether the import is inside a function) for one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom) and child.module:
                if child.module == "tables":
                    found.extend((alias.name, inner) for alias in child.names)
                elif child.module.startswith("tables."):
                    found.append((child.module.split(".")[1], inner))
            elif isinstance(child, ast.Import):
                found.extend(
                    (a.name.split(".")[1], inner) for a in child.names if a.name.startswith("tables.")
                )
            visit(child, inner)

    visit(tree, False)
    return found


def _graph() -> dict[str, set[str]]:
    modules = {p.stem for p in TABLES.glob("*.py")}
    return {
        p.stem: {m for m, _ in _imports(p) if m in modules and m != p.stem}
        for p in sorted(TABLES.glob("*.py"))
    }


def test_no_tables_module_imports_another_inside_a_function() -> None:
    hidden = [f"{p.name}: {m}" for p in sorted(TABLES.glob("*.py")) for m, inner in _imports(p) if inner]
    assert hidden == []


def test_tables_modules_import_one_another_without_a_circle() -> None:
    graph = _graph()
    state: dict[str, int] = {}
    path: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if nxt not in state:
                walk(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node)


def test_what_drives_games_sits_above_the_services() -> None:
    graph = _graph()
    assert {"play", "timers"} <= graph["drivers"] and "drivers" in graph["tasks"]
    for low in (
        "services",
        "seating",
        "play",
        "timers",
        "record",
        "settlement",
        "notify",
        "practice",
        "gamerows",
    ):
        assert not graph[low] & {"tasks", "drivers"}, f"{low} imports what drives the games"
