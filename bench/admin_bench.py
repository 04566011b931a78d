"""How fast the staff admin stays when the site is big (issue 27): every admin list, search and
detail page and the dashboard, timed as a logged-in superuser, with its query count.

It drops and creates its own PostgreSQL database (``rummy_admin_bench`` unless told), migrates
it and fills it with ``--players`` players (100,000; a cash and a bonus account each), about
``10 × players`` ledger entries (sign-up bonuses, entry fees, settlements: 1,000,000 at the full
size), ``--games`` finished pool games (100,000) with two deals each, their seats and deal
players, five events a deal, and some thousands of staff actions, suspensions, self-exclusions,
play limits and adjustment requests. Rows go in with COPY, triggers off (the generator keeps the
ledger balanced: ``--check`` runs ``check_ledger`` on it afterwards). ``--scale 0.1`` makes it ten
times smaller; ``--skip-fill`` times an already filled database.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/rummy_admin_bench \\
        .venv/bin/python bench/admin_bench.py [--scale 1] [--repeat 3]

Prints one row per page: the median time of ``--repeat`` loads after one warm-up, the queries
of one load and the status. Target (issue 27): every page under 300 ms and under 20 queries.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/rummy_admin_bench")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.test_settings")
os.environ.pop("REDIS_URL", None)  # the dashboard counts sockets in this process

FEE = 1_000  # paise: ₹10 a seat
BONUS = 100_000  # paise: the ₹1,000 sign-up bonus
RAKE_BP = 1_000
NOW = datetime.now(UTC).replace(microsecond=0)


def recreate_database(url: str) -> None:
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.strip("/")
    if not name.startswith("rummy_admin_bench"):
        raise SystemExit(
            f"refusing to drop {name!r}: the bench only drops databases named rummy_admin_bench*"
        )
    admin_url = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


class Copier:
    """COPY rows into one table through Django's connection (psycopg 3)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def __call__(self, table: str, columns: list[str], rows: Any) -> int:
        n = 0
        with self.raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                n += 1
        return n


def _j(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def fill(*, players: int, games: int, seed: int = 27) -> dict[str, int]:
    """Bulk rows, ids chosen here; returns row counts."""
    from django.contrib.contenttypes.models import ContentType
    from django.db import connection

    rnd = random.Random(seed)
    counts: dict[str, int] = {}
    with connection.cursor() as cursor:
        raw = cursor.cursor
        raw.execute("SET session_replication_role = replica")  # no triggers (the generator keeps the rules)
        copy = Copier(raw)

        # --- players -------------------------------------------------------------------------
        joined = [
            NOW - timedelta(days=400) + timedelta(seconds=rnd.randrange(330 * 86400)) for _ in range(players)
        ]
        counts["users"] = copy(
            "accounts_user",
            [
                "id",
                "password",
                "is_superuser",
                "username",
                "first_name",
                "last_name",
                "email",
                "is_staff",
                "is_active",
                "date_joined",
                "display_name",
                "is_bot",
                "age_confirmed_at",
                "terms_accepted_at",
                "confirmed_email",
            ],
            (
                (
                    i,
                    "!",
                    False,
                    f"player{i:06d}",
                    "",
                    "",
                    f"player{i:06d}@example.com",
                    False,
                    True,
                    joined[i - 1],
                    f"P{i}" if i % 3 == 0 else "",
                    False,
                    joined[i - 1],
                    joined[i - 1],
                    f"player{i:06d}@example.com",
                )
                for i in range(1, players + 1)
            ),
        )

        # --- tables --------------------------------------------------------------------------
        n_settings, n_tables = 20, 500
        copy(
            "tables_tablesettings",
            [
                "id",
                "name",
                "format",
                "entry_fee",
                "seats",
                "decks",
                "turn_seconds",
                "extra_time_seconds",
                "declare_seconds",
                "pause_seconds",
                "start_countdown_seconds",
                "rejoin_window_seconds",
                "split_offer_seconds",
                "rake_bp",
                "auto_split_min_fee",
                "rejoin_max_fee",
                "point_value",
                "practice",
                "bot_wait_seconds",
                "active",
            ],
            (
                (
                    s,
                    f"Pool {s}",
                    ("61", "101", "201")[s % 3],
                    FEE,
                    6,
                    2,
                    30,
                    60,
                    45,
                    10,
                    20,
                    20,
                    20,
                    RAKE_BP,
                    200_000,
                    None,
                    100,
                    False,
                    5,
                    True,
                )
                for s in range(1, n_settings + 1)
            ),
        )
        counts["tables"] = copy(
            "tables_table",
            ["id", "settings_id", "name", "owner_id", "created_at", "is_open"],
            (
                (t, 1 + t % n_settings, f"Table {t}", None, NOW - timedelta(days=300), True)
                for t in range(1, n_tables + 1)
            ),
        )

        # --- the ledger: accounts, then transactions and entries in id order -----------------
        ISSUANCE, HOUSE = 1, 2
        wallet_of = {u: 2 + u for u in range(1, players + 1)}
        bonus_of = {u: 2 + players + u for u in range(1, players + 1)}
        escrow_of = {g: 2 + 2 * players + g for g in range(1, games + 1)}
        balance: dict[int, int] = {}
        tx_rows: list[tuple[Any, ...]] = []
        entry_rows: list[tuple[Any, ...]] = []

        def post(kind: str, key: str, memo: str, at: datetime, legs: list[tuple[int, int]]) -> None:
            tx = len(tx_rows) + 1
            tx_rows.append((tx, kind, memo, None, key, "0" * 64, at))
            for account, amount in legs:
                balance[account] = balance.get(account, 0) + amount
                entry_rows.append((len(entry_rows) + 1, tx, account, amount, balance[account]))

        for u in range(1, players + 1):
            post(
                "signup_bonus",
                f"signup:{u}",
                "Sign-up bonus",
                joined[u - 1],
                [(ISSUANCE, -BONUS), (bonus_of[u], BONUS)],
            )

        game_rows, seat_rows, deal_rows, deal_player_rows, event_rows = [], [], [], [], []
        pointer = 0
        # games in the order they were played, as the ledger writes them (ids follow time)
        starts = sorted(NOW - timedelta(seconds=rnd.randrange(60 * 86400)) for _ in range(games))
        for g in range(1, games + 1):
            n_seats = 2 + g % 2
            users = [1 + (pointer + k) % players for k in range(n_seats)]
            pointer += n_seats
            started = starts[g - 1]
            finished = started + timedelta(minutes=rnd.randint(5, 40))
            ref = f"game:{g}"
            for u in users:
                post(
                    "entry_fee",
                    f"entry:{ref}:{u}",
                    f"Entry fee for {ref}",
                    started,
                    [(bonus_of[u], -FEE), (escrow_of[g], FEE)],
                )
            pool = FEE * n_seats
            rake = pool * RAKE_BP // 10_000
            winner = users[g % n_seats]
            post(
                "settlement",
                f"settle:{ref}",
                f"Settlement of {ref}",
                finished,
                [(escrow_of[g], -pool), (wallet_of[winner], pool - rake), (HOUSE, rake)],
            )
            names = {str(k): f"player{u:06d}" for k, u in enumerate(users)}
            result = {
                "winner": str(winner),
                "payouts": {str(winner): pool - rake},
                "rake": rake,
                "prize_pool": pool - rake,
                "settlement": "winner",
            }
            game_rows.append(
                (
                    g,
                    1 + g % n_tables,
                    "finished",
                    "{}",
                    40,
                    10,
                    None,
                    "",
                    None,
                    None,
                    "[]",
                    _j(result),
                    "{}",
                    started,
                    started,
                    finished,
                )
            )
            for k, u in enumerate(users):
                seat_rows.append((len(seat_rows) + 1, g, k, u, False, k, started, None, ""))
            for number in (1, 2):
                d = len(deal_rows) + 1
                win_seat = str(users.index(winner))
                deal_result = {
                    "winner": win_seat,
                    "names": names,
                    "cut_joker": "7H",
                    "players": {
                        str(k): {
                            "status": "declared" if str(k) == win_seat else "lost",
                            "points": 0 if str(k) == win_seat else 20 + k,
                            "groups": [["2H", "3H", "4H"], ["5S", "5D", "5C"]],
                        }
                        for k in range(n_seats)
                    },
                    "scores": {
                        str(k): (0 if str(k) == win_seat else (20 + k) * number) for k in range(n_seats)
                    },
                }
                d_start = started + timedelta(minutes=3 * (number - 1))
                deal_rows.append(
                    (
                        d,
                        g,
                        number,
                        d_start,
                        d_start + timedelta(minutes=3),
                        _j(deal_result),
                        "c" * 64,
                        "s" * 64,
                        "[]",
                        "[]",
                    )
                )
                for u in users:
                    deal_player_rows.append((len(deal_player_rows) + 1, d, u))
                for step, etype in enumerate(
                    ("deal_started", "drew", "discarded", "declared", "deal_result")
                ):
                    seq = (number - 1) * 5 + step
                    event_rows.append(
                        (
                            len(event_rows) + 1,
                            g,
                            number,
                            seq + 1,
                            seq,
                            etype,
                            _j({"seat": step % n_seats, "card": "9C"}),
                            d_start,
                        )
                    )

        accounts = [
            (ISSUANCE, "issuance", "issuance", None, balance.get(ISSUANCE, 0), NOW - timedelta(days=400)),
            (HOUSE, "house", "house", None, balance.get(HOUSE, 0), NOW - timedelta(days=400)),
        ]
        accounts += [
            (wallet_of[u], "wallet", f"user:{u}", u, balance.get(wallet_of[u], 0), joined[u - 1])
            for u in range(1, players + 1)
        ]
        accounts += [
            (bonus_of[u], "bonus", f"user:{u}", None, balance.get(bonus_of[u], 0), joined[u - 1])
            for u in range(1, players + 1)
        ]
        accounts += [
            (escrow_of[g], "escrow", f"game:{g}", None, balance.get(escrow_of[g], 0), NOW)
            for g in range(1, games + 1)
        ]
        counts["accounts"] = copy(
            "wallet_account", ["id", "kind", "ref", "user_id", "balance", "created_at"], accounts
        )
        counts["transactions"] = copy(
            "wallet_ledgertransaction",
            ["id", "kind", "memo", "caused_by_id", "idempotency_key", "fingerprint", "created_at"],
            tx_rows,
        )
        counts["entries"] = copy(
            "wallet_entry", ["id", "transaction_id", "account_id", "amount", "balance_after"], entry_rows
        )
        counts["games"] = copy(
            "tables_poolgame",
            [
                "id",
                "table_id",
                "status",
                "state",
                "version",
                "event_count",
                "deadline_at",
                "deadline_kind",
                "timer_at",
                "seed",
                "bot_seats",
                "result",
                "answers",
                "created_at",
                "started_at",
                "finished_at",
            ],
            game_rows,
        )
        counts["seats"] = copy(
            "tables_seat",
            [
                "id",
                "game_id",
                "position",
                "user_id",
                "is_bot",
                "engine_seat",
                "joined_at",
                "left_at",
                "client_seed",
            ],
            seat_rows,
        )
        counts["deals"] = copy(
            "tables_deal",
            [
                "id",
                "game_id",
                "number",
                "started_at",
                "finished_at",
                "result",
                "commitment",
                "server_seed",
                "client_seeds",
                "dealt_order",
            ],
            deal_rows,
        )
        counts["deal players"] = copy("tables_deal_players", ["id", "deal_id", "user_id"], deal_player_rows)
        counts["events"] = copy(
            "tables_gameevent",
            ["id", "game_id", "deal_number", "version", "seq", "type", "data", "created_at"],
            event_rows,
        )
        for rows in (tx_rows, entry_rows, game_rows, seat_rows, deal_rows, deal_player_rows, event_rows):
            rows.clear()

        # --- staff and what they did ---------------------------------------------------------
        staff_ids = list(range(players + 1, players + 6))
        copy(
            "accounts_user",
            [
                "id",
                "password",
                "is_superuser",
                "username",
                "first_name",
                "last_name",
                "email",
                "is_staff",
                "is_active",
                "date_joined",
                "display_name",
                "is_bot",
                "confirmed_email",
            ],
            (
                (
                    s,
                    "!",
                    False,
                    f"staff{s}",
                    "",
                    "",
                    f"staff{s}@example.com",
                    True,
                    True,
                    NOW - timedelta(days=500),
                    "",
                    False,
                    f"staff{s}@example.com",
                )
                for s in staff_ids
            ),
        )
        user_type = ContentType.objects.get_by_natural_key("accounts", "user").pk
        n_staff_rows = max(200, players // 5)
        counts["staff actions"] = copy(
            "staff_staffaction",
            [
                "content_type_id",
                "object_pk",
                "object_id",
                "object_repr",
                "action",
                "changes",
                "actor_id",
                "remote_addr",
                "timestamp",
                "additional_data",
                "verb",
                "reason",
                "cid",
                "serialized_data",
                "changes_text",
                "actor_email",
            ],
            (
                (
                    user_type,
                    str(1 + i % players),
                    1 + i % players,
                    f"player{1 + i % players:06d}",
                    1,
                    _j({"is_active": ["True", "False"]}),
                    staff_ids[i % 5],
                    "127.0.0.1",
                    NOW - timedelta(seconds=rnd.randrange(90 * 86400)),
                    None,
                    "change_user",
                    "bench row",
                    None,
                    None,
                    "",
                    None,
                )
                for i in range(n_staff_rows)
            ),
        )
        n_small = max(50, players // 50)
        counts["suspensions"] = copy(
            "accounts_suspension",
            [
                "user_id",
                "reason",
                "message",
                "starts_at",
                "ends_at",
                "created_by_id",
                "lifted_at",
                "lifted_by_id",
                "lift_reason",
            ],
            (
                (
                    1 + (i * 7) % players,
                    "bench",
                    "",
                    NOW - timedelta(days=i % 30),
                    None if i % 2 else NOW + timedelta(days=3),
                    staff_ids[0],
                    None,
                    None,
                    "",
                )
                for i in range(n_small)
            ),
        )
        counts["self-exclusions"] = copy(
            "accounts_selfexclusion",
            ["user_id", "period", "starts_at", "ends_at"],
            (
                (
                    1 + (i * 11) % players,
                    "7d",
                    NOW - timedelta(days=i % 14),
                    NOW - timedelta(days=i % 14) + timedelta(days=7),
                )
                for i in range(n_small)
            ),
        )
        counts["play limits"] = copy(
            "accounts_playlimit",
            ["user_id", "kind", "value", "effective_at", "created_at"],
            (
                (
                    1 + (i * 13) % players,
                    "spend" if i % 2 else "time",
                    50_000 if i % 2 else 120,
                    NOW - timedelta(days=1),
                    NOW - timedelta(days=1),
                )
                for i in range(n_small)
            ),
        )
        counts["adjustment requests"] = copy(
            "staff_adjustmentrequest",
            [
                "user_id",
                "amount",
                "bonus",
                "reason",
                "message",
                "idempotency_key",
                "requested_by_id",
                "requested_at",
                "status",
                "decided_by_id",
                "decided_at",
            ],
            (
                (
                    1 + (i * 17) % players,
                    500_000,
                    False,
                    "bench",
                    "",
                    f"bench-adj-{i}",
                    staff_ids[1],
                    NOW - timedelta(hours=i),
                    "pending" if i % 3 else "approved",
                    None if i % 3 else staff_ids[2],
                    None if i % 3 else NOW,
                )
                for i in range(n_small)
            ),
        )
        raw.execute("SET session_replication_role = origin")
        for table in (
            "accounts_user",
            "tables_tablesettings",
            "tables_table",
            "wallet_account",
            "wallet_ledgertransaction",
            "wallet_entry",
            "tables_poolgame",
            "tables_seat",
            "tables_deal",
            "tables_deal_players",
            "tables_gameevent",
            "staff_staffaction",
            "accounts_suspension",
            "accounts_selfexclusion",
            "accounts_playlimit",
            "staff_adjustmentrequest",
        ):
            raw.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
            )
    connection.commit() if not connection.get_autocommit() else None
    return counts


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def pages(players: int) -> list[tuple[str, str]]:
    """(name, url) of every admin list, a search of each searchable one, a detail page of each,
    the dashboard and the player page where it exists."""
    from django.contrib import admin
    from django.urls import NoReverseMatch, reverse

    from tables.models import PoolGame

    player = players // 2
    game = PoolGame.objects.filter(seats__user_id=player).order_by("-id").values_list("id", flat=True).first()
    out: list[tuple[str, str]] = [
        ("admin index", reverse("admin:index")),
        ("dashboard", reverse("staff-dashboard")),
    ]
    for model, model_admin in sorted(admin.site._registry.items(), key=lambda kv: kv[0]._meta.label):
        info = (model._meta.app_label, model._meta.model_name)
        label = model._meta.label
        changelist = reverse("admin:{}_{}_changelist".format(*info))
        out.append((f"{label} list", changelist))
        if model_admin.search_fields:
            term = {"tables.Table": "Table 42", "tables.TableSettings": "Pool 7", "auth.Group": "Admin"}.get(
                label, f"player{player:06d}"
            )
            out.append((f"{label} search", f"{changelist}?q={term.replace(' ', '+')}"))
        pk = {
            "accounts.User": player,
            "tables.PoolGame": game,
            "wallet.Account": 2 + player,
        }.get(label) or model._default_manager.order_by("-pk").values_list("pk", flat=True).first()
        if pk is not None:
            out.append((f"{label} detail", reverse("admin:{}_{}_change".format(*info), args=[pk])))
    try:
        url = reverse("admin:accounts_user_player", args=[player])
    except NoReverseMatch:
        pass
    else:
        out.append(("player page", url))
        out.append(("player page, statement page 2", f"{url}?statement=2"))
    return out


def time_pages(*, players: int, repeat: int) -> list[tuple[str, float, int, int]]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts.models import User

    boss = User.objects.filter(username="bench-admin").first() or User.objects.create_superuser(
        "bench-admin", "bench-admin@example.com", "bench-admin-2026"
    )
    client = Client()
    client.force_login(boss)
    rows = []
    for name, url in pages(players):
        client.get(url)  # warm-up: caches, connection, templates
        samples = []
        queries = 0
        status = 0
        for _ in range(repeat):
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                response = client.get(url)
                samples.append(time.perf_counter() - started)
            queries, status = len(captured), response.status_code
        rows.append((name, _median_ms(samples), queries, status))
        print(f"{name:<48} {_median_ms(samples):>9.1f} ms {queries:>5} queries  {status}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="1: 100,000 players, ~1,000,000 entries, 100,000 games"
    )
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-fill", action="store_true", help="time the database as it is")
    parser.add_argument("--check", action="store_true", help="run check_ledger on the filled ledger")
    args = parser.parse_args()
    players = args.players or int(100_000 * args.scale)
    games = args.games or int(100_000 * args.scale)
    url = os.environ["DATABASE_URL"]

    if not args.skip_fill:
        recreate_database(url)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    import staff

    print(f"code: {Path(staff.__file__).parent.parent}  database: {connection.settings_dict['NAME']}")
    if not args.skip_fill:
        started = time.perf_counter()
        call_command("migrate", verbosity=0)
        migrated = time.perf_counter()
        counts = fill(players=players, games=games)
        filled = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE") if connection.get_autocommit() else cursor.execute("ANALYZE")
        print(
            f"migrate {migrated - started:.1f} s, fill {filled - migrated:.1f} s, vacuum/analyze {time.perf_counter() - filled:.1f} s"
        )
        print(", ".join(f"{k}: {v:,}" for k, v in counts.items()))
    if args.check:
        from wallet.audit import check_ledger

        started = time.perf_counter()
        problems = check_ledger()
        print(
            f"check_ledger: {len(problems)} problem(s) in {time.perf_counter() - started:.1f} s",
            *problems[:5],
            sep="\n",
        )
    print(f"\n{'page':<48} {'time':>12} {'queries':>7}  status")
    rows = time_pages(players=players, repeat=args.repeat)
    slow = [r for r in rows if r[1] >= 300 or r[2] >= 20 or r[3] != 200]
    print(f"\n{len(rows)} pages; {len(slow)} over 300 ms, 20 queries or not 200:")
    for name, ms, queries, status in slow:
        print(f"  {name}: {ms:.0f} ms, {queries} queries, {status}")


if __name__ == "__main__":
    main()
