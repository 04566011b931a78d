from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User

pytestmark = pytest.mark.django_db


def test_signup_creates_an_account_and_logs_in(client: Client) -> None:
    page = client.get(reverse("signup"))
    assert page.status_code == 200
    assert b"Create your account" in page.content
    response = client.post(
        reverse("signup"),
        {
            "username": "meera",
            "display_name": "Meera K",
            "email": "meera@example.com",
            "confirm_age": "on",
            "accept_terms": "on",
            "password1": "s3cret-Pass-99",
            "password2": "s3cret-Pass-99",
        },
    )
    assert response.status_code == 302
    user = User.objects.get(username="meera")
    assert user.table_name == "Meera K"
    assert user.check_password("s3cret-Pass-99")
    lobby = client.get(reverse("lobby"))
    assert lobby.status_code == 200
    assert b"Meera K" in lobby.content


def test_signup_rejects_mismatched_passwords(client: Client) -> None:
    response = client.post(
        reverse("signup"),
        {"username": "meera", "password1": "s3cret-Pass-99", "password2": "other-Pass-99"},
    )
    assert response.status_code == 200
    assert not User.objects.filter(username="meera").exists()


def test_login_and_logout(client: Client) -> None:
    User.objects.create_user("ravi", password="rummy-ravi-2026")
    landing = client.get(reverse("lobby"))  # a visitor gets the landing page, not the lobby
    assert b'id="landing-signup"' in landing.content and b'id="lobby-tables"' not in landing.content
    assert client.get(reverse("wallet")).status_code == 302  # the player's pages send visitors to log in
    response = client.post(reverse("login"), {"username": "ravi", "password": "rummy-ravi-2026"})
    assert response.status_code == 302
    assert b'id="lobby-tables"' in client.get(reverse("lobby")).content
    client.post(reverse("logout"))
    assert b'id="lobby-tables"' not in client.get(reverse("lobby")).content


def test_wrong_password_is_refused(client: Client) -> None:
    User.objects.create_user("ravi", password="rummy-ravi-2026")
    response = client.post(reverse("login"), {"username": "ravi", "password": "nope"})
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def test_profile_sets_the_display_name_shown_at_tables(client: Client) -> None:
    user = User.objects.create_user("ravi", password="rummy-ravi-2026")
    client.force_login(user)
    assert client.get(reverse("profile")).status_code == 200
    client.post(reverse("profile"), {"display_name": "Ravi the Great", "email": ""})
    user.refresh_from_db()
    assert user.table_name == "Ravi the Great"


def test_admin_is_for_staff_only(client: Client) -> None:
    player = User.objects.create_user("ravi", password="x-rummy-2026")
    client.force_login(player)
    assert client.get("/admin/").status_code == 302
    staff = User.objects.create_user("boss", password="x-rummy-2026", is_staff=True, is_superuser=True)
    client.force_login(staff)
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/accounts/user/").status_code == 200


def test_openapi_schema_is_served(client: Client) -> None:
    user = User.objects.create_user("ravi", password="x-rummy-2026")
    client.force_login(user)
    response = client.get(reverse("api-schema"))
    assert response.status_code == 200
    assert b"openapi" in response.content


def test_the_landing_page_leads_to_sign_up_log_in_and_the_rules(client: Client) -> None:
    page = client.get("/").content.decode()
    for url in (reverse("signup"), reverse("login"), reverse("rules")):
        assert f'href="{url}"' in page
    rules = client.get(reverse("rules")).content.decode()
    for words in ("pure sequence", "impure sequence", "Set", "joker", "80 points", "Rejoining", "split"):
        assert words.lower() in rules.lower(), words
    assert 'class="pcard red' in rules and "♥" in rules  # card pictures, drawn in HTML
    assert "<img" not in rules  # no images, let alone foreign ones
    icon = client.get("/favicon.ico")
    assert icon.status_code == 301 and icon["Location"].endswith("img/favicon.svg")


def test_the_rules_are_linked_from_the_lobby_and_the_table_and_the_icon_is_served(client: Client) -> None:
    from tests.tables.conftest import make_table

    table = make_table()
    client.force_login(User.objects.create_user("ravi", password="rummy-ravi-2026"))
    for url in (reverse("lobby"), reverse("table", args=[table.pk])):
        page = client.get(url).content.decode()
        assert f'href="{reverse("rules")}"' in page, url
        assert 'rel="icon" href="/static/img/favicon.svg"' in page
    svg = client.get("/static/img/favicon.svg")
    assert svg.status_code == 200 and b"<svg" in b"".join(svg.streaming_content)
