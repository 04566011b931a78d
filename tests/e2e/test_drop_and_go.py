"""Drop & go (issue 25): a player leaves a running game in one step, told its cost first, and is
offered a seat at a table about to start with the same format and entry fee (the one with the
most seats taken), not one of another fee; taking it seats them there. Screenshots:
artifacts/e2e/drop-go-*.png."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections

from tables.models import PoolGame, Seat
from tests.e2e.conftest import PHONE
from tests.e2e.pages import Player, join_by_form
from tests.tables.conftest import make_player, make_table
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def tables(transactional_db: None) -> dict[str, Any]:
    """Made before the browser starts (its event loop would refuse the services' notices)."""
    playing = make_table("61", fee=1_000, seats=2, seed=5, turn_seconds=120)
    asha, ravi, meena, arjun, kiran = [make_player(n) for n in ("asha", "ravi", "meena", "arjun", "kiran")]
    for user in (asha, ravi):
        join_by_form(user, playing)
    same = make_table("61", fee=1_000, seats=3)  # about to start: one seated
    join_by_form(meena, same)
    dearer = make_table("61", fee=5_000, seats=3)  # more seats taken, but another fee
    join_by_form(arjun, dearer)
    join_by_form(kiran, dearer)
    connections.close_all()
    return {"playing": playing, "same": same, "dearer": dearer, "asha": asha}


def test_drop_and_go_states_its_cost_and_offers_a_seat_at_the_same_kind_of_table(
    tables: dict[str, Any], live_server_url: str, browser: Any
) -> None:
    asha = Player(browser, live_server_url, "asha", PHONE)
    try:
        asha.open_table(tables["asha"], tables["playing"].pk)
        asha.page.click("#btn-forfeit")  # Leave: forfeit, or Drop & go
        dialog = asha.page.locator("#modal[data-kind='leave']")
        text = dialog.inner_text()
        assert "Your entry fee of ₹10.00 stays in the prize pool" in text and "Drop & go" in text, text
        asha.shot("drop-go-confirm")
        assert not [f for f in asha.sent if (f.get("action") or {}).get("type") == "leave"]  # nothing yet
        asha.page.click("#drop-go-confirm")

        offer = asha.page.locator("#modal[data-kind='next-seat']")
        offer.wait_for()
        words = offer.inner_text()
        same = tables["same"]
        assert same.name in words and "1 of 3 seats taken" in words, words
        assert tables["dearer"].name not in words
        assert [f["action"]["type"] for f in asha.sent if f.get("type") == "action"][-1] == "leave"
        asha.shot("drop-go-offer")
        asha.page.click("#next-seat-confirm")
        asha.page.wait_for_url(f"**/tables/{same.pk}/")
        wait_until(
            lambda: Seat.objects.filter(game__table=same, user=tables["asha"], left_at__isnull=True).exists(),
            "asha's seat at the offered table",
        )
        game = PoolGame.objects.get(table=tables["playing"])
        assert game.status == PoolGame.Status.FINISHED  # two players: her leaving ended it
        asha.assert_clean()
    finally:
        asha.close()
        connections.close_all()
