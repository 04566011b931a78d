"""Refuse a NUL byte in an address's query string before any view sees it.

PostgreSQL cannot hold a NUL in a string, so a ``?status=%00`` that reaches a query (the
admin's list filters pass their parameters to the ORM as they come) fails inside the
database driver as a server error. No page of the site takes a NUL, so it is refused here,
once, as bad input: a 400 that changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest


class RefuseNulBytesMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if any("\x00" in key or any("\x00" in v for v in values) for key, values in request.GET.lists()):
            return HttpResponseBadRequest("A NUL character is not allowed in the address.")
        return self.get_response(request)
