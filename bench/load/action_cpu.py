"""CPU of one table action in-process, per kind: ``services.game_act`` on PostgreSQL, no sockets.

    .venv/bin/python bench/load/action_cpu.py [--rounds 300] [--db-name rummy_action_cpu]

Drops and recreates its own database, starts a 6-seat game and times, with the
process's CPU clock (not wall time: the machine's other work barely moves it),
an ``arrange`` (private), and a turn's ``draw`` and ``discard``; one line of JSON
with the CPU milliseconds per call of each. Timers and notices are suppressed
(``notify.suppressed``): what is left is the service, the engine and the driver.
Also the evaluation of the groups: ``evaluate_http`` through Django's whole HTTP
stack (session, authentication, CSRF, DRF: ``POST /api/groups/evaluate/``, what the
page sent before) and ``evaluate_socket``, what the table socket now does for it
(``protocol.parse_evaluate`` and ``melds.verdict``, no database). And ``update_frame``: what a
table socket spends on each seat's ``update`` after a move (``TableConsumer.table_changed``: the
message built around the seat's encoded view and turned into JSON text), per socket.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--db-name", default="rummy_action_cpu")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    args = parser.parse_args()
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "rummy_site.settings",
            "DEBUG": "0",
            "SECRET_KEY": "action-cpu-bench-secret-key-0123456789-not-for-production-abcdef",
            "DATABASE_URL": f"{args.pg}/{args.db_name}",
            "DB_CONN_MAX_AGE": "600",
            "LOG_LEVEL": "WARNING",
            "ALLOWED_HOSTS": "testserver",
            "SECURE_SSL_REDIRECT": "0",
        }
    )
    sys.path.insert(0, str(ROOT))
    import psycopg

    with psycopg.connect(f"{args.pg}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.db_name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{args.db_name}"')
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from accounts.models import User
    from game_engine.game import GameState
    from tables import services
    from tables.game import notify
    from tables.models import PoolGame, Table, TableSettings
    from wallet.services import grant

    kind = TableSettings.objects.create(name="cpu", format="101", entry_fee=0, seats=6, turn_seconds=3600)
    table = Table.objects.create(settings=kind, name="cpu")
    users = [
        User.objects.create_user(f"cpu{i}", password="x-cpu-2026", display_name=f"P{i}") for i in range(6)
    ]
    for user in users:
        grant(user=user, amount=1000, idempotency_key=f"cpu:{user.pk}")
        services.table_join(table_id=table.pk, user=user)
    game = PoolGame.objects.get(table=table)
    by_id = {str(u.pk): u for u in users}
    # the collector as the ASGI server sets it: with Python's thresholds the collections that the
    # HTTP evaluation's garbage brings on fell inside the next timed call, the arrangement, which
    # then measured 1.25 ms against a draw's 0.78 (cProfile put the pause in parse_card, 3.3 us a
    # call there against 0.24 in a draw); with the server's, all three alike
    from rummy_site.collector import settle_long_lived_objects

    settle_long_lived_objects()
    rng = random.Random(1)
    spent: dict[str, list[float]] = {
        "arrange": [],
        "draw": [],
        "discard": [],
        "evaluate_http": [],
        "evaluate_socket": [],
        "update_frame": [],
    }
    from django.test import Client
    from django.urls import reverse

    from game_engine.melds import verdict
    from game_engine.views import views_for_all
    from tables import protocol
    from tables.game.selectors import game_header
    from tables.models import GameEvent
    from tables.realtime.consumers import TableConsumer
    from tables.realtime.socket_base import encode_json

    async def frames(event: dict[str, object]) -> None:
        """Each seat's socket turns the change notice into its ``update`` (sent nowhere: encoded only)."""
        for user in users:
            socket = TableConsumer()
            socket.user, socket.game_id, socket.version = user, game.pk, int(event["version"]) - 1  # type: ignore[call-overload]

            async def send_json(content: object) -> None:
                encode_json(content)

            socket.send_json = send_json  # type: ignore[method-assign]
            start = time.process_time()
            await socket.table_changed(event)
            spent["update_frame"].append(time.process_time() - start)

    def notice_of_last_move() -> dict[str, object]:
        """The channel layer's notice of the game's last move, as ``notify.table_changed`` makes it."""
        row = PoolGame.objects.get(pk=game.pk)
        state = GameState.from_dict(row.state)
        views = views_for_all(state)
        return {
            "type": "table.changed",
            "game_id": row.pk,
            "version": row.version,
            "events": [e.as_message() for e in GameEvent.objects.filter(game=row, version=row.version)],
            "game": game_header(row),
            "views": {key: notify.encode_view(view) for key, view in views.items()},
            "seat_of": {p.id: i for i, p in enumerate(state.players)},
            "wild_rank": views["spectator"].get("wild_rank"),
        }

    client = Client(enforce_csrf_checks=False)
    client.force_login(users[0])
    evaluate_url = reverse("api-groups-evaluate")
    n = 0

    from django.db import connection

    statements: dict[str, list[str]] = {}

    def act(user: User, action: dict[str, object], kind: str) -> None:
        nonlocal n
        n += 1
        seen: list[str] = []

        def count(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
            seen.append(sql.split()[0].upper())
            return execute(sql, params, many, context)

        start = time.process_time()
        with connection.execute_wrapper(count):
            answer = services.game_act(game_id=game.pk, user=user, request_id=f"r{n}", action=action)
        spent[kind].append(time.process_time() - start)
        statements[kind] = seen  # BEGIN and COMMIT are the driver's, not statements: 2 round trips more
        assert answer["ok"], answer

    with notify.suppressed():
        for _ in range(args.rounds):
            state = GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)
            if state.deal is None or state.phase != "playing":
                break
            seat = state.deal.turn
            user = by_id[state.players[seat].id]
            hand = [c.code for c in state.deal.hands[seat]]
            rng.shuffle(hand)
            groups = [hand[:4], hand[4:9], hand[9:]]
            start = time.process_time()
            response = client.post(
                evaluate_url,
                {"groups": groups, "wild_rank": state.deal.wild_rank},
                content_type="application/json",
            )
            spent["evaluate_http"].append(time.process_time() - start)
            assert response.status_code == 200, response.content
            start = time.process_time()
            parsed, _ = protocol.parse_evaluate({"type": "evaluate", "request_id": "e", "groups": groups})
            verdict(parsed, state.deal.wild_rank)
            spent["evaluate_socket"].append(time.process_time() - start)
            act(user, {"type": "arrange", "groups": groups}, "arrange")
            act(user, {"type": "draw", "source": "closed"}, "draw")
            state = GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)
            assert state.deal is not None
            drawn = state.deal.drawn
            act(user, {"type": "discard", "card": drawn.code if drawn else hand[0]}, "discard")
            asyncio.run(frames(notice_of_last_move()))
    print(
        json.dumps(
            {k: round(1000 * sum(v[10:]) / max(1, len(v) - 10), 4) for k, v in spent.items()}
            | {"calls": {k: len(v) for k, v in spent.items()}, "unit": "ms of CPU per call"}
            | {"statements": statements}
        )
    )


if __name__ == "__main__":
    main()
