"""Table sockets that a lost notice left a version behind catch up from the database within seconds.

A group notice travels once (Redis pub/sub delivers only to whoever listens at
that moment): during a Redis outage, or while channels-redis reconnects, the
game moves on in the database and no socket hears of it. The player whose turn
it became would never see it, run out their time and be charged a missed turn.

So each server process keeps one watcher task on its event loop. Every
``RESYNC_SECONDS`` it reads, in one query, the versions of the games its table
sockets show; a socket that is behind the database at two checks in a row (a
notice in flight has had a whole interval to arrive) rebuilds its player's view
from the database, as after any gap (``TableConsumer.send_update_from_db``). The
rebuild runs under the socket's dispatch lock, so it never interleaves with the
socket's own handlers and no version is sent twice.

A process too busy to keep up is another matter: its notices are not lost but
late, queued behind the work it cannot do, and rebuilding every socket from the
database would add that work and sink it further. The watcher sees it in its own wake-up, late by more than
``RESYNC_BUSY_LAG`` seconds: then it waits ``RESYNC_BUSY_CHECKS`` checks for a
socket to move before it rebuilds it, instead of two. Unless the game's deadline is nearer
than that wait: a player whose clock runs out before the late notice comes would be charged a
missed turn for it, so such a socket is rebuilt at the second check, busy or not.

A socket can also be ahead of the database: a database restored from a backup, or failed over
to a replica that lagged, under sockets left open, holds an older game than they show. Such a
socket would take the game's next notices for ones it had sent already and show a game that no
longer exists until the game passed its version. Seen ahead at two checks in a row (at one, it
may simply have heard of a move newer than the versions just read), it is sent the game as the
database has it, a ``snapshot``, which the page takes whatever version it showed.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from datetime import datetime, timedelta
from typing import Any, Protocol

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from tables.models import PoolGame

logger = logging.getLogger(__name__)


class Watched(Protocol):
    """What the watcher needs of a table socket."""

    game_id: int | None
    version: int
    dispatch_lock: asyncio.Lock

    async def send_update_from_db(self) -> None: ...

    async def send_snapshot(self) -> None: ...


_sockets: weakref.WeakSet[Any] = weakref.WeakSet()
#: socket -> (the version it showed when it was first seen behind or ahead, checks it has been seen there)
_behind: weakref.WeakKeyDictionary[Any, tuple[int, int]] = weakref.WeakKeyDictionary()
_task: asyncio.Task[None] | None = None


def watch(socket: Watched) -> None:
    """Watch ``socket`` (called on the event loop when it opens); starts this loop's watcher."""
    global _task
    _sockets.add(socket)
    loop = asyncio.get_running_loop()
    if _task is None or _task.done() or _task.get_loop() is not loop:
        _task = loop.create_task(_watch_forever(), name="table-resync")


def forget(socket: Watched) -> None:
    _sockets.discard(socket)
    _behind.pop(socket, None)


@database_sync_to_async  # type: ignore[misc]  # Channels ships no types: the decorated function is Any
def _versions(game_ids: set[int]) -> dict[int, tuple[int, datetime | None]]:
    """Each game's version and the deadline of its clock (None when no clock runs)."""
    rows = PoolGame.objects.filter(pk__in=game_ids).values_list("pk", "version", "deadline_at")
    return {pk: (version, deadline) for pk, version, deadline in rows}


async def check_once(*, busy: bool = False) -> int:
    """One round: rebuild every socket found behind at enough checks in a row, and send the
    snapshot to every one found ahead at two; how many.

    Two checks (a notice in flight has had a whole interval to arrive), or
    ``RESYNC_BUSY_CHECKS`` when the process is ``busy`` (its notices are late, not lost).
    """
    sockets = [s for s in list(_sockets) if s.game_id is not None and s.version >= 0]
    if not sockets:
        return 0
    games = await _versions({s.game_id for s in sockets})
    busy_checks = max(2, settings.RESYNC_BUSY_CHECKS)
    # a clock that runs out within the busy wait cannot wait for it
    soon = timezone.now() + timedelta(seconds=busy_checks * settings.RESYNC_SECONDS)
    rebuilt = reset = 0
    for socket in sockets:
        current, deadline = games.get(socket.game_id, (None, None))
        if current is None or current == socket.version:
            _behind.pop(socket, None)
            continue
        ahead = current < socket.version
        needed = busy_checks if busy and not ahead and (deadline is None or deadline > soon) else 2
        previous = _behind.get(socket)
        # behind at the same version as at the last check, or moved since (a notice came): count anew
        checks = previous[1] + 1 if previous is not None and previous[0] == socket.version else 1
        if checks < needed:
            _behind[socket] = (socket.version, checks)
            continue
        _behind.pop(socket, None)
        try:
            async with socket.dispatch_lock:
                if socket in _sockets and socket.version < current:
                    await socket.send_update_from_db()
                    rebuilt += 1
                elif socket in _sockets and socket.version > current:
                    await socket.send_snapshot()
                    reset += 1
        except Exception:  # a socket closing meanwhile: the others still catch up
            logger.exception("could not rebuild a socket of game %s", socket.game_id)
    if rebuilt:  # notices lost (Redis away) or later than two checks: worth an operator's look
        logger.warning("%d table sockets were behind the database and were rebuilt from it", rebuilt)
    if reset:
        logger.warning(
            "%d table sockets were ahead of the database (restored from a backup, or failed over?) "
            "and were sent its snapshot",
            reset,
        )
    return rebuilt + reset


async def _watch_forever() -> None:
    """Until the last socket closes (``watch`` starts it again)."""
    loop = asyncio.get_running_loop()
    while _sockets:
        asleep = loop.time()
        await asyncio.sleep(settings.RESYNC_SECONDS)
        late = loop.time() - asleep - settings.RESYNC_SECONDS  # the loop's backlog, in seconds
        try:
            await check_once(busy=late > settings.RESYNC_BUSY_LAG)
        except Exception:  # the database may be away for a moment: try again next round
            logger.exception("the table resync check failed")
