"""Journeys people take at the live table, in real Chromium, through the page only.

- The first joiner waits on the table page; the game starts under it when a second
  player joins; they get their hand and play their first turn without reloading.
- Players whose display names are markup (``<iframe onload=alert(1)>``) sit at a
  table where one is eliminated and offered a rejoin: the names are text everywhere
  (seats, result sheet, rejoin offer), no dialog opens, no element is made of them.
- A player alone plays a whole practice 101 game against bots, to its end.

Each page fails the test on a console error, an uncaught exception or a dialog.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from game_engine.game import GameState
from tables.models import PoolGame
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.pages import (
    Player,
    game_of,
    join_from_lobby,
    make_user,
    others_drop_through_the_page,
    pool_table,
)
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


# --------------------------------------------------------------------------- (a) the first joiner
def test_first_joiner_gets_their_hand_and_plays_without_reloading(live_server_url: str, browser: Any) -> None:
    table = pool_table("First Joiner 101", 2)
    make_user("asha", "Asha")
    make_user("ravi", "Ravi")
    asha = Player(browser, live_server_url, "Asha", DESKTOP)
    ravi = Player(browser, live_server_url, "Ravi", PHONE)
    asha.log_in(asha_user := table_user("asha"))
    ravi.log_in(table_user("ravi"))
    try:
        join_from_lobby(asha, table)
        page = asha.page
        page.wait_for_selector("#waiting >> text=1 / 2")
        page.wait_for_selector("#leave-form")
        page.evaluate("window.__sameDocument = true")  # gone if the page reloads
        asha.shot("first-joiner-waiting")

        join_from_lobby(ravi, table)  # the second seat starts the game under Asha's open page
        wait_until(lambda: game_of(table).status == PoolGame.Status.RUNNING, "the game to start")

        page.wait_for_selector("#groups .card")
        wait_until(lambda: len(asha.hand()) == 13, "Asha's 13 cards")
        assert page.evaluate("window.__sameDocument") is True, "the page reloaded"
        page.wait_for_selector("#actions #btn-drop")
        ravi.page.wait_for_selector("#groups .card")

        # whoever the toss put first plays; then Asha plays her first turn, on the same page
        if not asha.my_turn():
            wait_until(ravi.my_turn, "Ravi's turn")
            ravi.play_a_turn()
        wait_until(asha.my_turn, "Asha's turn")
        page.wait_for_selector("#status-line >> text=Your turn: draw")
        wait_until(lambda: page.title().startswith("● Your turn"), "the tab title to say it is Asha's turn")
        asha.shot("first-joiner-turn")
        discarded = asha.play_a_turn()
        page.wait_for_selector(f"#open-pile .card.top[data-code='{discarded}']")
        state = GameState.from_dict(game_of(table).state)
        assert state.deal is not None and state.deal.open_pile[-1].code == discarded
        seat = next(i for i, p in enumerate(state.players) if p.id == str(asha_user.pk))
        assert state.deal.turns_taken[seat] == 1
        assert page.evaluate("window.__sameDocument") is True, "the page reloaded"
        asha.assert_clean()
        ravi.assert_clean()
    finally:
        asha.close()
        ravi.close()


def table_user(username: str) -> Any:
    from accounts.models import User

    return User.objects.get(username=username)


# --------------------------------------------------------------------------- (f) names are text
HOSTILE = ["<iframe onload=alert(1)>", "<svg onload=alert(1)>"]


def test_hostile_display_names_stay_text_at_the_table(live_server_url: str, browser: Any) -> None:
    table = pool_table("Names 101", 3, rejoin_window_seconds=120)
    users = [make_user("mallory", HOSTILE[0]), make_user("trudy", HOSTILE[1]), make_user("asha", "Asha")]
    players = [
        Player(browser, live_server_url, "mallory", DESKTOP),
        Player(browser, live_server_url, "trudy", DESKTOP),
        Player(browser, live_server_url, "asha", PHONE),
    ]
    try:
        for player, user in zip(players, users, strict=True):
            player.log_in(user)
            join_from_lobby(player, table)
            player.page.wait_for_selector("#waiting, #groups .card")
        mallory, trudy, asha = players
        wait_until(lambda: game_of(table).status == PoolGame.Status.RUNNING, "the game to start")
        # the waiting screen and the seats name everyone as text
        for p in players:
            p.page.wait_for_selector("#groups .card")
        for p in (trudy, asha):
            p.page.locator(".seat .seat-name", has_text=HOSTILE[0]).first.wait_for()

        # Mallory starts this game at 95 points (as after earlier deals): one drop puts her out.
        with transaction.atomic():
            game = PoolGame.objects.select_for_update().get(pk=game_of(table).pk)
            state = GameState.from_dict(game.state)
            seat = {p.id: i for i, p in enumerate(state.players)}
            state.players[seat[str(users[0].pk)]].score = 95
            state.version = game.version + 1
            game.state = state.to_dict()
            game.version = state.version
            game.save()
        for p in players:
            p.page.reload()
            p.page.wait_for_selector("#groups .card")

        # Mallory and Trudy drop when their turns come (through the page); Asha wins the deal.
        by_seat = {seat[str(u.pk)]: p for u, p in zip(users, players, strict=True)}
        others_drop_through_the_page(table, by_seat, asha, 2)

        wait_until(
            lambda: GameState.from_dict(game_of(table).state).phase == "rejoin_window", "the rejoin window"
        )
        for p in players:
            p.page.wait_for_selector("#modal #rejoin-offer")
            p.page.locator("#result-table .pname", has_text=HOSTILE[0]).first.wait_for()
            p.page.locator("#result-table .pname", has_text=HOSTILE[1]).first.wait_for()
        for p in (trudy, asha):
            offer = p.page.inner_text("#rejoin-offer")
            assert f"{HOSTILE[0]} may rejoin" in offer, offer
        assert "you may rejoin" in mallory.page.inner_text("#rejoin-offer")
        mallory.page.wait_for_selector("#btn-rejoin")
        for p in players:
            assert p.page.locator("#table-app iframe, #table-app svg").count() == 0, "a name became markup"
            p.page.click("#btn-sheet-close")
            p.page.click("#btn-scores")
            p.page.locator("#scoreboard th", has_text=HOSTILE[0]).first.wait_for()
            assert p.page.locator("#table-app iframe, #table-app svg").count() == 0
        asha.shot("hostile-names-phone")
        mallory.shot("hostile-names-desktop")

        # Mallory rejoins; the last deal's sheet still says how that deal left her: out at 115.
        m = seat[str(users[0].pk)]
        mallory.page.keyboard.press("Escape")
        mallory.page.click("#btn-last-result")
        mallory.page.click("#btn-rejoin")
        wait_until(lambda: not GameState.from_dict(game_of(table).state).players[m].eliminated, "the rejoin")
        rejoined = GameState.from_dict(game_of(table).state).players[m].score
        assert rejoined < 101
        wait_until(
            lambda: asha.page.evaluate(f"window.rummyTable.state.view.players[{m}].score") == rejoined,
            "Asha's page to see the rejoin",
        )
        asha.page.keyboard.press("Escape")
        asha.page.click("#btn-last-result")
        score = asha.page.inner_text(f"#result-table tr[data-seat='{m}'] .pscore")
        assert "115" in score and "out" in score, score
        asha.page.click("#btn-sheet-close")
        for p in players:
            p.assert_clean()
    finally:
        for p in players:
            p.close()
