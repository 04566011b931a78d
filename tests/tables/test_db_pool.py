"""Open lobbies on a Daphne configured for production keep to its connection pool (``DB_POOL_SIZE``).

Under ASGI every HTTP request runs in a thread of its own. With kept connections
(``DB_CONN_MAX_AGE``, the production advice before) each request in flight opened one
and kept it, and 100 open lobby pages refreshing their lists used up PostgreSQL's
``max_connections`` for every process on the server (``bench/load/lobby_bench.py
--db-pool 0``). With a pool a process holds at most ``DB_POOL_SIZE``, however many
pages ask at once; the others wait their turn.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from tests.helpers import session_cookie
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import private_redis, start_daphne

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]
POOL = 3


def _pids() -> set[int]:
    """The client connections to the test database now."""
    import psycopg

    s = connection.settings_dict
    with psycopg.connect(
        host=s.get("HOST") or "127.0.0.1",
        port=s.get("PORT") or 5432,
        user=s.get("USER") or "postgres",
        dbname="postgres",
        autocommit=True,
    ) as admin:
        pids = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND backend_type = 'client backend'",
            (s["NAME"],),
        ).fetchall()
    return {pid for (pid,) in pids}


def _backends(exclude: set[int]) -> int:
    """Client connections to the test database, but for those in ``exclude``."""
    return len(_pids() - exclude)


def test_forty_lobbies_asking_at_once_hold_at_most_the_pool(
    require_postgres: None, require_redis: str
) -> None:
    tables = {make_table(seats=3).pk for _ in range(3)}
    cookies = [session_cookie(make_player(f"lobby{i}")) for i in range(40)]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        own = {cursor.fetchone()[0]}
    # and any other connection there before the Daphne (a thread of an earlier test in this
    # process, say): only the Daphne's are counted
    own |= _pids()
    with private_redis(require_redis) as redis_url:
        daphne, port = start_daphne(redis_url, DB_POOL_SIZE=str(POOL), DB_CONN_MAX_AGE="0", WS_DB_THREADS="4")
        peak, done = 0, threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, _backends(own))
                done.wait(0.02)

        def lobby(cookie: str) -> list[int]:
            ids = []
            for _ in range(3):  # a page refreshing its list, three times
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/api/tables/",
                    headers={"Cookie": cookie, "Accept": "application/json"},
                )
                with urllib.request.urlopen(request, timeout=30) as answer:
                    assert answer.status == 200
                    ids.append(len({row["id"] for row in json.loads(answer.read())} & tables))
            return ids

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            with ThreadPoolExecutor(max_workers=40) as pool:
                answers = list(pool.map(lobby, cookies))
        finally:
            done.set()
            sampler.join()
            daphne.stop()
    assert answers == [[3, 3, 3]] * 40
    assert 1 <= peak <= POOL, f"the Daphne held {peak} connections with a pool of {POOL}"


def test_a_pool_and_kept_connections_exclude_each_other(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    import rummy_site.settings as site_settings

    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/rummy")
    monkeypatch.setenv("DB_POOL_SIZE", "4")
    monkeypatch.setenv("DB_CONN_MAX_AGE", "600")
    try:
        with pytest.raises(ImproperlyConfigured, match="DB_POOL_SIZE replaces DB_CONN_MAX_AGE"):
            importlib.reload(site_settings)
        monkeypatch.setenv("DB_CONN_MAX_AGE", "0")
        reloaded = importlib.reload(site_settings)
        assert reloaded.DATABASES["default"]["OPTIONS"]["pool"] == {
            "min_size": 2,
            "max_size": 4,
            "timeout": 10.0,
        }
        assert reloaded.DATABASES["default"]["CONN_MAX_AGE"] == 0
    finally:
        monkeypatch.undo()
        importlib.reload(site_settings)
