"""The worker's and beat's signs of life for ``/healthz`` (``rummy_site.health`` reads them):
the worker writes a heartbeat from its consumer's own timer (``Heartbeat``, a consumer step of
the site's Celery app, ``rummy_site.celery``), beat's deadline sweep writes when it ran
(``tables.tasks.sweep_deadlines``). Kept in Django's cache: Redis with ``REDIS_URL``."""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import bootsteps
from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)

WORKER_KEY = "health:worker:heartbeat"
SWEEP_KEY = "health:beat:last-sweep"


def worker_beat(now: float | None = None) -> None:
    """The worker is alive now (its consumer's timer calls this)."""
    try:
        cache.set(WORKER_KEY, now if now is not None else time.time(), timeout=None)
    except Exception:  # Redis away: /healthz reports Redis, and the next beat tries again
        logger.warning("could not write the worker heartbeat", exc_info=True)


def sweep_ran(now: float | None = None) -> None:
    """Beat's deadline sweep ran now (the sweep task calls this)."""
    try:
        cache.set(SWEEP_KEY, now if now is not None else time.time(), timeout=None)
    except Exception:
        logger.warning("could not record the sweep's time", exc_info=True)


class Heartbeat(bootsteps.StartStopStep):  # type: ignore[misc]  # Celery ships no types: the base class is Any
    """A worker consumer step: a heartbeat at once, then every ``HEALTH_HEARTBEAT_SECONDS`` from
    the consumer's own timer (so a worker whose loop is stuck stops beating)."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.tref: Any = None

    def start(self, parent: Any) -> None:
        worker_beat()
        self.tref = parent.timer.call_repeatedly(float(settings.HEALTH_HEARTBEAT_SECONDS), worker_beat)

    def stop(self, parent: Any) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None

    shutdown = stop
