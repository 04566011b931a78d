"""One account per e-mail address, whatever its case (issue 27): the sign-up form, the profile
form and the database each refuse a second account with an address already used."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse

from accounts.models import EMAIL_TAKEN, User
from staff.models import StaffAction

pytestmark = pytest.mark.django_db

SIGNUP = {
    "username": "meera2",
    "display_name": "Meera",
    "password1": "felt-and-cards-2026",
    "password2": "felt-and-cards-2026",
    "confirm_age": "on",
    "accept_terms": "on",
}


def test_sign_up_refuses_an_address_another_account_uses_in_any_case(client: Client) -> None:
    User.objects.create_user("meera", email="Meera@Example.com", password="x-rummy-2026")
    response = client.post(reverse("signup"), {**SIGNUP, "email": "meera@example.COM"})
    assert response.status_code == 200 and EMAIL_TAKEN in response.content.decode()
    assert not User.objects.filter(username="meera2").exists()
    # another address is fine
    assert client.post(reverse("signup"), {**SIGNUP, "email": "meera2@example.com"}).status_code == 302
    assert User.objects.get(username="meera2").email == "meera2@example.com"


def test_the_profile_refuses_an_address_another_account_uses_but_keeps_ones_own(client: Client) -> None:
    User.objects.create_user("asha", email="asha@example.com")
    ravi = User.objects.create_user("ravi", email="ravi@example.com", password="x-rummy-2026")
    client.force_login(ravi)
    response = client.post(reverse("profile"), {"display_name": "Ravi", "email": "ASHA@example.com"})
    assert response.status_code == 200 and EMAIL_TAKEN in response.content.decode()
    ravi.refresh_from_db()
    assert ravi.email == "ravi@example.com"
    # saving one's own address again (another case) is no conflict
    assert (
        client.post(reverse("profile"), {"display_name": "Ravi", "email": "Ravi@Example.com"}).status_code
        == 302
    )


def test_the_database_refuses_a_second_account_with_the_address_but_not_blank_ones() -> None:
    User.objects.create_user("asha", email="asha@example.com")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("asha2", email="ASHA@example.com")
    # accounts without an address (bots, staff made on the command line) are not counted
    User.objects.create_user("bot-1", email="")
    User.objects.create_user("bot-2", email="")


def test_the_admin_form_refuses_it_too(client: Client) -> None:
    root = User.objects.create_superuser("root", email="root@example.com", password="x-root-2026")
    User.objects.create_user("asha", email="asha@example.com")
    ravi = User.objects.create_user("ravi", email="ravi@example.com")
    client.force_login(root)
    page = client.get(reverse("admin:accounts_user_change", args=[ravi.pk])).content.decode()
    assert 'name="email"' in page
    form = {
        "username": "ravi",
        "email": "asha@EXAMPLE.com",
        "is_active": "on",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "audit_reason": "test",
    }
    response = client.post(reverse("admin:accounts_user_change", args=[ravi.pk]), form)
    assert response.status_code == 200 and EMAIL_TAKEN in response.content.decode()
    ravi.refresh_from_db()
    assert ravi.email == "ravi@example.com"


def test_the_migration_clears_later_duplicates_and_records_each(require_postgres: None) -> None:
    """Addresses stored twice before the index: the oldest account keeps it, later ones are cleared
    and each clearing is a row of the audit trail. (The index is dropped inside this test's
    transaction to store duplicates, and comes back with its rollback.)"""
    migration = importlib.import_module("accounts.migrations.0005_email_unique_any_case")
    (constraint,) = [c for c in User._meta.constraints if c.name == "accounts_user_email_ci_unique"]
    with connection.schema_editor() as editor:
        editor.remove_constraint(User, constraint)
        first = User.objects.create_user("first", email="same@example.com")
        second = User.objects.create_user("second", email="SAME@example.com")
        third = User.objects.create_user("third", email="same@EXAMPLE.com")
        other = User.objects.create_user("other", email="other@example.com")
        migration.clear_duplicates(apps, editor)
        editor.add_constraint(User, constraint)
    emails = dict(User.objects.values_list("username", "email"))
    assert emails["first"] == "same@example.com" and emails["other"] == "other@example.com"
    assert emails["second"] == "" and emails["third"] == ""
    cleared = StaffAction.objects.filter(verb="clear_duplicate_email").order_by("object_id")
    assert [e.object_id for e in cleared] == [second.pk, third.pk]
    assert cleared[0].before == {"email": "SAME@example.com"} and f"id {first.pk}" in cleared[0].reason
    assert other.pk not in [e.object_id for e in cleared]
