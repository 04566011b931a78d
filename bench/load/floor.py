"""The cost floor of the required stack per table action, with no game in it (issue 15).

    .venv/bin/python bench/load/floor.py [--tables 100] [--rate 300] [--duration 15]

Issue 15 asks for 1,000 tables of 6 on this 2-core machine, clients included: 500 table
actions a second, so about 4 ms of CPU per table action for every process together. This
measures what the required stack spends on the traffic of one table action when it does
nothing else, so the figures bound from below what any consumer of ours can cost:

1. **Round trip**: a Daphne serving a bare Channels JSON consumer (``floor_app.py``: orjson,
   ``rummy_site.twisted_writes``, nothing else) answers each message to its sender: one frame
   in and one out, as an ``evaluate`` or the ``result`` of an action.
2. **Notice**: a message sent to the socket's group of ``--players`` through the Redis pub/sub
   channel layer, each member forwarding its own ``--view-bytes`` view: a table action's
   update to every seat, with one frame in from the actor.
3. **Transaction**: the durable write of one action on PostgreSQL, as ``tables.game.gamerows`` does
   it at the least (lock the game row, write a ``--state-bytes`` state, append an event,
   commit) from psycopg, with server-side binding.

Each part runs at a fixed offered rate below saturation, and the CPU of each process over the
window (``/proc``) is divided by the operations done. Then the traffic of one table action as
the load benchmark measured the table page's (``--arranges 1.165 --evaluations 2.085`` a table
action: 2.33 and 4.17 a turn of two actions) gives the floor: one notice, the actor's result
and every evaluation a round trip, every arrangement a round trip and a transaction, the
action itself a transaction. Not counted, so the real floor is higher: the rules, the views,
authentication, the wire checks, the seat's private notice of an arrangement, timers, lobby
sockets. Loopback only; every wait is bounded; the Daphne is always stopped.
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
    ROOT,
    SERVERS,
    Child,
    _pids_by_comm,
    _proc_ticks,
    free_port,
    group_pids,
    port_open,
    server_command,
)

try:
    import uvloop
except ImportError:  # pragma: no cover - optional, as in client.py
    uvloop = None

import orjson  # noqa: E402
from client import open_ws  # noqa: E402

BUDGET_CORES = 2
TARGET_ACTIONS_PER_S = 500  # 1,000 tables, one action every ~2 s


def ticks(pids: list[int]) -> int:
    return sum(_proc_ticks(p) for p in pids)


class Window:
    """CPU (ms) of the Daphne, of Redis and of this process over a measured window."""

    def __init__(self, daphne: int) -> None:
        self.daphne = group_pids(daphne)  # the server and any worker it started (granian)
        self.redis = _pids_by_comm("redis-server")

    def __enter__(self) -> Window:
        self.t0 = time.monotonic()
        self.d0, self.r0, self.c0 = ticks(self.daphne), ticks(self.redis), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.monotonic() - self.t0
        self.daphne_ms = (ticks(self.daphne) - self.d0) * 1000 / CLK_TCK
        self.redis_ms = (ticks(self.redis) - self.r0) * 1000 / CLK_TCK
        self.client_ms = (time.process_time() - self.c0) * 1000


async def open_sockets(port: int, tables: int, players: int) -> list[list[Any]]:
    sem = asyncio.Semaphore(64)

    async def one(table: int, seat: int) -> Any:
        async with sem:
            return await open_ws(port, f"/ws/floor/{table}/{seat}/")

    flat = await asyncio.gather(*(one(t, s) for t in range(tables) for s in range(players)))
    return [list(flat[t * players : (t + 1) * players]) for t in range(tables)]


async def drive(
    tables: list[list[Any]], *, kind: str, rate: float, duration: float, body: dict[str, Any], daphne: int
) -> dict[str, Any]:
    """Send ``kind`` messages at ``rate`` a second in all, Poisson, from a random table's first seat."""
    received = 0
    expected_per_op = len(tables[0]) if kind == "f" else 1
    latencies: list[float] = []
    sent_at: dict[int, float] = {}
    remaining: dict[int, int] = {}
    all_sent, all_answered = False, asyncio.Event()

    async def reader(ws: Any) -> None:
        nonlocal received
        with contextlib.suppress(Exception):
            async for raw in ws:
                msg = orjson.loads(raw)
                received += 1
                n = msg.get("n")
                if n in remaining:
                    remaining[n] -= 1
                    if remaining[n] == 0:
                        latencies.append(time.perf_counter() - sent_at.pop(n))
                        del remaining[n]
                        if all_sent and not remaining:
                            all_answered.set()

    readers = [asyncio.create_task(reader(ws)) for seats in tables for ws in seats]
    rng = random.Random(7)
    ops = 0
    with Window(daphne) as w:
        end = time.monotonic() + duration
        next_at = time.monotonic()
        while time.monotonic() < end:
            next_at += rng.expovariate(rate)
            delay = next_at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            seats = tables[rng.randrange(len(tables))]
            ops += 1
            sent_at[ops], remaining[ops] = time.perf_counter(), expected_per_op
            await seats[0].send(orjson.dumps({"t": kind, "n": ops, **body}).decode())
        all_sent = True
        if not remaining:
            all_answered.set()
        with contextlib.suppress(TimeoutError):  # the last answers, inside the window
            await asyncio.wait_for(all_answered.wait(), 20)
    for task in readers:
        task.cancel()
    latencies.sort()
    return {
        "ops": ops,
        "ops_per_s": round(ops / w.wall, 1),
        "frames_out": received,
        "unanswered": len(remaining),
        "p99_ms": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 1) if latencies else None,
        "daphne_ms_per_op": round(w.daphne_ms / ops, 3),
        "redis_ms_per_op": round(w.redis_ms / ops, 3),
        "client_ms_per_op": round(w.client_ms / ops, 3),
    }


def transactions(count: int, state_bytes: int, rows: int) -> dict[str, Any]:
    """``count`` durable writes as an action makes them at the least; CPU of this process and the backend."""
    import psycopg

    admin = os.environ.get("FLOOR_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS rummy_floor")
        conn.execute("CREATE DATABASE rummy_floor")
    url = admin.rsplit("/", 1)[0] + "/rummy_floor"
    state = json.dumps({"filler": "x" * state_bytes})
    event = json.dumps({"type": "discarded", "seat": 3, "card": "7H", "at": 123456})
    with psycopg.connect(url, prepare_threshold=0) as conn:
        conn.execute("CREATE TABLE game (id int PRIMARY KEY, version int NOT NULL, state jsonb NOT NULL)")
        conn.execute("CREATE TABLE event (id bigserial PRIMARY KEY, game_id int, version int, data jsonb)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO game VALUES (%s, 0, %s)", [(i, state) for i in range(rows)])
        conn.commit()
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        rng = random.Random(3)
        b0, c0, t0 = _proc_ticks(backend), time.process_time(), time.monotonic()
        for _ in range(count):
            gid = rng.randrange(rows)
            with conn.transaction():
                version, _state = conn.execute(
                    "SELECT version, state::text FROM game WHERE id = %s FOR UPDATE", (gid,)
                ).fetchone()
                conn.execute(
                    "UPDATE game SET version = %s, state = %s::jsonb WHERE id = %s", (version + 1, state, gid)
                )
                conn.execute(
                    "INSERT INTO event (game_id, version, data) VALUES (%s, %s, %s::jsonb)",
                    (gid, version + 1, event),
                )
        wall = time.monotonic() - t0
        pg_ms = (_proc_ticks(backend) - b0) * 1000 / CLK_TCK
        client_ms = (time.process_time() - c0) * 1000
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS rummy_floor")
    return {
        "transactions": count,
        "per_s_one_client": round(count / wall, 1),
        "postgres_ms_per_txn": round(pg_ms / count, 3),
        "client_ms_per_txn": round(client_ms / count, 3),
    }


async def sockets_part(args: argparse.Namespace, daphne_pid: int, port: int) -> dict[str, Any]:
    tables = await open_sockets(port, args.tables, args.players)
    views = {str(s): "v" * args.view_bytes for s in range(args.players)}
    await drive(tables, kind="e", rate=args.rate, duration=2, body={"groups": [["7H"]]}, daphne=daphne_pid)
    trip = await drive(
        tables,
        kind="e",
        rate=args.rate,
        duration=args.duration,
        body={"groups": [["7H", "8H", "9H"], ["KS", "KD", "KC"], ["2C", "5D"]]},
        daphne=daphne_pid,
    )
    notice = None
    if args.app == "channels":
        notice = await drive(
            tables,
            kind="f",
            rate=args.rate / 4,
            duration=args.duration,
            body={"views": views},
            daphne=daphne_pid,
        )
    for seats in tables:
        for ws in seats:
            with contextlib.suppress(Exception):
                await ws.close()
    return {"round_trip": trip, "notice": notice}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--rate", type=float, default=300.0, help="round trips a second (notices: a quarter)")
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("--view-bytes", type=int, default=3000)
    parser.add_argument("--state-bytes", type=int, default=10000)
    parser.add_argument("--transactions", type=int, default=3000)
    parser.add_argument("--arranges", type=float, default=1.165, help="per table action")
    parser.add_argument("--evaluations", type=float, default=2.085, help="per table action")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/13")
    parser.add_argument(
        "--server",
        choices=SERVERS,
        default="daphne",
        help="uvicorn and granian are not project dependencies: pip install -e '.[bench]'",
    )
    parser.add_argument(
        "--app",
        choices=("channels", "raw"),
        default="channels",
        help="raw: a plain ASGI echo without Channels (round trips only, no notices)",
    )
    args = parser.parse_args()

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REDIS_URL": args.redis_url}
    logdir = Path(tempfile.mkdtemp(prefix="floor-"))
    target = "bench.load.floor_app:" + ("application" if args.app == "channels" else "raw_application")
    daphne = Child(args.server, server_command(args.server, port, target), env, logdir)
    try:
        deadline = time.monotonic() + 60
        while not port_open(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not port_open(port):
            sys.exit(f"the Daphne did not start:\n{daphne.tail()}")
        runner = uvloop.run if uvloop is not None else asyncio.run
        parts = runner(sockets_part(args, daphne.popen.pid, port))
    finally:
        daphne.stop()
        shutil.rmtree(logdir, ignore_errors=True)
    txn = transactions(args.transactions, args.state_bytes, rows=args.tables)
    trip, notice = parts["round_trip"], parts["notice"]
    if notice is None:  # the raw server: round trips and transactions only
        print(json.dumps({**parts, "server": args.server, "app": args.app, "transaction": txn}))
        return
    # one action: its notice (1 frame in, one out per seat) and its result (a frame out, half a
    # round trip); each arrangement and each evaluation a round trip; action and arrangements a
    # transaction each.
    trips = 0.5 + args.arranges + args.evaluations
    txns = 1 + args.arranges
    floor = {
        "daphne": notice["daphne_ms_per_op"]
        + trips * trip["daphne_ms_per_op"]
        + txns * txn["client_ms_per_txn"],
        "postgres": txns * txn["postgres_ms_per_txn"],
        "redis": notice["redis_ms_per_op"] + trips * trip["redis_ms_per_op"],
        "clients": notice["client_ms_per_op"] + trips * trip["client_ms_per_op"],
    }
    total = sum(floor.values())
    budget = BUDGET_CORES * 1000 / TARGET_ACTIONS_PER_S
    print(
        json.dumps(
            {
                **parts,
                "server": args.server,
                "app": args.app,
                "transaction": txn,
                "per_table_action": {
                    "round_trips": round(trips, 3),
                    "notices": 1,
                    "transactions": round(txns, 3),
                },
                "floor_ms_per_table_action": {k: round(v, 3) for k, v in floor.items()}
                | {"total": round(total, 3)},
                "budget_ms_per_table_action": budget,
                "tables_two_cores_carry_at_the_floor": int(BUDGET_CORES * 1000 / total * 2),
            }
        )
    )


if __name__ == "__main__":
    main()
