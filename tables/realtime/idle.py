"""Sockets whose page went silent are closed, so that a lost link is seen on both sides.

A phone that loses its signal sends no close: the TCP connection stays open on the server for
minutes, the player is shown at the table and their turn waits on a page that cannot hear it.
The pages ping every few seconds (``static/js/socket.js``), so a socket that has sent nothing at
all, not even a ping, for ``WS_IDLE_SECONDS`` has lost its page: it is closed with **4408**, its
disconnect runs as for any close (the others at the table see the player away, ``tables.realtime.presence``)
and the page, once its signal is back, opens a new socket and catches up.

One watcher task per server process looks at its sockets' last frame a few times a period (a
task or timer per socket would cost memory and wake-ups for every idle socket).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import Any, Protocol

from django.conf import settings

logger = logging.getLogger(__name__)

#: The close code of a socket that sent nothing for ``WS_IDLE_SECONDS`` (docs/protocol.md).
CLOSE_IDLE = 4408


class Heard(Protocol):
    """What the watcher needs of a socket."""

    #: When its last frame arrived (``time.monotonic``); set by the consumer.
    heard_at: float
    closing: bool

    async def close(self, code: int | None = None) -> None: ...


_sockets: weakref.WeakSet[Any] = weakref.WeakSet()
_task: asyncio.Task[None] | None = None


def watch(socket: Heard) -> None:
    """Watch ``socket`` from now (called on the event loop as it opens); starts this loop's watcher."""
    global _task
    loop = asyncio.get_running_loop()
    socket.heard_at = time.monotonic()
    if settings.WS_IDLE_SECONDS <= 0:
        return
    _sockets.add(socket)
    if _task is None or _task.done() or _task.get_loop() is not loop:
        _task = loop.create_task(_watch_forever(), name="socket-idle")


def forget(socket: Heard) -> None:
    _sockets.discard(socket)


async def close_idle(now: float, idle: float) -> int:
    """Close every watched socket silent for more than ``idle`` seconds at ``now``; how many."""
    closed = 0
    for socket in list(_sockets):
        if socket.closing or now - socket.heard_at <= idle:
            continue
        _sockets.discard(socket)
        socket.closing = True  # a frame that still arrives is ignored, as after any close
        try:
            await socket.close(code=CLOSE_IDLE)
            closed += 1
        except Exception:  # one socket's failure must not keep the others open
            logger.exception("could not close an idle socket")
    return closed


def period(idle: float) -> float:
    """How often the watcher looks: a quarter of the idle time, at most a second."""
    return max(0.05, min(1.0, idle / 4))


async def _watch_forever() -> None:
    """Until the last watched socket closes (``watch`` starts it again)."""
    while _sockets:
        idle = settings.WS_IDLE_SECONDS
        await asyncio.sleep(period(idle))
        if idle > 0:
            closed = await close_idle(time.monotonic(), idle)
            if closed:
                logger.info("closed %d sockets silent for %s s", closed, idle)
