"""Whether a socket's session still logs its user in, as Django would answer an HTTP request.

A socket opened with a session has no cookie to follow it: logged out elsewhere, or its password
changed, the session no longer logs the user in, and the socket's next action must be refused
(``accounts.play.play_block``). The answer is Django's own ``auth.get_user`` on the session's
stored data: its backends, its hash of the password, its fallback keys.
"""

from __future__ import annotations

import functools
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib import auth
from django.contrib.sessions.backends.base import SessionBase
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest

from accounts.models import User


def session_store() -> Any:
    """The session engine's store class (``SESSION_ENGINE``)."""
    return import_module(settings.SESSION_ENGINE).SessionStore


def session_logs_in(user: User, row: dict[str, Any], session_key: str) -> bool:
    """Whether the session would log ``user`` in now, as it would an HTTP request; ``row`` is the
    user's row as ``play.BlockQuery`` read it (``password``, and ``session_data`` when the sessions
    are rows of the database)."""
    if "session_data" in row:
        return _session_data_logs_in(user.pk, row["password"], row["session_data"] or "", _site())
    # a session engine without rows (cache, files): ask it
    return _logs_in(session_store()(session_key=session_key).load(), user.pk)


@functools.cache
def _site() -> tuple[str | bytes, ...]:
    """What a session's answer depends on besides its data: the signing keys and the backends."""
    return (settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS, "|", *settings.AUTHENTICATION_BACKENDS)


@receiver(setting_changed)
def _site_changed(*, setting: str, **kwargs: Any) -> None:
    if setting in {"SECRET_KEY", "SECRET_KEY_FALLBACKS", "AUTHENTICATION_BACKENDS"}:
        _site.cache_clear()


@functools.lru_cache(maxsize=4096)
def _session_data_logs_in(user_id: int, password: str, data: str, site: tuple[str | bytes, ...]) -> bool:
    """``_logs_in`` of a session's stored data. The answer is kept for the same data, password hash
    (the user's row, read with the block) and ``site`` (its keys and its authentication backends):
    a socket asks again with its every action, and Django's answer costs a query, a signature and
    two HMACs."""
    return _logs_in(session_store()().decode(data) if data else {}, user_id)


def _logs_in(data: dict[str, Any], user_id: int) -> bool:
    """Whether a request carrying a session of ``data`` is logged in as ``user_id``: Django's own
    ``auth.get_user`` answers (its backend, its hash of the password, its fallback keys), on a
    session that keeps what that call would change: a socket has no cookie to take a new key, and
    the page's session is not its to end."""
    request = HttpRequest()
    request.session = _HeldSession(data)
    return auth.get_user(request).pk == user_id


class _HeldSession(SessionBase):
    """A session's data as a request carries it, which nothing here saves, renews or deletes."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__()
        self._session_cache = dict(data)

    def load(self) -> dict[str, Any]:
        return self._session_cache

    def exists(self, session_key: str) -> bool:
        return False

    def create(self) -> None:
        return None

    def save(self, must_create: bool = False) -> None:
        return None

    def delete(self, session_key: str | None = None) -> None:
        return None
