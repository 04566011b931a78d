"""Joins and leaves while the game moves, on the real PostgreSQL: no deadlock reaches a player.

Locks are handed out in one order (``tables.game.locks``: table, game, wallets), and
what PostgreSQL still breaks (a deadlock, a serialization failure) is run again
(``retry_on_conflict``) instead of answering 500.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest
from django.db import connection, connections, transaction
from django.test import Client

from tables import services
from tables.errors import TableError
from tables.game import locks, seating
from tables.models import PoolGame, Seat, Table
from tests.tables.conftest import FakeClock, make_player, make_table
from tests.waiting import wait_until
from wallet.audit import check_ledger
from wallet.errors import WalletError

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _waiting_on_a_lock(pid: int) -> bool:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row is not None and row[0] == "Lock"


def test_a_join_broken_by_a_deadlock_is_retried_not_answered_500(require_postgres: None) -> None:
    """A real deadlock: a transaction holding the game row wants the table while a join holds it.

    PostgreSQL breaks the circle by aborting the join (the helper's deadlock
    timeout is longer, so the join's backend finds it first). The player must
    get the seat, not a 500.
    """
    table = make_table(seats=3, fee=1_000)
    asha, ravi = make_player("asha"), make_player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    game = PoolGame.objects.get(table=table)
    client = Client(raise_request_exception=False)
    client.force_login(ravi)

    holding_game = threading.Event()
    done = threading.Event()
    helper_error: list[BaseException] = []
    join_pid: list[int] = []

    def other_transaction() -> None:
        """Takes the game row first, then the table: the wrong order, on purpose."""
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET LOCAL deadlock_timeout = '20s'")
                cursor.execute("SELECT id FROM tables_poolgame WHERE id = %s FOR UPDATE", [game.pk])
                holding_game.set()
                wait_until(
                    lambda: join_pid and _waiting_on_a_lock(join_pid[0]),
                    "the join to wait for the game row",
                    20,
                )
                cursor.execute("SELECT id FROM tables_table WHERE id = %s FOR UPDATE", [table.pk])
        except BaseException as exc:
            helper_error.append(exc)
        finally:
            connection.close()
            done.set()

    original = locks.table_for_update

    def table_then_note_pid(table_id: int) -> Table:
        locked = original(table_id)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            join_pid.append(cursor.fetchone()[0])
        return locked

    helper = threading.Thread(target=other_transaction)
    helper.start()
    assert holding_game.wait(10)
    seating.table_for_update = table_then_note_pid  # type: ignore[attr-defined]
    try:
        response = client.post(f"/api/tables/{table.pk}/join/")
    finally:
        seating.table_for_update = original  # type: ignore[attr-defined]
    assert done.wait(30)
    helper.join()
    assert not helper_error, helper_error
    assert len(join_pid) >= 2, "the join was not broken by the deadlock and run again"
    assert response.status_code == 201, response.content
    assert Seat.objects.filter(game=game, user=ravi, left_at__isnull=True).count() == 1
    assert check_ledger() == []


def test_an_error_that_is_not_a_conflict_is_not_retried() -> None:
    calls = []

    @locks.retry_on_conflict
    def conflicted() -> None:
        calls.append(1)
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM no_such_table")  # not retryable: raised at once

    with pytest.raises(Exception, match="no_such_table"):
        conflicted()
    assert calls == [1]


def test_joins_and_leaves_while_bots_and_timeouts_move_games(
    require_postgres: None, clock: FakeClock
) -> None:
    """Players join and leave tables while timers start games and the games play on: no 500, no deadlock."""
    tables = [make_table(seats=3, fee=500, start_countdown_seconds=0) for _ in range(2)]
    players = [make_player(f"p{i}", chips=1_000) for i in range(8)]
    stop = time.monotonic() + 8
    failures: list[BaseException] = []

    def join_and_leave(user: Any, seed: int) -> None:
        rng = random.Random(seed)
        try:
            while time.monotonic() < stop:
                table = rng.choice(tables)
                try:
                    if rng.random() < 0.6:
                        services.table_join(table_id=table.pk, user=user)
                    else:
                        services.table_leave(table_id=table.pk, user=user)
                except (TableError, WalletError):
                    pass  # full, running, not seated, broke: refusals, not failures
        except BaseException as exc:
            failures.append(exc)
        finally:
            connection.close()

    def move_games() -> None:
        """Timeouts fire (start countdowns, turns) and every due deadline is enforced, as the worker does."""
        try:
            while time.monotonic() < stop:
                clock.advance(40)
                for game in PoolGame.objects.filter(status__in=("waiting", "running")):
                    services.game_timeout(game_id=game.pk, version=game.version)
        except BaseException as exc:
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=join_and_leave, args=(p, i)) for i, p in enumerate(players)]
    threads += [threading.Thread(target=move_games) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert not failures, [str(f) for f in failures]
    assert check_ledger() == []
