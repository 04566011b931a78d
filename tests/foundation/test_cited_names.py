"""Every dotted name and path the docs or the code's comments cite in backticks still exists
(issue 42): a renamed function leaves its old name in a doc, a README or a docstring, and the next
engineer looks for what is gone.

A dotted name is checked when it starts with one of the project's modules, by its full path
(``integrity.stats.log5_sf``, ``tests.helpers.site_packages``) or relative to the citing file's
package or to any of the project's packages (``services.table_join`` in tables/, ``stats.log5_sf``
anywhere), or with a class one of them defines (``PoolGame.timer_at``): one module of that name
must hold the rest. The site's modules are imported; the tests' and benches' are read instead (a
bench configures Django its own way when imported). Names the docs cite that are Django's rather
than Python's also count: a setting (``settings.WS_IDLE_SECONDS``), a model's label and its fields
(``tables.GameEvent``, ``tables.Deal.server_seed``), a permission (``staff.view_live_hands``) and
a logger (``tables.actions``). The wire documents (``docs/protocol.md``, ``docs/fairness.md``) and
the browser's modules cite message fields and their own modules, so there only full paths are
checked. A path is checked when it starts with one of the project's folders
(``static/js/socket.js``, ``docs/rules.md``, ``tables/``).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import Permission
from django.core.exceptions import FieldDoesNotExist

from tests.citations import cited
from tests.helpers import site_packages

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = tuple(site_packages())
#: Packages read rather than imported.
READ_ONLY = ("tests", "bench")
#: The folders a cited path may start with.
FOLDERS = (*PACKAGES, *READ_ONLY, "docs", "static", "scripts", "deploy", "templates", ".ci")
#: Documents whose dotted names are the wire's fields, not the code's.
WIRE_DOCS = ("docs/protocol.md", "docs/fairness.md")
CLASS = re.compile(r"^class (\w+)", re.MULTILINE)
LOGGER = re.compile(r"getLogger\(\"([\w.]+)\"\)")


def _modules() -> dict[str, Path]:
    found = {}
    for package in (*PACKAGES, *READ_ONLY):
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    found.update({package: ROOT / package for package in READ_ONLY})
    return found


MODULES = _modules()


@cache
def _classes() -> dict[str, list[str]]:
    """Each class the project's modules define, with the modules that define one of that name."""
    out: dict[str, list[str]] = {}
    for module, path in MODULES.items():
        if path.is_file():
            for name in CLASS.findall(path.read_text(encoding="utf-8")):
                out.setdefault(name, []).append(module)
    return out


@cache
def _loggers() -> frozenset[str]:
    return frozenset(
        name for path in MODULES.values() if path.is_file() for name in LOGGER.findall(path.read_text())
    )


def _holds(obj: Any, names: list[str]) -> bool:
    for name in names:
        if isinstance(obj, type) and name in getattr(obj, "__annotations__", {}):
            obj = None  # a field declared on the class (a dataclass's, a TypedDict's)
            continue
        if obj is None or not hasattr(obj, name):
            return False
        obj = getattr(obj, name)
    return True


def _defined(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """The names a module's or a class's body defines, each with what defines it."""
    out: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out[node.name] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.update({(a.asname or a.name).split(".")[0]: node for a in node.names})
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update({n.id: node for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)})
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.For):
            out.update(_defined([*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]))
    if any(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) for node in body):
        for node in ast.walk(ast.Module(body=body, type_ignores=[])):  # a class's self.x
            stored = isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
            if stored and isinstance(node.value, ast.Name) and node.value.id == "self":
                out.setdefault(node.attr, node)
    return out


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _read_holds(path: Path, names: list[str]) -> bool:
    """Whether the module at ``path`` defines ``names`` (what it imports is taken as there)."""
    while path.is_dir() and names:
        path = path / names[0] if (path / names[0]).is_dir() else (path / names[0]).with_suffix(".py")
        names = names[1:]
    if not path.exists():
        return False
    if path.is_dir():
        return True
    defined = _defined(_tree(path).body)
    for name in names:
        node = defined.get(name)
        if node is None:
            return False
        if not isinstance(node, ast.ClassDef):
            return True
        defined = _defined(node.body)
    return True


def _module_holds(module: str, names: list[str]) -> bool:
    if module.split(".")[0] in READ_ONLY:
        return _read_holds(MODULES[module], names)
    return _holds(importlib.import_module(module), names)


def _a_library_module(name: str) -> bool:
    """A module of a library the site uses (a logger named for it: ``celery.app.trace``)."""
    if name.split(".")[0] in (*PACKAGES, *READ_ONLY):
        return False
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _django_name(parts: list[str]) -> bool:
    """A setting, a model's label (and field), a permission or a logger."""
    if ".".join(parts) in _loggers():
        return True
    if len(parts) == 2 and parts[0] == "settings" and hasattr(settings, parts[1]):
        return True
    if len(parts) < 2 or parts[0] not in apps.app_configs:
        return False
    if (
        len(parts) == 2
        and Permission.objects.filter(content_type__app_label=parts[0], codename=parts[1]).exists()
    ):
        return True
    try:
        model = apps.get_model(parts[0], parts[1])
    except LookupError:
        return False
    if len(parts) == 2:
        return True
    try:
        model._meta.get_field(parts[2])
    except FieldDoesNotExist:
        return _holds(model, parts[2:])
    return len(parts) == 3


def _bases(citing: str | None) -> list[str]:
    """The packages a relative name is read against: the citing module's, then every one."""
    if citing is None:
        return [""]
    parts = citing.split(".")[:-1] if citing else []
    own = [".".join(parts[:i]) + "." for i in range(len(parts), 0, -1)]
    return ["", *own, *(f"{p}." for p in (*PACKAGES, *READ_ONLY))]


def exists(name: str, citing: str | None = "") -> bool | None:
    """Whether the dotted ``name`` is there; ``None`` when it names none of the project's modules.

    ``citing`` is the dotted path of the citing file (``""`` for a document), or ``None`` when only
    full paths count."""
    parts = name.split(".")
    if _django_name(parts) or _a_library_module(name):
        return True
    found = None
    for base in _bases(citing):
        for i in range(len(parts), 0, -1):
            head = base + ".".join(parts[:i])
            if head in MODULES:
                if _module_holds(head, parts[i:]):
                    return True
                found = False
                break
    if found is None and citing is not None and parts[0] in _classes():
        return any(_module_holds(module, parts) for module in _classes()[parts[0]])
    return found


def path_exists(name: str) -> bool | None:
    """Whether the cited path is there; ``None`` when it starts with none of the project's folders."""
    if name.split("/")[0] not in FOLDERS:
        return None
    return (ROOT / name).exists()


def _read() -> list[Path]:
    docs = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    bench = sorted((ROOT / "bench").rglob("*.md"))
    scripts = sorted(p for p in (ROOT / "scripts").iterdir() if p.is_file())
    js = sorted(p for p in (ROOT / "static" / "js").rglob("*") if p.suffix in (".js", ".ts"))
    return [*docs, *bench, *(p for p in MODULES.values() if p.is_file()), *scripts, *js]


def _citing(rel: str) -> str | None:
    """The dotted path relative names are read against, ``None`` where only full paths count."""
    if rel in WIRE_DOCS or rel.endswith((".js", ".ts")):
        return None
    return rel.removesuffix(".py").replace("/", ".") if rel.endswith(".py") else ""


def stale(paths: list[Path], root: Path = ROOT, found: list[str] | None = None) -> list[str]:
    """The cited names that are gone, as ``path:line: name``; those there go to ``found``."""
    out = []
    for path in paths:
        rel = path.relative_to(root).as_posix()
        for line, name in cited(path):
            there = path_exists(name) if "/" in name else exists(name, _citing(rel))
            if there is False:
                out.append(f"{rel}:{line}: {name}")
            elif there and found is not None:
                found.append(name)
    return out


@pytest.mark.django_db
def test_every_cited_name_exists() -> None:
    there: list[str] = []
    gone = stale(_read(), found=there)
    assert not gone, "names cited that are gone:\n" + "\n".join(gone)
    assert len(set(there)) > 200  # it reads the names the docs cite


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_python_prose_is_comments_and_docstrings(tmp_path: Path) -> None:
    module = _write(
        tmp_path,
        "tables/probe.py",
        '"""Reads ``tables.game.seating``."""\n\n'
        'SAMPLE = "`tables.gone_in_data`"  # a comment on `tables.game.play`\n\n\n'
        "def f():\n"
        '    """Calls `services.table_join(table_id=1)`, see `static/js/socket.js`."""\n',
    )
    assert list(cited(module)) == [
        (1, "tables.game.seating"),
        (3, "tables.game.play"),
        (7, "services.table_join"),
        (7, "static/js/socket.js"),
    ]


def test_js_prose_is_comments(tmp_path: Path) -> None:
    module = _write(
        tmp_path,
        "static/js/probe.js",
        "// uses `tables.contract`\n"
        'const a = "// `tables.in_a_string`", b = /\\/`tables.in_a_regex`/;\n'
        "const c = 4 / 2; /* sent as in\n `docs/protocol.md` */\n",
    )
    assert list(cited(module)) == [(1, "tables.contract"), (4, "docs/protocol.md")]


@pytest.mark.django_db
def test_the_check_reads_names_and_fails_on_a_stale_one(tmp_path: Path) -> None:
    doc = _write(
        tmp_path,
        "docs/probe.md",
        "`integrity.stats.log5_sf`, `stats.log5_sf`, ``detect.Thresholds.feed_alpha``, "
        "`tables.Deal.server_seed`, `staff.view_live_hands`, `tables.actions`, `request.user`,\n"
        "`settings.WS_IDLE_SECONDS`, `settings.SESSION_COOKIE_NAME`, `PoolGame.timer_at`, "
        "`tests.helpers.site_packages`, `load.run`, `static/js/socket.js`, `docs/rules.md`, `tables/`, "
        "`temp/`,\n"
        "`services._arm_timer`, `integrity.stats.log6_sf`, `tables.Deal.no_such_field`, "
        "`settings.WS_IDLE_SECS`, `PoolGame.timer_on`, `tests.helpers.gone`, `static/js/gone.js`\n",
    )
    module = _write(
        tmp_path,
        "tables/game/probe.py",
        "# `services.table_join`, `seating.table_join`, `helpers.session_cookie`, `staff.no_role`\n"
        "# `seating.table_sit`\n",
    )
    test = _write(tmp_path, "tests/tables/probe.py", "# `test_timers.committed`, `test_timers.gone`\n")
    assert stale([doc, module, test], root=tmp_path) == [
        "docs/probe.md:3: services._arm_timer",
        "docs/probe.md:3: integrity.stats.log6_sf",
        "docs/probe.md:3: tables.Deal.no_such_field",
        "docs/probe.md:3: settings.WS_IDLE_SECS",
        "docs/probe.md:3: PoolGame.timer_on",
        "docs/probe.md:3: tests.helpers.gone",
        "docs/probe.md:3: static/js/gone.js",
        "tables/game/probe.py:1: staff.no_role",
        "tables/game/probe.py:2: seating.table_sit",
        "tests/tables/probe.py:1: test_timers.gone",
    ]


@pytest.mark.django_db
def test_wire_documents_and_browser_modules_check_only_full_paths(tmp_path: Path) -> None:
    wire = _write(tmp_path, "docs/protocol.md", "`game.status`, `stats.no_such`, `tables.no_such`\n")
    js = _write(tmp_path, "static/js/probe.js", "// `state.phase`, `PoolGame.x`, `tables.no_such`\n")
    assert stale([wire, js], root=tmp_path) == [
        "docs/protocol.md:1: tables.no_such",
        "static/js/probe.js:1: tables.no_such",
    ]
