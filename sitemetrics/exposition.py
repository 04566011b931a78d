"""The metrics text of a process: its own registry, or with ``PROMETHEUS_MULTIPROC_DIR`` the
files of every process that shares the directory (a Celery worker and its pool's children).

A Daphne is one process, and its ``/metrics`` (``rummy_site.metrics``) serves its registry. A
worker runs its tasks in forked children, so its metrics are only whole in multiprocess mode:
each process writes its values to files in the directory, and ``MultiProcessCollector`` adds
them up when the worker's endpoint (``serve``) is scraped. The directory must be the unit's own
and emptied at each start (systemd's ``RuntimeDirectory=``): files left by an earlier run are
counted too.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, start_http_server
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def registry() -> CollectorRegistry:
    """The process's own registry, or one that adds up every process's files."""
    directory = multiprocess_dir()
    if not directory:
        return REGISTRY
    found = CollectorRegistry()
    MultiProcessCollector(found, path=directory)
    return found


def render(extra: Iterable[Collector] = ()) -> bytes:
    """The exposition text (Prometheus' text format 0.0.4), with ``extra`` collectors (computed at
    scrape time, such as the database's gauges) after the process's metrics."""
    text = generate_latest(registry())
    extra = list(extra)
    if extra:
        scraped = CollectorRegistry()
        for collector in extra:
            scraped.register(collector)
        text += generate_latest(scraped)
    return text


def serve(port: int, addr: str = "127.0.0.1") -> None:
    """An HTTP endpoint of its own for a process without one (the Celery worker, beat)."""
    try:
        start_http_server(port, addr=addr, registry=registry())
    except OSError as exc:  # a second process of the unit (beat inside a worker's -B) finds it taken
        logger.warning("metrics not served on %s:%s: %s", addr, port, exc)
        return
    logger.info("metrics served on http://%s:%s/metrics", addr, port)
