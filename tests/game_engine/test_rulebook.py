"""The project owns its rules: docs/rules.md is numbered, every citation of it exists,
and nothing in the repository points outside it (issue 12)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules.md"
CITATION = re.compile(r"docs/rules\.md (§\d+(?:\.\d+)?(?:\s*[-–]\s*\d+(?:\.\d+)?|,\s*§\d+(?:\.\d+)?)*)")
NUMBER = re.compile(r"§?(\d+)(?:\.(\d+))?")


def _tracked_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
        ).stdout
        names = [n for n in out.split("\0") if n]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk the tree
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts]
    return [ROOT / n for n in names if n.endswith((".py", ".md", ".js", ".html", ".toml", ".cfg", ".txt"))]


def _numbers_in_rule_book() -> tuple[set[str], set[str]]:
    text = RULES.read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\. ", text, flags=re.M))
    rules = set(re.findall(r"\*\*§(\d+\.\d+)\b", text))
    return sections, rules


def test_rule_book_is_numbered() -> None:
    sections, rules = _numbers_in_rule_book()
    assert sections == {str(n) for n in range(1, 11)}
    assert {r.split(".")[0] for r in rules} == sections
    assert len(rules) >= 50


def test_every_citation_of_the_rule_book_names_a_rule_it_has() -> None:
    sections, rules = _numbers_in_rule_book()
    bad: list[str] = []
    for path in _tracked_files():
        if not path.exists():
            continue
        for lineno, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for cited in CITATION.findall(line):
                for major, minor in NUMBER.findall(cited):
                    known = f"{major}.{minor}" in rules if minor else major in sections
                    if not known:
                        bad.append(
                            f"{path.relative_to(ROOT)}:{lineno}: §{major}{'.' + minor if minor else ''}"
                        )
    assert not bad, "citations of rules docs/rules.md does not have:\n" + "\n".join(bad)


@pytest.mark.parametrize("needle", ["../shared", "/work/shared", "shared/RULES", "shared/oracle", "RULES §"])
def test_nothing_points_outside_the_repository(needle: str) -> None:
    found = [
        str(p.relative_to(ROOT))
        for p in _tracked_files()
        if p.exists()
        and p.name != "test_rulebook.py"
        and needle in p.read_text(encoding="utf-8", errors="replace")
    ]
    assert not found, f"{needle!r} found in {found}"
