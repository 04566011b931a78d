"""The staff player page in a real browser (issue 27), with screenshots in artifacts/e2e/player-*.png.

Three players finish a deal at a 101 table (the first deal ends on drops) and an administrator
cancels the game (its pool is shared); asha also has 30 grants, so her statement has two pages.
A support agent logs in to the admin, searches the users list for asha by e-mail, opens her
player page from the list, reads her balances and the statement (the cancelled game's share is
there though it has no ``caused_by``), turns to the statement's second page, adds a note to her
case history, and sees it listed with author and time; the note is in the audit trail.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connections
from django.test import Client
from django.urls import reverse

from accounts.models import User
from staff import services as staff_services
from staff.models import StaffAction, StaffNote
from tables.models import PoolGame
from tests.e2e.conftest import ARTIFACTS, DESKTOP
from tests.e2e.watch import watch
from tests.tables.conftest import make_player, make_table
from tests.tables.games import drop_until_the_first_deal_ends
from wallet.selectors import chip_balances
from wallet.services import grant

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.fresh_server]


@pytest.fixture
def history(transactional_db: None) -> dict[str, Any]:
    """Made before the browser starts (its event loop would refuse the services' notices)."""
    table = make_table(fee=1_000, seats=3, seed=7)
    players = [make_player(n) for n in ("asha", "ravi", "meena")]
    asha = players[0]
    asha.email = "asha.k@example.com"
    asha.save()
    for p in players:
        client = Client()
        client.force_login(p)
        assert client.post(f"/tables/{table.pk}/join/").status_code == 302
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    drop_until_the_first_deal_ends(game)
    boss = User.objects.create_user("boss", password="boss-Pass-2026", is_staff=True)
    boss.groups.add(Group.objects.get(name="Administrator"))
    staff_services.cancel_game(staff=boss, game=game, reason="test", message="Stopped for a test.")
    for n in range(30):
        grant(user=asha, amount=100, idempotency_key=f"e2e-grant:{n}")
    agent = User.objects.create_user("helper", password="helper-Pass-2026", is_staff=True)
    agent.groups.add(Group.objects.get(name="Support agent"))
    return {"asha": asha, "game": game, "agent": agent, "cash": chip_balances(user=asha)["cash"]}


def test_support_finds_a_player_reads_the_statement_and_adds_a_note(
    live_server_url: str, history: dict[str, Any], browser: Any
) -> None:
    asha, game = history["asha"], history["game"]
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    seen = watch(page)
    try:
        page.goto(f"{live_server_url}/admin/login/")
        page.fill("#id_username", "helper")
        page.fill("#id_password", "helper-Pass-2026")
        page.click("input[type=submit]")
        page.goto(f"{live_server_url}{reverse('admin:accounts_user_changelist')}")
        page.fill("#searchbar", "asha.k@example")
        page.press("#searchbar", "Enter")
        page.wait_for_selector("a.player-link")
        assert page.locator("#result_list tbody tr").count() == 1
        page.screenshot(path=str(ARTIFACTS / "player-search.png"), full_page=True)
        page.click("a.player-link")
        page.wait_for_selector("#player-page")
        assert "asha" in page.text_content("#player-summary")
        from core.money import format_money

        assert page.text_content("#balance-cash").strip() == format_money(history["cash"])
        assert "Grant" in page.text_content("#statement")  # the 30 newest movements are grants
        # the statement pages by cursor (docs/staff.md, "Big lists"): older links, no page count
        assert page.locator("#statement-older").count() == 1 and page.locator("#statement-newer").count() == 0
        assert page.locator("#games tbody tr").count() == 1 and "cancelled by staff" in page.text_content(
            "#games"
        )
        page.screenshot(path=str(ARTIFACTS / "player-page.png"), full_page=True)
        page.click("#statement-older")
        page.wait_for_selector("#statement-newer")
        assert page.locator("#statement-older").count() == 0  # the oldest movements: nothing older
        older = page.text_content("#statement")
        # the cancelled game's share carries no caused_by, and is here with its game
        assert "Game settlement" in older and "Entry fee" in older
        game_link = reverse("admin:tables_poolgame_change", args=[game.pk])
        assert page.locator(f"#statement a[href='{game_link}']").count() == 2
        page.screenshot(path=str(ARTIFACTS / "player-statement-page-2.png"), full_page=True)
        page.fill(
            "#note-form textarea",
            "Asked where her chips went: the game was cancelled, her share is in the statement.",
        )
        page.click("#note-submit")
        page.wait_for_selector("#notes li:not(.none)")
        notes = page.text_content("#notes")
        assert "her share is in the statement" in notes and "helper:" in notes
        page.screenshot(path=str(ARTIFACTS / "player-note.png"), full_page=True)
        seen.assert_clean("player page")
    finally:
        context.close()
    try:
        note = StaffNote.objects.get(user=asha)
        assert note.author == history["agent"]
        assert (
            StaffAction.objects.filter(
                verb="add_note", actor=history["agent"], object_pk=str(asha.pk)
            ).count()
            == 1
        )
    finally:
        connections.close_all()
