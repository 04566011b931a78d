"""Fixtures shared by the whole suite.

Tests that prove something only PostgreSQL or Redis can (row locks, concurrent
postings, the Redis channel layer, the Celery broker) ask for ``require_postgres``
or ``require_redis``. Outside CI a missing service skips them; in CI
(``CI=true``) it fails them, so a broken CI machine can never pass quietly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests import lanes
from tests.needs import missing
from tests.workers import worker_redis_url


def redis_url() -> str:
    """``REDIS_URL`` if the settings name one, else this xdist worker's database of ``TEST_REDIS_URL``."""
    from django.conf import settings

    return settings.REDIS_URL or worker_redis_url()


@pytest.fixture
def require_postgres() -> None:
    from django.db import connection

    if connection.vendor != "postgresql":
        missing("PostgreSQL", f"the test database is {connection.vendor}; set DATABASE_URL=postgres://...")


@pytest.fixture
def require_redis() -> str:
    import redis

    url = redis_url()
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except Exception as exc:  # any failure to reach it means it is missing
        missing("Redis", f"{url}: {exc}")
    return url


@pytest.fixture(autouse=True)
def _no_browser_test_kit_behind(request: pytest.FixtureRequest) -> None:
    """A test that does not use the browser tests' server or browser runs with neither (``tests/e2e/shared.py``)."""
    from tests.e2e import shared

    shared.stop_unless_used(request.fixturenames)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast lane: the engine, use cases and contract, no server process, no browser (tests/lanes.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", lanes.MARK_HELP)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    return True if lanes.skips_file(config, collection_path) else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long tests (``slow``), then the browser tests (``e2e``), then the rest, each in its order;
    those that start a server or a browser marked ``servers``; ``--fast`` keeps the fast lane alone.

    With ``-n`` the workers take tests in this order: a long test started last would keep one
    worker busy after the others are done, so the longest go first and the short fill in after.
    """

    def rank(item: pytest.Item) -> int:
        if item.get_closest_marker("slow"):
            return 0
        return 1 if item.get_closest_marker("e2e") else 2

    lanes.mark_and_select(config, items)
    items.sort(key=rank)  # stable: the collected order within each rank


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """Before the last test's teardown (which drops the test database), end the connections other
    threads of this process still hold to it: a thread's kept connection (``CONN_MAX_AGE``, as some
    tests set it) made the drop fail ("being accessed by other users") and left the database behind."""
    if nextitem is None:
        _end_other_sessions_of_the_test_database()
    return (yield)


def _end_other_sessions_of_the_test_database() -> None:
    from django.db import connection

    name = connection.settings_dict.get("NAME") or ""
    if connection.vendor != "postgresql" or not name.startswith("test_"):
        return  # SQLite, or no test database was made: nothing to drop
    import psycopg

    from tests.tables.procs import child_database_url

    own = connection.connection.info.backend_pid if connection.connection is not None else 0
    with psycopg.connect(child_database_url(), autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid() AND pid <> %s",
            (own,),
        )
