"""After-commit side effects: timers on Celery, notices on the channel layer.

A group message is a notice that the game moved to ``version``, never the
state itself: a consumer that missed a version rebuilds its player's view from the database
(RULES of delivery: the channel layer is at-most-once and drops past capacity).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)
_suppressed = threading.local()


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


def table_group(table_id: int) -> str:
    return f"table_{table_id}"


def schedule_timeout(*, game_id: int, version: int, eta: datetime) -> None:
    from tables.tasks import enforce_deadline

    if _is_suppressed():
        return
    try:
        enforce_deadline.apply_async(args=(game_id, version), eta=eta)
    except Exception:  # the beat sweep enforces the deadline anyway
        logger.exception("could not schedule the timer of game %s at version %s", game_id, version)


def schedule_bot_move(*, game_id: int, version: int, delay: float) -> None:
    from tables.tasks import bot_move

    if _is_suppressed():
        return
    try:
        bot_move.apply_async(args=(game_id, version), countdown=delay)
    except Exception:  # the turn timer still moves a stuck bot on
        logger.exception("could not schedule a bot move in game %s at version %s", game_id, version)


def table_changed(
    *,
    table_id: int,
    game_id: int,
    version: int,
    events: list[dict[str, Any]],
    views: dict[str, Any] | None,
    game: dict[str, Any] | None,
) -> None:
    """Tell every consumer at the table that the game reached ``version``.

    ``views`` holds every seat's view (key ``"spectator"`` for the public one),
    computed once here; it travels only between server processes, and each
    consumer sends its own player nothing but that player's view.
    """
    layer = get_channel_layer()
    if layer is None or _is_suppressed():
        return
    message: dict[str, Any] = {
        "type": "table.changed",
        "game_id": game_id,
        "version": version,
        "events": events,
        "game": game,
    }
    if views is not None:
        message["views"] = views
    try:
        async_to_sync(layer.group_send)(table_group(table_id), message)
        async_to_sync(layer.group_send)("lobby", {"type": "lobby.update", "tables": [table_id]})
    except Exception:  # a lost notice is recovered by the version gap check
        logger.exception("could not notify table %s of version %s", table_id, version)
