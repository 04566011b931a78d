"""A finished deal's server seed goes to the game's seats only (issue 37, docs/fairness.md).

With the seed and the client seeds anyone rebuilds the deck of that deal, every hand in it:
its players check the shuffle with it; a spectator (a logged-in player without a seat, or a
support agent, watching the table page) sees the table as it was shown and the commitment,
never the seed: not in the live ``deal_over``, not in the snapshot after a reconnect, not in
the catch-up after a gap, not in the table API.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import User
from game_engine import fairness
from game_engine.game import GameState
from tables import services
from tables.game import notify
from tables.models import Deal, PoolGame
from tests.sockets import of_type, open_table, until
from tests.staff.conftest import make_staff
from tests.tables.conftest import FakeClock, make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)

Message = dict[str, Any]


async def _drain(ws: WebsocketCommunicator, into: list[Message], version: int) -> None:
    """Every message until the socket shows ``version``."""
    seen = -1
    while seen < version:
        msg = await ws.receive_json_from(timeout=10)
        into.append(msg)
        if msg.get("type") in ("snapshot", "update"):
            seen = max(seen, msg["version"])


@sync_to_async
def _game(table_id: int) -> PoolGame:
    return PoolGame.objects.get(table_id=table_id)


@sync_to_async
def _table_api(user: User, table_id: int) -> Message:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.get(f"/api/tables/{table_id}/")
    assert response.status_code == 200, response.content
    data: Message = response.json()
    return data


def _deal_overs(messages: list[Message]) -> list[Message]:
    return [e for m in messages for e in m.get("events", []) if e["type"] == "deal_over"]


async def test_spectators_never_get_a_finished_deals_seed_its_players_do(
    require_postgres: None, clock: FakeClock
) -> None:
    table = await sync_to_async(make_table)("101", fee=0, seats=2, pause_seconds=60)
    players = [await sync_to_async(make_player)(n) for n in ("kiran", "lata")]
    watcher = await sync_to_async(make_player)("meena")  # logged in, no seat at this table
    agent = await sync_to_async(make_staff)("helper", "Support agent")
    for user in players:
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    game = await _game(table.pk)
    state = GameState.from_dict(game.state)
    deal = state.deal
    assert deal is not None and game.status == PoolGame.Status.RUNNING
    seed = deal.server_seed

    people = [*players, watcher, agent]
    sockets = [await open_table(user, table.pk) for user in people]
    got: list[list[Message]] = [[] for _ in people]
    for ws, into in zip(sockets, got, strict=True):
        await _drain(ws, into, game.version)
    commitment = got[2][0]["view"]["fairness"]["commitment"]
    assert got[2][0]["you"]["seat"] is None and got[3][0]["you"]["seat"] is None  # they watch
    assert commitment == fairness.commitment(seed)  # published to everyone before the deal
    before = game.version

    # The player on turn drops: deal 1 is over, and its seed is revealed to the two seats.
    on_turn = next(u for u in players if state.players[deal.turn].id == str(u.pk))
    ws_on_turn = sockets[players.index(on_turn)]
    await ws_on_turn.send_json_to({"type": "action", "request_id": "d1", "action": {"type": "drop"}})
    answer = await until(ws_on_turn, of_type("result", request_id="d1"), seen=got[players.index(on_turn)])
    assert answer["ok"], answer
    game = await _game(table.pk)
    assert game.version > before and game.state["phase"] == "between_deals"
    for ws, into in zip(sockets, got, strict=True):
        await _drain(ws, into, game.version)

    # The seats: deal_over with the seed, and the last result sheet too; they verify the shuffle.
    row = await sync_to_async(Deal.objects.get)(game=game, number=1)
    for into in got[:2]:
        (over,) = _deal_overs(into)
        assert over["server_seed"] == seed and over["commitment"] == commitment
        assert into[-1]["view"]["last_result"]["server_seed"] == seed
        order = fairness.deck_order(over["server_seed"], over["client_seeds"], over["deal_no"])
        assert order == row.dealt_order
        ok, why = fairness.verify(
            {
                "server_seed": over["server_seed"],
                "client_seeds": over["client_seeds"],
                "deal_no": over["deal_no"],
                "commitment": commitment,
                "order": row.dealt_order,
            }
        )
        assert ok, why

    # The spectators: the same deal_over and result sheet (the shown groups, the commitment), no seed.
    for into in got[2:]:
        (over,) = _deal_overs(into)
        assert "server_seed" not in over and over["commitment"] == commitment
        assert over["players"] == _deal_overs(got[0])[0]["players"]
        last = into[-1]["view"]["last_result"]
        assert last["deal_no"] == 1 and "server_seed" not in last
        assert seed not in json.dumps(into)

    # A reconnect: the snapshot of a spectator holds no seed, a seat's does.
    for index in (0, 2, 3):
        await sockets[index].disconnect()
        sockets[index] = await open_table(people[index], table.pk)
        snapshot = await until(sockets[index], of_type("snapshot"))
        assert snapshot["version"] == game.version
        assert (seed in json.dumps(snapshot)) is (index == 0), people[index].username

    # The catch-up after a gap (the page's "snapshot since", and the resync watcher's rebuild):
    # the events since the version the page showed, rebuilt from the log.
    for index in (0, 2, 3):
        await sockets[index].send_json_to({"type": "snapshot", "since": before})
        rebuilt = await until(sockets[index], of_type("update", rebuilt=True))
        (over,) = _deal_overs([rebuilt])
        assert over["commitment"] == commitment
        if index == 0:
            assert over["server_seed"] == seed
        else:
            assert "server_seed" not in over and seed not in json.dumps(rebuilt)

    # The table API: the same snapshot.
    for user in people:
        snapshot = await _table_api(user, table.pk)
        assert snapshot["view"]["last_result"]["commitment"] == commitment
        assert (seed in json.dumps(snapshot)) is (user in players), user.username

    for ws in sockets:
        await ws.disconnect()


@sync_to_async
def _drop_without_notice(game_id: int) -> int:
    """The player on turn drops and the deal is over; the notice of it is lost (Redis away).
    Returns the game's new version."""
    game = PoolGame.objects.get(pk=game_id)
    state = GameState.from_dict(game.state)
    assert state.deal is not None
    on_turn = User.objects.get(pk=int(state.players[state.deal.turn].id))
    with notify.suppressed():
        answer = services.game_act(game_id=game_id, user=on_turn, request_id="lost", action={"type": "drop"})
    assert answer["ok"], answer
    game = PoolGame.objects.get(pk=game_id)
    assert game.state["phase"] == "between_deals"
    return int(game.version)


async def test_a_spectator_rebuilt_after_a_lost_notice_gets_no_seed(
    require_postgres: None, clock: FakeClock, settings: Any
) -> None:
    """The resync watcher rebuilds a socket behind the database from the event log: a spectator's
    rebuild holds the deal_over without the seed, a seat's with it."""
    settings.RESYNC_SECONDS = 0.3
    table = await sync_to_async(make_table)("101", fee=0, seats=2, pause_seconds=60)
    players = [await sync_to_async(make_player)(n) for n in ("asha", "ravi")]
    agent = await sync_to_async(make_staff)("helper", "Support agent")
    for user in players:
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    game = await _game(table.pk)
    seed = GameState.from_dict(game.state).deal.server_seed  # type: ignore[union-attr]
    seat_ws, agent_ws = await open_table(players[0], table.pk), await open_table(agent, table.pk)
    for ws in (seat_ws, agent_ws):
        assert (await until(ws, of_type("snapshot")))["version"] == game.version
    version = await _drop_without_notice(game.pk)
    for ws, seated in ((seat_ws, True), (agent_ws, False)):
        rebuilt = await until(ws, of_type("update", rebuilt=True, version=version))
        (over,) = _deal_overs([rebuilt])
        assert over["commitment"] == fairness.commitment(seed)
        assert (seed in json.dumps(rebuilt)) is seated
        assert ("server_seed" in rebuilt["view"]["last_result"]) is seated
    for ws in (seat_ws, agent_ws):
        await ws.disconnect()
