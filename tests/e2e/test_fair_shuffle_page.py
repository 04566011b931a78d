"""The table page shows the shuffle's public side (docs/fairness.md), as a player meets it.

The player opens a practice table, sits down with the page's Join button (the page sends
this browser's own seed with the join) and bots fill the seats. The scoreboard's "Fair
shuffle" section shows the deal's commitment before anything is revealed and the
player's own seed; after the player drops (or the bot, on its first turn), the deal is over and the revealed server
seed is there, and it hashes to the commitment shown while the deal ran. A player without
a seat who watches the table sees the same commitment and result sheet, but never the seed:
it opens every hand of the deal, and only its players get it (docs/fairness.md).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.db import connections

from game_engine.game import GameState
from tables.models import Deal, Table, TableSettings
from tests.e2e.conftest import DESKTOP
from tests.e2e.pages import Player, game_of, make_user
from tests.waiting import WaitTimeoutError, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def unhurried_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot thinks 5 s a move (read by the server live_server_url starts): a bot that drops
    its first hand does so after the page has been read while the deal ran, not during it."""
    monkeypatch.setenv("BOT_THINK_MIN_MS", "5000")
    monkeypatch.setenv("BOT_THINK_MAX_MS", "5000")


def test_the_table_shows_the_commitment_the_players_seed_and_the_revealed_seed(
    unhurried_bots: None, live_server_url: str, browser: Any
) -> None:
    settings = TableSettings.objects.create(
        name="Practice 101 · fair",
        format="101",
        entry_fee=0,
        seats=2,
        practice=True,
        bot_wait_seconds=1,
        turn_seconds=60,
        pause_seconds=30,
    )
    table = Table.objects.create(settings=settings, name="Fair practice")
    user = make_user("asha", "Asha")
    asha = Player(browser, live_server_url, "Asha", DESKTOP)
    meena = Player(browser, live_server_url, "Meena", DESKTOP)  # watches, without a seat
    try:
        asha.log_in(user)
        meena.log_in(make_user("meena", "Meena"))
        asha.goto(f"/tables/{table.pk}/")
        page = asha.page
        page.click("#join-form button")
        page.wait_for_selector("#groups .card", timeout=20_000)

        game = game_of(table)
        state = GameState.from_dict(game.state)
        seat = next(i for i, p in enumerate(state.players) if p.id == str(user.pk))
        assert not state.players[seat].client_seed_generated  # the page sent this browser's seed
        deal = Deal.objects.get(game=game, number=1)

        page.click("#btn-scores")
        page.wait_for_selector("#fair-shuffle")
        assert page.inner_text("#fair-commitment") == deal.commitment
        assert page.inner_text("#fair-my-seed") == state.players[seat].client_seed
        assert "from your browser" in page.inner_text("#fair-my-seed-origin")
        assert page.locator("#fair-revealed").count() == 0  # nothing secret while the deal runs
        asha.shot("fair-shuffle-during-deal")
        page.click("#btn-scores-close")
        meena.goto(f"/tables/{table.pk}/")
        meena.page.wait_for_selector("#btn-scores", timeout=20_000)

        def deal_over() -> bool:
            return Deal.objects.get(pk=deal.pk).finished_at is not None

        # A bot drops a hopeless hand at its first turn, as a person would (about one first hand in
        # 170): if the toss put it first and it did, deal 1 is over without Asha's drop.
        # Two bot moves of 5 s each at most before Asha's turn; a loaded machine (the suite's browser
        # tests in parallel) can stretch them, so the wait is generous and its failure says where the
        # game stood.
        try:
            wait_until(lambda: asha.my_turn() or deal_over(), "asha's turn or the bot's drop", timeout=60)
        except WaitTimeoutError:
            game.refresh_from_db()
            now = GameState.from_dict(game.state)
            d = now.deal
            view = asha.view() or {}
            pytest.fail(
                f"no turn for Asha: game version {game.version}, phase {now.phase}/{d and d.phase}, turn {d and d.turn}, "
                f"Asha's seat {seat}, bot seats {game.bot_seats}, deadline {game.deadline_at}; the page "
                f"at version {view.get('version')}, phase {view.get('deal_phase')}, turn {view.get('turn')}"
            )
        if not deal_over():
            page.click("#btn-drop")
            page.click("#drop-confirm")
        wait_until(deal_over, "the deal ends")
        deal.refresh_from_db()

        page.wait_for_selector("#result-table", timeout=10_000)  # the deal's result sheet opens by itself
        page.click("#btn-sheet-close")
        page.click("#btn-scores")
        page.wait_for_selector("#fair-revealed")
        revealed = page.inner_text("#fair-revealed")
        assert revealed == deal.server_seed
        assert page.locator("#fair-seats-only").count() == 0
        assert hashlib.sha256(revealed.encode("ascii")).hexdigest() == deal.commitment  # docs/fairness.md
        asha.shot("fair-shuffle-revealed")
        asha.assert_clean()

        # The spectator: the same result sheet and commitment, no seed and so nothing to verify.
        watch = meena.page
        watch.wait_for_selector("#result-table", timeout=10_000)
        watch.click("#btn-sheet-close")
        watch.click("#btn-scores")
        watch.wait_for_selector("#fair-shuffle")
        assert watch.inner_text("#fair-commitment") == deal.commitment
        assert watch.locator("#fair-revealed").count() == 0
        assert "goes to the players of this game" in watch.inner_text("#fair-seats-only")
        assert watch.locator("#fair-my-seed").count() == 0
        assert deal.server_seed not in watch.content()
        meena.shot("fair-shuffle-spectator")
        meena.assert_clean()
    finally:
        meena.close()
        asha.close()
        connections.close_all()
