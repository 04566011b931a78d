"""Where ``integrity`` sits: above ``tables`` and below ``staff``; the tables reach its seating
check through their own signal, so no import of theirs points up."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def _files(app: str) -> list[Path]:
    return [p for p in (ROOT / app).rglob("*.py") if "migrations" not in p.parts]


def test_integrity_never_imports_staff():
    bad = [
        f"{p.relative_to(ROOT)}: {n}"
        for p in _files("integrity")
        for n in _imported(p)
        if n.split(".")[0] == "staff"
    ]
    assert bad == []


def test_tables_call_integrity_by_no_name_but_the_simulation_command():
    """The seating check reaches the tables through their signal (``seat_requested``); the
    project-wide layers are pyproject.toml's import-linter contract."""
    used = {
        f"{p.relative_to(ROOT)}: {n}"
        for p in _files("tables")
        for n in _imported(p)
        if n.split(".")[0] == "integrity"
    }
    simulate = "tables/management/commands/simulate.py"
    assert used == {f"{simulate}: integrity", f"{simulate}: integrity.simulation"}
