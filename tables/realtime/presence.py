"""Who of a table's players has the table open now (issue 25: a seat shows connected or away).

Each socket at a table counts its user in the cache (Redis when ``REDIS_URL`` is set, so the
count holds across every Daphne): the first socket makes the user connected, the last one to
close makes them away and notes since when. Every socket at the table hears a ``presence``
message when a player comes or goes.

A process that dies (kill -9, a lost machine) closes none of its sockets, so its players stay
counted. With Redis, the socket registry (``tables.realtime.socket_registry``: each socket's expiry, renewed
by its live process, its id naming its table) is the check: a counted player with no live socket
at the table is away in every snapshot and ``presence`` message once their sockets' expiry passed
(``WS_REGISTRY_TTL_SECONDS``, 90 s), and their next socket there counts as coming back. Without
Redis there is one process, and its death takes the count with it.

Presence is a courtesy; the game is not. While the cache's Redis is away every call here
answers "nothing known" (no presence message, an empty ``presence`` in a snapshot) instead of
raising: a socket must still open, and still be rebuilt from the database after a lost notice
(``tables.realtime.resync``), or a player whose turn began during a Redis outage would run out their
time unseen (the fault test's missed turns charged during its 15 s outage).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final

from django.core.cache import cache

from tables.contract import PlayerPresence
from tables.models import Seat
from tables.realtime import socket_registry
from tables.realtime.socket_registry import UNAVAILABLE  # what Redis away or slow raises

#: How long a count lives without a socket coming or going at that table.
PRESENCE_TTL: Final = 6 * 3600

logger = logging.getLogger(__name__)


def _count_key(table_id: int, user_id: int) -> str:
    return f"presence:{table_id}:{user_id}"


def _away_key(table_id: int, user_id: int) -> str:
    return f"presence:{table_id}:{user_id}:away"


async def arrive(*, table_id: int, user_id: int, consumer: Any) -> bool:
    """A socket of the user (``consumer``) opened at the table; whether it is their first (they came back)."""
    key = _count_key(table_id, user_id)
    try:
        count = await _count_in(key)
        await cache.atouch(key, PRESENCE_TTL)
        if count > 1 and not await socket_registry.live_elsewhere_at_table(user_id, table_id, consumer):
            await cache.aset(key, 1, timeout=PRESENCE_TTL)  # the others counted died with their process
            count = 1
        if count == 1:
            await cache.adelete(_away_key(table_id, user_id))
    except UNAVAILABLE as exc:
        logger.warning("presence: could not count a socket at table %s: %s", table_id, exc)
        return False
    return bool(count == 1)


async def _count_in(key: str) -> int:
    """The count at ``key`` plus one, made 1 if there is none: the user's socket closing at the same
    moment (a page reconnecting) deletes the key between any add and increment, and an increment of
    a missing key raises (it closed the new socket: "Key 'presence:…' not found")."""
    for _ in range(3):
        try:
            return int(await cache.aincr(key))
        except ValueError:  # no count: this socket is the first one
            if await cache.aadd(key, 1, timeout=PRESENCE_TTL):
                return 1
    return int(await cache.aincr(key))


async def depart(*, table_id: int, user_id: int, consumer: Any) -> bool:
    """A socket of the user (``consumer``) closed at the table; whether it was their last (they are away now)."""
    key = _count_key(table_id, user_id)
    try:
        try:
            count = await cache.adecr(key)
        except ValueError:  # expired or never counted: nothing is open
            count = 0
        if count > 0 and await socket_registry.live_elsewhere_at_table(user_id, table_id, consumer):
            return False
        await cache.adelete(key)
        await cache.aset(_away_key(table_id, user_id), int(time.time() * 1000), timeout=PRESENCE_TTL)
    except UNAVAILABLE as exc:
        logger.warning("presence: could not uncount a socket at table %s: %s", table_id, exc)
        return False
    return True


def of_game(*, table_id: int, game_id: int | None) -> dict[str, PlayerPresence]:
    """Each person seated in the game (bots have no presence), by user id as the view writes it."""
    if game_id is None:
        return {}
    users = list(
        Seat.objects.filter(game_id=game_id, left_at__isnull=True, is_bot=False).values_list(
            "user_id", flat=True
        )
    )
    try:
        held = cache.get_many([k for u in users for k in (_count_key(table_id, u), _away_key(table_id, u))])
    except UNAVAILABLE as exc:  # nothing known: the page shows every seat as it was
        logger.warning("presence: could not read table %s: %s", table_id, exc)
        return {}
    counted = [u for u in users if int(held.get(_count_key(table_id, u)) or 0) > 0]
    live = socket_registry.live_at_table(counted, table_id)  # None: the registry cannot say
    out: dict[str, PlayerPresence] = {}
    for u in users:
        connected = u in counted and (live is None or u in live)
        out[str(u)] = PlayerPresence(
            connected=connected, away_since=None if connected else held.get(_away_key(table_id, u))
        )
    return out
