"""Helpers shared by tests of several apps."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.test import Client

from accounts.models import User


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
