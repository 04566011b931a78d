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

A load balancer's probe gives up after a second or two, so the answer comes within
``HEALTH_DEADLINE_SECONDS`` whatever is down or hung: each check has short timeouts of its own
(a connection of its own to the database, never the pool's, with ``connect_timeout`` and a
``statement_timeout``; Redis and the heartbeats' cache with socket timeouts, the ``health`` cache)
and all run at once in threads; one that has not answered by the deadline is reported down (or
away) and left to end on its own timeouts.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.cache import BaseCache, cache, caches
from django.core.cache.backends.base import InvalidCacheBackendError
from django.db import connection

from tables.heartbeat import SWEEP_KEY, WORKER_KEY, sweep_ran, worker_beat

__all__ = ["report", "sweep_ran", "worker_beat"]

logger = logging.getLogger(__name__)

OK, AWAY, DOWN, UNUSED = "ok", "away", "down", "not used"
#: Checks run here, so that a hung one holds a thread of its own, never the request's.
_checks = ThreadPoolExecutor(max_workers=8, thread_name_prefix="healthz")


def _heartbeats() -> BaseCache:
    """The cache the heartbeats are in, through the ``health`` alias (short socket timeouts) when
    the settings have it, else the default one."""
    try:
        return caches["health"]
    except InvalidCacheBackendError:
        return cache


def _age(key: str, stale_after: float, now: float) -> dict[str, Any]:
    try:
        at = _heartbeats().get(key)
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


def _select_one() -> None:
    """``SELECT 1`` on a connection of its own with short timeouts: the site's connection or pool
    would wait out the pool's timeout or the system's TCP one."""
    timeout = float(settings.HEALTH_DEADLINE_SECONDS)
    if connection.vendor == "sqlite":
        lite = sqlite3.connect(str(connection.settings_dict["NAME"]), timeout=timeout)
        try:
            lite.execute("SELECT 1").fetchone()
        finally:
            lite.close()
        return
    import psycopg

    params = {
        k: v
        for k, v in connection.get_connection_params().items()
        if k not in ("cursor_factory", "context", "prepare_threshold", "pool")
    }
    ms = max(1, int(timeout * 1000))
    params["options"] = f"{params.get('options', '')} -c statement_timeout={ms}".strip()
    # libpq's least connect_timeout is 2 s: the deadline (report) answers before it
    with psycopg.connect(**params, connect_timeout=2, autocommit=True) as db:
        db.execute("SELECT 1").fetchone()


def _database() -> dict[str, Any]:
    try:
        _select_one()
    except Exception as exc:
        return {"state": DOWN, "vendor": connection.vendor, "detail": type(exc).__name__}
    return {"state": OK, "vendor": connection.vendor}


def _redis() -> dict[str, Any]:
    url = settings.REDIS_URL
    if not url:
        return {"state": UNUSED}
    import redis

    timeout = float(settings.HEALTH_DEADLINE_SECONDS)
    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    try:
        client.ping()
    except Exception as exc:
        return {"state": DOWN, "detail": type(exc).__name__}
    finally:
        client.close()
    return {"state": OK}


def report(now: float | None = None) -> tuple[bool, dict[str, Any]]:
    """(healthy, each part's state) within ``HEALTH_DEADLINE_SECONDS``: healthy when none is down
    or away; a check without an answer by then is down (the database, Redis) or away (the
    heartbeats)."""
    now = now if now is not None else time.time()
    deadline = float(settings.HEALTH_DEADLINE_SECONDS)
    started = time.monotonic()
    parts: dict[str, tuple[Callable[[], dict[str, Any]], str]] = {
        "database": (_database, DOWN),
        "redis": (_redis, DOWN),
        "worker": (lambda: _age(WORKER_KEY, float(settings.HEALTH_WORKER_STALE_SECONDS), now), AWAY),
        "beat": (lambda: _age(SWEEP_KEY, float(settings.HEALTH_BEAT_STALE_SECONDS), now), AWAY),
    }
    running = {name: _checks.submit(check) for name, (check, _) in parts.items()}
    checks: dict[str, Any] = {}
    for name, future in running.items():
        try:
            checks[name] = future.result(timeout=max(0.0, deadline - (time.monotonic() - started)))
        except FutureTimeout:
            checks[name] = {"state": parts[name][1], "detail": f"no answer within {deadline:g} s"}
        except Exception as exc:  # a check that broke says so, and the others still answer
            checks[name] = {"state": parts[name][1], "detail": type(exc).__name__}
    healthy = all(c["state"] in (OK, UNUSED) for c in checks.values())
    return healthy, checks
