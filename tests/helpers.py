"""Helpers shared by tests of several apps."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from django.conf import settings
from django.test import Client
from django.urls import reverse

from accounts.models import User

ROOT = Path(__file__).resolve().parents[1]


def site_packages() -> list[str]:
    """The site's own top-level packages, as pyproject.toml installs them (a sub-package such as
    ``tables.game`` is in its parent's folder)."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        return [p for p in tomllib.load(f)["tool"]["setuptools"]["packages"] if "." not in p]


def session_cookie(user: User) -> str:
    """A ``Cookie`` header value that logs ``user`` in, for WebSocket clients."""
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def card_lists(value: Any) -> list[list[str]]:
    """Every list of strings inside a JSON value: where a leaked hand would hide."""
    found: list[list[str]] = []
    if isinstance(value, dict):
        for item in value.values():
            found += card_lists(item)
    elif isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            found.append(value)
        for item in value:
            found += card_lists(item)
    return found


def confirmation_link(address: str) -> str:
    """The path of the newest confirmation link mailed to ``address`` (``django.core.mail.outbox``)."""
    from django.core import mail

    for message in reversed(mail.outbox):
        if address in message.to:
            found = re.search(r"https?://[^/\s]+(/accounts/confirm/[^\s]+/)", message.body)
            assert found, message.body
            return found.group(1)
    raise AssertionError(f"no mail to {address} among {[m.to for m in mail.outbox]}")


def follow_confirmation_link(client: Client, address: str) -> str:
    """Open the mailed link as the player does; the confirmation page's text."""
    response = client.get(confirmation_link(address))
    assert response.status_code == 200, response.content.decode()[:2000]
    return response.content.decode()


def sign_up(username: str) -> User:
    """The sign-up form, from one address, and the link of the mail it sends followed."""
    client = Client(REMOTE_ADDR="203.0.113.7")
    response = client.post(
        reverse("signup"),
        {
            "username": username,
            "email": f"{username}@example.com",
            "confirm_age": "on",
            "accept_terms": "on",
            "password1": "a-Strong-pass-9876",
            "password2": "a-Strong-pass-9876",
        },
    )
    assert response.status_code == 302, response.content.decode()[:500]
    follow_confirmation_link(client, f"{username}@example.com")
    return User.objects.get(username=username)
