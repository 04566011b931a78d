"""What the cross-process socket registry costs: a claim and a release per socket, and a renewal.

    REDIS_URL=redis://127.0.0.1:6379/13 .venv/bin/python bench/socket_registry_bench.py [--sockets N]

The database REDIS_URL names is FLUSHED first: 13 is the benchmarks' (the tests never claim it).
Opens ``--sockets`` sockets for ``--sockets / 2`` users (two each: a table and the lobby),
one claim at a time as connects arrive, renews them all in one pipeline as each process
does every third of ``WS_REGISTRY_TTL_SECONDS``, counts the connected players as the
dashboard does, and releases them. Prints the wall time per operation and the Redis
server's CPU per operation (``INFO cpu``, both user and system).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.settings")
os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-production-0000000000000000000")


class Page:
    """A consumer as the registry sees one."""


def redis_cpu_ms(client: object) -> float:
    info = client.info("cpu")  # type: ignore[attr-defined]
    return 1000 * (float(info["used_cpu_user"]) + float(info["used_cpu_sys"]))


async def run(sockets: int) -> None:
    import redis
    from django.conf import settings

    from tables.realtime import socket_registry
    from tables.realtime import sockets as held_sockets

    plain = redis.Redis.from_url(settings.REDIS_URL)
    plain.flushdb()
    users = max(1, sockets // 2)
    pages = [(1 + i % users, Page()) for i in range(sockets)]

    def phase(name: str, ops: int, wall: float, cpu: float) -> None:
        print(
            f"{name:<10} {ops:>7} ops  {1e6 * wall / ops:8.1f} µs/op wall  {1e3 * cpu / ops:8.2f} µs/op Redis CPU"
        )

    cpu, start = redis_cpu_ms(plain), time.perf_counter()
    for user_id, page in pages:
        assert await held_sockets.claim_socket(user_id, page)
    phase("claim", sockets, time.perf_counter() - start, redis_cpu_ms(plain) - cpu)

    cpu, start = redis_cpu_ms(plain), time.perf_counter()
    await socket_registry.renew(held_sockets._held_ids())
    phase("renew all", 1, time.perf_counter() - start, redis_cpu_ms(plain) - cpu)
    print(f"{'':<10} {'':>7}      {1e6 * (time.perf_counter() - start) / users:8.1f} µs per user renewed")

    cpu, start = redis_cpu_ms(plain), time.perf_counter()
    counted = await asyncio.to_thread(held_sockets.connected_users)
    phase("count", 1, time.perf_counter() - start, redis_cpu_ms(plain) - cpu)
    assert counted == users, (counted, users)

    cpu, start = redis_cpu_ms(plain), time.perf_counter()
    for user_id, page in pages:
        await held_sockets.release_socket(user_id, page)
    phase("release", sockets, time.perf_counter() - start, redis_cpu_ms(plain) - cpu)
    assert await asyncio.to_thread(held_sockets.connected_users) == 0
    plain.flushdb()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=20_000)
    args = parser.parse_args()
    if not os.environ.get("REDIS_URL"):
        sys.exit("set REDIS_URL=redis://127.0.0.1:6379/13 (a database of its own: it is flushed)")
    import django

    django.setup()
    print(
        f"{args.sockets} sockets of {max(1, args.sockets // 2)} players, one process, Redis at {os.environ['REDIS_URL']}"
    )
    asyncio.run(run(args.sockets))


if __name__ == "__main__":
    main()
