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
phone on mobile data waits on their bytes before the table is playable (docs/operations.md). The
minifier is esbuild (a dev dependency in package.json, installed by ``npm ci``), which parses the
modules as the browser does; the vendor files come minified already.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.files.base import ContentFile
from whitenoise.compress import Compressor
from whitenoise.storage import CompressedManifestStaticFilesStorage

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
        """collectstatic's copy of a source file: a player's module is minified on its way in."""
        if minified(name):
            content = ContentFile(minify_js(content.read(), name))
        return super().save(name, content, max_length)

    def post_process(self, paths: dict[str, Any], dry_run: bool = False, **options: Any) -> Iterator[Any]:
        """The hashed copies of the players' modules are made from the minified copies saved here,
        not from the sources collectstatic found them in."""
        paths = {name: (self, name) if minified(name) else found for name, found in paths.items()}
        yield from super().post_process(paths, dry_run, **options)


def minified(name: str) -> bool:
    """Whether the collected file ``name`` is a player's module that collectstatic minifies."""
    return bool(settings.STATIC_MINIFY_JS) and name.startswith(MINIFIED_FOLDER) and name.endswith(".js")


def esbuild() -> Path:
    return Path(settings.BASE_DIR) / "node_modules" / ".bin" / "esbuild"


def minify_js(source: bytes | str, name: str = "<module>") -> bytes:
    """``source``, an ES module, minified by esbuild (names, white space and comments; the syntax
    as written, so the same browsers run it)."""
    if not esbuild().exists():
        raise ImproperlyConfigured(
            f"collectstatic minifies the players' modules with {esbuild()}: install it with npm ci"
            " (README), or collect them unminified with STATIC_MINIFY_JS=false"
        )
    data = source.encode() if isinstance(source, str) else source
    done = subprocess.run(
        [str(esbuild()), "--minify", "--format=esm", "--charset=utf8", "--log-level=error"],
        input=data,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise ValueError(f"esbuild could not minify {name}: {done.stderr.decode(errors='replace')}")
    return done.stdout


def in_comment(source: str, at: int) -> bool:
    """Whether ``at`` in a JavaScript file is inside a ``/* … */`` or after a ``//`` on its line
    (a ``//`` in a string before it on the line would count too: the modules have none there)."""
    in_block = source.rfind("/*", 0, at) > source.rfind("*/", 0, at)
    line = source[source.rfind("\n", 0, at) + 1 : at]
    return in_block or "//" in line
