"""One player with the table open in two tabs: an arrangement made in either shows in the other.

An arrangement is private: it moves no version and no notice goes to the table. The server tells
it to the player's other sockets at that table only (the seat's hello/here/bye, ``tables.realtime.consumers``),
as a ``view`` message the page shows at once (static/js/table.js). Here Asha sorts in one tab and
drags a card in the other, and each tab follows the other; Ravi, at the same table, is told nothing
of it; a reload shows the last arrangement, which the server kept.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections

from game_engine.game import GameState
from tables.models import PoolGame
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE
from tests.e2e.pages import Player, game_of, join_by_form, make_user
from tests.e2e.stacking import stack_game
from tests.tables.conftest import make_table
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ASHA_HAND = ["AS", "2S", "3S", "7S", "4H", "5H", "6H", "7D", "KD", "7C", "9C", "10C", "JC"]
RAVI_HAND = ["2H", "3D", "4C", "5S", "6D", "8H", "9S", "10D", "JH", "QD", "KC", "AC", "3C"]
BY_SUIT = [["AS", "2S", "3S", "7S"], ["4H", "5H", "6H"], ["7D", "KD"], ["7C", "9C", "10C", "JC"]]
DRAGGED = [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7D", "KD", "7S"], ["7C", "9C", "10C", "JC"]]


def kept_arrangement(game_id: int) -> list[list[str]]:
    """Asha's arrangement as the server keeps it (what a timeout would score)."""
    deal = GameState.from_dict(PoolGame.objects.get(pk=game_id).state).deal
    assert deal is not None
    return [[c.code for c in group] for group in deal.arrangements.get(0, [])]


def test_an_arrangement_in_one_tab_shows_in_the_other_and_nowhere_else(
    live_server_url: str, browser: Any
) -> None:
    table = make_table(seats=2, turn_seconds=120, declare_seconds=120, pause_seconds=120)
    asha_user, ravi_user = make_user("asha", "Asha"), make_user("ravi", "Ravi")
    join_by_form(asha_user, table)  # the first to sit is engine seat 0
    join_by_form(ravi_user, table)
    wait_until(lambda: game_of(table).status == PoolGame.Status.RUNNING, "the game to start")
    game = game_of(table)
    stack_game(game.pk, [ASHA_HAND, RAVI_HAND], open_card="KH", cut="8D", closed_top=["QC", "KS"])

    asha = Player(browser, live_server_url, "Asha", DESKTOP)
    ravi = Player(browser, live_server_url, "Ravi", PHONE)
    try:
        asha.open_table(asha_user, table.pk)
        other = asha.another_tab()
        other.goto(f"/tables/{table.pk}/")
        other.page.wait_for_selector("#groups .card")
        ravi.open_table(ravi_user, table.pk)
        dealt = asha.hand_dom()
        assert dealt == BY_SUIT and other.hand_dom() == dealt  # a hand is dealt sorted by suit

        # 1. She sorts by rank in the first tab: the second shows the same groups, told by a view.
        asha.page.click("#btn-sort-rank")
        wait_until(lambda: asha.hand_dom() != dealt, "the hand sorted by rank")
        by_rank = asha.hand_dom()
        assert sorted(sum(by_rank, [])) == sorted(ASHA_HAND)
        wait_until(
            lambda: other.page.wait_for_timeout(100) or other.hand_dom() == by_rank,
            f"the other tab to show {by_rank} (it shows {other.hand_dom()})",
        )
        assert any(f.get("type") == "view" for f in other.frames), "the other tab was told by a view"

        # 2. In the second tab she sorts by suit and drags 7S next to the diamonds: the first follows.
        other.page.click("#btn-sort-suit")
        wait_until(lambda: other.hand_dom() == BY_SUIT, f"the second sort (hand {other.hand_dom()})")
        other.drag(
            other.page.locator("#groups .card[data-code='7S']"),
            other.page.locator("#groups .card[data-code='KD']"),
            to_end=True,
        )
        wait_until(lambda: other.hand_dom() == DRAGGED, f"the drag (hand {other.hand_dom()})")
        wait_until(
            lambda: asha.page.wait_for_timeout(100) or asha.hand_dom() == DRAGGED,
            f"the first tab to follow the drag (it shows {asha.hand_dom()})",
        )
        asha.page.wait_for_selector("#groups .group:nth-child(1) .group-label.kind-pure_sequence")
        wait_until(lambda: kept_arrangement(game.pk) == DRAGGED, "the server to keep the last arrangement")

        # 3. Nobody else heard of it: no view, no version moved, no card of hers in Ravi's frames.
        assert not [f for f in ravi.frames if f.get("type") in ("view", "result")]
        assert {f.get("version") for f in ravi.frames if f.get("type") == "update"} == set()
        assert not any("7S" in str(f) and "KD" in str(f) for f in ravi.frames)

        # 4. A tab opened afresh shows the arrangement the server kept.
        other.page.reload()
        other.page.wait_for_selector("#groups .card")
        assert other.hand_dom() == DRAGGED
        other.page.screenshot(path=str(ARTIFACTS / "two-tabs.png"))
        for player in (asha, other, ravi):
            player.assert_clean()
    finally:
        connections.close_all()
        asha.context.close()
        ravi.context.close()
