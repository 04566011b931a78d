"""How many accounts one address may sign up a day (``SIGNUPS_PER_ADDRESS_PER_DAY``).

Counted in Django's cache: Redis when ``REDIS_URL`` is set (shared by every
process), else the process's memory. The address is ``REMOTE_ADDR``: behind a
proxy, Daphne runs with ``--proxy-headers`` so that it is the client's.

A sign-up reserves its slot before the account is made, with the cache's atomic
``incr`` (Redis INCR; the local-memory cache holds a lock), and gives it back if the
form is refused or the account cannot be made: so however many sign-ups from one
address run at once, at most the limit of them get a slot. (Checking the count
before the insert and counting after let 20 parallel sign-ups make 20 accounts.)
"""

from __future__ import annotations

import contextlib

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils import timezone

_DAY = 24 * 3600


def _key(request: HttpRequest) -> str:
    return f"signups:{request.META.get('REMOTE_ADDR', '')}:{timezone.now().date().isoformat()}"


def reserve_signup(request: HttpRequest) -> str | None:
    """Take one of this address's sign-ups for today; the slot's key, or ``None`` if none is left.

    Pass the key to ``release_signup`` unless an account was made with it.
    """
    key = _key(request)
    for _ in range(3):  # the key can expire between the add and the incr: add it again
        cache.add(key, 0, timeout=_DAY)
        try:
            taken = cache.incr(key)
        except ValueError:
            continue
        if taken <= settings.SIGNUPS_PER_ADDRESS_PER_DAY:
            return key
        release_signup(key)  # past the limit: this one is not counted
        return None
    return None


def release_signup(key: str) -> None:
    """Give back a slot that made no account."""
    with contextlib.suppress(ValueError):  # expired meanwhile: nothing to give back
        cache.decr(key)
