"""The "Verify this deal" button (static/js/fairness.js, WebCrypto) agrees with the server's
verification over several deals of a whole bot game, and flags a tampered order."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from game_engine import fairness
from tables.models import Deal, Seat
from tests.e2e.conftest import ARTIFACTS, DESKTOP
from tests.e2e.watch import log_in
from tests.tables.conftest import make_player, make_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.fresh_server]

PASSWORD = "felt-and-cards-2026"


@pytest.fixture
def deals(transactional_db: None) -> list[int]:
    """Whole 3-bot games through the services (made before the browser starts), and a Game
    integrity staff member, who opens them face up with a reason (docs/staff.md)."""
    call_command("simulate", format="101", players=3, games=3, seed=21, stdout=io.StringIO())
    staff = make_player("judge")
    staff.is_staff = True
    staff.set_password(PASSWORD)
    staff.save()
    staff.groups.add(Group.objects.get(name="Game integrity"))
    return list(Deal.objects.filter(finished_at__isnull=False).order_by("pk").values_list("pk", flat=True))


def _click_verify(page: Any, base: str, deal_id: int) -> str:
    page.goto(f"{base}/admin/tables/deal/{deal_id}/face-up/")
    page.fill("#id_reason", "a player asks whether the shuffle was fair")
    page.click("#face-up-form [type=submit]")
    page.wait_for_selector("#face-up-note")
    page.click("#verify-deal")
    # a selector, not wait_for_function: its polling evaluates a string, which the site's CSP refuses
    page.wait_for_selector("#verify-result[data-ok]")
    return str(page.text_content("#verify-result"))


def test_browser_verification_agrees_with_the_server_and_flags_tampering(
    deals: list[int], live_server_url: str, browser: Any
) -> None:
    assert len(deals) >= 3
    page = browser.new_page(**DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, live_server_url, "judge", PASSWORD)
    for deal_id in deals[:5]:
        deal = Deal.objects.get(pk=deal_id)
        ok, _ = fairness.verify(
            {
                "server_seed": deal.server_seed,
                "client_seeds": deal.client_seeds,
                "deal_no": deal.number,
                "commitment": deal.commitment,
                "order": deal.dealt_order,
            }
        )
        assert ok
        text = _click_verify(page, live_server_url, deal_id)
        assert text.startswith("✓ verified"), text
        # The browser's own recomputation equals the server's, card for card.
        browser_order = page.evaluate(
            """async (rec) => (await import('/static/js/fairness.js')).deckOrder(rec)""",
            {"server_seed": deal.server_seed, "client_seeds": deal.client_seeds, "deal_no": deal.number},
        )
        assert browser_order == fairness.deck_order(deal.server_seed, deal.client_seeds, deal.number)
    page.screenshot(path=str(ARTIFACTS / "verify-deal-ok.png"), full_page=True)

    deal = Deal.objects.get(pk=deals[0])
    order = list(deal.dealt_order)
    i = next(k for k in range(1, len(order)) if order[k] != order[0])
    order[0], order[i] = order[i], order[0]
    Deal.objects.filter(pk=deal.pk).update(dealt_order=order)
    text = _click_verify(page, live_server_url, deal.pk)
    assert text.startswith("✗ failed") and "position 0" in text, text
    assert not fairness.verify(
        {
            "server_seed": deal.server_seed,
            "client_seeds": deal.client_seeds,
            "deal_no": deal.number,
            "order": order,
        }
    )[0]
    Deal.objects.filter(pk=deal.pk).update(dealt_order=deal.dealt_order, server_seed="a" * 64)
    text = _click_verify(page, live_server_url, deal.pk)
    assert text.startswith("✗ failed") and "commitment" in text, text
    page.screenshot(path=str(ARTIFACTS / "verify-deal-tampered.png"), full_page=True)
    assert errors == []


def test_the_button_waits_for_the_verifier_to_load(
    deals: list[int], live_server_url: str, browser: Any
) -> None:
    """On slow data the page shows before its module runs: a button that did nothing when
    clicked then would lose the click, so it stays disabled until the module takes it."""
    page = browser.new_page(**DESKTOP)
    log_in(page, live_server_url, "judge", PASSWORD)
    held: list[Any] = []
    page.route("**/js/verify_deal*.js", lambda route: held.append(route))
    page.goto(f"{live_server_url}/admin/tables/deal/{deals[0]}/face-up/")
    page.fill("#id_reason", "a player asks whether the shuffle was fair")
    page.click("#face-up-form [type=submit]", no_wait_after=True)
    page.wait_for_selector("#face-up-note")
    assert held, "the module was not requested"
    assert page.is_disabled("#verify-deal")
    for route in held:
        route.continue_()
    page.click("#verify-deal")
    page.wait_for_selector("#verify-result[data-ok]")
    assert str(page.text_content("#verify-result")).startswith("✓ verified")


@pytest.fixture
def lobby_rows(transactional_db: None) -> int:
    player = make_player("sita")
    player.set_password(PASSWORD)
    player.save()
    return int(make_table("101", fee=500, seats=3).pk)


def test_joining_from_the_lobby_sends_the_browsers_own_client_seed(
    lobby_rows: int, live_server_url: str, browser: Any
) -> None:
    page = browser.new_page(**DESKTOP)
    log_in(page, live_server_url, "sita", PASSWORD)
    page.goto(f"{live_server_url}/")
    page.wait_for_selector(f".table-tile[data-table-id='{lobby_rows}']")
    page.click(f".table-tile[data-table-id='{lobby_rows}'] .join-btn")
    page.wait_for_url(f"**/tables/{lobby_rows}/")
    seat = Seat.objects.get(user__username="sita")
    assert re.fullmatch(r"[0-9a-f]{32}", seat.client_seed), seat.client_seed
