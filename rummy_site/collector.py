"""The garbage collector as a long-running server process wants it."""

from __future__ import annotations

import gc

from django.conf import settings


def settle_long_lived_objects() -> None:
    """Everything loaded so far lives as long as the process: out of the collector's way, so
    that its full collections walk only the objects of live connections and games; and those come
    seldom (``settings.GC_THRESHOLDS``; the figures are in bench/load/README.md). Called by the ASGI
    module once the site is loaded, and by
    ``bench/load/action_cpu.py`` so that it measures what a server spends."""
    if settings.GC_THRESHOLDS:
        gc.set_threshold(*settings.GC_THRESHOLDS)
    gc.freeze()
