"""``/api/wallet/`` and the ``/wallet/`` page: a player sees and claims only their own chips."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import User
from tests.helpers import follow_confirmation_link
from tests.wallet.conftest import earned_mailbox_bonus
from wallet import services
from wallet.models import LedgerTransaction
from wallet.selectors import chip_balances

pytestmark = pytest.mark.django_db
Fund = Callable[[User, int], None]


@pytest.fixture
def api(player: User) -> APIClient:
    client = APIClient()
    client.force_login(player)
    return client


def test_anonymous_is_refused() -> None:
    client = APIClient()
    for url in ("/api/wallet/", "/api/wallet/transactions/"):
        assert client.get(url).status_code == 403
    assert client.post("/api/wallet/daily/").status_code == 403
    assert LedgerTransaction.objects.count() == 0


def test_balance(api: APIClient, player: User, fund: Fund) -> None:
    assert api.get("/api/wallet/").json()["balance"] == 0
    fund(player, 12_50)
    body = api.get("/api/wallet/").json()
    assert body["balance"] == 12_50
    assert body["display"].endswith("12.50")


def test_transactions_are_own_and_paginated(
    api: APIClient, player: User, other_player: User, fund: Fund
) -> None:
    fund(other_player, 999_00)
    for _ in range(30):
        fund(player, 1_00)
    services.pay_entry(user=player, game_ref="game:1", amount=5_00, idempotency_key="j")
    body = api.get("/api/wallet/transactions/").json()
    assert body["count"] == 31
    assert len(body["results"]) == 25
    first = body["results"][0]
    assert first["kind"] == "entry_fee"
    assert first["amount"] == -5_00
    assert first["balance_after"] == 25_00
    assert body["next"]
    page2 = api.get(body["next"]).json()
    assert len(page2["results"]) == 6
    assert all(r["amount"] == 1_00 for r in page2["results"])


@override_settings(DAILY_TOPUP_CHIPS=500)
def test_daily_claim_then_409(api: APIClient, player: User) -> None:
    earned_mailbox_bonus(player)
    first = api.post("/api/wallet/daily/")
    assert first.status_code == 201, first.content
    assert first.json()["amount"] == 500_00
    assert first.json()["balance"] == 500_00
    second = api.post("/api/wallet/daily/")
    assert second.status_code == 409
    assert "already claimed" in second.json()["message"]
    assert LedgerTransaction.objects.filter(kind="daily_topup").count() == 1


def test_schema_documents_the_wallet_api() -> None:
    response = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = json.loads(response.content)["paths"]
    assert {"/api/wallet/", "/api/wallet/transactions/", "/api/wallet/daily/"} <= set(paths)
    assert "409" in paths["/api/wallet/daily/"]["post"]["responses"]


# --- the page ------------------------------------------------------------------------
@pytest.fixture
def browser(player: User) -> Client:
    client = Client()
    client.force_login(player)
    return client


def test_page_needs_login() -> None:
    response = Client().get(reverse("wallet"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_page_shows_balance_history_and_nav_link(browser: Client, player: User, fund: Fund) -> None:
    fund(player, 40_00)
    services.pay_entry(user=player, game_ref="game:1", amount=12_50, idempotency_key="j")
    html = browser.get(reverse("wallet")).content.decode()
    assert "27.50" in html  # balance and running balance
    assert "Entry fee" in html and "Entry fee for game:1" in html
    assert "Claim daily chips" in html
    assert f'href="{reverse("wallet")}"' in html


@override_settings(DAILY_TOPUP_CHIPS=500)
def test_page_claim_button(browser: Client, player: User) -> None:
    earned_mailbox_bonus(player)
    response = browser.post(reverse("wallet-daily"), follow=True)
    html = response.content.decode()
    assert "500.00 of free bonus chips added" in html
    response = browser.post(reverse("wallet-daily"), follow=True)
    assert "already claimed" in response.content.decode()
    assert browser.get(reverse("wallet-daily")).status_code == 405
    assert LedgerTransaction.objects.filter(kind="daily_topup").count() == 1


def test_page_pagination(browser: Client, player: User, fund: Fund) -> None:
    for _ in range(30):
        fund(player, 1_00)
    html = browser.get(reverse("wallet"), {"page": 2}).content.decode()
    assert "Page 2 of 2" in html


@override_settings(SIGNUP_BONUS_CHIPS=1000)
def test_signup_grants_the_bonus_once_the_mailed_link_is_followed() -> None:
    client = Client()
    response = client.post(
        reverse("signup"),
        {
            "username": "newbie",
            "email": "newbie@example.com",
            "confirm_age": "on",
            "accept_terms": "on",
            "password1": "a-Strong-pass-9876",
            "password2": "a-Strong-pass-9876",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    user = User.objects.get(username="newbie")
    assert chip_balances(user=user) == {"cash": 0, "bonus": 0, "total": 0}
    follow_confirmation_link(client, "newbie@example.com")
    assert chip_balances(user=user) == {"cash": 0, "bonus": 1000_00, "total": 1000_00}
