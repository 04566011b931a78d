"""One player's socket cap and the dashboard's "connected now" hold across server processes.

Before, each Daphne counted its own sockets: behind a balancer a client could open
``WS_MAX_SOCKETS_PER_USER`` sockets on every process, and the staff dashboard counted the
players of whichever process drew the page. Here two real Daphnes share a Redis of the
test's own, and a hostile client opens sockets on both, as it would through a balancer.
Then one Daphne is killed with its sockets open: they stop counting once their expiry
passes, since nobody renews them.

With Redis unreachable the registry lets the process's own cap decide: no socket is
refused for the outage (on Redis the channel layer cannot open one then either; the
registry may sit on another Redis, or answer slowly).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import redis.asyncio as aredis
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tables import services
from tables.realtime import socket_registry
from tests.helpers import session_cookie
from tests.staff.conftest import make_staff
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import (
    Proc,
    free_port,
    open_socket,
    point_celery_at,
    private_redis,
    start_daphne,
    start_redis_server,
)
from tests.waiting import eventually

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.redis]

CAP = 3
TTL = 3  # seconds a socket stays counted without its process renewing it


@pytest.fixture
def redis_port(require_postgres: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    port = free_port()
    point_celery_at(f"redis://127.0.0.1:{port}/0", monkeypatch)
    yield port


async def refused(port: int, cookie: str) -> bool:
    """Whether a new socket is refused: Daphne answers a close before the accept with a 403,
    a close after it carries 4429 (the cap, docs/protocol.md). One that opens is closed here."""
    try:
        ws = await open_socket(port, cookie)
    except InvalidStatus as answer:
        assert answer.response.status_code == 403, answer
        return True
    try:
        while True:
            await asyncio.wait_for(ws.recv(), timeout=1.0)
    except ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == 4429, closed
        return True
    except TimeoutError:
        await ws.close()
        return False


def connected_on_dashboard(port: int, cookie: str) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/admin/dashboard/", headers={"Cookie": cookie})
    with urllib.request.urlopen(request, timeout=10) as answer:
        page = answer.read().decode()
    found = re.search(r'id="players-connected">(\d+) connected now<', page)
    assert found, page[:2000]
    return int(found.group(1))


@contextlib.contextmanager
def two_daphnes(redis_port: int, **knobs: str) -> Iterator[tuple[dict[str, Proc], int, int]]:
    """A Redis of the test's own and two Daphnes on it; their logs printed if the test fails."""
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    procs: dict[str, Proc] = {"redis": start_redis_server(redis_port)}
    try:
        procs["a"], port_a = start_daphne(redis_url, name="daphne-a", **knobs)
        procs["b"], port_b = start_daphne(redis_url, name="daphne-b", **knobs)
        yield procs, port_a, port_b
    except BaseException:
        for proc in procs.values():
            print(proc.tail())
        raise
    finally:
        for proc in procs.values():
            proc.stop()


@pytest.mark.slow
def test_a_player_holds_at_most_the_cap_across_two_servers_and_a_dead_servers_sockets_expire(
    redis_port: int,
) -> None:
    knobs = {"WS_MAX_SOCKETS_PER_USER": str(CAP), "WS_REGISTRY_TTL_SECONDS": str(TTL)}
    with two_daphnes(redis_port, **knobs) as (procs, port_a, port_b):
        mallory_user = make_player("mallory")
        mallory = session_cookie(mallory_user)
        asha = session_cookie(make_player("asha"))
        staff = session_cookie(make_staff("boss", "Administrator"))
        log: list[str] = []

        async def attack() -> None:
            registry = aredis.Redis.from_url(f"redis://127.0.0.1:{redis_port}/0")

            async def holds_two() -> bool:
                """Whether the registry (its sorted set of her sockets) counts two of Mallory's."""
                return int(await registry.zcard(socket_registry.user_key(mallory_user.pk))) == 2

            # two sockets on A and one on B: the cap is reached across the two servers
            held = [await open_socket(port_a, mallory), await open_socket(port_a, mallory)]
            held.append(await open_socket(port_b, mallory))
            asha_page = await open_socket(port_b, asha)
            for port in (port_b, port_a):
                assert await refused(port, mallory), f"a socket past the cap opened on :{port}"
            dashboard = await asyncio.to_thread(connected_on_dashboard, port_b, staff)
            assert dashboard == 2, dashboard  # Mallory (on A and B) and Asha, once each
            # one closes on A: one more may open, on B
            await held.pop(0).close()
            await eventually(holds_two, "A to release her closed socket in the registry")
            assert not await refused(port_b, mallory)
            log.append("one closed, one more opened")
            # A dies holding two of her three sockets: they count until their expiry passes
            held.append(await open_socket(port_a, mallory))
            procs["a"].kill()
            assert await refused(port_b, mallory), "the dead server's sockets stopped counting at once"
            await asyncio.sleep(TTL + 0.5)  # time passes on purpose: nobody renews them, their expiry passes
            assert not await refused(port_b, mallory), "a dead server's sockets still count"
            log.append("the dead server's sockets expired")
            # the sockets that live on B are renewed: they still count, long after their first expiry
            held += [await open_socket(port_b, mallory), await open_socket(port_b, mallory)]
            await asyncio.sleep(TTL * 2)  # time passes on purpose: past their first expiry, twice
            assert await refused(port_b, mallory)
            assert await asyncio.to_thread(connected_on_dashboard, port_b, staff) == 2
            for ws in (*held, asha_page):
                await ws.close()
            await registry.aclose()

        asyncio.run(attack())
        assert log == [
            "one closed, one more opened",
            "the dead server's sockets expired",
        ], log


async def _shown(ws: Any, user_id: int, connected: bool) -> dict[str, Any]:
    """The first snapshot or presence message on ``ws`` that shows the user as ``connected``."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
        players = message.get("players") if message["type"] == "presence" else message.get("presence")
        shown = players.get(str(user_id)) if message["type"] in ("presence", "snapshot") and players else None
        if shown is not None and shown["connected"] is connected:
            return dict(message)


def test_a_player_on_a_killed_server_is_away_at_the_table_once_their_socket_expires(redis_port: int) -> None:
    """Presence (tables/realtime/presence.py) across two real Daphnes: Asha's server is killed with her
    table socket open; once its expiry passes, Ravi's page (on the other server) sees her away, and
    sees her back, told at once, when she reconnects there."""
    with two_daphnes(redis_port, WS_REGISTRY_TTL_SECONDS=str(TTL)) as (procs, port_a, port_b):
        table = make_table(seats=2, seed=4, turn_seconds=600)
        asha, ravi = make_player("asha"), make_player("ravi")
        for user in (asha, ravi):
            services.table_join(table_id=table.pk, user=user)
        path = f"/ws/tables/{table.pk}/"
        asha_cookie, ravi_cookie = session_cookie(asha), session_cookie(ravi)

        async def scenario() -> None:
            ravi_page = await open_socket(port_b, ravi_cookie, path)
            asha_page = await open_socket(port_a, asha_cookie, path)
            await _shown(ravi_page, asha.pk, True)
            procs["a"].kill()  # her socket is never closed
            await asyncio.sleep(TTL + 0.5)  # time passes on purpose: nobody renews it, its expiry passes
            ravi_tab = await open_socket(port_b, ravi_cookie, path)  # his page, reloaded
            await _shown(ravi_tab, asha.pk, False)
            asha_back = await open_socket(port_b, asha_cookie, path)  # she reconnects, to B
            back = await _shown(ravi_page, asha.pk, True)
            assert back["type"] == "presence", back  # told live, not only in a later snapshot
            for ws in (ravi_page, ravi_tab, asha_back, asha_page):
                with contextlib.suppress(Exception):  # asha_page's server is gone
                    await ws.close()

        asyncio.run(scenario())


class _Page:
    """A consumer as the registry sees one (it names each by its own serial)."""


@pytest.mark.django_db
def test_with_redis_unreachable_the_processs_own_cap_decides_and_the_count_is_local(
    settings: object,
) -> None:
    from asgiref.sync import async_to_sync

    from tables.realtime import socket_registry, sockets

    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # type: ignore[attr-defined]  # nobody listens
    settings.WS_MAX_SOCKETS_PER_USER = 2  # type: ignore[attr-defined]
    pages = [_Page() for _ in range(3)]

    async def claims() -> list[bool]:
        return [await sockets.claim_socket(7, page) for page in pages]

    started = time.monotonic()
    assert async_to_sync(claims)() == [True, True, False]  # the process's cap, without Redis
    assert time.monotonic() - started < 3 * socket_registry.REGISTRY_TIMEOUT + 1
    assert sockets.connected_users() == 1  # this process's own count
    for page in pages[:2]:
        async_to_sync(sockets.release_socket)(7, page)
    assert sockets.connected_users() == 0


@pytest.mark.django_db
def test_a_renewal_reaches_every_players_sockets_past_one_script_calls_batch(
    require_redis: str, settings: object
) -> None:
    """Renewed in batches of ``RENEW_BATCH`` players (one call for all packed 150 µs a player
    into this process and could outlast its timeout): every batch must land."""
    from asgiref.sync import async_to_sync

    from tables.realtime import socket_registry, sockets

    with private_redis(require_redis) as url:
        settings.REDIS_URL = url  # type: ignore[attr-defined]
        settings.WS_REGISTRY_TTL_SECONDS = 2  # type: ignore[attr-defined]
        players = 3 * socket_registry.RENEW_BATCH + 7
        pages = {user_id: [_Page(), _Page()] for user_id in range(1, players + 1)}

        async def open_all() -> None:
            for user_id, two in pages.items():
                for page in two:
                    assert await sockets.claim_socket(user_id, page)

        async def renew() -> None:
            await socket_registry.renew(sockets._held_ids())

        async def close_all() -> None:
            for user_id, two in pages.items():
                for page in two:
                    await sockets.release_socket(user_id, page)

        async_to_sync(open_all)()
        try:
            took = time.monotonic()
            async_to_sync(renew)()  # brings back any that expired while 3,000 were opened one by one
            took = time.monotonic() - took
            assert sockets.connected_users() == players
            # a TTL of 2 s, or more if one renewal takes long here (a busy machine): the second
            # renewal must land before the first one's expiry, which the test then waits past
            ttl = max(2, math.ceil(4 * took))
            settings.WS_REGISTRY_TTL_SECONDS = ttl  # type: ignore[attr-defined]
            first = time.monotonic()
            async_to_sync(renew)()  # every socket now expires ttl s from here
            time.sleep(0.6 * ttl)  # time passes on purpose: the second renewal comes well after the first
            async_to_sync(renew)()
            time.sleep(max(0.0, first + ttl + 0.2 - time.monotonic()))  # past the first renewal's expiry
            assert sockets.connected_users() == players  # only the second renewal keeps them
            client = redis.Redis.from_url(url)
            counts = client.pipeline(transaction=False)  # one round trip, well before the expiry
            for u in pages:
                counts.zcard(socket_registry.user_key(u))
            assert counts.execute() == [2] * players
            time.sleep(ttl + 0.2)  # nobody renews them now (this test runs no renewal task of its own)
            assert sockets.connected_users() == 0
        finally:
            async_to_sync(close_all)()
