"""One log line for each HTTP request, with its request id, user, status and latency.

``RequestLogMiddleware`` (first in ``MIDDLEWARE``) takes the request id from an incoming
``X-Request-ID`` when it is well formed (a proxy's, a client's), makes one otherwise, binds it
for every line written while the request is served (``sitelog.context``) and sends it back in
the response's ``X-Request-ID``. The user's id is bound as a function that reads it once
authentication has looked the user up (a view that never reads the user costs no query for it).

A refused request (400, 403, 404, 429...) is that one line too. Django logs each of them a
second time on ``django.request`` (or ``django.security`` for a suspicious one), and a 403 from
``PermissionDenied`` with the whole traceback, since ``log_response`` passes the exception as
``exc_info``. ``RefusalFilter`` drops those records for requests this middleware logs, keeping
their text as the line's ``reason``. Server errors (5xx) keep Django's record with its traceback.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.functional import empty

from sitelog import context

logger = logging.getLogger("rummy_site.requests")

HEADER = "X-Request-ID"
_LOGGED = "_sitelog_logged"  # set on a request this middleware will log
_REASON = "_sitelog_reason"
_NOTES = "_sitelog_notes"
#: The request being served, for ``RefusalFilter`` (django-axes' records do not carry it).
_current_request: ContextVar[HttpRequest | None] = ContextVar("sitelog_request", default=None)


class RequestLogMiddleware:
    """Binds the request id, answers with it, and logs the request once it is answered."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        request_id = context.request_id_from(request.META.get("HTTP_X_REQUEST_ID"))
        request.request_id = request_id  # type: ignore[attr-defined]  # an attribute of ours on another library's object
        setattr(request, _LOGGED, True)
        setattr(request, _NOTES, [])
        previous, serving = context.snapshot(), _current_request.get()
        _current_request.set(request)
        # the user's id once authentication has looked them up: binding it costs no query
        context.bind(request_id=request_id, user_id=lambda: _resolved_user_id(request))
        try:
            response = self.get_response(request)
            response[HEADER] = request_id
            _log(request, response.status_code, started)
            return response
        finally:
            context.restore(previous)
            _current_request.set(serving)


def _log(request: HttpRequest, status: int, started: float) -> None:
    fields: dict[str, Any] = {
        "client": _client(request),
        "method": request.method,
        "path": request.path,
        "status": status,
        "latency_ms": round((time.perf_counter() - started) * 1000, 2),
    }
    reason = getattr(request, _REASON, None)
    if reason:
        fields["reason"] = reason
    level = logging.ERROR if status >= 500 else logging.WARNING if status >= 400 else logging.INFO
    notes = getattr(request, _NOTES, ())
    if notes:
        fields["notes"] = [message for _, message in notes]
        level = max(level, *(noted for noted, _ in notes))
    logger.log(level, "%s %s %s", request.method, request.path, status, extra=fields)


def _client(request: HttpRequest) -> str:
    """The peer as Daphne saw it, ``address:port`` (with ``--proxy-headers``, the proxy's
    ``X-Forwarded-For``, port 0)."""
    address, port = request.META.get("REMOTE_ADDR", ""), request.META.get("REMOTE_PORT")
    return f"{address}:{port}" if port is not None else address


def _resolved_user_id(request: HttpRequest) -> int | None:
    """The user's id when authentication already looked them up: the line costs no query."""
    user = getattr(request, "user", None)
    wrapped = getattr(user, "_wrapped", user)
    if wrapped is None or wrapped is empty:  # a lazy user nobody read
        return None
    return int(wrapped.pk) if getattr(wrapped, "is_authenticated", False) else None


class RefusalFilter(logging.Filter):
    """Folds what Django and django-axes say about a request into its one line (see above).

    Django's own record of a refused request becomes the line's ``reason``. django-axes writes
    three or four lines for each failed log-in, the lock-out's 429 included: its warnings (a
    failure, a lock-out) become the line's ``notes`` (and its level), its informational lines
    (its handler running, its clean-up) are dropped. Outside a request nothing is folded.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("axes."):
            return self._fold_axes(record)
        if not record.name.startswith(("django.request", "django.security")):
            return True
        request = getattr(record, "request", None)
        status = getattr(record, "status_code", None)
        if request is None or not getattr(request, _LOGGED, False) or status is None or status >= 500:
            return True
        reason = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None and str(record.exc_info[1]):
            reason = f"{reason} ({record.exc_info[1]})"
        setattr(request, _REASON, reason)
        return False

    @staticmethod
    def _fold_axes(record: logging.LogRecord) -> bool:
        request = _current_request.get()
        if request is None:
            return True
        if record.levelno >= logging.WARNING:
            getattr(request, _NOTES).append((record.levelno, record.getMessage()))
        return False
