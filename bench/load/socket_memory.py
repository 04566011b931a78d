"""Memory per idle socket, and 20,000 idle sockets on this machine's server processes (issue 26).

    .venv/bin/python bench/load/socket_memory.py [--players 10000] [--servers 2] [--server daphne]

Each of ``--players`` players sits at a table of six (a game in progress) and keeps two pages
open: the table page (a table socket: its snapshot, its group, presence) and the lobby (a lobby
socket). The site runs on ``--servers`` processes of ``--server`` (PostgreSQL database
``rummy_sockets``, Redis database 12), a player's table socket on one process and their lobby
socket on the next, as a proxy spreads them.

1. **Per socket**: after one socket of each kind has warmed the process, ``--sample`` table
   sockets are opened (each waits for its snapshot), then ``--sample`` lobby sockets; the
   servers' resident memory (VmRSS of every process of each server's group) grows by so
   much: the growth over the sockets is the memory of one idle socket of that kind.
2. **All of them**: the rest are opened, up to one table and one lobby socket a player, by
   ``--client-procs`` client processes (a process holds at most ``ulimit -n`` sockets), and held
   idle for ``--hold`` seconds; then every socket is checked open. Printed: sockets opened,
   refused or failed (by kind of error), closed while idle, the servers' RSS in all and per
   socket, and how long the opening took.

One JSON line. Loopback only; every wait is bounded; the servers are always stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import (  # noqa: E402
    HOST,
    SERVERS,
    create_players_and_tables,
    flush_redis,
    group_pids,
    reset_database,
    setup_django,
    site_env,
    start_daphnes,
    wait_for_daphnes,
)

Target = tuple[int, str, str, bool]  # port, path, cookie, wait for a snapshot


def rss_kib(pgids: list[int]) -> list[int]:
    """Resident memory of each server (every process of its group), in KiB."""
    out = []
    for pgid in pgids:
        total = 0
        for pid in group_pids(pgid):
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        out.append(total)
    return out


# ---------------------------------------------------------------------------- client process
def client_main(conn: Any, deflate: bool = False) -> None:
    """Opens the sockets it is sent (offering permessage-deflate if ``deflate``), keeps them idle
    (reading what comes), reports."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(_client(conn, deflate))


async def _client(conn: Any, deflate: bool) -> None:
    from client import open_ws

    held: list[Any] = []
    closed = 0
    loop = asyncio.get_running_loop()

    async def drain(ws: Any) -> None:
        nonlocal closed
        with contextlib.suppress(Exception):
            async for _ in ws:
                pass
        closed += 1

    async def open_one(target: Target, sem: asyncio.Semaphore, errors: dict[str, int]) -> None:
        port, path, cookie, snapshot = target
        async with sem:
            try:
                ws = await open_ws(port, path, cookie=cookie, open_timeout=120, deflate=deflate)
                if snapshot:
                    async with asyncio.timeout(120):
                        while json.loads(await ws.recv()).get("type") != "snapshot":
                            pass
            except Exception as exc:
                errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                return
        held.append(ws)
        loop.create_task(drain(ws))

    while True:
        command, payload = await loop.run_in_executor(None, conn.recv)
        if command == "open":
            errors: dict[str, int] = {}
            sem = asyncio.Semaphore(100)
            before = len(held)
            await asyncio.gather(*(open_one(tuple(t), sem, errors) for t in payload))
            conn.send({"opened": len(held) - before, "errors": errors})
        elif command == "check":
            await asyncio.sleep(0.5)
            conn.send({"held": len(held), "closed": closed})
        else:
            for ws in held:
                with contextlib.suppress(Exception):
                    await ws.close()
            conn.send({"bye": True})
            return


# ---------------------------------------------------------------------------- the run
def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--server", choices=SERVERS, default="daphne")
    parser.add_argument(
        "--sample", type=int, default=1000, help="sockets of each kind for the per-socket figure"
    )
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument(
        "--deflate", action="store_true", help="the clients offer permessage-deflate, as browsers do"
    )
    parser.add_argument("--hold", type=float, default=30.0, help="seconds the sockets stay idle")
    parser.add_argument("--pg", default=f"postgres://postgres@{HOST}:5432")
    parser.add_argument("--redis", default=f"redis://{HOST}:6379/12")
    parser.add_argument("--db-name", default="rummy_sockets")
    args = parser.parse_args()
    env = {**site_env(f"{args.pg}/{args.db_name}", args.redis), "DB_CONN_MAX_AGE": "0", "DB_POOL_SIZE": "8"}
    started = time.monotonic()
    reset_database(args.db_name, f"{args.pg}/postgres")
    flush_redis(args.redis)
    setup_django(env)
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", verbosity=0)
    tables = create_players_and_tables(
        tables=-(-args.players // 6), players=6, fee=1_000, tag="mem", turn_seconds=3600, pause_seconds=60
    )
    connections.close_all()
    seats = [seat | {"table": t["id"]} for t in tables for seat in t["seats"]][: args.players]
    setup_s = time.monotonic() - started

    logdir = Path(tempfile.mkdtemp(prefix="socket-memory-"))
    child_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
    servers, ports = start_daphnes(args.servers, child_env, logdir, tag="mem", server=args.server)
    pipes: list[Any] = []
    procs: list[mp.Process] = []
    try:
        wait_for_daphnes(servers, ports, timeout=120)
        pgids = [s.popen.pid for s in servers]
        ctx = mp.get_context("spawn")
        for _ in range(args.client_procs):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=client_main, args=(theirs, args.deflate), daemon=True)
            proc.start()
            pipes.append(mine)
            procs.append(proc)

        def table_target(i: int) -> list[Any]:
            return [ports[i % len(ports)], f"/ws/tables/{seats[i]['table']}/", seats[i]["cookie"], True]

        def lobby_target(i: int) -> list[Any]:
            return [ports[(i + 1) % len(ports)], "/ws/lobby/", seats[i]["cookie"], False]

        def ask(pipe: Any, command: str, payload: Any = None) -> dict[str, Any]:
            pipe.send((command, payload))
            if not pipe.poll(900):
                raise TimeoutError(f"a client process did not answer {command}")
            reply: dict[str, Any] = pipe.recv()
            return reply

        def settle() -> list[int]:
            time.sleep(3)
            return rss_kib(pgids)

        # warm every server with one socket of each kind (the code they load is not a socket's)
        warm = [table_target(i) for i in range(len(ports))] + [lobby_target(i) for i in range(len(ports))]
        ask(pipes[0], "open", warm)
        n = len(warm) // 2
        base = settle()
        sample = min(args.sample, (args.players - n) // 2)
        got_t = ask(pipes[0], "open", [table_target(i) for i in range(n, n + sample)])
        after_t = settle()
        got_l = ask(pipes[0], "open", [lobby_target(i) for i in range(n, n + sample)])
        after_l = settle()
        per_table = (sum(after_t) - sum(base)) / max(1, got_t["opened"])
        per_lobby = (sum(after_l) - sum(after_t)) / max(1, got_l["opened"])

        # the rest: every player's table and lobby socket, spread over the client processes
        rest = list(range(n + sample, args.players))
        t0 = time.monotonic()
        replies: list[dict[str, Any]] = []
        for k, pipe in enumerate(pipes):
            mine_ = rest[k :: len(pipes)]
            pipe.send(("open", [table_target(i) for i in mine_] + [lobby_target(i) for i in mine_]))
        for pipe in pipes:
            if not pipe.poll(1800):
                raise TimeoutError("a client process did not finish opening")
            replies.append(pipe.recv())
        open_s = time.monotonic() - t0
        time.sleep(args.hold)
        checks = [ask(pipe, "check") for pipe in pipes]
        final = rss_kib(pgids)
        errors: dict[str, int] = {}
        for reply in [got_t, got_l, *replies]:
            for kind, count in reply["errors"].items():
                errors[kind] = errors.get(kind, 0) + count
        held = sum(c["held"] for c in checks)
        closed = sum(c["closed"] for c in checks)
        print(
            json.dumps(
                {
                    "server": args.server,
                    "servers": len(ports),
                    "players": args.players,
                    "sockets_asked": 2 * args.players,
                    "deflate_offered": args.deflate,
                    "sockets_opened": held,
                    "errors": errors,
                    "closed_while_idle": closed,
                    "hold_s": args.hold,
                    "open_s": round(open_s, 1),
                    "setup_s": round(setup_s, 1),
                    "rss_kib_per_table_socket": round(per_table, 1),
                    "rss_kib_per_lobby_socket": round(per_lobby, 1),
                    "sample": {"table": got_t["opened"], "lobby": got_l["opened"]},
                    "rss_mib_before": [round(x / 1024, 1) for x in base],
                    "rss_mib_held": [round(x / 1024, 1) for x in final],
                    "rss_kib_per_socket_held": round((sum(final) - sum(base)) / max(1, held - n * 2), 1),
                }
            ),
            flush=True,
        )
        for pipe in pipes:
            with contextlib.suppress(Exception):
                ask(pipe, "quit")
    finally:
        for proc in procs:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()
        for server in servers:
            server.stop()
        shutil.rmtree(logdir, ignore_errors=True)


if __name__ == "__main__":
    main()
