"""Presence and "While you were away" (issue 25). Asha (desktop) and Ravi (phone) play a 2-seat
game. Asha's connection goes away: Ravi's page marks her seat away, with for how long and that
the timer plays her turns. Two turns are played meanwhile; when her connection comes back, her
page says what happened while she was away, and Ravi's shows her connected again; and so does a
page she opens again after closing her tab.
Screenshots: artifacts/e2e/presence-*.png."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections

from accounts.models import User
from game_engine.game import GameState
from tables.game import play
from tables.models import PoolGame
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.pages import Player, in_thread, join_by_form
from tests.tables.conftest import make_player, make_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def running_game(transactional_db: None) -> tuple[PoolGame, list[User]]:
    """Made before the browser starts (its event loop would refuse the services' notices)."""
    table = make_table(fee=0, seats=2, seed=9, turn_seconds=120)
    players = [make_player(n) for n in ("asha", "ravi")]
    for p in players:
        join_by_form(p, table)
    game = table.games.get()
    connections.close_all()
    return game, players


def _two_turns(game_id: int, users: dict[str, User], tag: str = "") -> None:
    """Whoever is on turn draws and discards the card drawn, twice, through the services (``tag``
    keeps the request ids of another two turns apart: a repeated id is answered, not played)."""
    for n in range(2):
        for step in ("draw", "discard"):
            state = GameState.from_dict(PoolGame.objects.get(pk=game_id).state)
            assert state.deal is not None
            turn = state.deal.turn
            user = users[state.players[turn].id]
            action: dict[str, Any] = (
                {"type": "draw", "source": "closed"}
                if step == "draw"
                else {"type": "discard", "card": state.deal.hands[turn][-1].code}
            )
            answer = play.game_act(game_id=game_id, user=user, request_id=f"{tag}t{n}-{step}", action=action)
            assert answer["ok"], answer


def test_an_away_player_is_shown_away_and_told_what_happened_when_back(
    live_server_url: str, running_game: tuple[PoolGame, list[User]], browser: Any
) -> None:
    game, (asha_user, ravi_user) = running_game
    asha = Player(browser, live_server_url, "asha", DESKTOP)
    ravi = Player(browser, live_server_url, "ravi", PHONE)
    try:
        for player, user in ((asha, asha_user), (ravi, ravi_user)):
            player.open_table(user, game.table_id)
        seat = asha.page.evaluate("window.rummyTable.state.view.seat")
        her_seat = ravi.page.locator(f".seat[data-seat='{seat}']")
        assert her_seat.locator(".seat-away").count() == 0

        # her connection goes away and stays away (no retry) while two turns are played
        asha.page.evaluate(
            "() => { const s = window.rummyTable.socket; s.closedForGood = true; s.ws.close(); }"
        )
        her_seat.locator(".seat-away").wait_for()
        ravi.page.wait_for_timeout(1_500)
        words = her_seat.locator(".seat-away").inner_text()
        assert words.startswith("away 0:0") and words.endswith("· auto-play"), words
        assert "away" in (her_seat.get_attribute("class") or "")
        ravi.shot("presence-away-phone")
        in_thread(lambda: _two_turns(game.pk, {str(asha_user.pk): asha_user, str(ravi_user.pk): ravi_user}))

        # back: her page says what happened meanwhile; Ravi's shows her connected again
        asha.page.evaluate(
            "() => { const s = window.rummyTable.socket; s.closedForGood = false; s.connect(); }"
        )
        summary = asha.page.locator("#notices .notice-banner[data-kind='away_summary']")
        summary.wait_for()
        text = summary.inner_text()
        assert "While you were away" in text and "2 turns were played." in text, text
        asha.shot("presence-back-summary")
        her_seat.locator(".seat-away").wait_for(state="detached")
        assert "away" not in (her_seat.get_attribute("class") or "").split()
        for player in (asha, ravi):
            player.assert_clean()

        # she closes the tab, two more turns are played, and she opens the table again: the page,
        # new, still says what happened since she last saw the game (issue 41)
        asha.page.close()
        her_seat.locator(".seat-away").wait_for()
        in_thread(
            lambda: _two_turns(game.pk, {str(asha_user.pk): asha_user, str(ravi_user.pk): ravi_user}, "b")
        )
        again = asha.another_tab()
        again.goto(f"/tables/{game.table_id}/")
        summary = again.page.locator("#notices .notice-banner[data-kind='away_summary']")
        summary.wait_for()
        text = summary.inner_text()
        assert "While you were away" in text and "2 turns were played." in text, text
        again.shot("presence-reopened-summary")
        again.assert_clean()
    finally:
        asha.close()
        ravi.close()
        connections.close_all()
