"""A socket that is open when its player gains a seat gets that seat's view at once.

These tests arrive as people do: the player joins through the lobby's HTTP form,
opens the table page's socket, and the game starts under it when someone else
joins (or bots take the empty seats). Nobody reloads.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import User
from tables import services
from tables.models import Table
from tests.sockets import open_table
from tests.tables.conftest import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def _join_by_form(user: User, table: Table) -> None:
    """What the lobby's Join button does: POST the join form with the player's session."""
    client = Client()
    client.force_login(user)
    response = client.post(f"/tables/{table.pk}/join/")
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"


async def _until_hand(communicator: WebsocketCommunicator, within: float = 10) -> dict[str, Any]:
    """The first message whose view holds a hand; fails if none comes ``within`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    seen: list[str] = []
    while loop.time() < end:
        try:
            message = await communicator.receive_json_from(timeout=max(0.1, end - loop.time()))
        except TimeoutError:
            break
        view = message.get("view") or {}
        seen.append(f"{message['type']} v{message.get('version')} seat={view.get('seat')}")
        if view.get("hand"):
            return message
    raise AssertionError(f"no hand reached the open socket; it received: {seen}")


async def test_first_joiner_waiting_on_the_page_gets_a_hand_when_the_game_starts() -> None:
    table = await sync_to_async(make_table)("101", seats=2)
    asha, ravi = await sync_to_async(make_player)("asha"), await sync_to_async(make_player)("ravi")
    await _join_by_form(asha, table)
    page = await open_table(asha, table.pk)
    snapshot = await page.receive_json_from(timeout=5)
    assert snapshot["type"] == "snapshot" and snapshot["view"] is None  # waiting for a second player

    await _join_by_form(ravi, table)  # the last seat: the game starts under asha's open page

    message = await _until_hand(page)
    view = message["view"]
    assert view["seat"] is not None and view["players"][view["seat"]]["id"] == str(asha.pk)
    assert len(view["hand"]) in (13, 14)
    assert ("draw" in view["legal"]) == (view["turn"] == view["seat"])
    if view["turn"] == view["seat"]:  # asha plays her first turn over the same socket, no reload
        await page.send_json_to(
            {"type": "action", "request_id": "r1", "action": {"type": "draw", "source": "closed"}}
        )
        while (answer := await page.receive_json_from(timeout=5))["type"] != "result":
            pass
        assert answer["ok"], answer
    await page.disconnect()


async def test_every_player_waiting_on_the_page_gets_their_own_hand() -> None:
    """Three of four players were blind for a whole game: every open socket, in any join order."""
    table = await sync_to_async(make_table)("101", seats=4)
    players = [await sync_to_async(make_player)(name) for name in ("asha", "ravi", "meena", "kiran")]
    pages = []
    for user in players[:3]:
        await _join_by_form(user, table)
        pages.append(await open_table(user, table.pk))
    await _join_by_form(players[3], table)
    for user, page in zip(players[:3], pages, strict=True):
        view = (await _until_hand(page))["view"]
        assert view["players"][view["seat"]]["id"] == str(user.pk)
        await page.disconnect()


async def test_a_spectator_who_joins_from_the_table_page_gets_the_seat_view() -> None:
    """The page was opened before joining (a spectator), then the player joined and the game started."""
    table = await sync_to_async(make_table)("101", seats=2)
    asha, ravi = await sync_to_async(make_player)("asha"), await sync_to_async(make_player)("ravi")
    page = await open_table(asha, table.pk)
    await page.receive_json_from(timeout=5)
    await _join_by_form(asha, table)
    await _join_by_form(ravi, table)
    view = (await _until_hand(page))["view"]
    assert view["players"][view["seat"]]["id"] == str(asha.pk)
    await page.disconnect()


async def test_practice_player_waiting_on_the_page_gets_a_hand_when_bots_take_the_seats(clock: Any) -> None:
    """Every practice table: the player waits alone, bots fill the seats when the wait ends."""
    table = await sync_to_async(make_table)("101", seats=3, fee=0, practice=True, bot_wait_seconds=5)
    asha = await sync_to_async(make_player)("asha")
    await _join_by_form(asha, table)
    page = await open_table(asha, table.pk)
    await page.receive_json_from(timeout=5)

    @sync_to_async
    def bots_arrive() -> None:
        game = table.games.get()
        clock.advance(6)
        assert services.game_timeout(game_id=game.pk, version=game.version)

    await bots_arrive()
    view = (await _until_hand(page))["view"]
    assert view["players"][view["seat"]]["id"] == str(asha.pk)
    await page.disconnect()
