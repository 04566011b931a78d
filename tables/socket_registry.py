"""The per-user socket cap and the count of connected players, across every server process.

Each process knows its own sockets (``tables.sockets``). With several Daphnes behind a
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
from typing import Any

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

_CLAIM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], 'GT', ARGV[2], ARGV[5])
return 1
"""
_RELEASE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[3]) end
return 1
"""


def user_key(user_id: int) -> str:
    return f"{PREFIX}user:{user_id}"


def socket_id(consumer: Any) -> str:
    """The consumer's id in the registry, given on first use."""
    sid = consumer.__dict__.get("_registry_id")
    if sid is None:
        sid = consumer.__dict__["_registry_id"] = f"{PROCESS}:{next(_serial)}"
    return str(sid)


def enabled() -> bool:
    return bool(settings.REDIS_URL)


def _ttl() -> int:
    return max(1, int(settings.WS_REGISTRY_TTL_SECONDS))


#: One asyncio client per event loop (a client is bound to the loop it connected on).
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aredis.Redis] = weakref.WeakKeyDictionary()
_sync_client: redis.Redis | None = None
#: The renewal task of each event loop, and what it asks for the process's live sockets.
_renewals: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
    weakref.WeakKeyDictionary()
)
_last_warning = 0.0


def _client() -> aredis.Redis:
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = _clients[loop] = aredis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=REGISTRY_TIMEOUT, socket_connect_timeout=REGISTRY_TIMEOUT
        )
    return client


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
            _client().eval(
                _CLAIM,
                2,
                user_key(user_id),
                ONLINE,
                now,
                now + _ttl(),
                settings.WS_MAX_SOCKETS_PER_USER,
                socket_id(consumer),
                user_id,
                _ttl(),
            ),
            REGISTRY_TIMEOUT,
        )
    except (redis.RedisError, OSError, TimeoutError) as exc:
        _warn("claim", exc)
        return True
    return bool(allowed)


async def release(user_id: int, consumer: Any) -> None:
    if not enabled():
        return
    try:
        await asyncio.wait_for(
            _client().eval(_RELEASE, 2, user_key(user_id), ONLINE, socket_id(consumer), time.time(), user_id),
            REGISTRY_TIMEOUT,
        )
    except (redis.RedisError, OSError, TimeoutError) as exc:
        _warn("release", exc)  # the socket drops out when its expiry passes


async def renew(held: dict[int, list[str]]) -> None:
    """Push back the expiry of this process's live sockets, in one round trip."""
    if not held:
        return
    expiry = time.time() + _ttl()
    pipe = _client().pipeline(transaction=False)
    for user_id, sids in held.items():
        pipe.zadd(user_key(user_id), dict.fromkeys(sids, expiry))
        pipe.expire(user_key(user_id), _ttl())
        pipe.zadd(ONLINE, {str(user_id): expiry}, gt=True)
    pipe.zremrangebyscore(ONLINE, "-inf", time.time())
    await asyncio.wait_for(pipe.execute(), REGISTRY_TIMEOUT * 2)


async def _renew_forever(held: Callable[[], dict[int, list[str]]]) -> None:
    while True:
        await asyncio.sleep(_ttl() / 3)
        try:
            await renew(held())
        except (redis.RedisError, OSError, TimeoutError) as exc:
            _warn("renewal", exc)


def _start_renewal(held: Callable[[], dict[int, list[str]]]) -> None:
    loop = asyncio.get_running_loop()
    task = _renewals.get(loop)
    if task is None or task.done():
        _renewals[loop] = loop.create_task(_renew_forever(held), name="socket-registry-renewal")


def connected_users(local: Callable[[], int]) -> int:
    """Players holding a socket on any process; ``local()`` (this process's) if Redis cannot say."""
    global _sync_client
    if not enabled():
        return local()
    try:
        if _sync_client is None:
            _sync_client = redis.Redis.from_url(
                settings.REDIS_URL, socket_timeout=REGISTRY_TIMEOUT, socket_connect_timeout=REGISTRY_TIMEOUT
            )
        return int(_sync_client.zcount(ONLINE, time.time(), "+inf"))
    except (redis.RedisError, OSError) as exc:
        _warn("count", exc)
        return local()
