"""The ES modules a page's entry module reaches by its static imports: what the page preloads.

The browser learns of a module's imports only once the module has come, so a graph several imports
deep costs a round trip a level. A page that names every module of its graph up front
(``<link rel="modulepreload">``) has them all fetched at once. The list is read from the modules
themselves, so it follows the code as it changes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

#: A static import or re-export at the start of a line or after a ``;`` (minified modules are
#: one line): ``import x from "…"``, ``import {a, b} from "…"`` (over several lines too),
#: ``import * as x from "…"``, ``import "…"``, ``export … from "…"``. A dynamic ``import("…")``
#: is not one: what it loads comes when first needed.
STATIC_IMPORT = re.compile(
    r"""(?:^|;)[ \t]*(?:import|export)\b(?:[^"';]*?\bfrom)?\s*["']([^"']+)["']""", re.M
)


#: A dynamic ``import("…")`` (those in comments are JSDoc types: see ``in_comment``).
DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*["']([^"']+)["']\s*\)""")


def static_imports(source: str) -> list[str]:
    """The specifiers ``source`` imports statically, in order."""
    return STATIC_IMPORT.findall(source)


def dynamic_imports(source: str) -> list[str]:
    """The specifiers ``source`` imports dynamically in its code, in order."""
    return [m.group(1) for m in DYNAMIC_IMPORT.finditer(source) if not in_comment(source, m.start())]


def in_comment(source: str, at: int) -> bool:
    """Whether ``at`` in a JavaScript file is inside a ``/* … */`` or after a ``//`` on its line
    (a ``//`` in a string before it on the line would count too: the modules have none there)."""
    in_block = source.rfind("/*", 0, at) > source.rfind("*/", 0, at)
    line = source[source.rfind("\n", 0, at) + 1 : at]
    return in_block or "//" in line


def resolve(importer: str, specifier: str) -> str:
    """The static name (``js/table/state.js``) that ``specifier`` names from the module ``importer``.

    Only relative specifiers: the pages' modules import one another by path, never by a bare
    package name (no import map)."""
    if not specifier.startswith(("./", "../")):
        raise ValueError(f"{importer} imports {specifier!r}: only relative imports are resolved")
    name = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
    if name.startswith("../"):
        raise ValueError(f"{importer} imports {specifier!r}, outside the static files")
    return name


def module_graph(entry: str, read: Callable[[str], str]) -> list[str]:
    """Every module that ``entry`` reaches by static imports, ``entry`` first, then breadth-first
    (the order the browser would discover them in); ``read`` gives a module's source by name."""
    seen = [entry]
    for name in seen:  # grows as it goes
        for specifier in static_imports(read(name)):
            target = resolve(name, specifier)
            if target not in seen:
                seen.append(target)
    return seen
