"""Quick messages (issue 25): a fixed set of phrases, to everyone at the table, one a player every
QUICK_MESSAGE_SECONDS; no free text, nothing from a spectator (docs/protocol.md, `quick`)."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from game_engine.game import GameState
from tables import services
from tables.models import PoolGame
from tables.realtime import quick
from tests.sockets import Message, of_type, open_table, until
from tests.tables.conftest import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


async def _quiet(page: WebsocketCommunicator) -> list[Message]:
    """What ``page`` received before the answer to a ping (so: nothing else is on its way)."""
    seen: list[Message] = []
    await page.send_json_to({"type": "ping"})
    await until(page, of_type("pong"), seen=seen)
    return seen


async def _game_with_a_spectator() -> tuple[
    list[WebsocketCommunicator], WebsocketCommunicator, dict[str, int]
]:
    table = await sync_to_async(make_table)(seats=2, seed=7)
    asha, ravi, meena = [await sync_to_async(make_player)(name) for name in ("asha", "ravi", "meena")]
    for user in (asha, ravi):
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    game = await sync_to_async(PoolGame.objects.get)(table=table)
    state = GameState.from_dict(game.state)
    seats = {p.id: i for i, p in enumerate(state.players)}
    pages = [await open_table(user, table.pk) for user in (asha, ravi)]
    watcher = await open_table(meena, table.pk)
    for page in (*pages, watcher):
        await until(page, of_type("snapshot"))
    return pages, watcher, {"asha": seats[str(asha.pk)], "ravi": seats[str(ravi.pk)]}


async def test_a_phrase_reaches_everyone_at_the_table_by_the_seat_that_said_it() -> None:
    (asha, ravi), watcher, seat = await _game_with_a_spectator()
    try:
        await asha.send_json_to({"type": "quick", "phrase": "good_game"})
        expected = {"type": "quick_message", "seat": seat["asha"], "phrase": "good_game", "text": "Good game"}
        for page in (asha, ravi, watcher):
            assert await until(page, of_type("quick_message")) == expected
    finally:
        for page in (asha, ravi, watcher):
            await page.disconnect()


@override_settings(QUICK_MESSAGE_SECONDS=1)
async def test_one_phrase_a_player_every_quick_message_seconds() -> None:
    (asha, ravi), watcher, seat = await _game_with_a_spectator()
    try:
        await asha.send_json_to({"type": "quick", "phrase": "please_hurry"})
        await until(ravi, of_type("quick_message", phrase="please_hurry"))
        # her own comes back through the table's group, on a busy machine after the refusal below: read
        # it first, or the check of Ravi's message below reads hers
        await until(asha, of_type("quick_message", phrase="please_hurry"))
        await asha.send_json_to({"type": "quick", "phrase": "please_hurry"})  # again at once: refused
        refused = await until(asha, of_type("error"))
        assert refused["error"]["code"] == "rate_limited"
        assert not [m for m in await _quiet(ravi) if m["type"] == "quick_message"]
        # another player's limit is their own
        await ravi.send_json_to({"type": "quick", "phrase": "sorry_connection"})
        assert (await until(asha, of_type("quick_message")))["seat"] == seat["ravi"]
        await asyncio.sleep(1.1)  # time passes on purpose: her QUICK_MESSAGE_SECONDS (1 s) runs out
        await asha.send_json_to({"type": "quick", "phrase": "well_played"})
        said = await until(ravi, of_type("quick_message", phrase="well_played"))
        assert said["seat"] == seat["asha"]
    finally:
        for page in (asha, ravi, watcher):
            await page.disconnect()


@pytest.mark.parametrize(
    "message",
    [
        {"type": "quick", "phrase": "meet me at table 7"},
        {"type": "quick", "phrase": "Good game"},  # the text, not a key
        {"type": "quick", "phrase": 1},
        {"type": "quick"},
        {"type": "quick", "phrase": "good_game" * 10},
    ],
    ids=["free text", "text not key", "number", "missing", "long"],
)
async def test_no_free_text_and_nothing_malformed_is_sent(message: dict[str, object]) -> None:
    (asha, ravi), watcher, _ = await _game_with_a_spectator()
    try:
        await asha.send_json_to(message)
        refused = await until(asha, of_type("error"))
        assert refused["error"]["code"] == "bad_request"
        assert set(quick.PHRASES) <= set(refused["error"]["message"].replace(",", "").split())
        for page in (ravi, watcher):
            assert not [m for m in await _quiet(page) if m["type"] == "quick_message"]
        # a refused message does not use the player's turn: a good one goes at once
        await asha.send_json_to({"type": "quick", "phrase": "good_game"})
        await until(ravi, of_type("quick_message", phrase="good_game"))
    finally:
        for page in (asha, ravi, watcher):
            await page.disconnect()


async def test_a_spectator_sends_no_phrase() -> None:
    (asha, ravi), watcher, _ = await _game_with_a_spectator()
    try:
        await watcher.send_json_to({"type": "quick", "phrase": "please_hurry"})
        refused = await until(watcher, of_type("error"))
        assert refused["error"]["code"] == "not_seated"
        for page in (asha, ravi):
            assert not [m for m in await _quiet(page) if m["type"] == "quick_message"]
    finally:
        for page in (asha, ravi, watcher):
            await page.disconnect()
