"""The names a file cites in backticks, read from its prose only: a Markdown document whole, a
Python module's comments and docstrings, the comments of a JavaScript or TypeScript module and of a
shell script (the check of tests/foundation/test_cited_names.py). Code and string literals are not
prose: a test's sample text or a message's format cites nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

#: A dotted name in single or double backticks, with an optional call's parentheses.
DOTTED = re.compile(r"``?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\([^`()]*\))?``?")
#: A relative path with at least one slash (``static/js/socket.js``, ``tables/``).
PATH = re.compile(r"``?((?:[\w.-]+/)+[\w.-]*)``?")
#: Endings that make a dotted name a file's, not a module's (``manage.py``).
FILE_ENDINGS = {"py", "js", "md", "json", "html", "css", "txt", "yml", "yaml", "toml", "conf", "sh", "cfg"}
#: A Python comment, string (with its prefix) or bracket: what tells the prose from the code.
PY_TOKENS = re.compile(
    r"""(?P<comment>\#[^\n]*)"""
    r"""|(?P<string>(?:\b[rRbBuUfF]{1,2})?"""
    r"""(?:\"\"\"(?:\\[\s\S]|[^\\])*?\"\"\"|'''(?:\\[\s\S]|[^\\])*?'''"""
    r"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))"""
    r"""|(?P<open>[(\[{])|(?P<close>[)\]}])"""
)
#: Characters after which a JavaScript ``/`` opens a regular expression, not a division.
REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {""}


def prose(path: Path) -> Iterator[tuple[int, str]]:
    """Each piece of the file's prose with the line it starts on."""
    text = path.read_text(encoding="utf-8")
    if "`" not in text:
        return
    if path.suffix == ".md":
        yield 1, text
    elif path.suffix == ".py":
        yield from python_prose(text)
    elif path.suffix in (".js", ".ts"):
        yield from js_comments(text)
    else:
        yield from shell_comments(text)


def python_prose(text: str) -> Iterator[tuple[int, str]]:
    """Comments, and the strings that are a statement of their own (docstrings); other strings
    are the code's data."""
    depth = 0
    for match in PY_TOKENS.finditer(text):
        kind, (start, end) = match.lastgroup, match.span()
        if kind in ("open", "close"):
            depth += 1 if kind == "open" else -1
            continue
        if kind == "string":
            before = text[text.rfind("\n", 0, start) + 1 : start]
            line_end = text.find("\n", end)
            after = text[end : len(text) if line_end < 0 else line_end]
            if depth or before.strip() or after.split("#")[0].strip():
                continue
        yield text.count("\n", 0, start) + 1, match.group()


def js_comments(text: str) -> Iterator[tuple[int, str]]:
    """``//`` and ``/* */`` comments, skipping strings, templates and regular expressions."""
    i, last = 0, ""
    while i < len(text):
        c = text[i]
        if text.startswith("//", i) or text.startswith("/*", i):
            end = text.find("\n" if c + text[i + 1] == "//" else "*/", i + 2)
            end = len(text) if end < 0 else end
            yield text.count("\n", 0, i) + 1, text[i:end]
            i = end
            continue
        if c in "\"'`" or (c == "/" and last in REGEX_AFTER):
            i = _end_of_literal(text, i)
            last = c
            continue
        if not c.isspace():
            last = c
        i += 1


def _end_of_literal(text: str, start: int) -> int:
    """The index just past the string, template or regular expression opening at ``start``."""
    quote, i, in_class = text[start], start + 1, False
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if quote == "/" and c in "[]":
            in_class = c == "["
        elif c == quote and not in_class:
            return i + 1
        elif c == "\n" and quote != "`":
            return i
        i += 1
    return i


def shell_comments(text: str) -> Iterator[tuple[int, str]]:
    """The ``#`` comments of a shell script, a whole line's or a line's tail."""
    for n, line in enumerate(text.splitlines(), 1):
        match = re.search(r"(?:^|\s)(#.*)$", line)
        if match:
            yield n, match.group(1)


def cited(path: Path) -> Iterator[tuple[int, str]]:
    """Each dotted name and each path the file's prose cites, with its line."""
    for first, piece in prose(path):
        for pattern in (DOTTED, PATH):
            for match in pattern.finditer(piece):
                name = match.group(1)
                if pattern is DOTTED and name.rsplit(".", 1)[-1] in FILE_ENDINGS:
                    continue
                yield first + piece.count("\n", 0, match.start()), name
