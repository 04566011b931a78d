"""How many accounts one address may sign up a day (``SIGNUPS_PER_ADDRESS_PER_DAY``).

Counted in Django's cache: Redis when ``REDIS_URL`` is set (shared by every
process), else the process's memory. The address is ``REMOTE_ADDR``: behind a
proxy, Daphne runs with ``--proxy-headers`` so that it is the client's.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils import timezone

_DAY = 24 * 3600


def _key(request: HttpRequest) -> str:
    return f"signups:{request.META.get('REMOTE_ADDR', '')}:{timezone.now().date().isoformat()}"


def signup_allowed(request: HttpRequest) -> bool:
    """Whether this address may sign up one more account today."""
    return int(cache.get(_key(request), 0)) < settings.SIGNUPS_PER_ADDRESS_PER_DAY


def count_signup(request: HttpRequest) -> None:
    key = _key(request)
    cache.add(key, 0, timeout=_DAY)
    try:
        cache.incr(key)
    except ValueError:  # expired in between
        cache.set(key, 1, timeout=_DAY)
