"""A database connection that dies under a socket does not close the socket.

PostgreSQL restarted, or an operator ran ``pg_terminate_backend``: the connection a
Daphne thread keeps (``DB_CONN_MAX_AGE`` in production) is dead, and the next query on
it fails. Before, the consumer let that error out and the player's socket closed with
1011. Now the call runs once more on a new connection (an action is idempotent by its
``request_id``), and if the database is still away the client gets an error to resend.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection, connections, transaction

from accounts.models import User
from core.dbretry import once_more_on_dropped_connection
from tables import services
from tables.models import GameEvent, PoolGame, Table
from tests.sockets import open_table
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import child_database_url
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


_spared: list[int] = []


@pytest.fixture
def kept_connections(require_postgres: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Connections are kept between calls, as in production (``DB_CONN_MAX_AGE=600``).

    The test's own connection (pytest-django's, this thread's) is spared the terminations.
    """
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 600)
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)
    connection.ensure_connection()
    _spared[:] = [connection.connection.info.backend_pid]
    yield
    connections.close_all()  # kept connections (600 s) would outlive the test database


def _terminate_the_servers_connections() -> int:
    """``pg_terminate_backend`` on every connection to the test database but the test's own."""
    with psycopg.connect(child_database_url(), autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid() AND pid <> ALL(%s)",
            (_spared,),
        ).fetchall()
    return sum(1 for (done,) in rows if done)


@sync_to_async
def _started_game() -> tuple[Table, PoolGame, User]:
    table = make_table("101", seats=2, turn_seconds=600, extra_time_seconds=0)
    players = [make_player("asha"), make_player("ravi")]
    for user in players:
        services.table_join(table_id=table.pk, user=user)
    game = table.games.get()
    on_turn = game.seats.get(engine_seat=game.state["deal"]["turn"]).user
    return table, game, on_turn


async def _next_of(page: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    for _ in range(20):
        message = await page.receive_output(timeout=10)
        assert message["type"] == "websocket.send", f"the server closed the socket: {message}"
        content = json.loads(message["text"])
        if content["type"] == kind:
            return content
    raise AssertionError(f"no {kind} came")


async def test_an_action_on_a_terminated_connection_is_done_once_and_the_socket_stays_open(
    kept_connections: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table, game, on_turn = await _started_game()
    page = await open_table(on_turn, table.pk)
    snapshot = await _next_of(page, "snapshot")
    version = snapshot["version"]

    @sync_to_async  # the shared database thread the socket's calls run on
    def keep_the_sockets_connection() -> None:
        # This thread's wrapper may be one an earlier test of this process made, not the one
        # ``kept_connections`` patched: the connection must be kept here for there to be one to kill.
        # One it opened before is closed first: its lifetime was set when it opened (0 s, closed at
        # the socket's next call, which would then open a new one and meet no dead connection).
        monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)
        connection.close()
        connection.ensure_connection()

    async def kill_the_sockets_connection() -> None:
        await keep_the_sockets_connection()
        caplog.clear()
        killed = await sync_to_async(_terminate_the_servers_connections)()
        assert killed >= 1, "no connection of the server to terminate: the test would prove nothing"

    await kill_the_sockets_connection()
    await page.send_json_to(
        {"type": "action", "request_id": "after-kill-1", "action": {"type": "draw", "source": "closed"}}
    )
    result = await _next_of(page, "result")
    assert result["ok"] is True and result["request_id"] == "after-kill-1", result
    update = await _next_of(page, "update")
    assert update["version"] == version + 1
    # the call met the dead connection and was run again on a new one
    assert "database connection lost" in caplog.text, caplog.text

    # a plain request on a terminated connection, too
    await kill_the_sockets_connection()
    await page.send_json_to({"type": "snapshot"})
    again = await _next_of(page, "snapshot")
    assert again["version"] == version + 1
    assert "database connection lost" in caplog.text, caplog.text

    @sync_to_async
    def version_and_moves() -> tuple[int, int]:
        try:
            row = PoolGame.objects.get(pk=game.pk)
            return row.version, GameEvent.objects.filter(game=game, version=version + 1).count()
        finally:
            connection.close()  # kept (600 s), it would outlive the test database

    now, moves = await version_and_moves()
    assert now == version + 1 and moves >= 1  # done once, not twice
    await page.disconnect()


def test_a_transaction_that_failed_on_a_dead_connection_is_run_again_though_django_reconnected(
    kept_connections: None,
) -> None:
    """What a parallel run met (the server's backend gone before the action's first query): the
    transaction's rollback fails on the dead connection, ``atomic`` drops it and turning autocommit
    back on connects anew, so when the error reaches the retry the connection is alive. The error
    itself says the connection was lost, and the call is run once more."""
    calls: list[int] = []

    @once_more_on_dropped_connection
    def one_transaction() -> int:
        calls.append(1)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return int(cursor.fetchone()[0])

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    pid = connection.connection.info.backend_pid
    with psycopg.connect(child_database_url(), autocommit=True) as admin:  # this test's own connection
        assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        wait_until(  # gone, not just told to go
            lambda: not admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchall(),
            f"backend {pid} to leave pg_stat_activity",
            timeout=10,
        )
    assert one_transaction() == 1
    assert calls == [1, 1]
