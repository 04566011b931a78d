"""Staff in a real browser (issue 14): the admin dashboard, a running game's page and the
cancel action, with screenshots in artifacts/e2e/staff-*.png.

Three players join a 101 table through the lobby's join form (the game starts under them);
an administrator logs in to the admin, opens the dashboard, the game page (the table as the
players see it, no hand; amounts in rupees), cancels the game with an internal note and a
message to the players, and the game page then shows the refund; the ledger is sound.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connections
from django.test import Client

from accounts.models import User
from tables.models import PoolGame
from tests.e2e.conftest import ARTIFACTS, DESKTOP
from tests.e2e.watch import log_in, watch
from tests.tables.conftest import make_player, make_table
from wallet.audit import check_ledger, run_check
from wallet.selectors import wallet_balance

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.fresh_server]


@pytest.fixture
def running_game(transactional_db: None) -> tuple[PoolGame, list[User]]:
    """Made before the browser starts (its event loop would refuse the services' notices)."""
    table = make_table(fee=1_000, seats=3, seed=5)
    players = [make_player(n) for n in ("asha", "ravi", "meena")]
    for p in players:
        client = Client()
        client.force_login(p)
        assert client.post(f"/tables/{table.pk}/join/").status_code == 302
    players[0].set_password("asha-Pass-2026")
    players[0].save()
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    boss = User.objects.create_user("boss", password="boss-Pass-2026", is_staff=True)
    boss.groups.add(Group.objects.get(name="Administrator"))
    run_check(via="command")  # the dashboard shows the last verdict of the full check (nightly)
    return game, players


def test_staff_dashboard_game_page_and_cancel(
    live_server_url: str, running_game: tuple[PoolGame, list[User]], browser: Any
) -> None:
    game, players = running_game

    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    seen = watch(page)  # console errors, page errors, CSP violations
    try:
        page.goto(f"{live_server_url}/admin/login/")
        page.fill("#id_username", "boss")
        page.fill("#id_password", "boss-Pass-2026")
        page.click("input[type=submit]")
        page.click("#dashboard-link")
        page.wait_for_selector("#rake-chart")
        assert page.text_content("#tables-running").strip() == "1"
        assert "sound" in page.text_content("#ledger-verdict")
        page.screenshot(path=str(ARTIFACTS / "staff-dashboard.png"), full_page=True)

        page.goto(f"{live_server_url}/admin/tables/poolgame/{game.pk}/change/")
        page.wait_for_selector("#game-live")
        # an administrator sees what the players all see (cut joker, open card), no hand (docs/staff.md)
        assert page.locator("#game-live .pcard").count() == 2 and page.locator("#closed-deck").count() == 0
        assert "₹30.00" in page.text_content("#staff-game")
        page.screenshot(path=str(ARTIFACTS / "staff-game.png"), full_page=True)

        page.click("#cancel-link")
        assert "refunded in full" in page.text_content("#cancel-rule")
        page.fill("#id_reason", "server fault during deal 1")
        page.fill("#id_message", "A server fault stopped this game.")
        page.screenshot(path=str(ARTIFACTS / "staff-cancel.png"), full_page=True)
        page.click("#cancel-form input[type=submit]")
        page.wait_for_selector("#game-result")
        assert page.text_content("#game-status").strip() == "Cancelled"
        assert "A server fault stopped this game." in page.text_content("#game-result")
        page.screenshot(path=str(ARTIFACTS / "staff-cancelled.png"), full_page=True)
        seen.assert_clean("staff pages")

        # the player pages of issue 14, under the same policy
        player = browser.new_context(**DESKTOP).new_page()
        player_seen = watch(player)
        log_in(player, live_server_url, "asha", "asha-Pass-2026")
        for path, shot in (
            ("/accounts/profile/", "profile"),
            ("/accounts/terms/", "terms"),
            ("/accounts/password/change/", "password-change"),
        ):
            player.goto(live_server_url + path)
            player.screenshot(path=str(ARTIFACTS / f"staff-player-{shot}.png"), full_page=True)
        player.context.close()
        player_seen.assert_clean("player pages")
    finally:
        context.close()
    try:
        assert [wallet_balance(user=p) for p in players] == [100_00] * 3
        assert check_ledger() == []
    finally:
        # under Playwright's loop these reads may open a connection of their own: close it, or the
        # test database could not be dropped at the end of the run
        connections.close_all()
