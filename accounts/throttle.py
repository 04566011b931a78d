"""A flood guard on sign-ups per address: ``SIGNUPS_PER_ADDRESS_PER_MINUTE`` in a minute, a bot's rate.

An account is never refused for its address alone (issue 37): mobile carriers put thousands of
customers behind one public address (carrier-grade NAT), as do colleges, offices and cafés. What is
farmed is the free chips, and those wait for a confirmed mailbox, one bonus a mailbox
(``accounts.services.confirm_email``). This guard only stops a script from making accounts as fast
as the site answers; a person waits a minute and signs up.

Counted in Django's cache: Redis when ``REDIS_URL`` is set (shared by every process), else the
process's memory. The address is ``REMOTE_ADDR``: behind a proxy, Daphne runs with
``--proxy-headers`` so that it is the client's.

A sign-up reserves its slot before the account is made, with the cache's atomic ``incr`` (Redis
INCR; the local-memory cache holds a lock), and gives it back if the form is refused or the account
cannot be made: so however many sign-ups from one address run at once, at most the limit of them
get a slot in a minute.
"""

from __future__ import annotations

import contextlib

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils import timezone

WINDOW_SECONDS = 60

#: What a refused sign-up is told.
TOO_FAST = "Too many sign-ups from your network in the last minute. Wait a minute and try again."


def _key(request: HttpRequest) -> str:
    minute = int(timezone.now().timestamp()) // WINDOW_SECONDS
    return f"signups:{request.META.get('REMOTE_ADDR', '')}:{minute}"


def reserve_signup(request: HttpRequest) -> str | None:
    """Take one of this address's sign-ups of this minute; the slot's key, or ``None`` if none is left.

    Pass the key to ``release_signup`` unless an account was made with it.
    """
    key = _key(request)
    for _ in range(3):  # the key can expire between the add and the incr: add it again
        cache.add(key, 0, timeout=2 * WINDOW_SECONDS)
        try:
            taken = cache.incr(key)
        except ValueError:
            continue
        if taken <= settings.SIGNUPS_PER_ADDRESS_PER_MINUTE:
            return key
        release_signup(key)  # past the limit: this one is not counted
        return None
    return None


def release_signup(key: str) -> None:
    """Give back a slot that made no account."""
    with contextlib.suppress(ValueError):  # expired meanwhile: nothing to give back
        cache.decr(key)
