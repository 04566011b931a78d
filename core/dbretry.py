"""A database call that finds its connection dead runs once more on a fresh connection.

With persistent connections (``DB_CONN_MAX_AGE``) and no per-call health check,
a connection the database dropped (``pg_terminate_backend``, a restart, a
failover) is noticed only by the next query on it, which fails. For a socket's
action that failure closed the socket (1011). Here the dead connection is
closed and the call made once more; a game action is safe to repeat, because a
seated player's accepted action is remembered by its request id (a commit that
did go through answers the same the second time) and a refused one changed nothing.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from channels.auth import AuthMiddleware
from channels.db import database_sync_to_async
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware
from django.db import DatabaseError, connection

logger = logging.getLogger(__name__)
T = TypeVar("T")


def _connection_is_dead() -> bool:
    if connection.in_atomic_block:  # inside someone's transaction: theirs to handle
        return False
    if connection.connection is None:
        return True
    try:
        return not connection.is_usable()
    except Exception:
        return True


def _close_connection() -> None:
    connection.close()  # this thread's connection: looked up here, in the thread that owns it


#: SQLSTATE classes of a lost connection: 08 (connection exception) and 57P01-57P03 (the server
#: shutting the session down: ``pg_terminate_backend``, a crash, a restart).
_LOST_SQLSTATES = ("08", "57P01", "57P02", "57P03")


def _lost_connection(exc: BaseException) -> bool:
    """Whether ``exc`` says the connection was lost, whatever the connection is now.

    Asking the connection is not enough: a transaction that failed on a dead connection has
    already had it replaced (``atomic``'s exit closes a connection its rollback fails on, then
    turns autocommit back on, which connects anew), so by then the connection is alive.
    """
    seen: BaseException | None = exc
    while seen is not None:
        sqlstate = getattr(seen, "sqlstate", None)
        if sqlstate and sqlstate.startswith(_LOST_SQLSTATES):
            return True
        seen = seen.__cause__
    return False


def once_more_on_dropped_connection(func: Callable[..., T]) -> Callable[..., T]:
    """``func``, run again once on a fresh connection if it failed because its connection was dead."""

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> T:
        try:
            return func(*args, **kwargs)
        except DatabaseError as exc:
            if connection.in_atomic_block or not (_lost_connection(exc) or _connection_is_dead()):
                raise
            logger.warning("database connection lost (%s); trying once more on a new one", exc)
            connection.close()
            return func(*args, **kwargs)

    return call


class RetryingAuthMiddleware(AuthMiddleware):  # type: ignore[misc]  # Channels ships no types: the base class is Any
    """Channels' ``AuthMiddleware`` whose session and user lookup survives a dead connection.

    The lookup runs on the process's shared database thread; if that thread's
    connection was dropped, the handshake failed with a 500. The dead connection
    is closed and the lookup made once more.
    """

    async def resolve_scope(self, scope: dict[str, Any]) -> None:
        try:
            await super().resolve_scope(scope)
        except DatabaseError as exc:
            if not (_lost_connection(exc) or await database_sync_to_async(_connection_is_dead)()):
                raise
            logger.warning("database connection lost during a handshake; trying once more on a new one")
            await database_sync_to_async(_close_connection)()
            await super().resolve_scope(scope)


class SocketSessionMiddleware(SessionMiddleware):  # type: ignore[misc]  # Channels ships no types: the base class is Any
    """Channels' ``SessionMiddleware`` that leaves a socket's ``send`` as it is.

    Its wrapper of ``send`` saves a changed session only before an HTTP response, yet on a
    socket it still ran for every frame sent (two reads through the session's lazy proxy), for
    nothing. The session in the scope is the same.
    """

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope.get("type") != "websocket":
            return await super().__call__(scope, receive, send)
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


def auth_middleware_stack(inner: Any) -> Any:
    """``channels.auth.AuthMiddlewareStack`` with ``RetryingAuthMiddleware`` (and ``SocketSessionMiddleware``)."""
    return CookieMiddleware(SocketSessionMiddleware(RetryingAuthMiddleware(inner)))
