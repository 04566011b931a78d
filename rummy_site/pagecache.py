"""Pages are personal: no shared cache keeps them, and a browser asks again each time.

A page carries the player's name, chips and a CSRF token, so a proxy must not store it and a
browser must not show a stale copy (a lobby from an hour ago after a phone wakes). Django sets
no ``Cache-Control`` on a page, and browsers then guess a freshness from ``Last-Modified`` or
nothing. Static files and API answers keep their own headers.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control


class PageCacheControlMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Cache-Control" not in response and response.get("Content-Type", "").startswith("text/html"):
            patch_cache_control(response, private=True, no_cache=True)
        return response
