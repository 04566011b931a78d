"""The players' ES modules after collectstatic: each one content-hashed and importing the others by
their hashed names (so every module is cached for good), and the table page preloading its whole
module graph (one round trip for all of it, not one per level of imports)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings

from rummy_site.module_graph import module_graph, resolve, static_imports
from rummy_site.static_storage import in_comment
from tests.tables.conftest import make_player, make_table

#: A dynamic import in code (those in comments are JSDoc types).
DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*["']([^"']+)["']\s*\)""")
HASHED = re.compile(r"\.[0-9a-f]{12}\.")


def test_static_imports_are_read_as_the_browser_reads_them() -> None:
    source = """// the page's modules import one another
import { a, b } from "./a.js";
import * as st from "../state.js";
import {
  c,
  d,
} from './c.js';
import "./side.js";
export { e } from "./e.js";
/** @param {import("./types.js").T} t the types' own import, for tsc */
const later = () => import("./lazy.js");
"""
    assert static_imports(source) == ["./a.js", "../state.js", "./c.js", "./side.js", "./e.js"]
    minified = 'import{a as b}from"./a.js";import*as c from"../state.js";import"./side.js";export{d};'
    assert static_imports(minified + 'const e=()=>import("./lazy.js");') == [
        "./a.js",
        "../state.js",
        "./side.js",
    ]
    assert resolve("js/table/x.js", "../state.js") == "js/state.js"
    with pytest.raises(ValueError):
        resolve("js/x.js", "sortablejs")


def test_a_module_graph_is_every_module_reached_once_entry_first() -> None:
    files = {
        "js/main.js": 'import { x } from "./x.js";\nimport { y } from "./sub/y.js";',
        "js/x.js": 'import { y } from "./sub/y.js";',
        "js/sub/y.js": 'import { x } from "../x.js";\nconst z = () => import("../z.js");',
    }
    assert module_graph("js/main.js", files.__getitem__) == ["js/main.js", "js/x.js", "js/sub/y.js"]


def test_in_comment_tells_jsdoc_from_code() -> None:
    source = '/** @type {import("./a.js").A} */\nconst b = import("./b.js"); // import("./c.js")\n'
    assert [in_comment(source, m.start()) for m in DYNAMIC_IMPORT.finditer(source)] == [True, False, True]


@pytest.fixture
def collected(tmp_path: Path) -> Iterator[Path]:
    """The project's static files collected by the production storage, which stays in force."""
    storages = {"staticfiles": {"BACKEND": "rummy_site.static_storage.SiteStaticStorage"}}
    with override_settings(
        STATIC_ROOT=tmp_path,
        STORAGES=storages,
        DEBUG=False,
        STATICFILES_FINDERS=["django.contrib.staticfiles.finders.FileSystemFinder"],
    ):
        call_command("collectstatic", interactive=False, verbosity=0)
        yield tmp_path


def hashed_names(root: Path) -> set[str]:
    return set(json.loads((root / "staticfiles.json").read_text())["paths"].values())


def code_imports(source: str) -> list[str]:
    """A module's static imports and its dynamic ones in code."""
    dynamic = [m.group(1) for m in DYNAMIC_IMPORT.finditer(source) if not in_comment(source, m.start())]
    return static_imports(source) + dynamic


def test_every_collected_module_imports_others_by_their_hashed_names(collected: Path) -> None:
    hashed = hashed_names(collected)
    modules = [n for n in hashed if n.endswith(".js") and n.split("/")[0] in ("js", "vendor")]
    checked = 0
    for name in modules:
        for specifier in code_imports((collected / name).read_text()):
            target = resolve(name, specifier)
            assert target in hashed, f"{name} imports {specifier}, not a hashed name"
            assert (collected / target).is_file(), f"{name} imports {specifier}, not collected"
            checked += 1
    assert checked > 50, checked  # the table's graph alone has more


@pytest.mark.django_db
def test_the_table_page_loads_hashed_modules_and_preloads_its_whole_graph(
    collected: Path, client: Client
) -> None:
    client.force_login(make_player("asha"))
    table = make_table(fee=0, seats=2)
    page = client.get(f"/tables/{table.pk}/").content.decode()
    (entry,) = re.findall(r'<script type="module" src="/static/([^"]+)"', page)
    preloads = re.findall(r'<link rel="modulepreload" href="/static/([^"]+)"', page)
    scripts = re.findall(r'<script[^>]* src="/static/([^"]+)"', page)
    # no classic script holds the modules back (SortableJS comes by a dynamic import, when idle)
    assert re.findall(r'<script(?![^>]*type="module")[^>]*\bsrc=', page) == []
    hashed = hashed_names(collected)
    assert {entry, *preloads, *scripts} <= hashed
    assert all(HASHED.search(name) for name in [entry, *preloads, *scripts])
    # the graph as the browser walks it: from the collected entry, through the collected modules
    graph = module_graph(entry, lambda name: (collected / name).read_text())
    assert len(preloads) == len(set(preloads)) and set(preloads) == set(graph[1:])
    assert len(graph) > 30, graph


@pytest.mark.django_db
def test_the_lobby_preloads_its_graph_too(collected: Path, client: Client) -> None:
    client.force_login(make_player("asha"))
    page = client.get("/").content.decode()
    (entry,) = re.findall(r'<script type="module" src="/static/([^"]+)"', page)
    preloads = re.findall(r'<link rel="modulepreload" href="/static/([^"]+)"', page)
    graph = module_graph(entry, lambda name: (collected / name).read_text())
    assert preloads and len(preloads) == len(set(preloads)) and set(preloads) == set(graph[1:])


def test_the_players_modules_are_hashed_from_their_minified_copies(collected: Path) -> None:
    paths = json.loads((collected / "staticfiles.json").read_text())["paths"]
    source = Path(__file__).resolve().parents[2] / "static"
    own = {name: hashed for name, hashed in paths.items() if name.startswith("js/") and name.endswith(".js")}
    assert len(own) > 30
    for name, hashed in own.items():
        served = (collected / hashed).read_text()
        written = (source / name).read_text()
        assert "// @ts-check" in written and "@ts-check" not in served, name  # comments gone
        assert len(served) < len(written), name
    # the vendor files are collected as they come
    vendor = next(name for name in paths if name.startswith("vendor/") and name.endswith(".js"))
    assert (collected / paths[vendor]).read_bytes() == (source / vendor).read_bytes()


def test_without_minifying_the_modules_are_collected_as_written(tmp_path: Path) -> None:
    storages = {"staticfiles": {"BACKEND": "rummy_site.static_storage.SiteStaticStorage"}}
    with override_settings(
        STATIC_ROOT=tmp_path,
        STORAGES=storages,
        DEBUG=False,
        STATIC_MINIFY_JS=False,
        STATICFILES_FINDERS=["django.contrib.staticfiles.finders.FileSystemFinder"],
    ):
        call_command("collectstatic", interactive=False, verbosity=0)
    source = Path(__file__).resolve().parents[2] / "static" / "js" / "cards.js"
    assert (tmp_path / "js" / "cards.js").read_bytes() == source.read_bytes()
