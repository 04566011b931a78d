"""A player alone plays a whole practice 101 game against bots, through the page, to its end.

The player opens the practice table, sits down and waits; bots take the other seats
and the game starts under the open page. On each of the player's turns the page is
used as a person uses it: a tap on the deck, a tap on the drawn card, Discard (and
Show when another player has declared). Bots think for a few milliseconds (the
server's ``BOT_THINK_MIN_MS``/``BOT_THINK_MAX_MS``) and the table's pauses are short,
so the game ends in a minute or two. The page never reloads, never logs an error,
states every deal in its scoreboard, and shows the end of the game.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections

from tables.models import PoolGame, Table, TableSettings
from tests.e2e.conftest import PHONE
from tests.e2e.pages import Player, game_of, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fast_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots that think 20-60 ms (read by the server the live_server_url fixture starts)."""
    monkeypatch.setenv("BOT_THINK_MIN_MS", "20")
    monkeypatch.setenv("BOT_THINK_MAX_MS", "60")


def test_a_player_alone_plays_a_practice_game_to_its_end(
    fast_bots: None, live_server_url: str, browser: Any
) -> None:
    settings = TableSettings.objects.create(
        name="Practice 101 · e2e",
        format="101",
        entry_fee=0,
        seats=3,
        practice=True,
        bot_wait_seconds=4,
        turn_seconds=30,
        extra_time_seconds=10,
        declare_seconds=8,
        pause_seconds=1,
        rejoin_window_seconds=2,
        split_offer_seconds=2,
    )
    table = Table.objects.create(settings=settings, name="Practice with bots")
    user = make_user("asha", "Asha")
    asha = Player(browser, live_server_url, "Asha", PHONE)
    try:
        asha.log_in(user)
        asha.goto(f"/tables/{table.pk}/")
        page = asha.page
        page.wait_for_selector("#waiting >> text=Practice table")
        page.click("#join-form button")
        page.wait_for_selector("#waiting-countdown >> text=Bots take the empty seats")
        page.evaluate("window.__sameDocument = true")
        assert "two players" not in page.inner_text("#waiting")
        page.wait_for_selector("#groups .card", timeout=20_000)

        turns = 0
        while True:
            game = game_of(table)
            if game.status == PoolGame.Status.FINISHED:
                break
            if asha.my_turn():
                asha.play_a_turn()
                turns += 1
            elif page.locator("#btn-show").count():
                page.click("#btn-show")
                page.wait_for_timeout(300)
            else:
                page.wait_for_timeout(150)
            assert turns < 400, "the game does not end"

        page.wait_for_selector("#final-result", timeout=20_000)
        text = page.inner_text("#final-result")
        assert "wins the pool" in text or "split" in text, text
        # a free table's sheet says it was practice, not "Prize pool ₹0.00" (issue 41)
        assert "Prize pool" not in text and "free table" in text, text
        # the final result links to the game's page: every deal, each with its replay
        link = page.get_attribute("#final-game-link", "href")
        assert link == f"/history/games/{game_of(table).pk}/", link
        assert page.evaluate("window.__sameDocument") is True, "the page reloaded"
        assert turns >= 1
        deals = [d for d in game_of(table).deals.all() if d.finished_at is not None]
        page.click("#btn-sheet-scores")
        page.wait_for_selector("#scoreboard")
        rows = page.locator("#scoreboard tbody tr").count()
        assert rows == len(deals) >= 1, (rows, len(deals))
        sounds = page.evaluate("window.rummySounds || []")
        for name in ("deal", "turn", "draw", "discard"):
            assert name in sounds, f"no {name} sound in {sorted(set(sounds))}"
        assert "win" in sounds or "lose" in sounds
        asha.shot("practice-game-over-phone")
        asha.goto(link)
        page.wait_for_selector("#game-deals")
        assert page.locator("#game-deals a.button").count() == len(deals)
        asha.shot("practice-game-page-phone")
        asha.assert_clean()
        print(f"practice game: {len(deals)} deals, {turns} turns by the player")
    finally:
        asha.close()
        connections.close_all()
