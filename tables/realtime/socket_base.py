"""What every socket of the site does, whatever it carries: its admission (the user, the per-user
cap, the session still logged in), the message rate and the wire checks before a handler sees a
frame, JSON by orjson, and the database reached from a socket on its own threads.

The sockets themselves, the lobby's and a table's, are ``tables.realtime.consumers``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any, cast

import orjson
from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from accounts import play
from core import dbthreads
from core.dbretry import once_more_on_dropped_connection
from sitemetrics import instruments
from tables import protocol
from tables.contract import Error, ErrorBody
from tables.errors import ProtocolError, error_payload
from tables.game import notify
from tables.realtime import idle, sockets


def error_body(error: BaseException | str, message: str = "") -> ErrorBody:
    """``error_payload``'s dict as the contract types it (``tables.errors`` sits below the contract)."""
    return cast(ErrorBody, error_payload(error, message))


CLOSE_UNAUTHENTICATED = 4401
CLOSE_UNKNOWN_TABLE = 4404


def db(func: Callable[..., Any]) -> Callable[..., Any]:
    """``database_sync_to_async``; with ``WS_DB_THREADS`` > 0 on a pool of that many threads.

    Channels runs every socket's database work of a process on one shared thread,
    so one slow query or commit holds up every table on that process. On a pool,
    actions at different tables run side by side, each thread with its own
    connection, which it keeps between calls (``core.dbthreads``); actions at one
    table still queue on the game's row lock.

    The wrapper of a module-level function is made once (``_wrapped``): building it
    for every action is a visible share of a Daphne's CPU under load (``functools.wraps``).
    """
    threads = settings.WS_DB_THREADS
    if getattr(func, "__self__", None) is not None:  # a bound method: a new object each time
        return _wrap(func, threads)
    key = (func, threads)
    wrapped = _wrapped.get(key)
    if wrapped is None:
        wrapped = _wrapped[key] = _wrap(func, threads)
    return wrapped


_wrapped: dict[tuple[Callable[..., Any], int], Callable[..., Any]] = {}


def _wrap(func: Callable[..., Any], threads: int) -> Callable[..., Any]:
    func = once_more_on_dropped_connection(func)  # a dropped connection costs a retry, not the socket
    if threads <= 0:
        return database_sync_to_async(func)
    return dbthreads.run_in_thread(func, threads)  # each thread keeps its connection between calls


def encode_json(content: Any) -> str:
    """The JSON text of a message: orjson (compact UTF-8, the same JSON values as the stdlib)."""
    try:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # something orjson does not take (an int past 64 bits): the stdlib decides
        return json.dumps(content)


class SocketConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]  # Channels ships no types: the base class is Any
    """JSON over the socket with orjson; no thread hop before every message; hostile input refused.

    Channels' ``AsyncConsumer.dispatch`` runs ``close_old_connections`` on the
    shared sync thread before each handler (each frame, each group notice): a
    thread round trip per message, though these consumers touch the database
    only through ``db``, which checks (and closes, if old or broken) the connections
    of the thread that runs each call, before and after it.

    Every frame passes the message rate (``sockets.MessageRate``) and the wire
    checks (``tables.protocol``) before ``receive_message`` sees it; whatever it
    is, the client gets an ``error`` and the socket stays open, except for a
    flood, which closes it (4429). Each socket joins its user's and its session's
    groups, so that log-out and the like close it (``sockets.close_user_sockets``).
    """

    user: Any = None
    #: When the frame being handled arrived (``time.perf_counter``).
    arrived: float = 0.0
    #: When the client's last frame arrived (``time.monotonic``): ``tables.realtime.idle`` closes a silent socket.
    heard_at: float = 0.0
    #: The session this socket logged in with: every action checks it still logs the user in.
    session_key: str = ""
    closing: bool = False
    _groups: tuple[str, ...] = ()
    _claimed: bool = False
    #: The kind this socket counts as in ``rummy_sockets_open`` once accepted (``counted``).
    metric_kind: str = ""
    _counted: bool = False

    @property
    def dispatch_lock(self) -> asyncio.Lock:
        """Held by each handler: what runs beside the socket's own loop (``tables.realtime.resync``) waits its turn."""
        lock = self.__dict__.get("_dispatch_lock")
        if lock is None:
            lock = self.__dict__["_dispatch_lock"] = asyncio.Lock()
        return lock

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        async with self.dispatch_lock:
            await handler(message)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        return encode_json(content)

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        """Send, unless the client went away meanwhile: a notice on its way to a socket that is
        closing is dropped quietly (Daphne raised autobahn's ``Disconnected`` through the handler,
        logged as "Exception inside application"), and the socket counts as closing."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except Disconnected:
            self.closing = True

    async def send_json(self, content: Any, close: bool = False) -> None:
        # Channels' own send_json calls its base class's send, past the one above
        await self.send(text_data=await self.encode_json(content), close=close)

    async def refuse(self, code: int) -> None:
        """Accept, then close with ``code``: a browser sees a close code only after an accept.

        Closed before it, the handshake fails with a 403 and the page sees 1006, so it could
        only retry; told 4401, 4404 or 4429 it says why (static/js/socket.js). A frame the client
        sends before it sees the close is ignored (``closing``): the socket never got its message rate.
        """
        self.closing = True
        await self.accept()
        await self.close(code=code)

    async def admit(self) -> bool:
        """Authenticate and register the socket; refuses it and returns ``False`` if it may not open."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.refuse(CLOSE_UNAUTHENTICATED)
            return False
        if not await sockets.claim_socket(user.pk, self):
            await self.refuse(sockets.CLOSE_TOO_MANY)
            return False
        # the scope's user is Channels' lazy proxy, each attribute read through it a call; resolved
        # by the check above, the socket keeps the user itself (its pk is read at every notice)
        self.user, self._claimed = getattr(user, "_wrapped", user), True
        self.rate = sockets.MessageRate(settings.WS_MESSAGES_PER_SECOND, settings.WS_MESSAGE_BURST)
        session = self.scope.get("session")
        key = getattr(session, "session_key", None)
        self.session_key = key or ""
        self._groups = (notify.user_group(user.pk),) + ((notify.session_group(key),) if key else ())
        for group in self._groups:
            await self.channel_layer.group_add(group, self.channel_name)
        # Checked after joining the session's group: a log-out that ended the session before this
        # check is seen here, one after it closes this socket through the group (tables.signals).
        block = await db(play.play_block)(user, session_key=self.session_key)
        if block is not None and block.signed_out:
            await self.refuse(CLOSE_UNAUTHENTICATED)
            return False
        idle.watch(self)  # closed if its page falls silent (a lost signal sends no close)
        return True

    def counted(self) -> None:
        """The socket is open (accepted and admitted): it counts in ``rummy_sockets_open``."""
        self._counted = True
        instruments.socket_opened(self.metric_kind)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        if self._counted:
            self._counted = False
            instruments.socket_closed(self.metric_kind)
        idle.forget(self)
        if self._claimed:
            self._claimed = False
            await sockets.release_socket(self.user.pk, self)
        for group in self._groups:
            await self.channel_layer.group_discard(group, self.channel_name)
        await super().websocket_disconnect(message)

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        if self.closing:
            return  # the rest of a flood, after the close
        self.arrived = (
            time.perf_counter()
        )  # an action's latency counts from here (TableConsumer.handle_action)
        self.heard_at = time.monotonic()  # any frame, a ping or one refused, says the page is there
        if not self.rate.allow():
            if self.rate.flooding:
                self.closing = True
                await self.close(code=sockets.CLOSE_TOO_MANY)
                return
            await self.send_error(
                "rate_limited",
                f"too many messages: at most {settings.WS_MESSAGES_PER_SECOND} a second; this one was ignored",
            )
            return
        try:
            content = protocol.parse_frame(message.get("text"), message.get("bytes"))
        except ProtocolError as exc:
            await self.send_json(Error(error=error_body(exc)).wire())
            return
        await self.receive_message(content)

    async def receive_message(self, content: dict[str, Any]) -> None:
        await self.send_error("bad_message", "this socket takes no messages")

    async def socket_close(self, event: dict[str, Any]) -> None:
        """``sockets.close_user_sockets``: the user signed out (or may no longer play)."""
        self.closing = True
        await self.close(code=sockets.CLOSE_SIGNED_OUT)

    async def send_error(self, code: str, message: str) -> None:
        await self.send_json(Error(error=error_body(code, message)).wire())
