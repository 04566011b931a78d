"""Games set up as the tests of several apps need them, through the services or the pages."""

from __future__ import annotations

from typing import Any

from django.test import Client

from accounts.models import User
from game_engine import game as engine
from game_engine.game import GameState
from tables import services
from tables.models import Deal, GameEvent, PoolGame, Table
from tests.tables.conftest import make_player, make_table


def one_finished_deal() -> tuple[Deal, list[User]]:
    """Deal 1 of a two-seat game, ended by a drop after one closed draw and a discard."""
    table = make_table(seats=2)
    users = [make_player("asha"), make_player("ravi")]
    for u in users:
        services.table_join(table_id=table.pk, user=u)
    game = PoolGame.objects.get(table=table)
    state = GameState.from_dict(game.state)
    assert state.deal is not None
    on_turn = users[state.deal.turn]
    assert services.game_act(
        game_id=game.pk, user=on_turn, request_id="d", action={"type": "draw", "source": "closed"}
    )["ok"]
    state = GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)
    assert state.deal is not None
    card = state.deal.hands[state.deal.turn][0].code
    assert services.game_act(
        game_id=game.pk, user=on_turn, request_id="x", action={"type": "discard", "card": card}
    )["ok"]
    other = users[1 - users.index(on_turn)]
    assert services.game_act(game_id=game.pk, user=other, request_id="drop", action={"type": "drop"})["ok"]
    assert PoolGame.objects.get(pk=game.pk).status == PoolGame.Status.RUNNING  # deal 2 is being played
    return Deal.objects.get(game=game, number=1), users


def two_seat_game() -> tuple[Table, PoolGame, list[User]]:
    # a turn longer than any test here: a turn timer that comes due moves the game into extra time
    # (the fuzz test, slow while the suite's other workers kept the machine busy, outlasted a 30 s
    # turn once and saw its game change under a refused message)
    table = make_table(seats=2, seed=7, turn_seconds=600)
    users = [make_player("asha"), make_player("ravi")]
    for user in users:
        services.table_join(table_id=table.pk, user=user)
    return table, table.games.get(), users


def game_fingerprint(game_id: int) -> tuple[Any, ...]:
    game = PoolGame.objects.get(pk=game_id)
    return game.version, game.state, game.answers, GameEvent.objects.filter(game_id=game_id).count()


def game_in_rejoin_window() -> tuple[PoolGame, list[Any]]:
    table = make_table(fee=1_000, seats=3)
    users = [make_player(name) for name in ("asha", "ravi", "meera")]
    for user in users:
        services.table_join(table_id=table.pk, user=user)
    game = table.games.get()
    state = GameState.from_dict(game.state)
    # seat 0 went out in the deal just played; its window is open (docs/rules.md §7.4-7.6)
    state.players[0].eliminated, state.players[0].score = True, 120
    state.phase, state.phase_deadline = engine.REJOIN_WINDOW, state.now + 60_000
    state.rejoin_offer = {"seats": [0], "score": 51, "fee": 1_000}
    game.state = state.to_dict()
    game.save(update_fields=["state"])
    seat0 = next(u for u in users if str(u.pk) == state.players[0].id)
    return game, [seat0, *[u for u in users if u is not seat0]]


def regrouped(hand: list[str]) -> list[list[str]]:
    """The hand in two groups, in an order the default arrangement never has."""
    cards = sorted(hand, reverse=True)
    return [cards[:5], cards[5:]]


def game_state(game: PoolGame) -> GameState:
    game.refresh_from_db()
    return GameState.from_dict(game.state)


def join_by_form(user: User, table: Table) -> Client:
    client = Client()
    client.force_login(user)
    response = client.post(f"/tables/{table.pk}/join/")
    assert response.status_code == 302
    return client


def started_game(fee: int = 1_000) -> tuple[PoolGame, list[User]]:
    table = make_table(fee=fee, seats=3, seed=7)
    players = [make_player(n) for n in ("asha", "ravi", "meena")]
    for p in players:
        join_by_form(p, table)
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    return game, players


def drop_until_the_first_deal_ends(game: PoolGame) -> GameState:
    n = 0
    while (state := game_state(game)).last_result is None:
        turn = state.deal.turn
        user = User.objects.get(pk=int(state.players[turn].id))
        answer = services.game_act(game_id=game.pk, user=user, request_id=f"d{n}", action={"type": "drop"})
        assert answer["ok"], answer
        n += 1
    return state
