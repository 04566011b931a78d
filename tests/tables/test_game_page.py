"""The game's page (issue 13): every deal's scores, eliminations, rejoins and departures, the payout,
links to each finished deal's replay; seen by the players of the game and staff only (docs/rules.md §10.3)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import User
from game_engine.game import GameState
from tables import services
from tables.models import Deal, PoolGame
from tests.tables.conftest import FakeClock, make_player, make_table
from tests.tables.scenarios import act, on_turn_drops, three_player_game

pytestmark = pytest.mark.django_db


def test_the_game_page_ties_the_deals_together(client: Client, clock: FakeClock) -> None:
    game, users, droppers = three_player_game(clock)
    asha = next(u for u in users.values() if u.username == "asha")
    ravi = next(u for u in users.values() if u.username == "ravi")
    act(game, ravi, "gone", {"type": "leave"})  # asha wins the pool
    client.force_login(asha)
    data = client.get(f"/api/history/games/{game.pk}/").json()
    seats = {p["name"]: p["seat"] for p in data["players"]}
    assert [d["number"] for d in data["deals"]] == [1, 2] and all(d["finished"] for d in data["deals"])
    one, two = data["deals"]
    assert one["left"] == [seats["Meera"]]
    for deal, dropper in zip((one, two), droppers, strict=True):
        assert deal["points"][str(dropper)] > 0 and deal["winner"] != dropper
    # running totals: deal 2's scores are deal 1's plus deal 2's points
    for seat in ("0", "1", "2"):
        assert two["scores"][seat] == one["scores"][seat] + two["points"].get(seat, 0)
    result = data["result"]
    paid = {p["seat"]: p["amount"] for p in result["payouts"]}
    assert result["winner_seat"] == seats["Asha"] and paid[seats["Asha"]] == result["prize_pool"] > 0
    assert result["prize_pool"] + result["rake"] == result["fees_paid"] == 3 * 1_000

    page = client.get(f"/history/games/{game.pk}/").content.decode()
    deals = Deal.objects.filter(game=game).order_by("number")
    assert re.findall(r'href="/history/deals/(\d+)/"', page) == [str(d.pk) for d in deals]
    assert "Meera left" in page and "Winner: Asha" in page and result["payouts"][0]["amount_display"] in page
    history = client.get("/history/").content.decode()
    assert f'href="/history/games/{game.pk}/"' in history
    replay = client.get(f"/history/deals/{deals[0].pk}/").content.decode()
    assert f'href="/history/games/{game.pk}/"' in replay


def _state(game: PoolGame) -> GameState:
    return GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)


def _pass_turn(game: PoolGame, user: User, tag: str) -> None:
    """Draw from the deck and discard the card drawn."""
    act(game, user, f"draw-{tag}", {"type": "draw", "source": "closed"})
    deal = _state(game).deal
    assert deal is not None and deal.drawn is not None
    act(game, user, f"discard-{tag}", {"type": "discard", "card": deal.drawn.code})


def test_an_elimination_and_a_rejoin_are_on_the_deal_they_follow(client: Client, clock: FakeClock) -> None:
    """61 pool: a wrong show (60) and a drop put the victim out; the others stay at or below 44 (rejoin)."""
    table = make_table("61", seats=3, pause_seconds=1, rejoin_window_seconds=30)
    players = [make_player("asha"), make_player("ravi"), make_player("meera")]
    for u in players:
        services.table_join(table_id=table.pk, user=u)
    game = PoolGame.objects.get(table=table)
    by_id = {str(u.pk): u for u in players}
    state = _state(game)
    assert state.deal is not None
    victim = state.deal.turn
    user = lambda seat: by_id[state.players[seat].id]  # noqa: E731
    act(game, user(victim), "draw-v", {"type": "draw", "source": "closed"})
    hand = _state(game).deal.hands[victim]  # type: ignore[union-attr]
    act(
        game,
        user(victim),
        "wrong",
        {"type": "finish", "card": hand[0].code, "groups": [[c.code for c in hand[1:]]]},
    )
    first_dropper = on_turn_drops(game, by_id, "d1")  # a first drop: 15
    game.refresh_from_db()
    while game.deadline_kind != "turn":
        clock.advance(60)
        assert services.game_timeout(game_id=game.pk, version=game.version)
        game.refresh_from_db()
    for n in range(60):  # deal 2: the victim drops; the player not yet charged drops; the other passes
        deal = _state(game).deal
        if deal is None or deal.phase == "done":
            break
        t = deal.turn
        if t == victim or (t != first_dropper and deal.status[victim] != "playing"):
            act(game, user(t), f"drop2-{n}", {"type": "drop"})
        else:
            _pass_turn(game, user(t), f"2-{n}")
    state = _state(game)
    assert state.rejoin_offer and state.rejoin_offer["seats"] == [victim], state.phase
    act(game, user(victim), "back", {"type": "rejoin"})
    client.force_login(user(victim))
    data = client.get(f"/api/history/games/{game.pk}/").json()
    one, two = data["deals"][:2]
    assert one["points"][str(victim)] == 60 and one["eliminated"] == [] and one["rejoined"] == []
    assert two["eliminated"] == [victim] and two["scores"][str(victim)] >= 61
    assert [r["seat"] for r in two["rejoined"]] == [victim] and two["rejoined"][0]["fee"] == 1_000
    page = client.get(f"/history/games/{game.pk}/").content.decode()
    assert "eliminated</span>" in page and f"rejoined at {two['rejoined'][0]['score']}" in page


def test_who_sees_the_game_page(client: Client, clock: FakeClock) -> None:
    game, users, _ = three_player_game(clock)
    game.refresh_from_db()
    while game.deadline_kind != "turn":  # deal 3 starts
        clock.advance(60)
        assert services.game_timeout(game_id=game.pk, version=game.version) is True
        game.refresh_from_db()
    meera = next(u for u in users.values() if u.username == "meera")
    paths = (f"/api/history/games/{game.pk}/", f"/history/games/{game.pk}/")
    client.force_login(meera)  # left in deal 1: still a player of the game
    assert [client.get(p).status_code for p in paths] == [200, 200]
    assert [d["finished"] for d in client.get(paths[0]).json()["deals"]] == [True, True, False]
    running = client.get(paths[0]).json()["deals"][-1]
    assert running["points"] is None and running["scores"] is None  # a deal in progress: nothing of it
    assert f'href="/history/deals/{running["deal_id"]}/"' not in client.get(paths[1]).content.decode()

    client.force_login(make_player("watcher"))  # a spectator
    assert [client.get(p).status_code for p in paths] == [404, 404]
    other = make_table(seats=2)
    outsider = make_player("elsewhere")
    services.table_join(table_id=other.pk, user=outsider)
    client.force_login(outsider)  # a player of another game
    assert [client.get(p).status_code for p in paths] == [404, 404]
    client.logout()
    assert client.get(paths[0]).status_code in (401, 403)
    assert client.get(paths[1]).status_code == 302
    staff = User.objects.create_user("support", password="x-rummy-2026", is_staff=True)
    client.force_login(staff)
    assert [client.get(p).status_code for p in paths] == [200, 200]
