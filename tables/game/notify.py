"""After-commit side effects: timers on Celery, notices on the channel layer.

A group message is a notice that the game moved to ``version``, never the
state itself: a consumer that missed a version rebuilds its player's view from the database
(the channel layer is at most once: Redis pub/sub delivers only to whoever listens at that
moment, and the list layer drops past its capacity).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import orjson
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

from core.celeryapp import app as celery_app
from sitemetrics import instruments
from tables.contract import GameHeader

logger = logging.getLogger(__name__)
_suppressed = threading.local()
#: The ASGI process's event loop and its outbox of notices (see ``bind_loop``).
_loop: asyncio.AbstractEventLoop | None = None
_outbox: asyncio.Queue[list[tuple[str, dict[str, Any]]]] | None = None
_sender: asyncio.Task[None] | None = None


def bind_loop() -> None:
    """Called on an ASGI process's event loop (by the consumers): notices are sent from there.

    A service running in a worker thread of that process then hands its notices
    to one sender task on the loop, which sends them in the order they were
    committed, instead of holding the database thread while it waits for the
    channel layer (``NOTIFY_IN_BACKGROUND``).
    """
    global _loop, _outbox, _sender
    loop = asyncio.get_running_loop()
    if _loop is loop and _sender is not None and not _sender.done():
        return
    _loop = loop
    _outbox = asyncio.Queue()
    _sender = loop.create_task(_send_in_order(_outbox))


async def _send_in_order(outbox: asyncio.Queue[list[tuple[str, dict[str, Any]]]]) -> None:
    layer = get_channel_layer()
    while True:
        batch = await outbox.get()
        for group, message in batch:
            try:
                await layer.group_send(group, message)
            except Exception:  # a lost notice is recovered by the version gap check
                instruments.notice_failed()
                logger.exception("could not send %s to %s", message.get("type"), group)


def _hand_to_loop(batch: list[tuple[str, dict[str, Any]]]) -> bool:
    """Queue ``batch`` on the bound loop, if there is one running and this is another thread."""
    loop, outbox = _loop, _outbox
    if not settings.NOTIFY_IN_BACKGROUND or loop is None or outbox is None or loop.is_closed():
        return False
    if not loop.is_running():
        return False
    try:
        if asyncio.get_running_loop() is loop:
            return False
    except RuntimeError:
        pass  # no loop in this thread: a worker thread, as expected
    try:
        loop.call_soon_threadsafe(outbox.put_nowait, batch)
    except RuntimeError:  # the loop closed in between
        return False
    return True


@contextmanager
def suppressed() -> Iterator[None]:
    """No timers, bot tasks or notices in this thread: for offline simulations that drive time themselves."""
    _suppressed.on = True
    try:
        yield
    finally:
        _suppressed.on = False


def _is_suppressed() -> bool:
    return getattr(_suppressed, "on", False)


def encode_view(view: dict[str, Any]) -> bytes:
    """A view as the JSON bytes a consumer puts in its update unchanged (``orjson.Fragment``)."""
    return orjson.dumps(view, option=orjson.OPT_NON_STR_KEYS)


# The channel layer's group names: the address book of whom the game tells, which the consumers
# join and the sockets' closing (tables.realtime.sockets) writes to.

#: Every lobby notice goes to this group; each process listens to it once (tables.realtime.lobbyfeed).
LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    return f"table_{table_id}"


def user_group(user_id: int) -> str:
    return f"user_{user_id}"


def seat_group(user_id: int, table_id: int) -> str:
    """The user's table sockets at one table (``notify.seat_view``: a private change reaches only these)."""
    return f"seat_{user_id}_{table_id}"


def session_group(session_key: str) -> str:
    """A group name for a session that does not reveal the session key."""
    return "session_" + hashlib.sha256(session_key.encode()).hexdigest()[:32]


#: The Celery tasks of ``tables.tasks``, sent by name: the tasks sit above the services
#: that call this module, so importing them here would close an import circle.
ENFORCE_DEADLINE = "tables.tasks.enforce_deadline"
BOT_MOVE = "tables.tasks.bot_move"


def schedule_timeout(*, game_id: int, version: int, eta: datetime) -> None:
    if _is_suppressed():
        return
    try:
        celery_app.send_task(ENFORCE_DEADLINE, args=(game_id, version, eta.isoformat()), eta=eta)
    except Exception:  # the beat sweep enforces the deadline anyway
        logger.exception("could not schedule the timer of game %s at version %s", game_id, version)


def schedule_bot_move(*, game_id: int, version: int, delay: float) -> None:
    if _is_suppressed():
        return
    try:
        celery_app.send_task(BOT_MOVE, args=(game_id, version), countdown=delay)
    except Exception:  # the turn timer still moves a stuck bot on
        logger.exception("could not schedule a bot move in game %s at version %s", game_id, version)


def table_changed(
    *,
    table_id: int,
    game_id: int,
    version: int,
    events: list[dict[str, Any]],
    views: dict[str, Any] | None,
    game: GameHeader | None,
    seat_of: dict[str, int] | None = None,
    lobby: bool = False,
) -> None:
    """Tell every consumer at the table that the game reached ``version``.

    ``views`` holds every seat's view (key ``"spectator"`` for the public one),
    computed once by the caller and encoded to JSON once here (the notice carries
    bytes, cheap to pack and unpack); it travels only between server processes,
    and each consumer sends its own player nothing but that player's view,
    the one of the seat ``seat_of`` (user id -> seat) gives that player.
    """
    if get_channel_layer() is None or _is_suppressed():
        return  # before the views are encoded: nobody listens
    message: dict[str, Any] = {
        "type": "table.changed",
        "game_id": game_id,
        "version": version,
        "events": events,
        "game": game,
    }
    if views is not None:
        message["views"] = {key: encode_view(view) for key, view in views.items()}
        message["seat_of"] = seat_of or {}
        message["wild_rank"] = views["spectator"].get("wild_rank")  # public; the sockets' evaluate uses it
    batch = [(table_group(table_id), message)]
    if lobby:  # seats or status changed: what the lobby lists
        batch.append((LOBBY_GROUP, {"type": "lobby.update", "tables": [table_id]}))
    _send(batch, what=f"table {table_id}'s version {version}")  # a lost one: the version gap check


def _count(batch: list[tuple[str, dict[str, Any]]]) -> None:
    """``rummy_notices_sent_total`` by the notices' type (``table.changed``, ``seat.view``...)."""
    for _, notice in batch:
        instruments.notices_sent(notice["type"])


def _send(batch: list[tuple[str, dict[str, Any]]], *, what: str | None = None) -> None:
    """Send ``batch`` in order, from the bound loop when there is one; ``what`` names it in the log."""
    layer = get_channel_layer()
    if layer is None or _is_suppressed():
        return
    _count(batch)
    if _hand_to_loop(batch):
        return
    try:
        for group, notice in batch:
            async_to_sync(layer.group_send)(group, notice)
    except Exception:  # a notice is a courtesy; the state is in the database
        instruments.notice_failed()
        logger.exception("could not send %s", what or [m.get("type") for _, m in batch])


def seat_view(*, user_id: int, table_id: int, game_id: int, version: int, request_id: str) -> None:
    """Tell one player's own sockets, and nobody else, that their view changed at ``version``.

    A private action (an arrangement) does not move the game's version: the notice
    goes to the group of the user's sockets at that table (``seat_group``), not
    the table's; each of them at that version reads and forwards the view, except the one
    that sent ``request_id``. The notice holds no view, and goes out only when the player has
    the table open on another socket too (the consumer knows its twins). At most once, like
    every notice: a socket that misses it gets the arrangement with the next update.
    """
    message = {
        "type": "seat.view",
        "table_id": table_id,
        "game_id": game_id,
        "version": version,
        "request_id": request_id,
    }
    _send([(seat_group(user_id, table_id), message)])


def table_notice(*, table_id: int, notice: dict[str, Any]) -> None:
    """Send ``notice`` (a ``{"type": "notice", "kind": ...}`` message, docs/protocol.md) to every
    socket at the table as it is: a cancelled game, said in words."""
    _send([(table_group(table_id), {"type": "table.notice", "notice": notice})])


def player_notice(*, user_id: int, table_id: int, notice: dict[str, Any]) -> None:
    """Send ``notice`` to one player's own sockets at the table, and nobody else's (their seat given
    back before the start, said in words)."""
    _send([(seat_group(user_id, table_id), {"type": "table.notice", "notice": notice})])


def lobby_changed(*, table_ids: list[int]) -> None:
    """The lobby's list changed (a table closed, reopened or created)."""
    _send([(LOBBY_GROUP, {"type": "lobby.update", "tables": table_ids})])
