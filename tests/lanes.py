"""Which tests start a server process or a browser, found from their code, and the fast lane they are kept out of.

A test lands in the ``servers`` lane when it lives under ``tests/e2e``, is marked ``e2e``, or when
its function or one of its fixtures reaches, through the suite's own helpers (functions, classes
and objects defined under ``tests/``, however deep), a process kept running beside it
(``subprocess.Popen``, which ``tests/tables/procs.py``'s Daphne, Celery, redis-server and the
browser tests' server use) or Playwright (the browser). A command run to its end
(``subprocess.run``: the engine's CLI, ``promtool``) is not a server and stays in the fast lane.

So a new test that calls ``start_daphne`` or a helper of a helper that does, or asks for
``live_server_url`` or ``browser``, leaves the fast lane by construction, with no list to keep.
The fast lane (``pytest --fast``, ``scripts/test --fast``) is the rest of the engine's, the use
cases', the models' and the wire contract's tests (``FAST_KINDS``), less those marked ``slow``.
"""

from __future__ import annotations

import dis
import fnmatch
import functools
import importlib
import inspect
import subprocess
import sys
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
E2E = TESTS / "e2e"
MARK = "servers"
MARK_HELP = (
    f"{MARK}: starts a server process or a browser (found by tests/lanes.py); not run by scripts/test --fast"
)


@functools.cache
def _is_ours(filename: str) -> bool:
    path = Path(filename).resolve()
    return path.is_relative_to(TESTS) and path != Path(__file__).resolve()


def _defined_in_tests(obj: object) -> bool:
    """Whether ``obj`` is the suite's own code; not this module's, which names ``Popen`` to look for it."""
    if isinstance(obj, types.FunctionType):
        filename = obj.__code__.co_filename
    elif isinstance(obj, type):
        filename = getattr(sys.modules.get(obj.__module__), "__file__", None) or ""
    else:
        return False
    return bool(filename) and _is_ours(filename)


def _is_starter(obj: object) -> bool:
    """``subprocess.Popen`` itself, or anything of Playwright's."""
    if obj is subprocess.Popen:
        return True
    name = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None)
    return isinstance(name, str) and (name == "playwright" or name.startswith("playwright."))


def _codes(code: types.CodeType) -> Iterable[types.CodeType]:
    """``code`` and the code of every function, lambda and comprehension nested in it."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def _imported(code: types.CodeType) -> list[Any]:
    """The modules a function imports in its body (``from playwright.sync_api import ...``)."""
    found: list[Any] = []
    if _IMPORT_NAME not in code.co_code[::2]:  # the opcodes alone: most functions import nothing
        return found
    for instruction in dis.get_instructions(code):
        if instruction.opname == "IMPORT_NAME":
            name = str(instruction.argval)
            module = sys.modules.get(name)
            if module is None:
                try:
                    module = importlib.import_module(name)
                except Exception:  # noqa: BLE001 - an import the test itself would fail on
                    continue
            found.append(module)
    return found


def _referenced(func: types.FunctionType) -> Iterable[Any]:
    """What ``func``'s code names: its globals, the modules it imports, and their attributes it reads."""
    namespace = func.__globals__
    for code in _codes(func.__code__):
        names = code.co_names
        values = [namespace[name] for name in names if name in namespace]
        modules = [value for value in values if isinstance(value, types.ModuleType)] + _imported(code)
        yield from values
        yield from modules
        for module in modules:
            for name in names:
                if name in vars(module):
                    yield vars(module)[name]


def _unwrapped(obj: Any) -> Any:
    """The function a decorator wrapped (``contextlib.contextmanager``, ``functools.wraps``)."""
    try:
        return inspect.unwrap(obj) if callable(obj) else obj
    except ValueError:  # a cycle of __wrapped__
        return obj


def _functions_of(obj: Any) -> Iterable[types.FunctionType]:
    """The plain functions behind ``obj``: itself, a class's methods and properties, an object's class."""
    obj = _unwrapped(obj)
    if isinstance(obj, types.FunctionType):
        yield obj
    elif isinstance(obj, type):
        for klass in obj.__mro__:
            if not _defined_in_tests(klass):
                continue
            for member in vars(klass).values():
                if isinstance(member, staticmethod | classmethod):
                    member = member.__func__
                if isinstance(member, property):
                    yield from (f for f in (member.fget, member.fset) if isinstance(f, types.FunctionType))
                elif isinstance(member, types.FunctionType):
                    yield member
    elif _defined_in_tests(type(obj)):
        yield from _functions_of(type(obj))


class Reach:
    """Whether code reaches a server process or a browser, remembered per function across the suite."""

    def __init__(self) -> None:
        self._known: dict[types.FunctionType, bool] = {}

    def __call__(self, obj: Any) -> bool:
        return any(self._function(func) for func in _functions_of(obj))

    def _function(self, func: types.FunctionType) -> bool:
        if func in self._known:
            return self._known[func]
        self._known[func] = False  # a cycle (a helper that calls itself) adds nothing
        found = False
        for value in map(_unwrapped, _referenced(func)):
            ours = _defined_in_tests(value) or _defined_in_tests(type(value))
            if _is_starter(value) or (ours and self(value)):
                found = True
                break
        self._known[func] = found
        return found


def starts_servers(item: pytest.Item, reach: Reach) -> bool:
    """Whether ``item`` is a browser test or reaches a server process from its function or fixtures."""
    if item.get_closest_marker("e2e") or item.path.resolve().is_relative_to(E2E):
        return True
    function = getattr(item, "function", None)
    if function is not None and reach(function):
        return True
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.values() if info is not None else ()
    return any(
        reach(fixture.func) for defs in definitions for fixture in defs if _defined_in_tests(fixture.func)
    )


#: The kinds of test the fast lane runs (issue 42): the engine, the apps' use cases and models, the wire
#: contract, by where they live and how their files are named, so that a new one of a kind is in it.
FAST_KINDS = ("game_engine/*", "*/test_services*.py", "*/test_models*.py", "*/test_contract*.py")


def of_fast_kind(path: Path) -> bool:
    """Whether the test file at ``path`` holds tests of a kind the fast lane runs."""
    where = path.resolve()
    return where.is_relative_to(TESTS) and any(
        fnmatch.fnmatch(where.relative_to(TESTS).as_posix(), kind) for kind in FAST_KINDS
    )


def skips_file(config: pytest.Config, path: Path) -> bool:
    """With ``--fast``, a test file of another kind is not even imported (each worker collects less)."""
    return bool(config.getoption("fast")) and path.name.startswith("test_") and not of_fast_kind(path)


def in_fast_lane(item: pytest.Item) -> bool:
    """A test of a fast kind that is not marked ``slow`` and starts no server or browser."""
    return (
        of_fast_kind(item.path) and not item.get_closest_marker("slow") and not item.get_closest_marker(MARK)
    )


def mark_and_select(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test that starts a server or a browser; with ``--fast``, keep only the fast lane."""
    reach = Reach()
    for item in items:
        if starts_servers(item, reach):
            item.add_marker(MARK)
    if not config.getoption("fast"):
        return
    kept = [item for item in items if in_fast_lane(item)]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if not in_fast_lane(item)])
        items[:] = kept
