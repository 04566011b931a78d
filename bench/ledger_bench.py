"""Ledger throughput on PostgreSQL: postings per second with 1 client and with 8 concurrent clients.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/rummy_bench .venv/bin/python bench/ledger_bench.py [--ops N]

The database named in DATABASE_URL is DROPPED and recreated, then migrated, so the
name must contain "bench". A posting is one ledger transaction (an entry fee:
wallet -> game escrow, two entries, row locks on both accounts). Clients are
threads, each with its own connection; psycopg releases the GIL while waiting on
the server. check_ledger runs at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.settings")
os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-production-0000000000000000000")


def recreate_database(url: str) -> None:
    """Drop and create the bench database (refuses names without "bench")."""
    import dj_database_url
    import psycopg

    cfg = dj_database_url.parse(url)
    if "postgresql" not in cfg["ENGINE"]:
        sys.exit("ledger_bench needs PostgreSQL: set DATABASE_URL=postgres://.../rummy_bench")
    name = cfg["NAME"]
    if "bench" not in name:
        sys.exit(f"refusing to drop database {name!r}: its name must contain 'bench'")
    conninfo = {"host": cfg["HOST"] or None, "port": cfg["PORT"] or None, "user": cfg["USER"] or None}
    with psycopg.connect(
        dbname="postgres", password=cfg["PASSWORD"] or None, autocommit=True, **conninfo
    ) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def run_clients(n: int, work: Callable[[int], int]) -> tuple[int, float]:
    """Run ``work(i)`` in ``n`` threads started together; returns (postings, seconds)."""
    from django.db import connection

    barrier = threading.Barrier(n + 1)
    counts = [0] * n
    errors: list[BaseException] = []

    def target(i: int) -> None:
        try:
            barrier.wait()
            counts[i] = work(i)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    if errors:
        raise errors[0]
    return sum(counts), elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ops", type=int, default=1000, help="postings per client (default 1000)")
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()

    url = os.environ.get("DATABASE_URL", "")
    if not url:
        sys.exit("set DATABASE_URL=postgres://postgres@127.0.0.1:5432/rummy_bench")
    recreate_database(url)

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from accounts.models import User
    from wallet import services
    from wallet.audit import check_ledger, ledger_summary

    call_command("migrate", verbosity=0)
    print(
        f"PostgreSQL {connection.pg_version}, database {connection.settings_dict['NAME']}, {args.ops} ops/client"
    )

    fee = 10_00
    players = [User.objects.create_user(username=f"bench{i}") for i in range(args.clients + 1)]
    for p in players:
        services.grant(user=p, amount=fee * args.ops * 3, idempotency_key=f"bench-fund:{p.pk}")

    def fees(player_index: int, game_of: Callable[[int], str], tag: str) -> Callable[[int], int]:
        def work(i: int) -> int:
            p = players[player_index if player_index >= 0 else i]
            for n in range(args.ops):
                game = game_of(i * args.ops + n)
                services.pay_entry(user=p, game_ref=game, amount=fee, idempotency_key=f"{tag}:{i}:{n}")
            return args.ops

        return work

    scenarios = [
        ("1 client", 1, fees(args.clients, lambda n: f"game:solo:{n % 50}", "solo")),
        (
            f"{args.clients} clients, own wallets, 50 escrows",
            args.clients,
            fees(-1, lambda n: f"game:spread:{n % 50}", "spread"),
        ),
        (
            f"{args.clients} clients, own wallets, ONE hot escrow",
            args.clients,
            fees(-1, lambda n: "game:hot", "hot"),
        ),
    ]
    results = []
    for label, clients, work in scenarios:
        postings, seconds = run_clients(clients, work)
        results.append((label, postings, seconds))
        print(f"{label:<45} {postings:>6} postings in {seconds:6.2f}s = {postings / seconds:8.1f} postings/s")

    # Settle every game so the end state looks like real play, then audit.
    from wallet.models import Account, AccountKind

    winner = players[0].pk
    start = time.perf_counter()
    escrows = list(Account.objects.filter(kind=AccountKind.ESCROW).order_by("pk"))
    for escrow in escrows:
        rake = escrow.balance // 10
        services.settle_game(
            game_ref=escrow.ref,
            payouts={winner: escrow.balance - rake},
            rake=rake,
            idempotency_key=f"settle:{escrow.ref}",
        )
    print(f"settled {len(escrows)} games in {time.perf_counter() - start:.2f}s")

    start = time.perf_counter()
    problems = check_ledger()
    print(f"check_ledger in {time.perf_counter() - start:.2f}s:")
    for line in ledger_summary().lines():
        print("  " + line)
    if problems:
        print("LEDGER PROBLEMS:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print("  ledger OK")
    connection.close()


if __name__ == "__main__":
    main()
