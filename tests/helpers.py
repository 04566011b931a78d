"""Helpers shared by tests of several apps."""

from __future__ import annotations

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
