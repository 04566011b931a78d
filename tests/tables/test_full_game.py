"""A whole 3-player 101-pool game played over WebSockets (seeded shuffle).

Deal by deal the players follow a script that walks through a first drop, a
wrong show, an elimination, a rejoin and the final payout; the clock is moved
instead of slept. Every message each player receives is checked for another
player's cards.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import User
from game_engine.game import GameState
from rummy_site.asgi import application
from tables import services
from tables.models import PoolGame, Table
from tests.helpers import card_lists, session_cookie
from tests.sockets import Page
from tests.tables.conftest import FakeClock, make_player, make_table
from wallet.audit import check_ledger
from wallet.selectors import wallet_balance
from wallet.services import escrow_account_for

pytestmark = pytest.mark.django_db(transaction=True)

# What each player does on their turns, deal by deal (docs/rules.md §6-7).
PLAN = {
    1: {"Asha": "drop", "Ravi": "wrong_show", "Meera": "play"},
    2: {"Asha": "drop", "Ravi": "drop", "Meera": "play"},
    3: {"Asha": "drop", "Ravi": "drop", "Meera": "play"},  # Ravi reaches 120: eliminated, then rejoins at 61
    4: {"Asha": "wrong_show", "Ravi": "drop", "Meera": "play"},  # Asha reaches 140: no rejoin (81 > 79)
    5: {"Ravi": "drop", "Meera": "play"},  # Ravi reaches 101: Meera wins the pool
}


class Seat:
    """One player's browser: a WebSocket and everything it was sent."""

    def __init__(self, user: User, communicator: WebsocketCommunicator) -> None:
        self.user = user
        self.ws = communicator
        self.received: list[dict[str, Any]] = []
        self.version = -1

    async def drain_to(self, version: int) -> None:
        while self.version < version:
            message = await self.ws.receive_json_from(timeout=10)
            self.received.append(message)
            if message.get("type") in ("snapshot", "update"):
                self.version = max(self.version, message["version"])

    async def send(self, request_id: str, action: dict[str, Any]) -> dict[str, Any]:
        await self.ws.send_json_to({"type": "action", "request_id": request_id, "action": action})
        while True:
            message = await self.ws.receive_json_from(timeout=10)
            self.received.append(message)
            if message.get("type") in ("snapshot", "update"):
                self.version = max(self.version, message["version"])
            if message.get("type") == "result" and message.get("request_id") == request_id:
                return message


def assert_no_foreign_cards(message: dict[str, Any], me: int | None, state: GameState) -> None:
    """The message holds my hand only, never another hand nor the closed deck's order."""
    deal = state.deal
    if deal is None or state.phase != "playing" or message.get("version") != state.version:
        return
    view = message.get("view") or {}
    if me is not None and me in deal.hands:
        assert Counter(view["hand"]) == Counter(c.code for c in deal.hands[me])
    else:
        assert view.get("hand") is None
    lists = [Counter(lst) for lst in card_lists(message)]
    for seat, hand in deal.hands.items():
        if seat == me or len(hand) < 3:
            continue
        assert Counter(c.code for c in hand) not in lists, f"seat {me} was sent seat {seat}'s hand"
    closed = [c.code for c in deal.closed]
    assert all(lst != closed for lst in card_lists(message)), "the closed deck's order leaked"


def choose(state: GameState, ids: dict[str, int]) -> tuple[int, dict[str, Any]] | None:
    """The scripted move for whoever must act now; None when only the clock can move the game."""
    if state.phase == "playing":
        deal = state.deal
        assert deal is not None
        seat = deal.turn
        plan = PLAN[state.deal_no][state.players[seat].name]
        hand = [c.code for c in deal.hands[seat]]
        if deal.drawn is None:
            if plan == "drop":
                return seat, {"type": "drop"}
            return seat, {"type": "draw", "source": "closed"}
        if plan == "wrong_show":  # thirteen loose cards can never be a valid show
            return seat, {"type": "finish", "card": hand[0], "groups": [[c] for c in hand[1:]]}
        return seat, {"type": "discard", "card": deal.drawn.code}
    if state.phase == "rejoin_window" and state.rejoin_offer:
        return state.rejoin_offer["seats"][0], {"type": "rejoin"}
    if state.phase == "split_offer" and state.split_offer:
        return next(iter(state.split_offer["amounts"])), {"type": "split_decline"}
    return None


@sync_to_async
def load(game_id: int) -> PoolGame:
    return PoolGame.objects.get(pk=game_id)


async def test_a_full_three_player_101_pool_game_over_websockets(clock: FakeClock) -> None:
    table: Table = await sync_to_async(make_table)(
        "101", fee=1_000, seats=3, seed=2026, rake_bp=1_000, pause_seconds=2, rejoin_window_seconds=10
    )
    users = [await sync_to_async(make_player)(name, chips=100) for name in ("asha", "ravi", "meera")]
    for user in users:
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    game = await sync_to_async(lambda: table.games.get())()
    assert game.status == PoolGame.Status.RUNNING

    seats: list[Seat] = []
    for user in users:
        cookie = await sync_to_async(session_cookie)(user)
        ws = Page(
            application,
            f"/ws/tables/{table.pk}/",
            headers=[(b"origin", b"http://localhost"), (b"cookie", cookie.encode())],
        )
        connected, _ = await ws.connect()
        assert connected
        seats.append(Seat(user, ws))
    for seat in seats:
        await seat.drain_to(game.version)
        assert seat.received[0]["type"] == "snapshot"
    ids = {u.table_name: i for i, u in enumerate(users)}
    seat_of = {str(u.pk): i for i, u in enumerate(users)}
    counter = itertools.count()
    seen_events: Counter[str] = Counter()

    for _ in range(400):
        game = await load(game.pk)
        if game.status == PoolGame.Status.FINISHED:
            break
        state = GameState.from_dict(game.state)
        move = choose(state, ids)
        if move is None:
            clock.advance(30)
            assert await sync_to_async(services.game_timeout)(game_id=game.pk, version=game.version)
        else:
            engine_seat, action = move
            player = seats[seat_of[state.players[engine_seat].id]]
            answer = await player.send(f"r{next(counter)}", action)
            assert answer["ok"], answer
        game = await load(game.pk)
        state = GameState.from_dict(game.state)
        for seat in seats:
            start = len(seat.received)
            await seat.drain_to(game.version)
            me = next((i for i, p in enumerate(state.players) if p.id == str(seat.user.pk)), None)
            for message in seat.received[start:]:
                assert_no_foreign_cards(message, me, state)
                for event in message.get("events", []):
                    seen_events[event["type"]] += 1 if seat is seats[0] else 0
    else:
        pytest.fail("the game did not finish")

    # Every player was told the whole story.
    for name in ("drop", "finish", "eliminated", "rejoined", "game_over"):
        assert seen_events[name] > 0, f"no {name} event reached the players"
    result = game.result
    assert result is not None
    meera = users[2]
    fees = 4 * 1_000  # three entries and one rejoin
    rake = fees // 10
    assert result["winner"] == str(meera.pk)
    assert result["prize_pool"] == fees - rake
    assert result["scores"] == {str(users[0].pk): 140, str(users[1].pk): 101, str(meera.pk): 0}
    balances = [await sync_to_async(wallet_balance)(user=u) for u in users]
    assert balances == [10_000 - 1_000, 10_000 - 2_000, 10_000 - 1_000 + (fees - rake)]
    escrow = await sync_to_async(escrow_account_for)(game.escrow_ref)
    assert escrow.balance == 0
    assert await sync_to_async(check_ledger)() == []
    deals = await sync_to_async(
        lambda: list(game.deals.order_by("number").values_list("number", "finished_at"))
    )()
    assert [n for n, _ in deals] == [1, 2, 3, 4, 5] and all(f is not None for _, f in deals)
    for seat in seats:
        await seat.ws.disconnect()
