"""Open lobby pages while the site's tables change: what each change costs (issue 15).

    .venv/bin/python bench/load/lobby_bench.py --lobbies 1000 --tables 1000 --changes 15 --duration 20
    .venv/bin/python bench/load/lobby_bench.py --repo /tmp/old --page whole ...   # the code before

Every seat taken or left and every game started or over at any table is a lobby notice
(``tables.game.notify``). A site of 1,000 tables whose pool games last ten minutes makes about
15 a second (six seats, a start, an end and a departure a game). Each open lobby page hears
of them over its socket and asks the server for the list again, so the lobby's cost is the
rate of changes times the open lobbies, times the list.

This serves ``--repo``'s site on ``--daphnes`` Daphne processes (PostgreSQL database
``rummy_lobby``, Redis database 13), makes ``--tables`` tables and ``--lobbies`` logged-in
players, opens one lobby socket per player, publishes ``--changes`` lobby notices a second
(Poisson, random tables) through the site's channel layer for ``--duration`` seconds, and
acts on each ``lobby_update`` as the page does (``--page``):

- ``rows``: the page since issue 15's lobby feed, filtered or not: it takes the rows the update
  carries and asks only for the tables named without one (``GET /api/tables/?ids=``);
- ``ids``: a page that asks for every table named (what the page did with a filter on before it
  filtered the rows itself): one request at a time, a random 0.1-0.7 s after an update
  (``GET /api/tables/?ids=``);
- ``whole``: the page before: 150 ms after the last update, the whole list (``GET /api/tables/``).

It prints one JSON line: frames and requests per lobby per second, the answers' size and
p50/p99 time, and CPU (ms per change and % of one core) of the Daphnes, PostgreSQL, Redis
and these clients. Loopback only; every wait is bounded; the Daphnes are always stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import (  # noqa: E402
    CLK_TCK,
    HOST,
    ROOT,
    _pg_pids,
    _pids_by_comm,
    _proc_ticks,
    flush_redis,
    percentile,
    reset_database,
    session_cookies,
    setup_django,
    site_env,
    start_daphnes,
    wait_for_daphnes,
)

try:
    import uvloop
except ImportError:  # pragma: no cover - optional, as in client.py
    uvloop = None

import orjson  # noqa: E402
from client import open_ws  # noqa: E402


class Http:
    """One keep-alive HTTP/1.1 connection, as a browser keeps to the site."""

    def __init__(self, port: int, cookie: str) -> None:
        self.port, self.cookie = port, cookie
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> bytes:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        assert self.reader is not None
        self.writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nCookie: {self.cookie}\r\n"
            "Accept: application/json\r\n\r\n".encode()
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        body = await self.reader.readexactly(length)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {body[:200]!r}")
        return body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class Lobby:
    """A lobby page: its socket, and what it asks after each update (``--page``)."""

    def __init__(self, port: int, cookie: str, page: str, stats: dict[str, Any]) -> None:
        self.port, self.cookie, self.page, self.stats = port, cookie, page, stats
        self.http = Http(port, cookie)
        self.pending: set[int] = set()
        self.timer: asyncio.TimerHandle | None = None
        self.busy = False
        self.ws: Any = None

    async def open(self, sem: asyncio.Semaphore) -> None:
        async with sem:
            self.ws = await open_ws(self.port, "/ws/lobby/", cookie=self.cookie, open_timeout=120)

    async def listen(self) -> None:
        with contextlib.suppress(Exception):
            async for raw in self.ws:
                message = orjson.loads(raw)
                if message.get("type") == "lobby_update" and self.stats["measuring"]:
                    self.stats["frames"] += 1
                    tables = message.get("tables") or []
                    if self.page == "rows" and message.get("rows") is not None:
                        have = {row["id"] for row in message["rows"]}
                        self.stats["rows"] += len(have)
                        tables = [t for t in tables if t not in have]
                    if tables:
                        self.on_update(tables)
        self.http.close()

    def on_update(self, tables: list[int]) -> None:
        loop = asyncio.get_running_loop()
        self.pending.update(tables)
        if self.page == "whole":  # the page before: a trailing 150 ms debounce, the whole list
            if self.timer is not None:
                self.timer.cancel()
            self.timer = loop.call_later(0.15, lambda: loop.create_task(self.ask("/api/tables/")))
        elif self.timer is None:
            self.timer = loop.call_later(random.uniform(0.1, 0.7), lambda: loop.create_task(self.ask_ids()))

    async def ask_ids(self) -> None:
        ids, self.pending = sorted(self.pending), set()
        await self.ask("/api/tables/?ids=" + ",".join(map(str, ids)))

    async def ask(self, path: str) -> None:
        self.timer = None
        if self.busy:  # one request at a time, as a page's fetches mostly are
            return
        self.busy = True
        started = time.perf_counter()
        try:
            body = await self.http.get(path)
            self.stats["requests"] += 1
            self.stats["bytes"] += len(body)
            self.stats["latency"].append(time.perf_counter() - started)
        except Exception as exc:
            self.stats["errors"] += 1
            self.stats.setdefault("error_sample", str(exc)[:300])
            self.stats["error_kinds"][type(exc).__name__] = (
                self.stats["error_kinds"].get(type(exc).__name__, 0) + 1
            )
        finally:
            self.busy = False


def make_site(tables: int, lobbies: int) -> tuple[list[int], list[str]]:
    from accounts.models import User
    from tables.models import Table, TableSettings

    kind = TableSettings.objects.create(name="lobby bench", format="101", entry_fee=1_000, seats=6)
    made = Table.objects.bulk_create(Table(settings=kind, name=f"Lobby #{i + 1}") for i in range(tables))
    users = User.objects.bulk_create(
        User(username=f"lobby-{i}", display_name=f"Lobby {i}", password="!unusable") for i in range(lobbies)
    )
    cookies = session_cookies(users)
    return [t.pk for t in made], [cookies[u.pk] for u in users]


async def play(args: argparse.Namespace, ports: list[int], table_ids: list[int], cookies: list[str]) -> dict:
    from channels.layers import get_channel_layer

    from tables.game.notify import LOBBY_GROUP

    stats: dict[str, Any] = {
        "measuring": False,
        "frames": 0,
        "rows": 0,
        "requests": 0,
        "bytes": 0,
        "errors": 0,
        "error_kinds": {},
        "latency": [],
    }
    lobbies = [Lobby(ports[i % len(ports)], c, args.page, stats) for i, c in enumerate(cookies)]
    sem = asyncio.Semaphore(64)
    await asyncio.wait_for(asyncio.gather(*(lobby.open(sem) for lobby in lobbies)), 240)
    tasks = [asyncio.create_task(lobby.listen()) for lobby in lobbies]
    layer = get_channel_layer()
    rng = random.Random(11)
    daphnes = list(args.daphne_pids)
    redis = _pids_by_comm("redis-server")

    def sample() -> dict[str, Any]:
        return {
            "t": time.monotonic(),
            "daphne": sum(_proc_ticks(p) for p in daphnes),
            "pg": sum(_proc_ticks(p) for p in _pg_pids(args.db_name)),
            "redis": sum(_proc_ticks(p) for p in redis),
            "client": time.process_time(),
        }

    stats["measuring"] = True
    before = sample()
    changes = 0
    end = time.monotonic() + args.duration
    next_at = time.monotonic()
    while time.monotonic() < end:
        next_at += rng.expovariate(args.changes)
        if (delay := next_at - time.monotonic()) > 0:
            await asyncio.sleep(delay)
        await layer.group_send(LOBBY_GROUP, {"type": "lobby.update", "tables": [rng.choice(table_ids)]})
        changes += 1
    await asyncio.sleep(1.5)  # the last updates and the requests they cause, inside the window
    after = sample()
    stats["measuring"] = False
    for task in tasks:
        task.cancel()
    wall = after["t"] - before["t"]

    def ms(key: str) -> float:
        return (after[key] - before[key]) * 1000 / CLK_TCK

    cpu = {"daphne": ms("daphne"), "postgres": ms("pg"), "redis": ms("redis")}
    cpu["clients"] = (after["client"] - before["client"]) * 1000
    latency = sorted(stats["latency"])
    n = len(lobbies)
    return {
        "page": args.page,
        "repo": str(args.repo),
        "lobbies": n,
        "tables": len(table_ids),
        "daphnes": len(ports),
        "db_pool": args.db_pool,
        "changes_per_s": round(changes / args.duration, 2),
        "updates_per_lobby_per_s": round(stats["frames"] / n / wall, 3),
        "rows_per_lobby_per_s": round(stats["rows"] / n / wall, 3),
        "requests_per_lobby_per_s": round(stats["requests"] / n / wall, 3),
        "answer_bytes_mean": round(stats["bytes"] / max(1, stats["requests"])),
        "request_ms": {
            "p50": round(1000 * percentile(latency, 50), 1),
            "p99": round(1000 * percentile(latency, 99), 1),
        },
        "errors": stats["errors"],
        "error_kinds": stats["error_kinds"],
        "error_sample": stats.get("error_sample"),
        "cpu_pct": {k: round(100 * v / 1000 / wall, 1) for k, v in cpu.items()},
        "cpu_ms_per_change": {k: round(v / max(1, changes), 2) for k, v in cpu.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lobbies", type=int, default=1000)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--changes", type=float, default=15.0, help="lobby notices a second")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--daphnes", type=int, default=2)
    parser.add_argument("--page", choices=("rows", "ids", "whole"), default="rows")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose site is served")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379")
    parser.add_argument("--db-name", default="rummy_lobby")
    parser.add_argument(
        "--db-pool",
        type=int,
        default=8,
        help="DB_POOL_SIZE per Daphne; 0: DB_CONN_MAX_AGE=600 (the advice before)",
    )
    args = parser.parse_args()
    env = {
        **site_env(f"{args.pg}/{args.db_name}", f"{args.redis}/13"),
        "DB_CONN_MAX_AGE": "0" if args.db_pool else "600",
        "DB_POOL_SIZE": str(args.db_pool),
        "WS_MAX_SOCKETS_PER_USER": "16",
    }
    reset_database(args.db_name, f"{args.pg}/postgres")
    flush_redis(env["REDIS_URL"])
    setup_django(env)
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", verbosity=0)
    table_ids, cookies = make_site(args.tables, args.lobbies)
    connections.close_all()
    logdir = Path(tempfile.mkdtemp(prefix="lobby-bench-"))
    child_env = {**os.environ, **env, "PYTHONPATH": str(args.repo), "PYTHONUNBUFFERED": "1"}
    daphnes, ports = start_daphnes(args.daphnes, child_env, logdir, tag="lobby", cwd=args.repo)
    try:
        wait_for_daphnes(daphnes, ports)
        args.daphne_pids = [d.popen.pid for d in daphnes]
        runner = uvloop.run if uvloop is not None else asyncio.run
        print(json.dumps(runner(play(args, ports, table_ids, cookies))), flush=True)
    finally:
        for daphne in daphnes:
            daphne.stop()
        shutil.rmtree(logdir, ignore_errors=True)


if __name__ == "__main__":
    main()
