"""Each HTTP request's latency by view, for ``rummy_http_request_duration_seconds``.

The label is the view's name from the URL resolver (``tables:lobby``,
``admin:tables_poolgame_change``), never the path, so a page per game is one series; a file
WhiteNoise answered is ``static``, a request no URL matched ``unresolved``. Second in
``MIDDLEWARE``, after the request's log line, so the time counted is the same bar that one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from sitemetrics import instruments

_METHODS = frozenset({"GET", "POST", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"})


def view_label(request: HttpRequest) -> str:
    named = getattr(request, "view_label", None)  # a middleware that answered by itself names it
    if named:
        return str(named)
    match = getattr(request, "resolver_match", None)
    if match is not None:
        return match.view_name or match.route or "unnamed"
    if settings.STATIC_URL and request.path.startswith(settings.STATIC_URL):
        return "static"
    return "unresolved"


class HttpMetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        method = request.method if request.method in _METHODS else "other"
        instruments.http_request(
            view_label(request), str(method), response.status_code, time.perf_counter() - started
        )
        return response
