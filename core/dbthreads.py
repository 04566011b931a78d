"""The threads a server process runs its table sockets' database work on (``WS_DB_THREADS``).

Each thread keeps its database connection from one call to the next, for up to
``HOLD_SECONDS``. Channels' ``DatabaseSyncToAsync`` closes a thread's connections after
every call, which with a pool (``DB_POOL_SIZE``) hands the connection back and takes one
again at the next call: Django's connect and close on every action and arrangement, a
measurable part of a busy Daphne's CPU (bench/load/README.md). The threads are few
and fixed, so holding their connections bounds what a process holds as the pool does, as
long as the pool has room for them and one more (``holds``); otherwise they give their
connection back after each call, as before.

What Django's own check does after each call still happens (``close_if_unusable_or_obsolete``):
a connection left in a transaction or broken by an error is closed, and a held one is closed
once it has been held ``HOLD_SECONDS`` (the pool's own lifetime rules see it again then).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import SyncToAsync
from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import connections

#: How long a socket thread keeps one connection before it goes back (to the pool, or closed).
HOLD_SECONDS = 300.0

_executor: ThreadPoolExecutor | None = None
_size = 0


def holds(threads: int, pool: int | None = None) -> bool:
    """Whether ``threads`` socket threads may each keep a connection: with no pool (``pool`` 0), or
    one larger than them (``pool``: its size; by default this process's, ``DB_POOL_SIZE``)."""
    if pool is None:
        pool = settings.DB_POOL_SIZE if settings.DATABASES["default"].get("OPTIONS", {}).get("pool") else 0
    return pool == 0 or threads < pool


def executor(threads: int) -> ThreadPoolExecutor:
    """This process's socket threads (made at the first call)."""
    global _executor, _size
    if _executor is None:
        _executor, _size = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ws-db"), threads
    return _executor


def run_in_thread(func: Any, threads: int) -> Any:
    """``func`` as a coroutine function run on the socket threads (``tables.realtime.socket_base.db``)."""
    if holds(threads):
        return _Holding(func, thread_sensitive=False, executor=executor(threads))
    return DatabaseSyncToAsync(func, thread_sensitive=False, executor=executor(threads))


class _Holding(SyncToAsync[Any, Any]):
    """``DatabaseSyncToAsync`` whose thread keeps its connection between calls (``HOLD_SECONDS``)."""

    def thread_handler(self, loop: Any, *args: Any, **kwargs: Any) -> Any:
        _hold_or_close()
        try:
            return super().thread_handler(loop, *args, **kwargs)  # type: ignore[no-untyped-call]  # asgiref leaves it untyped
        finally:
            _hold_or_close()


def _hold_or_close() -> None:
    for conn in connections.all(initialized_only=True):
        if conn.connection is not None and getattr(conn, "_held_connection", None) is not conn.connection:
            # a connection new to this thread: held from now on, instead of closed at once (max age 0)
            conn._held_connection = conn.connection  # type: ignore[attr-defined]  # this module's mark on Django's wrapper
            conn.close_at = time.monotonic() + HOLD_SECONDS
        conn.close_if_unusable_or_obsolete()


def release() -> None:
    """Close every socket thread's connections (tests; a process going down); the threads stay."""
    pool, size = _executor, _size
    if pool is None:
        return
    barrier = threading.Barrier(size)

    def close_here() -> None:
        barrier.wait(timeout=30)  # so that each thread runs exactly one of these
        connections.close_all()

    for future in [pool.submit(close_here) for _ in range(size)]:
        future.result(timeout=60)
