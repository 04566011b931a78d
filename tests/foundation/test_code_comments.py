"""Comments and docstrings describe the code as it is: a date in one is history (it belongs in a
commit or in bench/'s output), and goes stale the day after it is written."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import site_packages

ROOT = Path(__file__).resolve().parents[2]
#: The site's own code (tests, benchmarks and docs may date what they measured).
CODE = (*site_packages(), "scripts")
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")


def _files(*, migrations: bool = False) -> list[Path]:
    found = []
    for top in CODE:
        for path in sorted((ROOT / top).rglob("*")):
            if (
                not path.is_file()
                or "__pycache__" in path.parts
                or (not migrations and "migrations" in path.parts)
            ):
                continue
            if path.suffix in (".py", ".js", ".sh") or (top == "scripts" and not path.suffix):
                found.append(path)
    return found


def test_the_site_code_is_read_from_these_folders() -> None:
    assert len(_files()) > 100  # the folders above are where the code is: the check reads something


def test_no_date_in_the_site_code_but_user_facing_examples() -> None:
    dated = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _files()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DATE.search(line) and "help_text" not in line
    ]
    assert dated == []


#: A mypy error silenced on a line: the comment after it must say why (issue 42), so the next reader
#: can tell a library without types from a mistake kept quiet.
BARE_IGNORE = re.compile(r"#\s*type:\s*ignore(\[[^\]]*\])?\s*$")


def _python_files() -> list[Path]:
    """The site's Python, its migrations included (a migration's callables are code mypy reads)."""
    return [path for path in _files(migrations=True) if path.suffix == ".py"]


def test_every_type_ignore_in_the_site_code_says_why() -> None:
    bare = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _python_files()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if BARE_IGNORE.search(line)
    ]
    assert len(_python_files()) > 100 and bare == []


def test_a_bare_type_ignore_is_found() -> None:
    assert BARE_IGNORE.search("x = f()  # type: ignore[arg-type]")
    assert BARE_IGNORE.search("x = f()  # type: ignore")
    assert not BARE_IGNORE.search("x = f()  # type: ignore[arg-type]  # Channels ships no types")
