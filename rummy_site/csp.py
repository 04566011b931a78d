"""The site's Content-Security-Policy (django-csp), plus the WebSocket origin of the page's own host.

The policy itself is ``CONTENT_SECURITY_POLICY`` in the settings: no inline script but the one
a page's nonce allows, no foreign origin. ``connect-src 'self'`` covers ``ws:``/``wss:`` of the same host in
CSP level 3 browsers only, so the page's own ``ws://host`` and ``wss://host`` are
added per request, from the host Django already validated against ``ALLOWED_HOSTS``.
"""

from __future__ import annotations

from typing import Any

from csp.middleware import CSPMiddleware, PolicyParts
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase


class SiteCSPMiddleware(CSPMiddleware):
    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        try:
            host = request.get_host()
        except DisallowedHost:
            return parts
        update: dict[str, Any] = dict(parts.update or {})
        sockets = [f"ws://{host}", f"wss://{host}"]
        extra = update.get("connect-src") or []
        update["connect-src"] = [*([extra] if isinstance(extra, str) else extra), *sockets]
        parts.update = update
        return parts
