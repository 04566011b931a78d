"""The per-user socket cap and the count of connected players, across every server process.

Each process knows its own sockets (``tables.realtime.sockets``). With several Daphnes behind a
balancer that was not enough: a player could open ``WS_MAX_SOCKETS_PER_USER`` sockets on
each of them, and the staff dashboard's "connected now" counted only the process that
drew the page. With ``REDIS_URL`` set, sockets are also counted in Redis:

- ``rummy:ws:user:<id>``, a sorted set per user: socket id -> the time it expires;
- ``rummy:ws:online``, a sorted set: user id -> the time their last socket expires.

A claim (one Lua script: one round trip, atomic across processes) drops the user's
expired sockets, refuses past the cap and adds the socket. Each process renews the expiry
of its live sockets every third of ``WS_REGISTRY_TTL_SECONDS``; a process that dies without
closing its sockets stops renewing them, and they drop out of the count after the TTL.

Redis unreachable or slow (``REGISTRY_TIMEOUT``): the process's own cap holds alone, and
nobody is refused a socket for the outage; the dashboard counts this process's players.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import socket
import time
import weakref
from collections.abc import Callable
from typing import Any, cast

import redis
import redis.asyncio as aredis
from django.conf import settings

logger = logging.getLogger(__name__)

PREFIX = "rummy:ws:"
ONLINE = PREFIX + "online"
#: Seconds a registry call may take before the process's own cap decides alone.
REGISTRY_TIMEOUT = 1.0
#: This process, in the socket ids it registers (unique across hosts and restarts).
PROCESS = f"{socket.gethostname()}:{os.getpid()}:{time.time_ns()}"
_serial = itertools.count(1)
#: What Redis away or slow raises: the process's own cap then decides.
UNAVAILABLE = (redis.RedisError, OSError, TimeoutError)

#: KEYS: the user's sockets, the online set; ARGV: now, expiry, cap, socket id, user id, ttl.
_CLAIM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], 'GT', ARGV[2], ARGV[5])
return 1
"""
#: KEYS: the online set; ARGV: expiry, ttl, now, the user keys' prefix, then for each user:
#: their id, n, and their n socket ids.
_RENEW = """
local expiry, ttl = ARGV[1], ARGV[2]
local i = 5
while i <= #ARGV do
  local uid, n = ARGV[i], tonumber(ARGV[i + 1])
  local key = ARGV[4] .. uid
  local pairs = {}
  for j = 1, n do
    pairs[2 * j - 1] = expiry
    pairs[2 * j] = ARGV[i + 1 + j]
  end
  redis.call('ZADD', key, unpack(pairs))
  redis.call('EXPIRE', key, ttl)
  redis.call('ZADD', KEYS[1], 'GT', expiry, uid)
  i = i + 2 + n
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
return 1
"""
#: Users renewed by one script call (what each costs Redis: bench/socket_registry_bench.py).
RENEW_BATCH = 500
#: KEYS: the user's sockets, the online set; ARGV: socket id, now, user id.
_RELEASE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[3]) end
return 1
"""


USER_KEYS = PREFIX + "user:"


def user_key(user_id: int) -> str:
    return f"{USER_KEYS}{user_id}"


def socket_id(consumer: Any) -> str:
    """The consumer's id in the registry, given on first use; a table socket's names its table
    (``@t<id>``), so that ``live_at_table`` can tell who holds a live socket where."""
    sid = consumer.__dict__.get("_registry_id")
    if sid is None:
        table_id = consumer.__dict__.get("table_id")
        where = f"@t{table_id}" if table_id is not None else ""
        sid = consumer.__dict__["_registry_id"] = f"{PROCESS}:{next(_serial)}{where}"
    return str(sid)


def _at_table(members: list[bytes], table_id: int, but: str) -> bool:
    suffix = f"@t{table_id}".encode()
    return any(m.endswith(suffix) and m != but.encode() for m in members)


def enabled() -> bool:
    return bool(settings.REDIS_URL)


def _ttl() -> int:
    return max(1, int(settings.WS_REGISTRY_TTL_SECONDS))


#: One asyncio client per event loop (a client is bound to the loop it connected on).
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Scripts] = weakref.WeakKeyDictionary()
#: The dashboard's client, with the URL it was made for.
_sync_client: tuple[str, redis.Redis] | None = None
#: The renewal task of each event loop, and what it asks for the process's live sockets.
_renewals: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
    weakref.WeakKeyDictionary()
)
_last_warning = 0.0


class _Scripts:
    """One loop's client and its scripts, sent by SHA (EVALSHA) after the first call."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = aredis.Redis.from_url(
            url, socket_timeout=REGISTRY_TIMEOUT, socket_connect_timeout=REGISTRY_TIMEOUT
        )
        self.claim = self.client.register_script(_CLAIM)
        self.release = self.client.register_script(_RELEASE)
        self.renew = self.client.register_script(_RENEW)


def _scripts() -> _Scripts:
    loop = asyncio.get_running_loop()
    scripts = _clients.get(loop)
    if scripts is None or scripts.url != settings.REDIS_URL:
        scripts = _clients[loop] = _Scripts(settings.REDIS_URL)
    return scripts


def _warn(what: str, exc: BaseException) -> None:
    """One warning a minute at most: an outage must not flood the log with one line per socket."""
    global _last_warning
    now = time.monotonic()
    if now - _last_warning >= 60:
        _last_warning = now
        logger.warning("socket registry unavailable (%s): %s; each process's own cap holds alone", what, exc)


async def claim(user_id: int, consumer: Any, held: Callable[[], dict[int, list[str]]]) -> bool:
    """Whether the user may hold one more socket across every process; if so it is counted.

    ``held`` lists this process's live sockets by user, for the renewal task started here.
    """
    if not enabled():
        return True
    _start_renewal(held)
    now = time.time()
    try:
        allowed = await asyncio.wait_for(
            _scripts().claim(
                keys=[user_key(user_id), ONLINE],
                args=[
                    now,
                    now + _ttl(),
                    settings.WS_MAX_SOCKETS_PER_USER,
                    socket_id(consumer),
                    user_id,
                    _ttl(),
                ],
            ),
            REGISTRY_TIMEOUT,
        )
    except UNAVAILABLE as exc:
        _warn("claim", exc)
        return True
    return bool(allowed)


async def release(user_id: int, consumer: Any) -> None:
    if not enabled():
        return
    try:
        await asyncio.wait_for(
            _scripts().release(
                keys=[user_key(user_id), ONLINE], args=[socket_id(consumer), time.time(), user_id]
            ),
            REGISTRY_TIMEOUT,
        )
    except UNAVAILABLE as exc:
        _warn("release", exc)  # the socket drops out when its expiry passes


async def renew(held: dict[int, list[str]]) -> None:
    """Push back the expiry of this process's live sockets: one script call per ``RENEW_BATCH`` users
    (packing three commands a user would cost this process far more than the script's call)."""
    items = list(held.items())
    for first in range(0, len(items), RENEW_BATCH):
        now = time.time()
        args: list[str | int | float] = [now + _ttl(), _ttl(), now, USER_KEYS]
        for user_id, sids in items[first : first + RENEW_BATCH]:
            args += [user_id, len(sids), *sids]
        await asyncio.wait_for(_scripts().renew(keys=[ONLINE], args=args), REGISTRY_TIMEOUT)


async def _renew_forever(held: Callable[[], dict[int, list[str]]]) -> None:
    while True:
        await asyncio.sleep(_ttl() / 3)
        try:
            await renew(held())
        except UNAVAILABLE as exc:
            _warn("renewal", exc)


def _start_renewal(held: Callable[[], dict[int, list[str]]]) -> None:
    loop = asyncio.get_running_loop()
    task = _renewals.get(loop)
    if task is None or task.done():
        _renewals[loop] = loop.create_task(_renew_forever(held), name="socket-registry-renewal")


async def live_elsewhere_at_table(user_id: int, table_id: int, consumer: Any) -> bool:
    """Whether the user holds a live socket at the table other than ``consumer``'s, on any process.

    A socket of a process that died is not live once its expiry passed (nobody renews it). True
    when the registry cannot say (no Redis, or Redis away): the caller's own count then decides.
    """
    if not enabled():
        return True
    try:
        members = await asyncio.wait_for(
            _scripts().client.zrangebyscore(user_key(user_id), time.time(), "+inf"), REGISTRY_TIMEOUT
        )
    except UNAVAILABLE as exc:
        _warn("presence", exc)
        return True
    return _at_table(members, table_id, socket_id(consumer))


def live_at_table(user_ids: list[int], table_id: int) -> set[int] | None:
    """Which of the users hold a live socket at the table on any process; None when the registry
    cannot say (no Redis, or Redis away)."""
    if not enabled() or not user_ids:
        return None
    try:
        pipe = _sync().pipeline(transaction=False)
        now = time.time()
        for user_id in user_ids:
            pipe.zrangebyscore(user_key(user_id), now, "+inf")
        answers = pipe.execute()
    except UNAVAILABLE as exc:
        _warn("presence", exc)
        return None
    return {u for u, members in zip(user_ids, answers, strict=True) if _at_table(members, table_id, "")}


def _sync() -> redis.Redis:
    """The synchronous client (the dashboard's count, a snapshot's presence), made for the URL set now."""
    global _sync_client
    if _sync_client is None or _sync_client[0] != settings.REDIS_URL:
        _sync_client = (
            settings.REDIS_URL,
            redis.Redis.from_url(
                settings.REDIS_URL, socket_timeout=REGISTRY_TIMEOUT, socket_connect_timeout=REGISTRY_TIMEOUT
            ),
        )
    return _sync_client[1]


def connected_users(local: Callable[[], int]) -> int:
    """Players holding a socket on any process; ``local()`` (this process's) if Redis cannot say."""
    if not enabled():
        return local()
    try:
        return int(cast(int, _sync().zcount(ONLINE, time.time(), "+inf")))  # the sync client's answer
    except UNAVAILABLE as exc:
        _warn("count", exc)
        return local()
