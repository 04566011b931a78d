"""What each pytest-xdist worker has of its own, so that workers running side by side never meet.

``scripts/test`` runs the suite in several processes (``pytest -n``). Each gets its own test
database (pytest-django names it after the worker; rummy_site/test_settings.py adds the process
id) and, from here, its own Redis database: ``TEST_REDIS_URL``'s number plus the worker's. Tests
that need a Redis database nobody else touches claim one with ``tests.tables.procs.private_redis``,
which leaves the workers' own databases alone. Without xdist there is one worker, number 0.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
#: How many databases a Redis server has unless configured otherwise.
REDIS_DATABASES = 16


def worker_index() -> int:
    """This process's xdist worker number (``gw2`` is 2); 0 when the suite runs in one process."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def worker_count() -> int:
    """How many xdist workers this run has (1 without xdist)."""
    return max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1))


def _db_of(url: str) -> int:
    path = urlsplit(url).path.strip("/")
    return int(path) if path.isdigit() else 0


def _with_db(url: str, db: int) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


def base_redis_url() -> str:
    """The Redis the suite was given: ``TEST_REDIS_URL``, else database 0 on 127.0.0.1."""
    return os.environ.get("TEST_REDIS_URL") or DEFAULT_REDIS_URL


def worker_redis_dbs() -> set[int]:
    """The Redis database numbers the workers of this run use as their own."""
    base = _db_of(base_redis_url())
    return {(base + i) % REDIS_DATABASES for i in range(worker_count())}


def worker_redis_url() -> str:
    """This worker's Redis database: ``TEST_REDIS_URL``'s number plus the worker's."""
    base = base_redis_url()
    return _with_db(base, (_db_of(base) + worker_index()) % REDIS_DATABASES)
