from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for the proxy: the process answers and the database is reachable."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True, "database": connection.vendor})


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers ask for /favicon.ico on pages without an icon link (the admin): the site's SVG."""
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


def rules(request: HttpRequest) -> HttpResponse:
    """How to play, with card pictures: open to visitors, linked from the landing page, lobby and table."""
    return render(request, "pages/rules.html")
