"""A database connection terminated during a socket's action: the action is retried, the socket stays open.

The first attempt's connection is killed by PostgreSQL itself
(``pg_terminate_backend`` of its own backend, as an operator or a failover
does), at the start of the action; before, the socket closed with 1011.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from rummy_site.asgi import application
from tables import services
from tables.game import play
from tables.models import GameEvent, PoolGame
from tests.helpers import session_cookie
from tests.sockets import Page
from tests.tables.conftest import make_player, make_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
ORIGIN = (b"origin", b"http://localhost")


async def test_an_action_whose_connection_is_terminated_is_retried_and_the_socket_stays_open(
    require_postgres: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await sync_to_async(make_table)("101", seats=2, seed=9, turn_seconds=60)
    asha, ravi = await sync_to_async(make_player)("asha"), await sync_to_async(make_player)("ravi")
    await sync_to_async(services.table_join)(table_id=table.pk, user=asha)
    await sync_to_async(services.table_join)(table_id=table.pk, user=ravi)
    game = await sync_to_async(lambda: table.games.get())()
    turn = game.state["deal"]["turn"]
    mover = await sync_to_async(lambda: game.seats.get(engine_seat=turn).user)()

    real_game_act = play.game_act
    terminated: list[int] = []

    def game_act_on_a_dying_connection(**kwargs: Any) -> dict[str, Any]:
        if not terminated:  # the first attempt: PostgreSQL drops this connection under it
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                terminated.append(cursor.fetchone()[0])
            with connection.cursor() as killer:
                killer.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        return real_game_act(**kwargs)

    monkeypatch.setattr(play, "game_act", game_act_on_a_dying_connection)

    cookie = (await sync_to_async(session_cookie)(mover)).encode()
    page = Page(application, f"/ws/tables/{table.pk}/", headers=[ORIGIN, (b"cookie", cookie)])
    connected, _ = await page.connect()
    assert connected
    try:
        snapshot = await page.receive_json_from(timeout=10)
        assert snapshot["type"] == "snapshot"
        await page.send_json_to(
            {"type": "action", "request_id": "r1", "action": {"type": "draw", "source": "closed"}}
        )
        messages = []
        while True:
            output = await page.receive_output(timeout=10)
            assert output["type"] == "websocket.send", f"the socket was closed: {output}, after {messages}"
            message = json.loads(output["text"])
            messages.append(message)
            if message["type"] == "result":
                break
        assert terminated, "the connection was never terminated"
        assert message["ok"] is True, message
    finally:
        await page.disconnect()

    @sync_to_async
    def applied_once() -> int:
        return GameEvent.objects.filter(game_id=game.pk, type="draw").count()

    assert await applied_once() == 1
    version = await sync_to_async(lambda: PoolGame.objects.get(pk=game.pk).version)()
    assert version == game.version + 1


async def test_a_handshake_whose_session_lookup_finds_a_dead_connection_still_opens(
    require_postgres: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With persistent connections (``DB_CONN_MAX_AGE``), PostgreSQL drops the handshake thread's connection."""
    table = await sync_to_async(make_table)("101", seats=2, seed=10)
    asha = await sync_to_async(make_player)("asha")
    cookie = (await sync_to_async(session_cookie)(asha)).encode()
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)  # kept between calls, as in production

    async def handshake() -> tuple[bool, Any]:
        page = Page(application, f"/ws/tables/{table.pk}/", headers=[ORIGIN, (b"cookie", cookie)])
        connected, code = await page.connect(timeout=10)
        if connected:
            await page.disconnect()
        return connected, code

    assert await handshake() == (True, None)

    @sync_to_async  # the shared database thread the handshakes' lookups run on
    def handshake_backend() -> int:
        # Normally the handshake's own connection, kept; if something on this thread closed it
        # since, open the persistent connection the next handshake's lookup will find.
        monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)  # this thread's own wrapper too
        connection.ensure_connection()
        return int(connection.connection.info.backend_pid)

    pid = await handshake_backend()

    @sync_to_async(thread_sensitive=False)
    def terminate(pid: int) -> bool:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
                return bool(cursor.fetchone()[0])
        finally:
            connection.close()

    assert await terminate(pid)
    connected, code = await handshake()
    assert connected, f"the handshake failed after the connection was dropped: {code}"
