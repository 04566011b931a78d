"""Staff who cannot cheat (issue 23): each hole an insider found, tried again as they tried it,
through the admin's real pages and forms, with CSRF checks on. Each attempt must be refused and
recorded in the staff audit trail; each permitted change must be recorded once, with its reason."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from accounts.models import User
from staff.models import AdjustmentRequest, StaffAction
from tests.staff.conftest import make_staff
from tests.staff.insider import Insider
from tests.tables.conftest import make_player
from wallet.audit import check_ledger
from wallet.models import LedgerTransaction, TransactionKind
from wallet.selectors import wallet_balance
from wallet.services import wallet_account_for

pytestmark = pytest.mark.django_db


def _change(user: User) -> str:
    return reverse("admin:accounts_user_change", args=[user.pk])


def _refusals(actor: User, verb: str) -> int:
    return StaffAction.objects.filter(actor=actor, verb=f"refused_{verb}").count()


@pytest.fixture
def root(db: None) -> User:
    return User.objects.create_superuser("root", password="x-root-2026")


@pytest.fixture
def boss(db: None) -> Insider:
    return Insider(make_staff("boss", "Administrator"))


# ---------------------------------------------------------------------------
# escalation: roles, permissions, passwords
# ---------------------------------------------------------------------------
def test_an_administrator_cannot_make_itself_superuser(boss: Insider) -> None:
    own = _change(boss.user)
    page = boss.get(own).content.decode()
    # its own account is read-only to it, and no form of its has a privilege field at all
    assert 'name="is_superuser"' not in page and 'name="groups"' not in page and 'name="_save"' not in page
    response = boss.post(own, {"is_superuser": "on", "is_staff": "on", "audit_reason": "promotion"})
    assert response.status_code == 403
    boss.user.refresh_from_db()
    assert not boss.user.is_superuser
    assert _refusals(boss.user, "change_user") == 1


def test_an_administrator_cannot_make_a_player_staff_grant_a_role_or_set_a_password(
    boss: Insider, root: User
) -> None:
    ravi = make_player("ravi")
    url = _change(ravi)
    page = boss.get(url).content.decode()
    assert 'name="display_name"' in page  # it may edit a player's name and contact ...
    assert 'name="is_staff"' not in page and 'name="groups"' not in page and "password/" not in page
    administrator = Group.objects.get(name="Administrator")
    response = boss.form(url, is_staff="on", groups=[str(administrator.pk)], audit_reason="helper")
    assert response.status_code == 403
    response = boss.form(
        url, user_permissions=[str(Permission.objects.get(codename="adjust_balance").pk)], audit_reason="x"
    )
    assert response.status_code == 403
    ravi.refresh_from_db()
    assert not ravi.is_staff and not ravi.groups.exists() and not ravi.user_permissions.exists()
    # ... and has no way to set his password, or the superuser's
    for target in (ravi, root):
        password = reverse("admin:auth_user_password_change", args=[target.pk])
        assert boss.get(password).status_code == 403
        form = {"password1": "Taken-over-2026!", "password2": "Taken-over-2026!", "audit_reason": "x"}
        assert boss.post(password, form).status_code == 403
        target.refresh_from_db()
        assert not target.check_password("Taken-over-2026!")
    assert _refusals(boss.user, "change_user") == 2 and _refusals(boss.user, "set_password") == 4
    # so the one person cannot make a second "administrator" to approve their own credit
    assert not User.objects.filter(is_staff=True).exclude(pk__in=[boss.user.pk, root.pk]).exists()


def test_an_administrator_cannot_edit_an_equal_or_a_superuser(boss: Insider, root: User) -> None:
    other = make_staff("peer", "Administrator")
    for target in (other, root):
        page = boss.get(_change(target)).content.decode()
        assert 'name="_save"' not in page and 'name="email"' not in page  # shown read-only
        response = boss.post(_change(target), {"email": "me@evil.example", "audit_reason": "x"})
        assert response.status_code == 403
        target.refresh_from_db()
        assert target.email != "me@evil.example"
    assert _refusals(boss.user, "change_user") == 2


def test_a_player_edit_by_an_administrator_is_recorded_once_with_its_reason(boss: Insider) -> None:
    ravi = make_player("ravi")
    ravi.email = "ravi@example.com"
    ravi.save()
    response = boss.form(_change(ravi), display_name="Ravi K", is_active=None, audit_reason="ticket 12")
    assert response.status_code == 302
    ravi.refresh_from_db()
    assert ravi.display_name == "Ravi K" and not ravi.is_active
    entry = StaffAction.objects.get(verb="change_user")
    assert entry.actor == boss.user and entry.reason == "ticket 12"
    assert entry.before == {"display_name": "Ravi", "is_active": True}
    assert entry.after == {"display_name": "Ravi K", "is_active": False}
    # no reason, no change
    response = boss.form(_change(ravi), display_name="Ravi X", audit_reason="")
    assert response.status_code == 200 and "This field is required" in response.content.decode()
    ravi.refresh_from_db()
    assert ravi.display_name == "Ravi K" and StaffAction.objects.filter(verb="change_user").count() == 1


def test_only_a_superuser_grants_roles_and_sets_passwords_and_each_is_recorded(root: User) -> None:
    su = Insider(root)
    meena = make_player("meena")
    support = Group.objects.get(name="Support agent")
    response = su.form(_change(meena), is_staff="on", groups=[str(support.pk)], audit_reason="new hire")
    assert response.status_code == 302
    meena.refresh_from_db()
    assert meena.is_staff and list(meena.groups.all()) == [support]
    made_staff = StaffAction.objects.exclude(changes__has_key="groups").get(verb="change_user", actor=root)
    assert made_staff.reason == "new hire" and made_staff.after["is_staff"] is True
    granted = StaffAction.objects.filter(verb="change_user", changes__has_key="groups")
    assert [e.after["groups"] for e in granted] == ["Support agent"] and granted[0].reason == "new hire"
    password = reverse("admin:auth_user_password_change", args=[meena.pk])
    form = {"password1": "New-pass-2026!", "password2": "New-pass-2026!", "usable_password": "true"}
    assert su.post(password, {**form, "audit_reason": "locked out, asked by phone"}).status_code == 302
    meena.refresh_from_db()
    assert meena.check_password("New-pass-2026!")
    entry = StaffAction.objects.filter(verb="change_user", changes__has_key="password").get()
    assert entry.reason == "locked out, asked by phone" and "New-pass" not in str(entry.changes)
    # a superuser does not edit itself here, nor make another superuser
    assert su.form(_change(root), first_name="Me", audit_reason="x").status_code == 403
    response = su.form(_change(meena), is_superuser="on", audit_reason="x")
    assert response.status_code == 403
    meena.refresh_from_db()
    assert not meena.is_superuser


def test_what_a_role_may_do_is_a_superusers_decision(boss: Insider, root: User) -> None:
    administrator = Group.objects.get(name="Administrator")
    url = reverse("admin:auth_group_change", args=[administrator.pk])
    everything = [str(p.pk) for p in Permission.objects.all()]
    response = boss.post(url, {"name": "Administrator", "permissions": everything, "audit_reason": "x"})
    assert response.status_code == 403
    assert administrator.permissions.count() < len(everything)
    su = Insider(root)
    live = Permission.objects.get(codename="view_live_hands")
    wanted = [*(str(p.pk) for p in administrator.permissions.all()), str(live.pk)]
    response = su.form(url, permissions=wanted, audit_reason="admins handle disputes now")
    assert response.status_code == 302
    entry = StaffAction.objects.get(verb="change_group")
    assert entry.reason == "admins handle disputes now" and "Can see the hands" in entry.after["permissions"]


# ---------------------------------------------------------------------------
# money
# ---------------------------------------------------------------------------
def _adjust(insider: Insider, player: User, amount: str, **extra: Any) -> Any:
    url = reverse("admin:wallet_account_adjust", args=[wallet_account_for(user_id=player.pk).pk])
    key = insider.get(url).context["form"].initial["idempotency_key"]
    data = {"amount": amount, "reason": "goodwill", "message": "Goodwill credit", "idempotency_key": key}
    return insider.post(url, {**data, **extra})


def test_an_administrator_cannot_credit_its_own_chips(boss: Insider) -> None:
    make_player("someone")
    before = wallet_balance(user=boss.user)
    response = _adjust(boss, boss.user, "500")
    assert response.status_code == 200
    assert "may not adjust wallet their own account" in response.content.decode()
    assert wallet_balance(user=boss.user) == before and not AdjustmentRequest.objects.exists()
    assert _refusals(boss.user, "adjust_wallet") == 1
    # nor an equal's: the link is not even offered
    peer = make_staff("peer", "Administrator")
    wallet_account_for(user_id=peer.pk)
    listing = boss.get(reverse("admin:wallet_account_changelist")).content.decode()
    own = reverse("admin:wallet_account_adjust", args=[wallet_account_for(user_id=boss.user.pk).pk])
    theirs = reverse("admin:wallet_account_adjust", args=[wallet_account_for(user_id=peer.pk).pk])
    assert own not in listing and theirs not in listing
    assert "may not adjust wallet" in _adjust(boss, peer, "500").content.decode()


def test_split_credits_do_not_avoid_the_approval_threshold(boss: Insider, settings: Any) -> None:
    settings.ADJUSTMENT_APPROVAL_ABOVE_RUPEES = 1_000
    asha = make_player("asha", chips=0)
    for _ in range(4):  # four ₹1,000 credits in a row, each at the threshold
        assert _adjust(boss, asha, "1000").status_code == 302
    assert wallet_balance(user=asha) == 1_000_00  # the first alone; the rest wait
    assert AdjustmentRequest.objects.filter(status="pending").count() == 3
    # a credit to another player counts in the same total: it is the requester's
    ravi = make_player("ravi", chips=0)
    _adjust(boss, ravi, "1")
    assert wallet_balance(user=ravi) == 0 and AdjustmentRequest.objects.filter(user=ravi).exists()


def test_no_adjustment_past_the_ceiling_or_the_daily_limit(boss: Insider, settings: Any) -> None:
    settings.ADJUSTMENT_APPROVAL_ABOVE_RUPEES = 100_000
    settings.ADJUSTMENT_MAX_RUPEES = 50_000
    settings.ADJUSTMENT_DAILY_LIMIT_RUPEES = 60_000
    asha = make_player("asha", chips=0)
    page = _adjust(boss, asha, "999999999999.99").content.decode()
    assert "is more than one adjustment may be (₹50000.00)" in page
    assert not AdjustmentRequest.objects.exists() and wallet_balance(user=asha) == 0
    assert _adjust(boss, asha, "50000").status_code == 302
    page = _adjust(boss, asha, "20000").content.decode()
    assert "would pass the daily limit of ₹60000.00" in page
    assert wallet_balance(user=asha) == 50_000_00
    assert _refusals(boss.user, "adjust_wallet") == 2


def test_a_replayed_adjustment_form_moves_money_and_writes_the_audit_once(boss: Insider) -> None:
    asha = make_player("asha", chips=0)
    url = reverse("admin:wallet_account_adjust", args=[wallet_account_for(user_id=asha.pk).pk])
    key = boss.get(url).context["form"].initial["idempotency_key"]
    form = {"amount": "300", "reason": "goodwill", "message": "Sorry", "idempotency_key": key}
    assert boss.post(url, form).status_code == 302
    assert boss.post(url, form).status_code == 302  # the same form again (a double click, a replay)
    assert wallet_balance(user=asha) == 300_00
    assert StaffAction.objects.filter(verb="adjust_wallet").count() == 1
    # the same token with another amount: said on the form, not a server error
    response = boss.post(url, {**form, "amount": "900"})
    assert response.status_code == 200 and "already used for another adjustment" in response.content.decode()
    assert wallet_balance(user=asha) == 300_00
    assert LedgerTransaction.objects.filter(kind=TransactionKind.ADJUSTMENT).count() == 1
    assert check_ledger() == []


# ---------------------------------------------------------------------------
# support agents
# ---------------------------------------------------------------------------
def test_a_support_agent_cannot_suspend_an_administrator_or_itself(boss: Insider) -> None:
    agent = Insider(make_staff("helper", "Support agent"))
    for target in (boss.user, agent.user):
        response = agent.post(
            reverse("admin:accounts_user_changelist"),
            {
                "action": "suspend_players",
                "_selected_action": [target.pk],
                "apply": "1",
                "reason": "x",
                "message": "x",
            },
        )
        assert response.status_code == 302
        assert not target.suspensions.exists()
    assert _refusals(agent.user, "suspend_player") == 2


def test_a_support_agent_sees_no_button_it_cannot_use(boss: Insider) -> None:
    agent = Insider(make_staff("helper", "Support agent"))
    ravi = make_player("ravi")
    accounts = agent.get(reverse("admin:wallet_account_changelist")).content.decode()
    assert "Credit / debit" not in accounts and "credit_or_debit" not in accounts
    user_page = agent.get(_change(ravi)).content.decode()
    assert "password/" not in user_page and 'name="_save"' not in user_page
    users = agent.get(reverse("admin:accounts_user_changelist")).content.decode()
    assert reverse("admin:accounts_user_add") not in users and "delete_selected" not in users


# ---------------------------------------------------------------------------
# every admin page that can change something is audited
# ---------------------------------------------------------------------------
def test_every_admin_page_that_can_write_is_audited(root: User) -> None:
    """A model staff can add, change or delete through the admin is recorded by django-auditlog;
    every other one is read-only there (its writes go through a recorded staff service)."""
    from auditlog.registry import auditlog
    from django.contrib import admin
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = root
    for model, model_admin in admin.site._registry.items():
        writes = (
            model_admin.has_add_permission(request)
            or model_admin.has_change_permission(request)
            or model_admin.has_delete_permission(request)
        )
        if writes:
            assert auditlog.contains(model), (
                f"{model.__name__}: the admin can write it, auditlog does not record it"
            )


def test_a_rake_change_is_recorded_in_percent_with_its_reason(boss: Insider) -> None:
    from tests.tables.conftest import make_table

    table = make_table(fee=10_000)
    url = reverse("admin:tables_tablesettings_change", args=[table.settings_id])
    response = boss.form(url, rake_bp="5000", audit_reason="raise the rake")
    assert response.status_code == 302, response.content.decode()[:3000]
    entry = StaffAction.objects.get(verb="change_tablesettings")
    assert entry.actor == boss.user and entry.reason == "raise the rake"
    assert entry.before == {"rake_bp": "10.00 %"} and entry.after == {"rake_bp": "50.00 %"}
    # the form shows and takes rupees
    assert 'value="100.00"' in boss.get(url).content.decode()


def test_no_code_bulk_updates_an_audited_model() -> None:
    """django-auditlog records saves, not ``queryset.update()`` (docs/staff.md): no code of ours
    may bulk-update a model it audits, or that change would leave no trace."""
    import re
    from pathlib import Path

    from django.conf import settings

    audited = [
        (m if isinstance(m, str) else m["model"]).split(".")[1]
        for m in settings.AUDITLOG_INCLUDE_TRACKING_MODELS
    ]
    pattern = re.compile(rf"\b({'|'.join(audited)})\.objects\b[^\n]*\.update\(")
    root = Path(__file__).resolve().parents[2]
    found = [
        f"{path.relative_to(root)}:{n}"
        for app in ("accounts", "staff", "tables", "wallet", "rummy_site")
        for path in (root / app).rglob("*.py")
        if "migrations" not in path.parts
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
