"""A deadline on every query an admin page runs (issue 39): a page that would read too much is
stopped by PostgreSQL and answered at once with a page saying so (HTTP 503), not left hanging
and not a server error, and it never holds a connection the tables need.

Each admin request sets ``statement_timeout`` to ``ADMIN_STATEMENT_TIMEOUT_MS`` on its connection
and resets it when the response is ready, whatever happened (so a pooled or persistent connection
goes back to the players' requests without it): two statements, no transaction held open while the
page is drawn. A query cancelled by it is answered by ``process_exception``. Other databases have
no such setting, and their requests run as before.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError, OperationalError, connection, transaction
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from staff.timezones import ADMIN_PREFIX

#: PostgreSQL's SQLSTATE for a query cancelled by ``statement_timeout``.
QUERY_CANCELED = "57014"


def timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` is a query cancelled by the statement timeout."""
    cause = exc.__cause__
    return isinstance(exc, OperationalError) and getattr(cause, "sqlstate", None) == QUERY_CANCELED


class AdminQueryDeadlineMiddleware:
    """Admin requests on PostgreSQL: each query held to the deadline."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(ADMIN_PREFIX) or connection.vendor != "postgresql":
            return self.get_response(request)
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, false)", [f"{deadline_ms()}ms"])
        try:
            return self.get_response(request)
        finally:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("RESET statement_timeout")
            except DatabaseError:  # an aborted transaction (a caller's): its rollback undoes the SET
                pass

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not request.path.startswith(ADMIN_PREFIX) or not timed_out(exception):
            return None
        if connection.in_atomic_block:
            transaction.set_rollback(True)  # the cancelled query aborted the transaction it ran in
        # drawn without the database: the request's transaction, if any, is aborted
        body = render_to_string(
            "admin/staff/query_deadline.html",
            {"seconds": deadline_ms() / 1000, "path": request.get_full_path()},
        )
        response = HttpResponse(body, status=503)
        response["Retry-After"] = "60"
        return response


def deadline_ms() -> int:
    return int(settings.ADMIN_STATEMENT_TIMEOUT_MS)
