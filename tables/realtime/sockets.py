"""Who holds which sockets: closing a user's sockets, the per-user cap, the per-socket message rate.

Every consumer joins two channel-layer groups, one for its user and one for the
session it logged in with, so that log-out (that session's sockets), a password
change, a suspension or a self-exclusion (all the user's sockets) can close them
from any process: ``close_user_sockets`` and ``close_session_sockets``.
"""

from __future__ import annotations

import logging
import time
import weakref
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

from tables.game.notify import session_group, user_group
from tables.realtime import socket_registry

logger = logging.getLogger(__name__)

#: Close codes (docs/protocol.md): the user is signed out, or the socket sent or held too much.
CLOSE_SIGNED_OUT = 4401
CLOSE_TOO_MANY = 4429

#: The open sockets (consumers) of each user in this process (``WS_MAX_SOCKETS_PER_USER`` caps them);
#: weak, so that a consumer that ends without its disconnect is not counted forever.
_open: dict[int, weakref.WeakSet[Any]] = {}


def _close_group(group: str, reason: str) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "socket.close", "reason": reason})
    except Exception:  # a channel layer outage must not fail the log-out itself
        logger.exception("could not close the sockets of %s", group)


def close_user_sockets(user_id: int, *, reason: str = "signed_out") -> None:
    """Close every socket ``user_id`` holds, on every process (password change, suspension, exclusion)."""
    _close_group(user_group(user_id), reason)


def close_session_sockets(session_key: str, *, reason: str = "signed_out") -> None:
    """Close the sockets opened with one session (log-out: the user's other devices stay in)."""
    _close_group(session_group(session_key), reason)


async def claim_socket(user_id: int, consumer: Any) -> bool:
    """Count ``consumer`` as one of ``user_id``'s sockets; ``False`` (and not counted) past the cap.

    The cap holds in this process and, with Redis, across every process (``tables.realtime.socket_registry``).
    """
    held = _open.setdefault(user_id, weakref.WeakSet())
    if len(held) >= settings.WS_MAX_SOCKETS_PER_USER:
        return False
    held.add(consumer)  # before the await: this process's other connects see it at once
    if not await socket_registry.claim(user_id, consumer, _held_ids):
        _discard(user_id, consumer)
        return False
    return True


async def release_socket(user_id: int, consumer: Any) -> None:
    _discard(user_id, consumer)
    await socket_registry.release(user_id, consumer)


def _discard(user_id: int, consumer: Any) -> None:
    held = _open.get(user_id)
    if held is not None:
        held.discard(consumer)
        if not held:
            del _open[user_id]


def _held_ids() -> dict[int, list[str]]:
    """This process's live sockets by user, as the registry names them."""
    return {
        user_id: [socket_registry.socket_id(c) for c in held] for user_id, held in list(_open.items()) if held
    }


class MessageRate:
    """A token bucket per socket: ``rate`` messages a second, bursts of ``burst``.

    ``allow`` says whether the next message may be handled; ``flooding`` whether
    the client kept sending well past the limit (``burst`` refusals in a row),
    after which the socket is closed: a pipelined flood costs a bounded amount.
    """

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()
        self.refused = 0

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            self.refused = 0
            return True
        self.refused += 1
        return False

    @property
    def flooding(self) -> bool:
        return self.refused > self.burst


def connected_users() -> int:
    """Users holding at least one socket, on any server process (the dashboard's "connected now")."""
    return socket_registry.connected_users(_connected_here)


def _connected_here() -> int:
    # a copy: the dashboard asks from a worker thread while the event loop changes ``_open``
    return sum(1 for held in list(_open.values()) if len(held))
