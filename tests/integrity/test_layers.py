"""Where ``integrity`` sits: above ``tables`` and below ``staff``. The table services call one
module of it (``integrity.seating``), which reads only the links, so that call makes no circle."""

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


def test_tables_use_only_the_seating_check_of_integrity():
    used = {n for p in _files("tables") for n in _imported(p) if n.split(".")[0] == "integrity"}
    assert used <= {
        "integrity.seating",
        "integrity.seating.check_may_sit_with",
        "integrity",
        "integrity.simulation",
    }


def test_the_seating_check_reads_nothing_above_tables():
    for name in ("seating.py", "links.py", "models.py"):
        above = {
            n
            for n in _imported(ROOT / "integrity" / name)
            if n.split(".")[0] in ("tables", "staff") and not n.startswith("tables.errors")
        }
        assert above == set(), name
