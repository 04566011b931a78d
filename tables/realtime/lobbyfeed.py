"""The lobby's live feed: at most one message every ``LOBBY_PUSH_SECONDS`` to each lobby socket.

Every seat taken or left and every game started or over, at any table, is a lobby notice.
Sent to each lobby socket as it happens, that is a frame (and the page's reload of the table
list) for every open lobby at every such change anywhere on the site: the site's rate of
changes times its open lobbies, which grows with the square of its size. At 1,000 tables a
few games end every second, each with its seats and its next start behind it.

So each server process listens to the lobby group once (one channel of its own), gathers
the ids of the tables that changed, and sends them as one ``lobby_update`` to each of its
lobby sockets: at once when it has sent nothing for ``LOBBY_PUSH_SECONDS``, otherwise when
that time is up. A burst of changes costs a socket one frame.

The message carries the lobby rows of the public tables among them, read once per process
(``tables.game.selectors.lobby_tables``, the rows of ``GET /api/tables/``), so that an open lobby need not
ask for them: a request through Django's HTTP stack costs a Daphne far more CPU than a frame. A player's own practice table (``Table.owner``) is named to its owner's
sockets alone, without a row: that page asks for it (``GET /api/tables/?ids=``), as it does for
a named table that no longer has a row (closed), and for everything when it shows a filtered list.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from typing import Any, Protocol

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from tables.contract import LobbyUpdate, TableSummary
from tables.game import selectors
from tables.game.notify import LOBBY_GROUP
from tables.models import Table

logger = logging.getLogger(__name__)
RETRY_FIRST_SECONDS, RETRY_MAX_SECONDS = 0.5, 10.0


class LobbySocket(Protocol):
    user: Any

    async def send_json(self, content: Any) -> None: ...


class _Feed:
    """One process's listener on one event loop and channel layer."""

    def __init__(self, loop: asyncio.AbstractEventLoop, layer: Any) -> None:
        self.loop, self.layer = loop, layer
        self.sockets: weakref.WeakSet[Any] = weakref.WeakSet()
        self.changed: set[int] = set()
        self.last_push = float("-inf")
        self.push: asyncio.TimerHandle | None = None
        self.publishing: set[asyncio.Task[None]] = set()
        self.listening = asyncio.Event()
        self.listener = loop.create_task(self.listen(), name="lobby-feed")

    async def listen(self) -> None:
        """Listen for the process's life: a layer that fails (Redis away) is listened to again."""
        pause = 0.0
        while True:
            await asyncio.sleep(pause)
            # the layer's own prefix: channels-redis' list layer reads one prefix's channels per process
            channel = await self.layer.new_channel()
            renew: asyncio.Task[None] | None = None
            try:
                await self.layer.group_add(LOBBY_GROUP, channel)
                self.listening.set()
                renew = self.loop.create_task(self.renew(channel), name="lobby-feed-renew")
                while True:
                    message = await self.layer.receive(channel)
                    pause = 0.0
                    if message.get("type") == "lobby.update":
                        self.note(message.get("tables") or [])
            except Exception:
                pause = min(max(2 * pause, RETRY_FIRST_SECONDS), RETRY_MAX_SECONDS)
                logger.warning("the lobby feed lost its channel layer; again in %.1f s", pause, exc_info=True)
            finally:
                if renew is not None:
                    renew.cancel()
                with contextlib.suppress(Exception):
                    await self.layer.group_discard(LOBBY_GROUP, channel)

    async def renew(self, channel: str) -> None:
        """Join the group again and again: a membership expires (a day, in every layer), and the
        list layer keeps it in Redis, which forgets it when it restarts."""
        while True:
            await asyncio.sleep(settings.LOBBY_RENEW_SECONDS)
            try:
                await self.layer.group_add(LOBBY_GROUP, channel)
            except Exception:  # Redis away: the next round joins again
                logger.info("the lobby feed could not renew its group membership", exc_info=True)

    def note(self, table_ids: list[Any]) -> None:
        self.changed.update(int(t) for t in table_ids if isinstance(t, int))
        if self.push is None and self.changed:
            wait = self.last_push + settings.LOBBY_PUSH_SECONDS - self.loop.time()
            self.push = self.loop.call_later(max(0.0, wait), self.send_now)

    def send_now(self) -> None:
        self.push = None
        tables, self.changed = sorted(self.changed), set()
        self.last_push = self.loop.time()
        task = self.loop.create_task(self.publish(tables))
        self.publishing.add(task)  # held, so that the loop does not drop it half-way
        task.add_done_callback(self.publishing.discard)

    async def publish(self, tables: list[int]) -> None:
        try:
            rows, owners = await _lobby_rows(tables)
        except Exception:  # the database away for a moment: the names alone, the pages ask for the rest
            logger.exception("could not read the lobby rows of tables %s", tables)
            rows, owners = None, {}
        public = [t for t in tables if t not in owners]
        shared = LobbyUpdate(tables=public, rows=rows).wire()
        sends = []
        for socket in list(self.sockets):
            own = [t for t, owner in owners.items() if owner == socket.user.pk]
            if own:
                sends.append(_send(socket, LobbyUpdate(tables=sorted(public + own), rows=rows).wire()))
            elif public:  # (nothing when only other players' own practice tables changed)
                sends.append(_send(socket, shared))
        await asyncio.gather(*sends)


@database_sync_to_async  # type: ignore[misc]  # Channels ships no types: the decorated function is Any
def _lobby_rows(tables: list[int]) -> tuple[list[TableSummary], dict[int, int]]:
    """The public tables' lobby rows (as ``GET /api/tables/`` gives them), and the owner of each
    private practice table among ``tables``."""
    rows = selectors.lobby_tables(ids=tables)
    owners = dict(Table.objects.filter(pk__in=tables, owner__isnull=False).values_list("pk", "owner_id"))
    return rows, owners


async def _send(socket: LobbySocket, message: dict[str, Any]) -> None:
    try:
        await socket.send_json(message)
    except Exception:  # a socket closing meanwhile: the page reloads the list when it reconnects
        logger.debug("lobby update not sent", exc_info=True)


_feed: _Feed | None = None


def _current() -> _Feed:
    global _feed
    loop, layer = asyncio.get_running_loop(), get_channel_layer()
    if _feed is None or _feed.loop is not loop or _feed.layer is not layer or _feed.listener.done():
        if _feed is not None and not _feed.listener.done() and _feed.loop is loop:
            _feed.listener.cancel()  # the layer changed (tests): listen on the new one
        _feed = _Feed(loop, layer)
    return _feed


async def join(socket: LobbySocket) -> None:
    """Send ``socket`` this process's lobby updates from now on, once the process listens."""
    feed = _current()
    feed.sockets.add(socket)
    await asyncio.wait_for(feed.listening.wait(), timeout=10)


def leave(socket: LobbySocket) -> None:
    if _feed is not None:
        _feed.sockets.discard(socket)
