"""The players' ES modules after collectstatic: each one content-hashed and importing the others by
their hashed names (so every module is cached for good), each page's entry collected as one bundle
of its graph, and a page preloading whatever graph it is served (one round trip for all of it, not
one per level of imports)."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client, override_settings

from rummy_site.module_graph import (
    DYNAMIC_IMPORT,
    dynamic_imports,
    in_comment,
    module_graph,
    resolve,
    static_imports,
)
from rummy_site.templatetags.modules import preloaded
from tests.tables.conftest import make_player, make_table

HASHED = re.compile(r"\.[0-9a-f]{12}\.")
STATIC = Path(__file__).resolve().parents[2] / "static"


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
    assert dynamic_imports(source) == ["./b.js"]


@contextlib.contextmanager
def production_storage(root: Path, **settings: Any) -> Iterator[None]:
    """collectstatic's production storage in force, collecting into ``root``, with ``settings``."""
    with override_settings(
        STATIC_ROOT=root,
        STORAGES={"staticfiles": {"BACKEND": "rummy_site.static_storage.SiteStaticStorage"}},
        DEBUG=False,
        STATICFILES_FINDERS=["django.contrib.staticfiles.finders.FileSystemFinder"],
        **settings,
    ):
        preloaded.cache_clear()  # the graphs this process read from other storages
        try:
            yield
        finally:
            preloaded.cache_clear()


def collect() -> None:
    call_command("collectstatic", interactive=False, verbosity=0)
    preloaded.cache_clear()


@pytest.fixture
def collected(tmp_path: Path) -> Iterator[Path]:
    """The project's static files collected by the production storage, which stays in force."""
    with production_storage(tmp_path):
        collect()
        yield tmp_path


def hashed_names(root: Path) -> set[str]:
    return set(json.loads((root / "staticfiles.json").read_text())["paths"].values())


def code_imports(source: str) -> list[str]:
    """A module's static imports and its dynamic ones in code."""
    return static_imports(source) + dynamic_imports(source)


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
    assert checked > 50, checked  # the table's parts alone have more


def source_graph(entry: str) -> list[str]:
    """The modules ``entry`` reaches in the sources."""
    return module_graph(entry, lambda name: (STATIC / name).read_text())


@pytest.mark.django_db
def test_the_table_page_loads_its_code_as_one_hashed_bundle(collected: Path, client: Client) -> None:
    client.force_login(make_player("asha"))
    table = make_table(fee=0, seats=2)
    page = client.get(f"/tables/{table.pk}/").content.decode()
    (entry,) = re.findall(r'<script type="module" src="/static/([^"]+)"', page)
    scripts = re.findall(r'<script[^>]* src="/static/([^"]+)"', page)
    # no classic script holds the modules back (SortableJS comes by a dynamic import, when idle)
    assert re.findall(r'<script(?![^>]*type="module")[^>]*\bsrc=', page) == []
    hashed = hashed_names(collected)
    assert {entry, *scripts} <= hashed
    assert all(HASHED.search(name) for name in [entry, *scripts])
    # the table's whole graph in its one file: it imports nothing more, so nothing is preloaded
    bundle = (collected / entry).read_text()
    assert static_imports(bundle) == [] and "modulepreload" not in page
    graph = source_graph("js/table.js")
    assert len(graph) > 30, graph
    for words in ("skip-to-hand", "rummyEarlySocket", "btn-keys"):  # the graph's own strings
        written = [n for n in graph if words in (STATIC / n).read_text()]
        assert written and words in bundle, (words, written)
    # but what only a drag needs still comes by itself, by its hashed name
    (lazy,) = dynamic_imports(bundle)
    assert resolve(entry, lazy) in hashed and "sortable" in lazy.lower()


def test_each_page_entry_is_a_bundle_and_its_parts_are_collected_too(collected: Path) -> None:
    paths = json.loads((collected / "staticfiles.json").read_text())["paths"]
    entries = sorted(p.name for p in (STATIC / "js").glob("*.js"))
    assert {"table.js", "lobby.js", "replay.js", "early.js"} <= set(entries)
    for name in entries:
        assert static_imports((collected / paths[f"js/{name}"]).read_text()) == [], name
    # a part is still a module of its own, minified, importing the others by their hashed names
    assert static_imports((collected / paths["js/table/state.js"]).read_text())


def test_a_dynamic_import_the_bundle_would_not_find_is_refused(tmp_path: Path) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from rummy_site.static_storage import bundle_js

    (tmp_path / "js" / "deep").mkdir(parents=True)
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "lazy.js").write_text("export const x = 1;\n")
    (tmp_path / "js" / "page.js").write_text('import { y } from "./deep/part.js";\nconsole.log(y);\n')
    part = tmp_path / "js" / "deep" / "part.js"
    part.write_text('export const y = () => import("../../vendor/lazy.js");\n')
    with override_settings(
        STATICFILES_DIRS=[tmp_path],
        STATICFILES_FINDERS=["django.contrib.staticfiles.finders.FileSystemFinder"],
    ):
        with pytest.raises(ImproperlyConfigured, match="would not find"):
            bundle_js("js/page.js")
        part.write_text("export const y = 2;\n")
        assert b"console.log" in bundle_js("js/page.js")


@pytest.mark.django_db
def test_the_lobby_is_one_bundle_too(collected: Path, client: Client) -> None:
    client.force_login(make_player("asha"))
    page = client.get("/").content.decode()
    (entry,) = re.findall(r'<script type="module" src="/static/([^"]+)"', page)
    assert static_imports((collected / entry).read_text()) == [] and "modulepreload" not in page


@pytest.mark.django_db
def test_without_bundling_a_page_preloads_its_whole_graph(tmp_path: Path, client: Client) -> None:
    with production_storage(tmp_path, STATIC_BUNDLE_JS=False):
        collect()
        client.force_login(make_player("asha"))
        table = make_table(fee=0, seats=2)
        page = client.get(f"/tables/{table.pk}/").content.decode()
    (entry,) = re.findall(r'<script type="module" src="/static/([^"]+)"', page)
    preloads = re.findall(r'<link rel="modulepreload" href="/static/([^"]+)"', page)
    graph = module_graph(entry, lambda name: (tmp_path / name).read_text())
    assert len(preloads) == len(set(preloads)) and set(preloads) == set(graph[1:])
    assert len(graph) > 30 and all(HASHED.search(name) for name in preloads), graph


def test_the_players_modules_are_hashed_from_their_minified_copies(collected: Path) -> None:
    paths = json.loads((collected / "staticfiles.json").read_text())["paths"]
    own = {name: hashed for name, hashed in paths.items() if name.startswith("js/") and name.endswith(".js")}
    assert len(own) > 30
    for name, hashed in own.items():
        served = (collected / hashed).read_text()
        written = "".join((STATIC / n).read_text() for n in source_graph(name))
        assert "// @ts-check" in written and "@ts-check" not in served, name  # comments gone
        assert len(served) < len(written), name
    # the vendor files are collected as they come
    vendor = next(name for name in paths if name.startswith("vendor/") and name.endswith(".js"))
    assert (collected / paths[vendor]).read_bytes() == (STATIC / vendor).read_bytes()


def test_without_minifying_the_modules_are_collected_as_written(tmp_path: Path) -> None:
    with production_storage(tmp_path, STATIC_MINIFY_JS=False):
        collect()
    part = Path("js") / "table" / "state.js"
    assert (tmp_path / part).read_bytes() == (STATIC / part).read_bytes()


def test_a_changed_part_is_bundled_again_by_the_next_collectstatic(tmp_path: Path) -> None:
    source, root = tmp_path / "static", tmp_path / "collected"
    (source / "js" / "parts").mkdir(parents=True)
    (source / "js" / "page.js").write_text('import { word } from "./parts/word.js";\nconsole.log(word);\n')
    part = source / "js" / "parts" / "word.js"
    with production_storage(root, STATICFILES_DIRS=[source]):
        bundles = []
        for word in ("first", "second"):
            part.write_text(f'export const word = "{word}";\n')
            collect()
            paths = json.loads((root / "staticfiles.json").read_text())["paths"]
            bundles.append((root / paths["js/page.js"]).read_text())
    assert '"first"' in bundles[0] and '"second"' in bundles[1], bundles


def test_a_script_that_would_end_its_script_element_is_not_inlined(tmp_path: Path) -> None:
    from rummy_site.templatetags.modules import served_script

    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "fine.js").write_text('(() => { document.title = "a < b"; })();\n')
    (tmp_path / "js" / "ends.js").write_text('(() => { const s = "</SCRIPT><b>"; })();\n')
    (tmp_path / "js" / "comment.js").write_text('(() => { const s = "<!--"; })();\n')
    with override_settings(
        STATICFILES_DIRS=[tmp_path],
        STATICFILES_FINDERS=["django.contrib.staticfiles.finders.FileSystemFinder"],
    ):
        assert served_script("js/fine.js") == '(() => { document.title = "a < b"; })();'
        for name in ("js/ends.js", "js/comment.js"):
            with pytest.raises(ValueError, match="would end or confuse"):
                served_script(name)
