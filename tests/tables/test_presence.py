"""Presence (issue 25): every socket at a table hears who of the game's people has it open, and
when a player's last socket closes, that they are away and since when; their first socket back
says they are connected again. A second tab closing is not leaving (docs/protocol.md, `presence`)."""

from __future__ import annotations

import time
from typing import Any

import pytest
import redis
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from game_engine.game import GameState
from tables import services
from tables.game import play as table_play
from tables.models import PoolGame
from tables.realtime import socket_registry
from tests.sockets import Message, of_type, open_table, until
from tests.tables.conftest import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def _of(user_id: int) -> str:
    return str(user_id)


async def _presence(page: WebsocketCommunicator, **wanted: bool) -> Message:
    """The first ``presence`` (or snapshot's presence) in which each named user id
    (``u<id>=connected``) is as wanted; the message's ``players`` hold them."""

    def fits(message: Message) -> bool:
        players = message.get("players") if message["type"] == "presence" else message.get("presence")
        if players is None:
            return False
        return all(key[1:] in players and players[key[1:]]["connected"] is on for key, on in wanted.items())

    message = await until(page, fits)
    return {**message, "players": message.get("players") or message.get("presence")}


async def test_a_player_who_closes_the_table_is_away_for_the_others_until_they_come_back() -> None:
    table = await sync_to_async(make_table)(seats=2, seed=4)
    asha, ravi = [await sync_to_async(make_player)(name) for name in ("asha", "ravi")]
    for user in (asha, ravi):
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    a, r = _of(asha.pk), _of(ravi.pk)

    ravi_page = await open_table(ravi, table.pk, watching_presence=True)
    first = await _presence(ravi_page, **{f"u{r}": True})
    assert set(first["players"]) == {a, r}  # the game's people, each by user id
    assert first["players"][a] == {"connected": False, "away_since": None}  # never came

    asha_page = await open_table(asha, table.pk, watching_presence=True)
    await _presence(ravi_page, **{f"u{a}": True, f"u{r}": True})
    asha_tab = await open_table(asha, table.pk, watching_presence=True)  # a second tab
    await until(asha_tab, of_type("snapshot"))
    await asha_tab.disconnect()  # closing one of two tabs is not leaving
    await ravi_page.send_json_to({"type": "ping"})
    seen: list[Message] = []
    await until(ravi_page, of_type("pong"), seen=seen)
    assert all(m["players"][a]["connected"] for m in seen if m["type"] == "presence"), seen

    before = int(time.time() * 1000)
    await asha_page.disconnect()
    away = await _presence(ravi_page, **{f"u{a}": False})
    assert before - 1000 <= away["players"][a]["away_since"] <= int(time.time() * 1000) + 1000
    assert away["players"][r] == {"connected": True, "away_since": None}

    asha_page = await open_table(asha, table.pk, watching_presence=True)
    back = await _presence(ravi_page, **{f"u{a}": True})
    assert back["players"][a]["away_since"] is None
    own = await _presence(asha_page, **{f"u{a}": True, f"u{r}": True})  # she sees the table as it is
    assert own["players"][r]["connected"] is True
    await asha_page.disconnect()
    await ravi_page.disconnect()


async def test_bots_and_spectators_have_no_presence() -> None:
    asha, ravi, meena = [await sync_to_async(make_player)(name) for name in ("asha", "ravi", "meena")]
    practice = await sync_to_async(services.practice_table_start)(user=asha, fmt="101", seats=3)
    page = await open_table(asha, practice.pk, watching_presence=True)
    assert list((await until(page, of_type("snapshot")))["presence"]) == [_of(asha.pk)]  # no bot
    await page.disconnect()

    table = await sync_to_async(make_table)(seats=2, seed=4)
    for user in (asha, ravi):
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    watcher = await open_table(meena, table.pk, watching_presence=True)
    assert set((await until(watcher, of_type("snapshot")))["presence"]) == {_of(asha.pk), _of(ravi.pk)}
    await watcher.disconnect()


async def test_a_page_back_after_its_socket_was_away_gets_every_event_it_missed() -> None:
    """The page asks ``snapshot`` with ``since`` (the version it showed): a rebuilt ``update``
    with the events since then, from which it says what happened while it was away."""
    table = await sync_to_async(make_table)(seats=2, seed=4)
    asha, ravi = [await sync_to_async(make_player)(name) for name in ("asha", "ravi")]
    for user in (asha, ravi):
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    page = await open_table(asha, table.pk, watching_presence=True)
    shown = (await until(page, of_type("snapshot")))["version"]
    await page.disconnect()

    game = await sync_to_async(PoolGame.objects.get)(table=table)
    for step in ({"type": "draw", "source": "closed"}, None):  # whoever is on turn draws and discards
        state = GameState.from_dict((await sync_to_async(PoolGame.objects.get)(pk=game.pk)).state)
        assert state.deal is not None
        turn = state.deal.turn
        player = asha if state.players[turn].id == str(asha.pk) else ravi
        action = step or {"type": "discard", "card": state.deal.hands[turn][-1].code}
        answer = await sync_to_async(table_play.game_act)(
            game_id=game.pk, user=player, request_id=f"r-{action['type']}", action=action
        )
        assert answer["ok"], answer

    page = await open_table(asha, table.pk, watching_presence=True)
    now = (await until(page, of_type("snapshot")))["version"]
    assert now > shown
    await page.send_json_to({"type": "snapshot", "since": shown})
    caught_up = await until(page, of_type("update"))
    assert caught_up["rebuilt"] is True and caught_up["version"] == now
    kinds = [e["type"] for e in caught_up["events"]]
    assert "draw" in kinds and "discard" in kinds, kinds
    assert [e["version"] for e in caught_up["events"]] == sorted(e["version"] for e in caught_up["events"])
    assert min(e["version"] for e in caught_up["events"]) == shown + 1

    for bad in (-1, "3", 1.5, True):
        await page.send_json_to({"type": "snapshot", "since": bad})
        assert (await until(page, of_type("error")))["error"]["code"] == "bad_request"
    await page.send_json_to({"type": "snapshot", "since": now})  # nothing missed: a snapshot
    assert (await until(page, lambda m: m["type"] in ("snapshot", "update")))["type"] == "snapshot"
    await page.disconnect()


async def test_a_player_whose_server_died_is_away_once_their_sockets_expire_and_back_with_their_next(
    settings: Any, require_redis: str
) -> None:
    """A server killed with its sockets open closes none of them, so its players stay counted. The
    socket registry (Redis: each socket's expiry, renewed by its live process) is the check: past
    the dead sockets' expiry a snapshot shows the player away, and their next socket at the table
    (on a server still up) tells the others they are back."""
    settings.REDIS_URL = require_redis  # the registry is on, as on a site of several servers
    registry = redis.Redis.from_url(require_redis)
    table = await sync_to_async(make_table)(seats=2, seed=4)
    asha, ravi = [await sync_to_async(make_player)(name) for name in ("asha", "ravi")]
    for user in (asha, ravi):
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    a, r = _of(asha.pk), _of(ravi.pk)
    try:
        ravi_page = await open_table(ravi, table.pk, watching_presence=True)
        dead_page = await open_table(asha, table.pk, watching_presence=True)
        await _presence(ravi_page, **{f"u{a}": True, f"u{r}": True})
        dead = registry.zrange(socket_registry.user_key(asha.pk), 0, -1)
        assert len(dead) == 1 and dead[0].endswith(f"@t{table.pk}".encode())  # the socket names its table

        # Asha's server dies: her socket never closes, nobody renews it, and its expiry passes
        registry.zadd(socket_registry.user_key(asha.pk), {dead[0]: time.time() - 1}, xx=True)
        ravi_tab = await open_table(ravi, table.pk, watching_presence=True)
        shown = await _presence(ravi_tab, **{f"u{r}": True})
        assert shown["players"][a]["connected"] is False, shown["players"]

        asha_page = await open_table(
            asha, table.pk, watching_presence=True
        )  # she reconnects, to a server that is up
        back = await _presence(ravi_page, **{f"u{a}": True})
        assert back["type"] == "presence" and back["players"][a]["away_since"] is None
        await asha_page.disconnect()  # her last live socket here: away again, whatever the dead one counted
        away = await _presence(ravi_page, **{f"u{a}": False})
        assert away["players"][a]["away_since"] is not None
        for page in (ravi_tab, ravi_page, dead_page):
            await page.disconnect()
    finally:
        for user in (asha, ravi):
            registry.delete(socket_registry.user_key(user.pk))
            registry.zrem(socket_registry.ONLINE, user.pk)


async def test_a_socket_opening_as_the_players_other_one_closes_is_counted_not_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page reconnecting: its old socket's ``depart`` deletes the count between the new socket's
    add and increment. The increment of a missing key raised, the new socket closed with "Exception
    inside application" (bench/load: an unexpected close and a lost event at 150 tables)."""
    from django.core.cache import cache

    from tables.realtime import presence

    key = presence._count_key(7, 42)
    await cache.adelete(key)
    increment = cache.aincr
    raced: list[str] = []

    async def after_a_departure(k: str, *args: Any, **kwargs: Any) -> int:
        if not raced:
            raced.append(k)
            await cache.adelete(k)  # the other socket closed: depart() deleted the count
        return int(await increment(k, *args, **kwargs))

    monkeypatch.setattr(cache, "aincr", after_a_departure)
    assert await presence.arrive(table_id=7, user_id=42, consumer=object()) is True  # the first socket
    assert raced == [key] and await cache.aget(key) == 1
    await cache.adelete(key)
