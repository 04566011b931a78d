"""Quick messages at the table (issue 25): Asha, on a desktop, says "Good game" from the Say… menu;
Ravi, on a phone, sees it by her seat, mutes quick messages, and sees none of her next one, while
her own page still shows it by her own seat. Screenshot: artifacts/e2e/quick-*.png."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections

from accounts.models import User
from tables.models import PoolGame
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.pages import Player, join_by_form
from tests.tables.conftest import make_player, make_table
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def running_game(transactional_db: None) -> tuple[PoolGame, list[User]]:
    """Made before the browser starts (its event loop would refuse the services' notices)."""
    table = make_table(fee=0, seats=2, seed=3)
    players = [make_player(n) for n in ("asha", "ravi")]
    for p in players:
        join_by_form(p, table)
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    connections.close_all()
    return game, players


def _said(player: Player, seat: int) -> Any:
    return player.page.locator(f".seat[data-seat='{seat}'] .quick-said")


def test_a_quick_message_shows_by_the_seat_and_a_muted_page_shows_none(
    live_server_url: str, running_game: tuple[PoolGame, list[User]], browser: Any
) -> None:
    game, (asha_user, ravi_user) = running_game
    asha = Player(browser, live_server_url, "asha", DESKTOP)
    ravi = Player(browser, live_server_url, "ravi", PHONE)
    try:
        for player, user in ((asha, asha_user), (ravi, ravi_user)):
            player.open_table(user, game.table_id)
        seat = asha.page.evaluate("window.rummyTable.state.view.seat")

        asha.page.click("#btn-quick")  # the header's Say: a small dialog of the phrases
        asha.page.wait_for_selector("#modal[data-kind='quick']")
        phrases = asha.page.locator("#quick-menu .quick-phrase").all_inner_texts()
        assert phrases == ["Good game", "Well played", "Please hurry", "Sorry, connection"]
        asha.page.click("#quick-menu >> text=Good game")
        assert asha.page.locator("#quick-menu").count() == 0  # the dialog closes once said

        _said(ravi, seat).wait_for()
        assert _said(ravi, seat).inner_text() == "Good game"
        _said(asha, seat).wait_for()  # her own seat shows what she said
        box = _said(ravi, seat).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["viewport"]["width"] + 0.5, box
        ravi.shot("quick-said-phone")
        _said(ravi, seat).wait_for(state="detached", timeout=8_000)  # gone after a few seconds

        ravi.page.click("#btn-quick")
        ravi.page.check("#quick-mute")
        ravi.page.click("#quick-close")
        assert ravi.page.evaluate("localStorage.getItem('rummy.quickMuted')") == "1"
        asha.page.wait_for_timeout(5_200)  # one quick message every 5 s
        asha.page.click("#btn-quick")
        asha.page.click("#quick-menu >> text=Well played")
        _said(asha, seat).wait_for()
        assert _said(asha, seat).inner_text() == "Well played"

        def heard() -> list[str]:
            return [f["phrase"] for f in ravi.frames if f.get("type") == "quick_message"]

        def both_heard() -> bool:
            ravi.page.wait_for_timeout(100)  # Playwright hands over the frames while it waits
            return len(heard()) == 2

        wait_until(both_heard, "ravi's socket to bring the second quick message")
        assert heard() == ["good_game", "well_played"]
        assert _said(ravi, seat).count() == 0, "a muted page showed another player's quick message"
        for player in (asha, ravi):
            player.assert_clean()
    finally:
        asha.close()
        ravi.close()
        connections.close_all()
