"""How a game ends and the next begins, in real Chromium, through the page only.

- Three players at a real (fee) table: one is eliminated, the two left are offered
  a split (docs/rules.md §8.1) and accept it with the page's buttons; the final
  screen says the prize was split and lists each remaining player's share, and not
  the eliminated player (the issue saw them listed at ₹0).
- A player keeps the table page open through the end of a game (the other player
  leaves it) and presses "Play again": the next game at that table starts under the
  same page when another player joins; they get their new hand and play a turn
  without reloading.

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


def rupees(paise: int) -> str:
    return f"₹{paise // 100}.{paise % 100:02d}"


# --------------------------------------------------------------------------- the split
#: Toasts over an open sheet (the z-index of each; None when they are under its backdrop): a
#: toast such as "Meera is out at 115" must not cover the sheet's title on a phone.
SHEET_TITLE_COVER = """() => {
  const toasts = +getComputedStyle(document.getElementById('toasts')).zIndex;
  const sheet = +getComputedStyle(document.getElementById('modal')).zIndex;
  return toasts < sheet ? null : `toasts at z-index ${toasts} over the sheet at ${sheet}`;
}"""


def test_the_players_left_split_the_prize_and_the_final_screen_shows_their_shares(
    live_server_url: str, browser: Any
) -> None:
    # no rejoin at this fee (so the split comes right after the deal); a long offer
    table = pool_table("Split 101", 3, rejoin_max_fee=1_000, split_offer_seconds=120)
    users = [make_user("meera", "Meera"), make_user("tara", "Tara"), make_user("asha", "Asha")]
    players = [
        Player(browser, live_server_url, "Meera", DESKTOP),
        Player(browser, live_server_url, "Tara", DESKTOP),
        Player(browser, live_server_url, "Asha", PHONE),
    ]
    meera, tara, asha = players
    try:
        for player, user in zip(players, users, strict=True):
            player.log_in(user)
            join_from_lobby(player, table)
        wait_until(lambda: game_of(table).status == PoolGame.Status.RUNNING, "the game to start")
        for p in players:
            p.page.wait_for_selector("#groups .card")

        # Meera comes to this deal at 95 points (as after earlier deals): her drop puts her out.
        with transaction.atomic():
            game = PoolGame.objects.select_for_update().get(pk=game_of(table).pk)
            state = GameState.from_dict(game.state)
            seat = {p.id: i for i, p in enumerate(state.players)}
            state.players[seat[str(users[0].pk)]].score = 95
            state.version = game.version + 1
            game.state = state.to_dict()
            game.version = state.version
            game.save()
        m = seat[str(users[0].pk)]
        for p in players:  # the open pages catch up from the database (tables.realtime.resync), no reload
            wait_until(
                lambda p=p: p.page.evaluate(f"window.rummyTable.state.view.players[{m}].score") == 95,  # type: ignore[misc]
                f"{p.name}'s page to see Meera at 95",
                timeout=20,
            )

        # Meera and Tara drop when their turns come; Asha plays on and wins the deal.
        by_seat = {seat[str(u.pk)]: p for u, p in zip(users, players, strict=True)}
        others_drop_through_the_page(table, by_seat, asha, 2)

        # Two left of three, drops remaining 5 and 4: the split is offered to them (§8.1).
        wait_until(
            lambda: GameState.from_dict(game_of(table).state).phase == "split_offer", "the split offer"
        )
        for p in players:
            p.page.wait_for_selector("#modal #split-offer")
            covered = p.page.evaluate(SHEET_TITLE_COVER)
            assert covered is None, f"{p.name}: {covered}"
        assert meera.page.locator("#btn-split-accept").count() == 0, "an eliminated player may not answer"
        offer = GameState.from_dict(game_of(table).state).split_offer
        assert offer is not None
        text = asha.page.inner_text("#split-offer")
        for s, amount in offer["amounts"].items():
            assert (
                f"{by_seat[int(s)].name if by_seat[int(s)] is not asha else 'You'}: {rupees(amount)}" in text
            ), text
        asha.shot("split-offer-phone")
        tara.page.click("#btn-split-accept")
        asha.page.wait_for_selector("#split-offer .ok")  # Asha's page sees Tara accept
        asha.page.click("#btn-split-accept")

        wait_until(lambda: game_of(table).status == PoolGame.Status.FINISHED, "the game to end")
        result = game_of(table).result
        assert result["split"] == "manual", result
        shares = {u.display_name: result["payouts"][str(u.pk)] for u in users}
        assert shares["Meera"] == 0 and shares["Asha"] > 0 and shares["Tara"] > 0, shares
        assert shares["Asha"] + shares["Tara"] == result["prize_pool"]
        for p in players:
            p.page.wait_for_selector("#final-result >> text=The prize was split")
            rows = p.page.locator("#final-result li").all_inner_texts()
            assert sorted(rows) == sorted(
                [f"Asha: {rupees(shares['Asha'])}", f"Tara: {rupees(shares['Tara'])}"]
            ), f"{p.name}'s final screen: {rows}"
            assert "Meera" not in p.page.inner_text("#final-result"), "an eliminated player listed"
        asha.shot("split-final-phone")
        tara.shot("split-final-desktop")
        meera.shot("split-final-eliminated")
        for p in players:
            p.assert_clean()
    finally:
        for p in players:
            p.close()


# --------------------------------------------------------------------------- the next game
def test_the_next_game_starts_under_the_open_page(live_server_url: str, browser: Any) -> None:
    table = pool_table("Again 101", 2)
    asha_user = make_user("asha", "Asha")
    ravi_user = make_user("ravi", "Ravi")
    asha = Player(browser, live_server_url, "Asha", DESKTOP)
    ravi = Player(browser, live_server_url, "Ravi", PHONE)
    asha.log_in(asha_user)
    ravi.log_in(ravi_user)
    try:
        join_from_lobby(asha, table)
        join_from_lobby(ravi, table)
        wait_until(lambda: game_of(table).status == PoolGame.Status.RUNNING, "the first game to start")
        first = game_of(table).pk
        page = asha.page
        page.wait_for_selector("#groups .card")
        page.evaluate("window.__sameDocument = true")  # gone if the page reloads

        # Ravi leaves the game from his page: he forfeits, Asha wins the pool.
        ravi.page.wait_for_selector("#groups .card")
        ravi.page.click("#btn-forfeit")
        ravi.page.click("#leave-confirm")
        ravi.page.wait_for_url(f"{live_server_url}/")
        page.wait_for_selector("#final-result >> text=Asha wins the pool")
        asha.shot("next-game-final")

        # "Play again" seats her in the table's next game; the page stays, now waiting.
        page.click("#btn-play-again")
        page.wait_for_selector("#waiting >> text=1 / 2")
        page.wait_for_selector("#leave-form")
        second = game_of(table)
        assert second.pk != first and second.status == PoolGame.Status.WAITING
        assert page.locator("#modal").count() == 0, "the last game's sheet is still up"

        join_from_lobby(ravi, table)  # the second seat starts the new game under Asha's open page
        wait_until(lambda: game_of(table).status == PoolGame.Status.RUNNING, "the next game to start")
        assert game_of(table).pk == second.pk
        wait_until(lambda: len(asha.hand()) == 13, "Asha's new 13 cards")
        assert page.evaluate("window.rummyTable.state.snap.game.id") == second.pk
        page.wait_for_selector("#actions #btn-drop")
        ravi.page.wait_for_selector("#groups .card")

        if not asha.my_turn():
            wait_until(ravi.my_turn, "Ravi's turn")
            ravi.play_a_turn()
        wait_until(asha.my_turn, "Asha's turn")
        discarded = asha.play_a_turn()
        page.wait_for_selector(f"#open-pile .card.top[data-code='{discarded}']")
        state = GameState.from_dict(game_of(table).state)
        assert state.deal is not None and state.deal.open_pile[-1].code == discarded
        a = next(i for i, p in enumerate(state.players) if p.id == str(asha_user.pk))
        assert state.deal.turns_taken[a] == 1
        assert page.evaluate("window.__sameDocument") is True, "the page reloaded"
        asha.shot("next-game-turn")
        asha.assert_clean()
        ravi.assert_clean()
    finally:
        asha.close()
        ravi.close()
