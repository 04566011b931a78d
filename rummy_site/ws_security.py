"""The WebSocket handshake's guards: the Origin must be this very site, unknown paths close cleanly.

Channels' ``AllowedHostsOriginValidator`` compares only the host name, so a page
served by another scheme or port of the same host (``https://localhost:4444``)
could open sockets with the player's cookies. Here the Origin must match the
scheme, host and port the socket was opened on, as Django's CSRF check does for
forms: the host from the ``Host`` header (one of ``ALLOWED_HOSTS``), the scheme
``https`` when the socket is ``wss`` (or, with ``SECURE_PROXY_SSL_HEADER`` set, the
proxy says so), else ``http``. ``CSRF_TRUSTED_ORIGINS`` are accepted as well.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.generic.websocket import AsyncWebsocketConsumer
from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

_DEFAULT_PORTS = {"http": 80, "https": 443}
#: The close code of a path no route serves (like an unknown table).
CLOSE_NO_ROUTE = 4404


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value).decode("latin1")
    return None


def _is_secure(scope: dict[str, Any]) -> bool:
    if scope.get("scheme") in ("wss", "https"):
        return True
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy:
        meta_name, expected = proxy
        name = meta_name.removeprefix("HTTP_").lower().replace("_", "-").encode()
        value = _header(scope, name)
        return value is not None and value.split(",")[0].strip() == expected
    return False


def _origin_key(url: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(url.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or _DEFAULT_PORTS[parts.scheme]


def origin_allowed(scope: dict[str, Any]) -> bool:
    """Whether the handshake's ``Origin`` is this site (scheme, host and port), or a trusted origin."""
    origin = _header(scope, b"origin")
    key = _origin_key(origin) if origin else None
    if key is None:
        return False
    if any(_origin_key(trusted) == key for trusted in settings.CSRF_TRUSTED_ORIGINS):
        return True
    scheme = "https" if _is_secure(scope) else "http"
    host = _header(scope, b"host")
    if host is not None:
        domain, port = split_domain_port(host.lower())
        if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
            return False
        return key == (scheme, domain, int(port) if port else _DEFAULT_PORTS[scheme])
    # No Host header (an in-process test client): one of the allowed hosts on the default port.
    return (
        key[0] == scheme
        and key[2] == _DEFAULT_PORTS[scheme]
        and validate_host(key[1], settings.ALLOWED_HOSTS)
    )


class SameOriginValidator:
    """ASGI middleware: refuses the handshake (403) unless ``origin_allowed``."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


class NoRouteConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # Channels ships no types: the base class is Any
    """Any WebSocket path no route serves: closed at once with 4404, instead of a 500 and a traceback."""

    async def connect(self) -> None:
        await self.close(code=CLOSE_NO_ROUTE)
