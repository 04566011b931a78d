"""collectstatic's storage: WhiteNoise's hashed and compressed files, brotli where players are.

Every file gets a content-hashed name, served with a far-future cache (WhiteNoise marks it
immutable). The ES modules name one another in their imports, so the imports are rewritten to the
hashed names too (Django's ``support_js_module_import_aggregation``): a module's hash then covers
its imports' hashes, and no module is ever served under its plain name with a short cache, to be
asked for again level by level when a player comes back.

The table's own code, styles and vendor scripts reach players' phones, so each gets a ``.br``
beside its ``.gz`` (brotli at its best quality, smaller than gzip). The admin's and the API
browser's bundles are for staff and are many megabytes; brotli at that quality would make
collectstatic many times slower for them, so they keep gzip alone.

The players' own modules (``js/``) are minified as they are collected, before they are hashed: a
phone on mobile data waits on their bytes before the table is playable (docs/operations.md). Each
page's entry module (one at the top of ``js/``) is collected as a bundle of its whole graph: one
file, compressed as a whole, in one request. The tool is esbuild (a dev dependency in
package.json, installed by ``npm ci``), which parses the modules as the browser does; the vendor
files come minified already. ``DEBUG`` serves the modules as written.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, cast

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.exceptions import ImproperlyConfigured
from django.core.files.base import ContentFile
from whitenoise.compress import Compressor
from whitenoise.storage import CompressedManifestStaticFilesStorage

from rummy_site.module_graph import dynamic_imports, in_comment, module_graph, resolve

#: The collected folders that players' pages load (static/ of the project).
PLAYERS_FOLDERS = ("js", "css", "vendor", "img")
#: The folder of the players' own modules, minified as collected.
MINIFIED_FOLDER = "js/"


class _PlayersFirstCompressor(Compressor):  # type: ignore[misc]  # WhiteNoise ships no types: the base class is Any
    def __init__(self, root: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.root = root.rstrip("/") + "/"
        self.gzip_only = Compressor(use_brotli=False, **kwargs)

    def compress(self, path: str) -> Iterator[str]:
        name = path[len(self.root) :] if path.startswith(self.root) else path
        if name.split("/", 1)[0] in PLAYERS_FOLDERS:
            return super().compress(path)
        return self.gzip_only.compress(path)


class SiteStaticStorage(CompressedManifestStaticFilesStorage):  # type: ignore[misc]  # WhiteNoise ships no types: the base class is Any
    support_js_module_import_aggregation = True
    #: A module's name changes when an import's does, one level of the import graph a pass at the
    #: least (deepest folders first, so often more): enough passes for the deepest chain of imports.
    max_post_process_passes = 12

    def url_converter(self, name: str, hashed_files: dict[str, str], template: str | None = None) -> Any:
        """Django's converter, but a dynamic ``import("…")`` inside a comment is left as it is: the
        modules' JSDoc types name modules that way (``{import("./state.js").TableState}``), some
        with no file behind them (``./wire.js`` is ``wire.d.ts``; ``sortablejs`` is a package), and
        some that import the module back, a circle no hash would settle."""
        convert = super().url_converter(name, hashed_files, template)

        def converter(match: re.Match[str]) -> str:
            if match.group("matched").startswith("import(") and in_comment(match.string, match.start()):
                return match.group("matched")
            return convert(match)

        return converter

    def create_compressor(self, **kwargs: Any) -> Compressor:
        return _PlayersFirstCompressor(str(self.location), **kwargs)

    def save(self, name: str, content: IO[Any], max_length: int | None = None) -> str:
        """collectstatic's copy of a source file: a page's entry module is bundled, and a player's
        module minified, on its way in."""
        if bundled(name):
            content = ContentFile(bundle_js(name))
        elif minified(name):
            content = ContentFile(minify_js(content.read(), name))
        return super().save(name, content, max_length)

    def get_modified_time(self, name: str) -> datetime:
        """A player's module is always collected afresh (collectstatic skips a file whose copy is
        newer than its source): what it becomes depends on the settings and, for an entry, on every
        module of its graph, not on its own source alone."""
        if own_module(name):
            return datetime.min.replace(tzinfo=UTC)
        return cast(datetime, super().get_modified_time(name))

    def post_process(self, paths: dict[str, Any], dry_run: bool = False, **options: Any) -> Iterator[Any]:
        """The hashed copies of the players' modules are made from the copies saved here, not from
        the sources collectstatic found them in."""
        paths = {
            name: (self, name) if bundled(name) or minified(name) else found for name, found in paths.items()
        }
        yield from super().post_process(paths, dry_run, **options)


def own_module(name: str) -> bool:
    """Whether the collected file ``name`` is one of the players' own modules (``static/js``)."""
    return name.startswith(MINIFIED_FOLDER) and name.endswith(".js")


def minified(name: str) -> bool:
    """Whether the collected file ``name`` is a player's module that collectstatic minifies."""
    return bool(settings.STATIC_MINIFY_JS) and own_module(name)


def bundled(name: str) -> bool:
    """Whether the collected file ``name`` is a page's entry module, which collectstatic bundles
    with every module it imports: a module at the top of ``js/`` (those in its folders are parts)."""
    return bool(settings.STATIC_BUNDLE_JS) and own_module(name) and "/" not in name[len(MINIFIED_FOLDER) :]


def esbuild() -> Path:
    return Path(settings.BASE_DIR) / "node_modules" / ".bin" / "esbuild"


def minify_js(source: bytes | str, name: str = "<module>") -> bytes:
    """``source``, an ES module, minified by esbuild (names, white space and comments; the syntax
    as written, so the same browsers run it)."""
    data = source.encode() if isinstance(source, str) else source
    return run_esbuild(["--minify"], data, name, "minify")


def bundle_js(entry: str) -> bytes:
    """The page's entry module ``entry`` (``js/table.js``) and every module it imports statically,
    as one module: a phone fetches one file, compressed as a whole, instead of the graph's dozens.
    What a module imports dynamically stays its own file, fetched when first needed (SortableJS)."""
    path = finders.find(entry)
    if not isinstance(path, str):
        raise ImproperlyConfigured(f"no static file {entry!r} to bundle")
    lazy = []
    for name in module_graph(entry, read_static):
        for specifier in dynamic_imports(read_static(name)):
            # the bundle sits where its entry does: the import must name its file from there too
            if not names_the_same(entry, name, specifier):
                raise ImproperlyConfigured(
                    f"{name} imports {specifier!r} dynamically, a path that {entry}'s bundle would"
                    " not find: import it statically, or move the module beside its entry"
                )
            lazy.append(f"--external:{specifier}")
    options = ["--bundle", *lazy, *(["--minify"] if settings.STATIC_MINIFY_JS else [])]
    return run_esbuild([*options, path], b"", entry, "bundle")


def names_the_same(entry: str, importer: str, specifier: str) -> bool:
    """Whether ``specifier`` names the same file from ``entry`` as from ``importer``."""
    try:
        return resolve(entry, specifier) == resolve(importer, specifier)
    except ValueError:  # outside the static files from one of them
        return False


def read_static(name: str) -> str:
    """A static file's source, found where collectstatic finds it."""
    path = finders.find(name)
    if not isinstance(path, str):
        raise ValueError(f"no static file {name!r}")
    return Path(path).read_text(encoding="utf-8")


def run_esbuild(options: list[str], data: bytes, name: str, doing: str) -> bytes:
    """esbuild's output for ``options`` (an ES module, as written for the same browsers)."""
    if not esbuild().exists():
        raise ImproperlyConfigured(
            f"collectstatic minifies and bundles the players' modules with {esbuild()}: install it"
            " with npm ci (README), or collect them as written with STATIC_MINIFY_JS=false and"
            " STATIC_BUNDLE_JS=false"
        )
    done = subprocess.run(
        [str(esbuild()), "--format=esm", "--charset=utf8", "--log-level=error", *options],
        input=data,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise ValueError(f"esbuild could not {doing} {name}: {done.stderr.decode(errors='replace')}")
    return done.stdout
