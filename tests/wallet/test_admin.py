"""The admin shows the ledger read-only; staff credit/debit goes through ``adjust`` with a reason."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from accounts.models import User
from wallet import services
from wallet.models import Account, LedgerTransaction, TransactionKind
from wallet.selectors import wallet_balance

pytestmark = pytest.mark.django_db
Fund = Callable[[User, int], None]


@pytest.fixture
def admin_client_(staff: User) -> Client:
    client = Client()
    client.force_login(staff)
    return client


@pytest.fixture
def wallet(player: User, fund: Fund) -> Account:
    fund(player, 50_00)
    services.pay_entry(user=player, game_ref="game:1", amount=10_00, idempotency_key="j")
    return Account.objects.get(user=player)


def test_ledger_pages_render_read_only(admin_client_: Client, wallet: Account) -> None:
    txn = LedgerTransaction.objects.get(kind=TransactionKind.ENTRY_FEE)
    for url in (
        reverse("admin:wallet_account_changelist"),
        reverse("admin:wallet_account_change", args=[wallet.pk]),
        reverse("admin:wallet_ledgertransaction_changelist"),
        reverse("admin:wallet_ledgertransaction_change", args=[txn.pk]),
    ):
        response = admin_client_.get(url)
        assert response.status_code == 200, url
    detail = admin_client_.get(
        reverse("admin:wallet_ledgertransaction_change", args=[txn.pk])
    ).content.decode()
    assert "escrow:game:1" in detail  # entries inline
    assert 'name="_save"' not in detail


@pytest.mark.parametrize("model", ["account", "ledgertransaction"])
def test_no_add_change_or_delete(admin_client_: Client, wallet: Account, model: str) -> None:
    obj = wallet.pk if model == "account" else LedgerTransaction.objects.first().pk  # type: ignore[union-attr]
    assert admin_client_.get(reverse(f"admin:wallet_{model}_add")).status_code == 403
    assert admin_client_.get(reverse(f"admin:wallet_{model}_delete", args=[obj])).status_code == 403
    before = wallet_balance(user=wallet.user)
    admin_client_.post(reverse(f"admin:wallet_{model}_change", args=[obj]), {"balance": 999})
    assert wallet_balance(user=wallet.user) == before


def test_staff_credit_and_debit_through_adjust(admin_client_: Client, wallet: Account, staff: User) -> None:
    url = reverse("admin:wallet_account_adjust", args=[wallet.pk])
    page = admin_client_.get(url)
    assert page.status_code == 200
    key = page.context["form"].initial["idempotency_key"]
    form = {"amount": "25.50", "reason": "ticket 81: lost a prize to a bug", "idempotency_key": key}
    response = admin_client_.post(url, {**form, "message": "Tournament prize"})
    assert response.status_code == 302
    assert wallet_balance(user=wallet.user) == 65_50
    txn = LedgerTransaction.objects.get(kind=TransactionKind.ADJUSTMENT)
    # the player's history says the message; the internal note stays with staff
    assert txn.caused_by == staff and txn.memo == "Tournament prize" and "ticket" not in txn.memo
    # a double submit of the same form does not adjust twice
    admin_client_.post(url, {**form, "message": "Tournament prize"})
    assert wallet_balance(user=wallet.user) == 65_50
    # debit
    new_key = admin_client_.get(url).context["form"].initial["idempotency_key"]
    admin_client_.post(url, {"amount": "-5", "reason": "chargeback", "idempotency_key": new_key})
    assert wallet_balance(user=wallet.user) == 60_50


def test_reason_is_required_and_overdraft_refused(admin_client_: Client, wallet: Account) -> None:
    url = reverse("admin:wallet_account_adjust", args=[wallet.pk])
    response = admin_client_.post(url, {"amount": "5", "reason": "   ", "idempotency_key": "adjust:x"})
    assert response.status_code == 200 and response.context["form"].errors["reason"]
    response = admin_client_.post(url, {"amount": "-1000", "reason": "oops", "idempotency_key": "adjust:y"})
    # issue 14: said in rupees, on the form, which keeps what was typed
    page = response.content.decode()
    assert response.status_code == 200
    assert "A debit of ₹1000.00 is more than alice&#x27;s balance of ₹40.00" in page
    assert "paise" not in page
    form = response.context["form"]
    assert form.errors["amount"] and form.data["reason"] == "oops" and 'value="oops"' in page
    assert wallet_balance(user=wallet.user) == 40_00
    assert not LedgerTransaction.objects.filter(kind=TransactionKind.ADJUSTMENT).exists()


def test_admin_action_redirects_to_the_form(admin_client_: Client, wallet: Account) -> None:
    response = admin_client_.post(
        reverse("admin:wallet_account_changelist"),
        {"action": "credit_or_debit", "_selected_action": [wallet.pk]},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:wallet_account_adjust", args=[wallet.pk])


def test_adjust_needs_the_permission(make_user: Callable[..., User], wallet: Account) -> None:
    clerk = make_user("clerk", is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_account"))
    client = Client()
    client.force_login(clerk)
    url = reverse("admin:wallet_account_adjust", args=[wallet.pk])
    assert client.get(reverse("admin:wallet_account_changelist")).status_code == 200
    assert client.get(url).status_code == 403
    clerk.user_permissions.add(Permission.objects.get(codename="adjust_balance"))
    client.force_login(User.objects.get(pk=clerk.pk))
    assert client.get(url).status_code == 200
