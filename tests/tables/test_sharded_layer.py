"""The channel layer sharded over two Redis servers: table notices still cross server processes.

Past one Redis (issue 26), the pub/sub layer spreads its groups over several
(``CHANNEL_REDIS_URLS``; channels-redis hashes each group's name to one of its hosts).
Two Daphnes list the same two Redis servers of this test's own; tables are made until
some tables' groups hash to each server. At each table one player's socket is on one
Daphne and the other's on the other: a move made on one reaches the other only through
the Redis its table's group lives on. Both Redis servers must carry table groups (their
``PUBSUB CHANNELS``), and every move must reach both seats.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis
from channels_redis.utils import _consistent_hash

from tables import services
from tables.game.notify import table_group
from tables.models import Table
from tests.helpers import session_cookie
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import Proc, free_ports, open_socket, start_daphne, start_redis_server
from tests.waiting import eventually

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

PREFIX = "asgi:db0:"  # settings.channel_layers: the prefix names REDIS_URL's database (0 here)


def shard_of(table: Table) -> int:
    """The Redis (0 or 1) channels-redis puts this table's group on, as its pub/sub layer names it."""
    return int(_consistent_hash(f"{PREFIX}__group__{table_group(table.pk)}", 2))


async def next_of(ws: Any, kinds: set[str]) -> dict[str, Any]:
    """The next message of one of ``kinds`` (others, a presence notice say, are passed over)."""
    async with asyncio.timeout(15):
        while True:
            message: dict[str, Any] = json.loads(await ws.recv())
            if message.get("type") in kinds:
                return message


async def version_reaches(ws: Any, version: int) -> None:
    while True:
        message = await next_of(ws, {"update", "snapshot"})
        if int(message["version"]) >= version:
            return


def test_table_notices_cross_two_daphnes_over_a_layer_sharded_on_two_redis(require_postgres: None) -> None:
    procs: list[Proc] = []
    try:
        ports = free_ports(2)
        for i, port in enumerate(ports):
            procs.append(start_redis_server(port, name=f"redis-{i}"))
        urls = [f"redis://127.0.0.1:{port}/0" for port in ports]
        shards = ",".join(urls)
        daphnes = []
        for i in range(2):
            proc, port = start_daphne(urls[0], name=f"daphne-{i}", CHANNEL_REDIS_URLS=shards)
            procs.append(proc)
            daphnes.append(port)

        # tables until each Redis has two tables' groups (a table's group is on one Redis only)
        tables: list[Table] = []
        while min(sum(1 for t in tables if shard_of(t) == s) for s in (0, 1)) < 2:
            assert len(tables) < 40, "crc32 put forty tables' groups on one Redis"
            tables.append(make_table("101", seats=2, seed=len(tables) + 1, turn_seconds=120))
        seated = []
        for n, table in enumerate(tables):
            first, second = make_player(f"a{n}"), make_player(f"b{n}")
            services.table_join(table_id=table.pk, user=first)
            services.table_join(table_id=table.pk, user=second)
            seated.append((table, session_cookie(first), session_cookie(second)))

        async def play_one(table: Table, cookies: tuple[str, str]) -> int:
            """Each seat on its own Daphne; the player on turn draws; both seats see it."""
            path = f"/ws/tables/{table.pk}/"
            sockets = [await open_socket(daphnes[i], cookies[i], path) for i in range(2)]
            try:
                snaps = [await next_of(ws, {"snapshot"}) for ws in sockets]
                version = int(snaps[0]["version"])
                mover = next(i for i, s in enumerate(snaps) if s["view"]["turn"] == s["view"]["seat"])
                request = {
                    "type": "action",
                    "request_id": f"t{table.pk}",
                    "action": {"type": "draw", "source": "closed"},
                }
                await sockets[mover].send(json.dumps(request))
                # the other seat is on the other Daphne: only the table's Redis carries the notice to it
                await asyncio.gather(*(version_reaches(ws, version + 1) for ws in sockets))
                return version + 1
            finally:
                for ws in sockets:
                    await ws.close()

        async def play_all() -> list[int]:
            return list(await asyncio.gather(*(play_one(t, (a, b)) for t, a, b in seated)))

        # the groups are subscribed while the sockets are open: look at both Redis servers then
        carried: list[set[str]] = [set(), set()]

        async def play_and_look() -> list[int]:
            task = asyncio.ensure_future(play_all())

            def looked_while_playing() -> bool:
                """Notes the groups each Redis carries now; whether the games are played."""
                for s, url in enumerate(urls):
                    names = redis.Redis.from_url(url).pubsub_channels(f"{PREFIX}__group__table_*")
                    carried[s].update(n.decode() for n in names)
                return task.done()

            await eventually(looked_while_playing, "every table's move", within=120)
            return await task

        moved = asyncio.run(play_and_look())
        assert all(v > 1 for v in moved), moved
        for s in (0, 1):
            expected = {f"{PREFIX}__group__{table_group(t.pk)}" for t in tables if shard_of(t) == s}
            assert carried[s], f"Redis {s} carried no table group"
            assert carried[s] <= expected, (s, carried[s] - expected)  # each group on its own Redis only
    finally:
        for proc in procs:
            proc.stop()
