"""The verifiable shuffle through the real services and socket (docs/fairness.md): the
commitment reaches the players before a deal is dealt, the seed only after the deal is over,
and every deal of whole bot games recomputes from its revealed seeds."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.management import CommandError, call_command
from django.test import Client

from game_engine import fairness
from game_engine.game import GameState
from rummy_site.asgi import application
from tables import clock as table_clock
from tables import services
from tables.models import Deal, PoolGame, Seat
from tests.helpers import session_cookie
from tests.sockets import Page
from tests.tables.conftest import FakeClock, make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


async def _drain(ws: WebsocketCommunicator, into: list[dict[str, Any]], version: int) -> None:
    seen = -1
    while seen < version:
        msg = await ws.receive_json_from(timeout=10)
        into.append(msg)
        if msg.get("type") in ("snapshot", "update"):
            seen = max(seen, msg["version"])


@sync_to_async
def _game(table_id: int) -> PoolGame:
    return PoolGame.objects.get(table_id=table_id)


async def test_commitment_before_the_deal_seed_only_after_it_over_the_socket(
    require_postgres: None, clock: FakeClock
) -> None:
    table = await sync_to_async(make_table)("101", fee=0, seats=2, pause_seconds=2)
    users = [await sync_to_async(make_player)(n) for n in ("kiran", "lata")]
    await sync_to_async(services.table_join)(table_id=table.pk, user=users[0], client_seed="kiran-browser-1")
    await sync_to_async(services.table_join)(table_id=table.pk, user=users[1])
    game = await _game(table.pk)
    received: list[list[dict[str, Any]]] = [[], []]
    sockets = []
    for user in users:
        cookie = await sync_to_async(session_cookie)(user)
        ws = Page(
            application,
            f"/ws/tables/{table.pk}/",
            headers=[(b"origin", b"http://localhost"), (b"cookie", cookie.encode())],
        )
        assert (await ws.connect())[0]
        sockets.append(ws)
    for ws, got in zip(sockets, received, strict=True):
        await _drain(ws, got, game.version)

    state = GameState.from_dict(game.state)
    d1 = state.deal
    assert d1 is not None
    snap = received[0][0]
    assert snap["type"] == "snapshot"
    fair = snap["view"]["fairness"]
    assert fair["commitment"] == fairness.commitment(d1.server_seed)
    assert {"seat": 0, "seed": "kiran-browser-1", "generated": False} in fair["client_seeds"]
    assert any(c["generated"] for c in fair["client_seeds"])
    next_commit = fair["next_commitment"]
    assert next_commit and next_commit != fair["commitment"]
    for got in received:
        assert d1.server_seed not in json.dumps(got)

    # Lata sends her own seed over the socket (used from the next deal); a bad one is refused.
    lata_seat = next(i for i, p in enumerate(state.players) if p.id == str(users[1].pk))
    await sockets[1].send_json_to(
        {"type": "action", "request_id": "s-bad", "action": {"type": "client_seed", "seed": "no|pipes"}}
    )
    await sockets[1].send_json_to(
        {"type": "action", "request_id": "s1", "action": {"type": "client_seed", "seed": "lata-ws-7"}}
    )
    answers: dict[str, dict[str, Any]] = {}
    while "s1" not in answers:
        msg = await sockets[1].receive_json_from(timeout=10)
        received[1].append(msg)
        if msg.get("type") == "result":
            answers[msg["request_id"]] = msg
    assert answers["s-bad"]["ok"] is False and answers["s1"]["ok"] is True
    game = await _game(table.pk)
    state = GameState.from_dict(game.state)
    assert state.players[lata_seat].client_seed == "lata-ws-7"
    for ws, got in zip(sockets, received, strict=True):
        await _drain(ws, got, game.version)

    # The player on turn drops: the deal is over and its seed is revealed to both.
    on_turn = d1.turn
    seat_user = {i: u for i, u in enumerate(users) if state.players[i].id == str(u.pk)}
    idx = users.index(seat_user[on_turn])
    await sockets[idx].send_json_to({"type": "action", "request_id": "d1", "action": {"type": "drop"}})
    game = await _game(table.pk)
    for ws, got in zip(sockets, received, strict=True):
        await _drain(ws, got, game.version)
    overs = [e for m in received[1] for e in m.get("events", []) if e["type"] == "deal_over"]
    assert overs and overs[0]["server_seed"] == d1.server_seed
    assert overs[0]["commitment"] == fairness.commitment(d1.server_seed) == fair["commitment"]
    row = await sync_to_async(Deal.objects.get)(game=game, number=1)
    assert row.server_seed == d1.server_seed and row.commitment == fair["commitment"]

    # Deal 2 is dealt with the seed committed to while deal 1 was played.
    game = await _game(table.pk)
    assert game.deadline_at is not None, (game.status, game.deadline_kind, game.state["phase"])
    clock.advance((game.deadline_at - table_clock.now()).total_seconds() + 1)
    assert await sync_to_async(services.game_timeout)(game_id=game.pk, version=game.version)
    game = await _game(table.pk)
    start = len(received[1])
    for ws, got in zip(sockets, received, strict=True):
        await _drain(ws, got, game.version)
    started = [e for m in received[1][start:] for e in m.get("events", []) if e["type"] == "deal_started"]
    assert started and started[0]["deal_no"] == 2 and started[0]["commitment"] == next_commit
    assert started[0]["client_seeds"][lata_seat] == "lata-ws-7"
    d2 = GameState.from_dict(game.state).deal
    assert d2 is not None and fairness.commitment(d2.server_seed) == next_commit
    for got in received:
        assert d2.server_seed not in json.dumps(got)
    for ws in sockets:
        await ws.disconnect()


def test_every_deal_of_simulated_bot_games_verifies_and_tampering_fails(require_postgres: None) -> None:
    call_command("simulate", format="101", players=3, games=2, seed=7, stdout=io.StringIO())
    deals = list(Deal.objects.filter(game__table__name__startswith="simulation").order_by("pk"))
    assert len(deals) >= 2
    for deal in deals:
        assert deal.server_seed and deal.dealt_order
        assert fairness.commitment(deal.server_seed) == deal.commitment
        assert fairness.deck_order(deal.server_seed, deal.client_seeds, deal.number) == deal.dealt_order
        out = io.StringIO()
        call_command("verify_deal", deal.pk, stdout=out)
        assert out.getvalue().startswith("ok")
    deal = deals[0]
    good_seed, good_order = deal.server_seed, list(deal.dealt_order)
    deal.server_seed = "0" * 64
    deal.save()
    with pytest.raises(CommandError, match="mismatch"):
        call_command("verify_deal", deal.pk)
    deal.server_seed = good_seed
    deal.dealt_order = [*good_order[1:], good_order[0]]
    deal.save()
    with pytest.raises(CommandError, match="mismatch"):
        call_command("verify_deal", deal.pk)


def test_the_join_form_takes_a_client_seed_and_refuses_a_bad_one(require_postgres: None) -> None:
    table = make_table("101", fee=0, seats=3)
    user = make_player("nila")
    client = Client()
    client.force_login(user)
    client.post(f"/tables/{table.pk}/join/", {"client_seed": "bad seed|x"})
    assert not Seat.objects.filter(user=user).exists()
    client.post(f"/tables/{table.pk}/join/", {"client_seed": "a1b2c3d4e5f60718293a4b5c6d7e8f90"})
    assert Seat.objects.get(user=user).client_seed == "a1b2c3d4e5f60718293a4b5c6d7e8f90"
