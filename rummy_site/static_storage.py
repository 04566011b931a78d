"""collectstatic's storage: WhiteNoise's hashed and compressed files, brotli where players are.

The table's own code, styles and vendor scripts reach players' phones, so each gets a ``.br``
beside its ``.gz`` (brotli at its best quality, smaller than gzip). The admin's and the API
browser's bundles are for staff and are many megabytes; brotli at that quality would make
collectstatic many times slower for them, so they keep gzip alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from whitenoise.compress import Compressor
from whitenoise.storage import CompressedManifestStaticFilesStorage

#: The collected folders that players' pages load (static/ of the project).
PLAYERS_FOLDERS = ("js", "css", "vendor", "img")


class _PlayersFirstCompressor(Compressor):  # type: ignore[misc]
    def __init__(self, root: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.root = root.rstrip("/") + "/"
        self.gzip_only = Compressor(use_brotli=False, **kwargs)

    def compress(self, path: str) -> Iterator[str]:
        name = path[len(self.root) :] if path.startswith(self.root) else path
        if name.split("/", 1)[0] in PLAYERS_FOLDERS:
            return super().compress(path)  # type: ignore[no-any-return]
        return self.gzip_only.compress(path)  # type: ignore[no-any-return]


class SiteStaticStorage(CompressedManifestStaticFilesStorage):  # type: ignore[misc]
    def create_compressor(self, **kwargs: Any) -> Compressor:
        return _PlayersFirstCompressor(str(self.location), **kwargs)
