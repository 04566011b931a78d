"""No account taken over by staff (issue 37, finding 1): the address a password reset goes to is a
credential. Each test arrives as the insider does: the admin's real pages with CSRF checks on,
then the public "forgot password" page, its e-mail read from the outbox, its link followed and a
log-in tried. The last test enumerates every staff role x every field its user form offers (and
the credential fields it does not offer, forged) x a target of every rank."""

from __future__ import annotations

import contextlib
import re
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import Group, Permission
from django.core import mail
from django.test import Client, TestCase
from django.urls import reverse

from accounts.models import EmailChange, User
from staff.models import StaffAction
from tests.staff.conftest import make_staff
from tests.staff.insider import Insider as Browser

pytestmark = pytest.mark.django_db

OWNER_PASSWORD = "Owner-pass-2026"
THIEF_PASSWORD = "Taken-over-2026!"
NEUTRAL = "If an account has that address, a link to reset the password is on its way."


class Insider(Browser):
    """A staff member's browser; what a request leaves for after its commit (the mail to the old
    address) runs after it, as on the site (the test's transaction is never committed)."""

    def post(self, url: str, data: dict[str, Any]) -> Any:
        with TestCase.captureOnCommitCallbacks(execute=True):
            return super().post(url, data)


def _change(user: User) -> str:
    return reverse("admin:accounts_user_change", args=[user.pk])


def _to(address: str, since: int = 0) -> list[Any]:
    return [m for m in mail.outbox[since:] if address.lower() in [a.lower() for a in m.to]]


def ask_reset(address: str, *, at: Any = None) -> list[Any]:
    """The public "forgot password" page, as anyone uses it: the mails it sent to ``address``."""
    since = len(mail.outbox)
    browser = Client(enforce_csrf_checks=True)
    browser.get(reverse("password_reset"))
    token = browser.cookies["csrftoken"].value
    later = mock.patch("django.utils.timezone.now", return_value=at) if at else contextlib.nullcontext()
    with later:
        response = browser.post(
            reverse("password_reset"), {"email": address, "csrfmiddlewaretoken": token}, follow=True
        )
    # the same neutral page whether a mail went or not: no account enumeration
    assert response.status_code == 200 and NEUTRAL in response.content.decode()
    return _to(address, since)


def take_over(message: Any, username: str) -> bool:
    """Follow a reset mail's link, set a password and log in with it, as a thief would."""
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/\S+/)", message.body).group(1)
    browser = Client()
    page = browser.get(link, follow=True)
    if not page.context or not page.context.get("validlink"):
        return False
    set_url = page.redirect_chain[-1][0] if page.redirect_chain else link
    browser.post(set_url, {"new_password1": THIEF_PASSWORD, "new_password2": THIEF_PASSWORD})
    return _logs_in(username, THIEF_PASSWORD)


def _logs_in(username: str, password: str) -> bool:
    """The log-in page, as anyone uses it."""
    return Client().post(reverse("login"), {"username": username, "password": password}).status_code == 302


def _player(name: str) -> User:
    return User.objects.create_user(name, email=f"{name}@owner.example", password=OWNER_PASSWORD)


def _staff(name: str, role: str) -> User:
    user = make_staff(name, role)
    user.email = f"{name}@owner.example"
    user.set_password(OWNER_PASSWORD)
    user.save()
    return user


@pytest.fixture
def boss(db: None) -> Insider:
    return Insider(make_staff("boss", "Administrator"))


# ---------------------------------------------------------------------------
# the finding as filed, and the hold
# ---------------------------------------------------------------------------
def test_an_administrator_cannot_take_over_a_game_integrity_account(boss: Insider) -> None:
    sleuth = _staff("sleuth", "Game integrity")
    page = boss.get(_change(sleuth)).content.decode()
    assert 'name="email"' not in page  # shown read-only: a reset goes to it
    response = boss.form(_change(sleuth), email="boss@attacker.example", audit_reason="ticket 9")
    assert response.status_code == 403
    sleuth.refresh_from_db()
    assert sleuth.email == "sleuth@owner.example"
    assert StaffAction.objects.filter(actor=boss.user, verb="refused_change_user").count() == 1
    assert ask_reset("boss@attacker.example") == []
    assert not _logs_in("sleuth", THIEF_PASSWORD)
    # nor by renaming it (the log-in name), which its form shows read-only too
    assert boss.form(_change(sleuth), username="sleuth2", audit_reason="x").status_code == 403
    assert User.objects.filter(username="sleuth").exists()


def test_a_staff_change_of_a_players_address_is_recorded_told_and_held(boss: Insider) -> None:
    ravi = _player("ravi")
    response = boss.form(_change(ravi), email="boss@attacker.example", audit_reason="asked by phone")
    assert response.status_code == 302
    ravi.refresh_from_db()
    assert ravi.email == "boss@attacker.example"
    # the trail has both addresses
    entry = StaffAction.objects.get(verb="change_user", object_pk=str(ravi.pk))
    assert entry.actor == boss.user and entry.reason == "asked by phone"
    assert entry.before == {"email": "ravi@owner.example"} and entry.after == {
        "email": "boss@attacker.example"
    }
    # the old address is told: what, when, by staff, and the link that objects
    [told] = _to("ravi@owner.example")
    assert "boss@attacker.example" in told.body and "staff" in told.body and "72 hours" in told.body
    assert re.search(r"https?://\S+/accounts/email/keep/\S+/", told.body)
    # the public reset page sends nothing to the new address (and says the same as ever)
    assert ask_reset("boss@attacker.example") == []
    assert ask_reset("ravi@owner.example") == []  # not the account's address any more
    assert not _logs_in("ravi", THIEF_PASSWORD)
    # the hold ends after EMAIL_CHANGE_RESET_HOLD_HOURS: then the new address is the account's
    change = EmailChange.objects.get(user=ravi)
    assert change.held_until - change.created_at == timedelta(hours=72)
    just_before = change.held_until - timedelta(minutes=1)
    assert ask_reset("boss@attacker.example", at=just_before) == []
    [later] = ask_reset("boss@attacker.example", at=change.held_until + timedelta(minutes=1))
    assert take_over(later, "ravi")


def test_the_owner_objects_by_the_link_sent_to_the_old_address(boss: Insider) -> None:
    ravi = _player("ravi")
    assert boss.form(_change(ravi), email="boss@attacker.example", audit_reason="x").status_code == 302
    [told] = _to("ravi@owner.example")
    link = re.search(r"https?://[^/\s]+(/accounts/email/keep/\S+/)", told.body).group(1)
    owner = Client(enforce_csrf_checks=True)
    page = owner.get(link)
    assert page.status_code == 200 and "boss@attacker.example" in page.content.decode()
    ravi.refresh_from_db()
    assert ravi.email == "boss@attacker.example"  # a look (a mail scanner's) changes nothing
    assert owner.post(link).status_code == 403  # no CSRF token: refused
    done = owner.post(link, {"csrfmiddlewaretoken": owner.cookies["csrftoken"].value})
    assert done.status_code == 200 and "Done" in done.content.decode()
    ravi.refresh_from_db()
    assert ravi.email == "ravi@owner.example"
    change = EmailChange.objects.get(user=ravi)
    assert change.reverted_at is not None and change.reverted_by == ravi
    entry = StaffAction.objects.get(verb="revert_email_change")
    assert entry.actor == ravi and "owner objected" in entry.reason
    assert entry.before == {"email": "boss@attacker.example"} and entry.after == {
        "email": "ravi@owner.example"
    }
    # the thief's address gets nothing, now or after the hold; the owner's reset works at once
    later = change.held_until + timedelta(hours=1)
    assert ask_reset("boss@attacker.example") == [] and ask_reset("boss@attacker.example", at=later) == []
    [reset] = ask_reset("ravi@owner.example")
    assert take_over(reset, "ravi")  # (the owner, here)
    # the link works once; a forged one not at all
    assert Client().get(link).status_code == 409
    assert Client().get(link.replace(":", "x", 1)).status_code == 404


def test_staff_undo_a_change_for_an_owner_who_objects_by_other_means(boss: Insider) -> None:
    ravi = _player("ravi")
    assert boss.form(_change(ravi), email="wrong@typo.example", audit_reason="x").status_code == 302
    change = EmailChange.objects.get(user=ravi)
    changelist = reverse("admin:accounts_emailchange_changelist")
    helper = Insider(make_staff("helper", "Support agent"))
    assert helper.get(changelist).status_code == 200  # support sees the holds ...
    form = {"action": "revert_changes", "_selected_action": [str(change.pk)], "apply": "1", "reason": "x"}
    helper.post(changelist, form)  # ... but may not undo them
    ravi.refresh_from_db()
    assert ravi.email == "wrong@typo.example"
    response = boss.post(changelist, {**form, "reason": "owner called, ticket 40"})
    assert response.status_code == 302
    ravi.refresh_from_db()
    assert ravi.email == "ravi@owner.example"
    entry = StaffAction.objects.get(verb="revert_email_change")
    assert entry.actor == boss.user and entry.reason == "owner called, ticket 40"
    # one entry for the undo: the user's save inside it is not recorded a second time
    assert StaffAction.objects.filter(object_pk=str(ravi.pk), verb="change_user").count() == 1
    [reset] = ask_reset("ravi@owner.example")
    assert take_over(reset, "ravi")


def test_a_player_changing_their_own_address_is_told_at_the_old_one() -> None:
    ravi = _player("ravi")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(ravi)
    browser.get(reverse("profile"))
    token = browser.cookies["csrftoken"].value
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = browser.post(
            reverse("profile"),
            {"display_name": "Ravi", "email": "ravi@new.example", "csrfmiddlewaretoken": token},
        )
    assert response.status_code == 302
    [told] = _to("ravi@owner.example")
    assert "ravi@new.example" in told.body and "support" in told.body
    assert not EmailChange.objects.exists()  # the player's own change is not held
    assert len(ask_reset("ravi@new.example")) == 1


# ---------------------------------------------------------------------------
# every path to a credential: role x field x rank
# ---------------------------------------------------------------------------
#: What a thief forges beside the form's own fields: every key that leads to a credential.
FORGED = ("username", "email", "password", "is_staff", "is_superuser", "groups", "user_permissions")
TARGETS = ("player", "Support agent", "Game integrity", "Administrator", "superuser")


def _target(rank: str, name: str) -> User:
    if rank == "player":
        return _player(name)
    if rank == "superuser":
        return User.objects.create_superuser(name, email=f"{name}@owner.example", password=OWNER_PASSWORD)
    return _staff(name, rank)


def _value(field: str, target: User, n: int) -> Any:
    if field == "email":
        return f"thief{n}@attacker.example"
    if field == "username":
        return f"renamed{n}"
    if field in ("is_active", "is_staff", "is_superuser"):
        return None if getattr(target, field) else "on"
    if field == "groups":
        return [str(Group.objects.get(name="Administrator").pk)]
    if field == "user_permissions":
        return [str(Permission.objects.get(codename="adjust_balance").pk)]
    if field == "password":
        return "md5$thief$0123456789abcdef0123456789abcdef"
    return "Changed"


def _credentials(user: User) -> dict[str, Any]:
    return {
        "username": user.username,
        "email": user.email,
        "password": user.password,
        "is_staff": user.is_staff,
        "is_superuser": user.is_superuser,
        "groups": sorted(user.groups.values_list("pk", flat=True)),
        "user_permissions": sorted(user.user_permissions.values_list("pk", flat=True)),
    }


@pytest.mark.parametrize("role", ["Support agent", "Game integrity", "Administrator", "superuser"])
def test_no_role_reaches_a_credential_through_the_user_form(role: str) -> None:
    actor = (
        User.objects.create_superuser("actor", password="x-root-2026")
        if role == "superuser"
        else make_staff("actor", role)
    )
    insider = Insider(actor)
    n = 0
    for rank in TARGETS:
        probe = _target(rank, f"probe-{rank[:4].lower()}")
        page = insider.get(_change(probe))
        assert page.status_code == 200
        offered = [
            name
            for name, field in page.context["adminform"].form.fields.items()
            if not field.disabled and name != "audit_reason"
        ]
        for field in dict.fromkeys([*offered, *FORGED]):
            n += 1
            target = _target(rank, f"t{n}")
            staff_account = rank != "player"
            before = _credentials(target)
            value = _value(field, target, n)
            insider.form(_change(target), **{field: value, "audit_reason": f"probe {n}"})
            target.refresh_from_db()
            after = _credentials(target)
            where = f"{role} -> {rank}: {field}"
            assert after["password"] == before["password"], where
            assert not after["is_superuser"] or before["is_superuser"], where
            if role != "superuser":
                for key in ("username", "is_staff", "groups", "user_permissions"):
                    assert after[key] == before[key], where
                if staff_account:
                    assert after["email"] == before["email"], where
            # whatever the page did, the public reset sends the thief nothing
            assert ask_reset(f"thief{n}@attacker.example") == [], where
            if after["email"] != before["email"]:  # allowed (a player's, or a superuser's change): held
                assert EmailChange.objects.filter(
                    user=target, new_email=after["email"], reverted_at=None
                ).exists(), where
                assert _to(before["email"]), where  # the owner is told
        # and the password page: only a superuser's, never on an equal or higher rank
        target = _target(rank, f"pw{n}")
        password_page = reverse("admin:auth_user_password_change", args=[target.pk])
        form = {"password1": THIEF_PASSWORD, "password2": THIEF_PASSWORD, "usable_password": "true"}
        response = insider.post(password_page, {**form, "audit_reason": "probe"})
        target.refresh_from_db()
        may = role == "superuser" and rank != "superuser"
        assert target.check_password(THIEF_PASSWORD) == may, f"{role} -> {rank}: password"
        assert response.status_code == (302 if may else 403)
    # the probe reached the address wherever a role may edit a player (else it proved nothing)
    assert EmailChange.objects.exists() == (role in ("Administrator", "superuser"))


def test_no_admin_page_shows_a_session_or_a_token() -> None:
    """A session key is a log-in: no admin page lists sessions or API tokens, and no "log in as"."""
    from django.contrib import admin

    for model in admin.site._registry:
        fields = {f.name for f in model._meta.get_fields()}
        assert model._meta.app_label not in ("sessions", "authtoken"), model
        assert not fields & {"session_key", "session_data", "key"}, model
    root = Insider(User.objects.create_superuser("root", password="x-root-2026"))
    index = root.get(reverse("admin:index")).content.decode()
    assert "/admin/sessions/" not in index and "impersonat" not in index.lower()
