"""Each sign-up and log-in keeps its address, a hash of the site's device cookie and the user
agent; a device or an e-mail address seen on two accounts links them at once."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from integrity.capture import DEVICE_COOKIE, device_hash
from integrity.emails import email_key
from integrity.models import AccountLink, PlayerWarning, SignInEvent

from .conftest import player

pytestmark = pytest.mark.django_db
AGENT = "Mozilla/5.0 (X11; Linux x86_64) TestBrowser/1.0"


def _signup(client: Client, name: str, email: str, addr: str = "203.0.113.7") -> None:
    answer = client.post(
        "/accounts/signup/",
        {
            "username": name,
            "email": email,
            "password1": "a-long-pass-2026!",
            "password2": "a-long-pass-2026!",
            "confirm_age": "on",
            "accept_terms": "on",
        },
        REMOTE_ADDR=addr,
        HTTP_USER_AGENT=AGENT,
    )
    assert answer.status_code == 302, answer.content[:500]


def test_signup_keeps_address_device_and_agent_and_sets_the_cookie():
    client = Client()
    _signup(client, "asha", "asha@example.com")
    cookie = client.cookies[DEVICE_COOKIE].value
    event = SignInEvent.objects.get(user__username="asha")
    assert event.kind == "signup"
    assert event.address == "203.0.113.7"
    assert event.user_agent == AGENT
    assert event.device == device_hash(cookie) and cookie not in event.device
    assert client.cookies[DEVICE_COOKIE]["httponly"]


def test_login_keeps_an_event_of_its_own():
    asha = player("asha")
    client = Client()
    answer = client.post(
        "/accounts/login/",
        {"username": "asha", "password": "x-player-2026"},
        REMOTE_ADDR="198.51.100.4",
        HTTP_USER_AGENT=AGENT,
    )
    assert answer.status_code == 302
    event = SignInEvent.objects.get(user=asha)
    assert (event.kind, event.address, event.user_agent) == ("login", "198.51.100.4", AGENT)
    assert event.device == device_hash(client.cookies[DEVICE_COOKIE].value)


def test_a_second_account_from_the_same_browser_is_linked_to_the_first():
    client = Client()
    _signup(client, "asha", "asha@example.com")
    client.post("/accounts/logout/")
    _signup(client, "asha2", "other@example.com")
    link = AccountLink.objects.get()
    assert {link.user_a.username, link.user_b.username} == {"asha", "asha2"}
    assert link.source == "device" and link.active


def test_another_browser_at_the_same_address_is_not_linked():
    """An address alone is weak evidence: a mobile network puts thousands behind one."""
    _signup(Client(), "asha", "asha@example.com", addr="100.64.0.1")
    _signup(Client(), "ravi", "ravi@example.com", addr="100.64.0.1")
    assert not AccountLink.objects.exists()


def test_the_same_email_written_differently_links_the_accounts():
    assert email_key("Asha.Rao+rummy@GMail.com") == email_key("asharao@googlemail.com") == "asharao@gmail.com"
    assert email_key("a.b+x@Example.com") == "a.b@example.com"
    _signup(Client(), "asha", "asha.rao@gmail.com")
    _signup(Client(), "asha2", "AshaRao+2@gmail.com")
    link = AccountLink.objects.get()
    assert link.source == "email"


def test_a_bot_leaves_no_trace():
    bot = User.objects.create_user(
        "bot-x", is_bot=True, email="asha+bot@example.com"
    )  # the same address once normalised
    player("asha")
    assert (
        not AccountLink.objects.filter(user_a=bot).exists()
        and not AccountLink.objects.filter(user_b=bot).exists()
    )


def test_a_warning_is_shown_once_at_the_next_login(investigator):
    from django.utils import timezone

    from integrity.models import Flag

    asha = player("asha")
    now = timezone.now()
    flag = Flag.objects.create(signal="win_rate", user_a=asha, summary="s", raised_at=now, updated_at=now)
    PlayerWarning.objects.create(user=asha, flag=flag, message="Play fair, please.", created_at=now)
    client = Client()
    answer = client.post("/accounts/login/", {"username": "asha", "password": "x-player-2026"}, follow=True)
    assert "Play fair, please." in answer.content.decode()
    assert PlayerWarning.objects.get().shown_at is not None
