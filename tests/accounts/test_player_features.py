"""Player features of issue 14 as players use them: sign-up, password reset by e-mail,
responsible-play limits and self-exclusion, profile statistics."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import limits, play
from accounts.models import PlayLimit, SelfExclusion, User
from tables.models import PoolGame
from tests.tables.conftest import make_player, make_table
from wallet.selectors import wallet_balance

pytestmark = pytest.mark.django_db
SIGNUP = {
    "username": "meera",
    "display_name": "Meera",
    "email": "meera@example.com",
    "password1": "s3cret-Pass-99",
    "password2": "s3cret-Pass-99",
}


def _logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_signup_needs_an_email_age_18_and_the_terms(client: Client) -> None:
    page = client.get(reverse("signup")).content.decode()
    assert 'href="/accounts/terms/"' in page and 'href="/accounts/privacy/"' in page
    for missing in ("email", "confirm_age", "accept_terms"):
        data = {**SIGNUP, "confirm_age": "on", "accept_terms": "on"}
        data.pop(missing)
        response = client.post(reverse("signup"), data)
        assert response.status_code == 200 and response.context["form"].errors[missing]
        assert not User.objects.filter(username="meera").exists()
    response = client.post(reverse("signup"), {**SIGNUP, "confirm_age": "on", "accept_terms": "on"})
    assert response.status_code == 302
    user = User.objects.get(username="meera")
    assert user.email == "meera@example.com" and user.age_confirmed_at and user.terms_accepted_at
    assert (
        client.get(reverse("terms")).status_code == 200 and client.get(reverse("privacy")).status_code == 200
    )


def test_password_reset_mail_goes_out_and_its_link_works_once(client: Client) -> None:
    user = User.objects.create_user("ravi", email="ravi@example.com", password="old-Pass-2026")
    response = client.post(reverse("password_reset"), {"email": "ravi@example.com"})
    assert response.status_code == 302 and len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ravi@example.com"] and "Pool Rummy" in message.subject
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/\S+/)", message.body).group(1)
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200 and form_page.context["validlink"]
    set_url = form_page.redirect_chain[-1][0] if form_page.redirect_chain else link
    done = client.post(set_url, {"new_password1": "new-Pass-2026!", "new_password2": "new-Pass-2026!"})
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    user.refresh_from_db()
    assert user.check_password("new-Pass-2026!")
    # the same link again: refused, and the password stays
    again = Client().get(link, follow=True)
    assert not again.context["validlink"] and "no longer works" in again.content.decode()
    assert (
        Client().post(reverse("login"), {"username": "ravi", "password": "new-Pass-2026!"}).status_code == 302
    )


def test_password_change_with_djangos_view() -> None:
    user = User.objects.create_user("ravi", password="old-Pass-2026")
    client = _logged_in(user)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "old-Pass-2026",
            "new_password1": "new-Pass-2026!",
            "new_password2": "new-Pass-2026!",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("new-Pass-2026!")


def test_a_spend_limit_refuses_a_join_with_a_clear_message_through_the_join_the_page_uses() -> None:
    asha = make_player("asha", chips=100)
    client = _logged_in(asha)
    response = client.post(reverse("profile-limits"), {"spend": "15", "time": ""})
    assert response.status_code == 302
    assert limits.current_limit(asha, PlayLimit.Kind.SPEND) == 15_00  # a first limit applies at once
    first, second = make_table(fee=10_00), make_table(fee=10_00)
    assert client.post(f"/tables/{first.pk}/join/").status_code == 302
    page = client.post(f"/tables/{second.pk}/join/", follow=True).content.decode()
    assert "would pass your daily limit of ₹15.00 on entry fees (spent today: ₹10.00)" in page
    assert not second.games.filter(seats__user=asha).exists()
    assert wallet_balance(user=asha) == 90_00
    api = client.post(f"/api/tables/{second.pk}/join/")
    assert api.status_code == 409 and api.json()["code"] == "limit_reached"
    # leaving refunds, so the fee no longer counts
    client.post(f"/tables/{first.pk}/leave/")
    assert client.post(f"/api/tables/{second.pk}/join/").status_code == 201


def test_raising_a_limit_waits_24_hours_and_lowering_applies_at_once() -> None:
    asha = make_player("asha")
    now = timezone.now()
    limits.set_limit(user=asha, kind=PlayLimit.Kind.TIME, value=60, now=now)
    limits.set_limit(user=asha, kind=PlayLimit.Kind.TIME, value=120, now=now)  # a raise
    assert limits.current_limit(asha, PlayLimit.Kind.TIME, now=now) == 60
    assert limits.current_limit(asha, PlayLimit.Kind.TIME, now=now + timedelta(hours=23)) == 60
    assert limits.current_limit(asha, PlayLimit.Kind.TIME, now=now + timedelta(hours=24, seconds=1)) == 120
    # lowering applies at once, and replaces the raise still waiting
    limits.set_limit(user=asha, kind=PlayLimit.Kind.TIME, value=30, now=now + timedelta(hours=1))
    assert limits.current_limit(asha, PlayLimit.Kind.TIME, now=now + timedelta(hours=1)) == 30
    assert limits.current_limit(asha, PlayLimit.Kind.TIME, now=now + timedelta(hours=30)) == 30
    # removing a limit is a raise too
    limits.set_limit(user=asha, kind=PlayLimit.Kind.TIME, value=None, now=now + timedelta(hours=2))
    assert limits.current_limit(asha, PlayLimit.Kind.TIME, now=now + timedelta(hours=3)) == 30
    assert limits.current_limit(asha, PlayLimit.Kind.TIME, now=now + timedelta(hours=27)) is None


def test_a_play_time_limit_refuses_a_join(monkeypatch: pytest.MonkeyPatch) -> None:
    # "today" began 12 hours ago, whatever the time of the run
    monkeypatch.setattr(limits, "day_start", lambda now=None: (now or timezone.now()) - timedelta(hours=12))
    asha, ravi = make_player("asha"), make_player("ravi")
    table = make_table(fee=100, seats=2)
    for user in (asha, ravi):
        _logged_in(user).post(f"/tables/{table.pk}/join/")
    game = table.games.get()
    PoolGame.objects.filter(pk=game.pk).update(started_at=timezone.now() - timedelta(minutes=45))
    client = _logged_in(asha)
    client.post(reverse("profile-limits"), {"spend": "", "time": "30"})
    other = make_table(fee=100)
    page = client.post(f"/tables/{other.pk}/join/", follow=True).content.decode()
    assert "you have played 45 minutes today, your daily limit is 30 minutes" in page
    assert not other.games.exists()


def test_self_exclusion_refuses_joins_and_cannot_be_lifted_early() -> None:
    asha = make_player("asha")
    client = _logged_in(asha)
    response = client.post(reverse("profile-break"), {"period": "7d", "confirm": "on"})
    assert response.status_code == 302
    table = make_table(fee=100)
    page = client.post(f"/tables/{table.pk}/join/", follow=True).content.decode()
    assert "You have taken a break from play until" in page
    assert client.post(f"/api/tables/{table.pk}/join/").json()["code"] == "play_blocked"
    # a shorter break is refused: it would end the current one early
    response = client.post(reverse("profile-break"), {"period": "1d", "confirm": "on"})
    assert response.status_code == 409 and "cannot be shortened or lifted" in response.content.decode()
    assert SelfExclusion.objects.filter(user=asha).count() == 1
    # the confirmation is required
    assert client.post(reverse("profile-break"), {"period": "30d"}).status_code == 400
    # staff cannot delete it in the admin either
    root = User.objects.create_superuser("root", password="x-root-2026")
    exclusion = SelfExclusion.objects.get(user=asha)
    admin = _logged_in(root)
    assert (
        admin.post(
            reverse("admin:accounts_selfexclusion_delete", args=[exclusion.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    assert "taken a break" in admin.get(reverse("admin:accounts_user_changelist")).content.decode()
    # once it has ended, the player may join again
    SelfExclusion.objects.filter(pk=exclusion.pk).update(
        starts_at=timezone.now() - timedelta(days=8), ends_at=timezone.now() - timedelta(days=1)
    )
    assert client.post(f"/api/tables/{table.pk}/join/").status_code == 201


def test_profile_shows_limits_and_statistics() -> None:
    asha = make_player("asha")
    page = _logged_in(asha).get(reverse("profile")).content.decode()
    assert "Responsible play" in page and "Games played" in page and "no limit" in page
    assert "Node" not in page and 'id="play-block"' not in page
    play.self_exclude(user=asha, period="1d")
    page = _logged_in(asha).get(reverse("profile")).content.decode()
    assert 'id="play-block"' in page and "You have taken a break from play until" in page


@pytest.mark.usefixtures("require_postgres")
def test_the_block_check_every_action_runs_is_planned_once_per_connection() -> None:
    """``play.play_block`` runs with every table action: its statement is bound on the server, so
    psycopg prepares it on its connection after a few runs and PostgreSQL stops planning it anew
    (a client-bound statement is new text each time and is never prepared)."""
    from django.db import connection

    user = make_player("asha")
    session = Client()
    session.force_login(user)
    key = session.session.session_key
    for _ in range(6):
        assert play.play_block(user, session_key=key) is None
        assert play.play_block(user) is None
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert sum('FROM "accounts_suspension"' in sql for sql in prepared) == 2, (
        prepared
    )  # with and without the session
    SelfExclusion.objects.create(
        user=user,
        period=SelfExclusion.Period.DAY,
        starts_at=timezone.now() - timedelta(minutes=1),
        ends_at=timezone.now() + timedelta(days=1),
    )
    assert play.play_block(user) is not None  # the prepared statement sees what changed
