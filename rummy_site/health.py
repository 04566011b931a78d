"""What ``/healthz`` reports (issue 27): the database, Redis, the Celery worker and beat.

- **database**: ``SELECT 1``.
- **redis** (only with ``REDIS_URL``): ``PING``.
- **worker**: a heartbeat the worker writes into Django's cache every ``HEALTH_HEARTBEAT_SECONDS``
  from its consumer's timer (``tables.heartbeat.Heartbeat``, a consumer step: it beats only while the worker's loop
  runs and is connected to the broker); away when older than ``HEALTH_WORKER_STALE_SECONDS``.
- **beat**: the time beat's deadline sweep last ran (``tables.tasks.sweep_deadlines`` writes it);
  away when older than ``HEALTH_BEAT_STALE_SECONDS``. The sweep runs on the worker, so with the
  worker away beat reads away too: the worker's own line tells the two apart.

The cache is Redis with ``REDIS_URL`` (shared by every process); without it the worker and the
sweep run inside the web process (``rummy_site.embedded_worker``), whose memory cache they share.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection

from tables.heartbeat import SWEEP_KEY, WORKER_KEY, sweep_ran, worker_beat

__all__ = ["report", "sweep_ran", "worker_beat"]

logger = logging.getLogger(__name__)

OK, AWAY, DOWN, UNUSED = "ok", "away", "down", "not used"


def _age(key: str, stale_after: float, now: float) -> dict[str, Any]:
    try:
        at = cache.get(key)
    except Exception as exc:
        return {"state": AWAY, "detail": f"cannot read its heartbeat: {type(exc).__name__}"}
    if at is None:
        return {"state": AWAY, "detail": "never seen"}
    age = max(0.0, now - float(at))
    return {
        "state": OK if age <= stale_after else AWAY,
        "last_seen": datetime.fromtimestamp(float(at), UTC).isoformat(timespec="seconds"),
        "age_seconds": round(age, 1),
        "stale_after_seconds": stale_after,
    }


def _database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:
        return {"state": DOWN, "vendor": connection.vendor, "detail": type(exc).__name__}
    return {"state": OK, "vendor": connection.vendor}


def _redis() -> dict[str, Any]:
    url = settings.REDIS_URL
    if not url:
        return {"state": UNUSED}
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
    try:
        client.ping()
    except Exception as exc:
        return {"state": DOWN, "detail": type(exc).__name__}
    finally:
        client.close()
    return {"state": OK}


def report(now: float | None = None) -> tuple[bool, dict[str, Any]]:
    """(healthy, each part's state): healthy when none is down or away."""
    now = now if now is not None else time.time()
    checks = {
        "database": _database(),
        "redis": _redis(),
        "worker": _age(WORKER_KEY, float(settings.HEALTH_WORKER_STALE_SECONDS), now),
        "beat": _age(SWEEP_KEY, float(settings.HEALTH_BEAT_STALE_SECONDS), now),
    }
    healthy = all(c["state"] in (OK, UNUSED) for c in checks.values())
    return healthy, checks
