"""The lobby's live feed sends each lobby socket one message per interval, however many tables change.

The players arrive as people do: their lobby pages' sockets are open, and other players take
seats through the lobby's Join form (an HTTP POST) or leave; the feed is ``tables.realtime.lobbyfeed``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings

from accounts.models import User
from tables.game.notify import LOBBY_GROUP
from tables.models import Table
from tables.realtime import lobbyfeed
from tests.sockets import open_socket
from tests.tables.conftest import make_player, make_table
from tests.waiting import eventually

pytestmark = pytest.mark.django_db(transaction=True)


async def frames_within(page: WebsocketCommunicator, seconds: float) -> list[tuple[float, dict[str, Any]]]:
    """Every message ``page`` receives in the next ``seconds``, with the loop time it came at."""
    loop = asyncio.get_running_loop()
    end, out = loop.time() + seconds, []
    while (left := end - loop.time()) > 0:
        # (a receive that times out would stop the application: look before taking)
        if not await page.receive_nothing(timeout=min(0.05, left), interval=0.01):
            out.append((loop.time(), await page.receive_json_from(timeout=1)))
    return out


@sync_to_async
def _join_by_form(user: User, table: Table) -> None:
    """What the lobby's Join button does."""
    client = Client()
    client.force_login(user)
    response = client.post(f"/tables/{table.pk}/join/")
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/", response


@override_settings(LOBBY_PUSH_SECONDS=0.6)
async def test_a_burst_of_changes_reaches_each_lobby_as_at_most_two_messages() -> None:
    users = [await sync_to_async(make_player)(f"watcher{i}") for i in range(3)]
    pages = [await open_socket(user, "/ws/lobby/") for user in users]
    layer = get_channel_layer()
    for table_id in range(1, 41):  # forty tables change at once: games ending all over the site
        await layer.group_send(LOBBY_GROUP, {"type": "lobby.update", "tables": [table_id]})
    for page, frames in zip(
        pages, await asyncio.gather(*(frames_within(p, 2.0) for p in pages)), strict=True
    ):
        kinds = {m["type"] for _, m in frames}
        assert kinds == {"lobby_update"}, frames
        # the first change at once, the rest gathered into one more message after the interval
        assert 1 <= len(frames) <= 2, [m for _, m in frames]
        assert sorted(t for _, m in frames for t in m["tables"]) == list(range(1, 41))
        if len(frames) == 2:
            assert frames[1][0] - frames[0][0] >= 0.5
        await page.disconnect()


@override_settings(LOBBY_PUSH_SECONDS=3.0)
async def test_seats_taken_through_the_join_form_reach_an_open_lobby() -> None:
    watcher = await sync_to_async(make_player)("watcher")
    tables = [await sync_to_async(make_table)(seats=3) for _ in range(3)]
    players = [await sync_to_async(make_player)(f"joiner{i}") for i in range(3)]
    page = await open_socket(watcher, "/ws/lobby/")
    loop = asyncio.get_running_loop()
    started = loop.time()
    for player, table in zip(players, tables, strict=True):
        await _join_by_form(player, table)
    joining = loop.time() - started  # well under the interval, unless the machine is busy
    frames = await frames_within(page, 4.0)
    # the first seat at once, the rest gathered: one more message per interval the joins lasted
    assert 1 <= len(frames) <= 2 + int(joining / 3.0), (joining, frames)
    assert {t for _, m in frames for t in m["tables"]} == {t.pk for t in tables}
    # quiet for an interval: the next change goes out at once, not an interval later
    await asyncio.sleep(3.1)  # time passes on purpose: the interval, with nothing sent
    await _join_by_form(await sync_to_async(make_player)("late"), tables[0])
    message = await page.receive_json_from(timeout=1.0)
    assert message["tables"] == [tables[0].pk]
    await page.disconnect()


async def test_a_closed_lobby_socket_is_sent_nothing_and_the_others_go_on() -> None:
    users = [await sync_to_async(make_player)(f"closer{i}") for i in range(2)]
    gone, staying = [await open_socket(user, "/ws/lobby/") for user in users]
    await gone.disconnect()
    await get_channel_layer().group_send(LOBBY_GROUP, {"type": "lobby.update", "tables": [5]})
    assert await staying.receive_json_from(timeout=3) == {"type": "lobby_update", "tables": [5], "rows": []}
    await staying.disconnect()


async def test_a_notice_that_names_no_table_sends_nothing() -> None:
    page = await open_socket(await sync_to_async(make_player)("quiet"), "/ws/lobby/")
    await get_channel_layer().group_send(LOBBY_GROUP, {"type": "lobby.update", "tables": ["x", None]})
    assert await page.receive_nothing(timeout=0.5)
    await page.disconnect()


@sync_to_async
def _lobby_api(user: User, ids: list[int]) -> list[dict[str, Any]]:
    client = Client()
    client.force_login(user)
    answer = client.get("/api/tables/", {"ids": ",".join(map(str, ids))})
    assert answer.status_code == 200
    return answer.json()  # type: ignore[no-any-return]


@override_settings(LOBBY_PUSH_SECONDS=0.3)
async def test_an_update_carries_the_rows_the_lobby_api_gives_and_private_tables_reach_their_owner_alone() -> (
    None
):
    asha, ravi, meera = [await sync_to_async(make_player)(name) for name in ("asha", "ravi", "meera")]
    public = await sync_to_async(make_table)(seats=3)
    asha_page, ravi_page = await open_socket(asha, "/ws/lobby/"), await open_socket(ravi, "/ws/lobby/")
    await _join_by_form(meera, public)
    for page, user in ((asha_page, asha), (ravi_page, ravi)):
        message = await page.receive_json_from(timeout=3)
        assert message["tables"] == [public.pk]
        # the row the page would have asked for, as the API gives it to that player
        assert message["rows"] == await _lobby_api(user, [public.pk])
        assert message["rows"][0]["seats_taken"] == 1
    await asyncio.sleep(0.4)  # time passes on purpose: the interval ends, so the next change goes out at once
    # Asha starts practice on her own table: her lobby hears of it, without a row; Ravi's hears nothing
    client = Client()
    await sync_to_async(client.force_login)(asha)
    answer = await sync_to_async(client.post)("/practice/", {"format": "101", "seats": "2"})
    assert answer.status_code == 302
    own = await sync_to_async(lambda: Table.objects.get(owner=asha))()
    message = await asha_page.receive_json_from(timeout=3)
    assert message["tables"] == [own.pk] and message["rows"] == []
    assert [r["id"] for r in await _lobby_api(asha, [own.pk])] == [own.pk]  # what her page then asks
    assert await ravi_page.receive_nothing(timeout=1.0)
    await asha_page.disconnect()
    await ravi_page.disconnect()


class _LayerAwayOnce(InMemoryChannelLayer):
    """A channel layer whose first receive fails, as channels-redis' does while Redis restarts."""

    failures = 1

    async def receive(self, channel: str) -> dict[str, Any]:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("Redis is restarting")
        return await super().receive(channel)  # type: ignore[no-any-return]


class _Page:
    def __init__(self, user: User) -> None:
        self.user, self.got = user, asyncio.Queue[dict[str, Any]]()

    async def send_json(self, content: dict[str, Any]) -> None:
        await self.got.put(content)


@contextlib.asynccontextmanager
async def feed_with_a_page(layer: InMemoryChannelLayer, name: str) -> AsyncIterator[_Page]:
    """A feed of its own on ``layer`` with one lobby page (a player's), stopped afterwards."""
    feed = lobbyfeed._Feed(asyncio.get_running_loop(), layer)
    page = _Page(await sync_to_async(make_player)(name))
    feed.sockets.add(page)
    try:
        await asyncio.wait_for(feed.listening.wait(), timeout=3)
        yield page
    finally:
        feed.listener.cancel()


async def heard(page: _Page, table_id: int) -> bool:
    return await asyncio.wait_for(page.got.get(), timeout=3) == {
        "type": "lobby_update",
        "tables": [table_id],
        "rows": [],
    }


async def test_the_feed_listens_again_when_its_channel_layer_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lobbyfeed, "RETRY_FIRST_SECONDS", 0.05)
    layer = _LayerAwayOnce()
    async with feed_with_a_page(layer, "steady") as page:
        # its first channel failed and was dropped; a second one is in the group
        await eventually(
            lambda: layer.failures == 0 and layer.groups.get(LOBBY_GROUP), "the feed to join the group again"
        )
        await layer.group_send(LOBBY_GROUP, {"type": "lobby.update", "tables": [9]})
        assert await heard(page, 9)


@override_settings(LOBBY_RENEW_SECONDS=0.3)
async def test_the_feed_keeps_its_group_membership_past_the_layers_expiry() -> None:
    """Layers forget a group member after ``group_expiry`` (a day by default): the feed joins again."""
    layer = InMemoryChannelLayer(group_expiry=1)
    async with feed_with_a_page(layer, "patient") as page:
        await asyncio.sleep(2.5)  # time passes on purpose: past the expiry of the first join
        await layer.group_send(LOBBY_GROUP, {"type": "lobby.update", "tables": [4]})
        assert await heard(page, 4)
