"""Staff link two players who wait at one table, and the one sent away sees why on the table page
(issue 37, finding 2).

Asha (desktop) and Ravi (phone, who sat later) wait at a 101 table with a ₹10 entry fee, each with
the table page open. A Game integrity investigator links them in the admin (*Linked accounts ->
Link two accounts*). Ravi's page shows a banner in words that name nobody, with his ₹10.00 back,
until he dismisses it, and no longer shows him seated; Asha's page shows one seat taken and no
banner. Screenshot: artifacts/e2e/linked-unseated-ravi.png.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connections
from django.test import Client

from accounts.models import User
from integrity.seating import REFUSAL
from tables.models import Table
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.pages import Player
from tests.e2e.watch import watch
from tests.tables.conftest import make_player, make_table
from tests.waiting import wait_until
from wallet.selectors import wallet_balance

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.fresh_server]

SLEUTH_PASSWORD = "sleuth-Pass-2026"


@pytest.fixture
def waiting_table(transactional_db: None) -> tuple[Table, list[User]]:
    """Made before the browser starts (its event loop would refuse the services' notices)."""
    table = make_table(fee=1_000, seats=3, seed=7)
    players = [make_player(n) for n in ("asha", "ravi")]
    for p in players:
        client = Client()
        client.force_login(p)
        assert client.post(f"/tables/{table.pk}/join/").status_code == 302
    sleuth = User.objects.create_user("sleuth", password=SLEUTH_PASSWORD, is_staff=True)
    sleuth.groups.add(Group.objects.get(name="Game integrity"))
    return table, players


def _staff_link(browser: Any, base: str) -> None:
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    seen = watch(page)
    try:
        page.goto(f"{base}/admin/login/")
        page.fill("#id_username", "sleuth")
        page.fill("#id_password", SLEUTH_PASSWORD)
        page.click("input[type=submit]")
        page.goto(f"{base}/admin/integrity/accountlink/link/")
        page.fill("#id_first", "asha")
        page.fill("#id_second", "ravi")
        page.fill("#id_reason", "one person, two accounts: ID checked")
        page.click("#link-submit")
        page.wait_for_url(lambda url: url.rstrip("/").endswith("/admin/integrity/accountlink"))
        seen.assert_clean("staff pages")
    finally:
        context.close()


def test_the_player_sent_away_sees_why_on_the_table_page(
    live_server_url: str, waiting_table: tuple[Table, list[User]], browser: Any
) -> None:
    table, (asha, ravi) = waiting_table
    pages = [
        Player(browser, live_server_url, "asha", DESKTOP),
        Player(browser, live_server_url, "ravi", PHONE),
    ]
    try:
        for player, user in zip(pages, (asha, ravi), strict=True):
            player.log_in(user)
            player.goto(f"/tables/{table.pk}/")
            player.page.wait_for_selector("#waiting-seats >> text=2 / 3")

        _staff_link(browser, live_server_url)

        ashas, ravis = pages
        banner = ravis.page.locator("#notices .notice-banner[data-kind='unseated']")
        banner.wait_for()
        text = banner.inner_text()
        assert REFUSAL in text and "Your entry fee of ₹10.00 is back in your wallet." in text, text
        assert "asha" not in text.lower(), text
        ravis.page.wait_for_selector("#waiting-seats >> text=1 / 3")
        ravis.shot("linked-unseated-ravi")
        ashas.page.wait_for_selector("#waiting-seats >> text=1 / 3")
        assert ashas.page.locator("#notices .notice-banner").count() == 0
        ravis.page.tap("#notices .notice-close")
        wait_until(lambda: banner.count() == 0, "ravi's banner dismissed")
        for player in pages:
            player.assert_clean()
    finally:
        for player in pages:
            player.close()
    try:
        assert wallet_balance(user=ravi) == 100_00 and wallet_balance(user=asha) == 90_00
    finally:
        connections.close_all()
