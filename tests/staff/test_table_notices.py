"""What players at the table are told (issue 14): a cancelled game and the hourly play reminder,
as ``notice`` messages on the table socket (docs/protocol.md)."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from tables.models import PoolGame, Table
from tests.sockets import of_type, open_table, until
from tests.staff.conftest import make_staff
from tests.tables.conftest import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


async def _until_notice(communicator: WebsocketCommunicator, kind: str, within: float = 10) -> dict[str, Any]:
    return await until(communicator, of_type("notice", kind=kind), within=within)


@sync_to_async
def _running_game() -> tuple[Table, list[User]]:
    table = make_table(fee=1_000, seats=2, seed=3)
    players = [make_player("asha"), make_player("ravi")]
    for p in players:
        client = Client()
        client.force_login(p)
        client.post(f"/tables/{table.pk}/join/")
    return table, players


async def test_players_at_the_table_are_told_when_staff_cancel_the_game() -> None:
    table, players = await _running_game()
    socket = await open_table(players[0], table.pk)
    await socket.receive_json_from(timeout=5)  # the snapshot

    @sync_to_async
    def cancel() -> int:
        staff = make_staff("boss", "Administrator")
        client = Client()
        client.force_login(staff)
        game = table.games.get()
        response = client.post(
            reverse("admin:tables_poolgame_cancel", args=[game.pk]),
            {"reason": "server fault", "message": "A server fault stopped this game."},
        )
        assert response.status_code == 302
        return game.pk

    game_id = await cancel()
    notice = await _until_notice(socket, "game_cancelled")
    assert notice["game_id"] == game_id and notice["settlement"] == "refund"
    assert notice["message"] == "A server fault stopped this game."
    assert notice["money"] == "Every entry fee has been refunded in full."
    assert "server fault" not in str({k: v for k, v in notice.items() if k != "message"})
    assert notice["payouts_display"] == {str(players[0].pk): "₹10.00", str(players[1].pk): "₹10.00"}
    await socket.disconnect()


async def test_a_seated_player_gets_a_reminder_after_each_interval_played(settings: Any) -> None:
    settings.PLAY_REMINDER_SECONDS = 2
    table, players = await _running_game()

    @sync_to_async
    def started_a_second_ago() -> None:
        PoolGame.objects.filter(table=table).update(started_at=timezone.now() - timezone.timedelta(seconds=1))

    await started_a_second_ago()
    socket = await open_table(players[0], table.pk)
    notice = await _until_notice(socket, "play_reminder", within=8)
    assert notice["played_minutes"] == 0 and "You have played for" in notice["message"]
    await socket.disconnect()
