"""The socket threads keep their database connection between calls (``core.dbthreads``).

Handing it back after every action and arrangement cost Django's connect and close each time
(3-4 % of a Daphne's CPU under load); the threads are few and fixed, so each keeps one, and
still lets go of one that is broken, left in a transaction, or held too long.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test import override_settings

from core import dbthreads
from tables.realtime import socket_base

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def one_thread(require_postgres: None) -> Iterator[None]:
    if dbthreads._size not in (0, 1):
        pytest.fail("another test made the socket threads with another size")
    with override_settings(WS_DB_THREADS=1):
        yield
    dbthreads.release()  # no connection left open past the test (the test database is dropped)


def _backend() -> tuple[int, bool]:
    """The backend this thread's connection talks to, and whether the thread had it open already."""
    had = connection.connection is not None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0], had


def _terminate(pid: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])


def test_a_socket_thread_keeps_its_connection_and_replaces_a_dead_one(one_thread: None) -> None:
    call = socket_base.db(_backend)
    first, had = async_to_sync(call)()
    assert not had
    again, had = async_to_sync(call)()
    assert (again, had) == (first, True)  # the same connection, kept open between the calls
    _terminate(first)  # the database drops it (a restart, a failover)
    replaced, _had = async_to_sync(call)()  # one failed try on it, then a new one (core.dbretry)
    assert replaced != first
    assert async_to_sync(call)() == (replaced, True)


def test_a_held_connection_goes_back_after_its_time(
    one_thread: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = socket_base.db(_backend)
    first, _ = async_to_sync(call)()
    monkeypatch.setattr(dbthreads, "HOLD_SECONDS", 0.0)  # the next connection is held no time
    assert async_to_sync(call)() == (first, True)  # this one was held when it opened: still kept
    monkeypatch.setattr(dbthreads.time, "monotonic", lambda: 10.0**9)  # and now its time is up
    second, had = async_to_sync(call)()
    assert not had and second != first


def test_threads_give_back_their_connections_when_the_pool_has_no_room_for_them() -> None:
    assert dbthreads.holds(3, pool=4)
    assert not dbthreads.holds(4, pool=4)  # four threads holding four: an HTTP request would wait
    assert dbthreads.holds(4, pool=0)  # no pool: each thread has its own connection anyway
    assert dbthreads.holds(4)  # the tests' settings: no pool
