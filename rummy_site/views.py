from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static

from rummy_site import health


def healthz(request: HttpRequest) -> JsonResponse:
    """The database, Redis, the Celery worker and beat, each with its state (rummy_site.health);
    503 when any of them is down or away, so a monitor or a load balancer sees it."""
    healthy, checks = health.report()
    return JsonResponse({"ok": healthy, **checks}, status=200 if healthy else 503)


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers ask for /favicon.ico on pages without an icon link (the admin): the site's SVG."""
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


def rules(request: HttpRequest) -> HttpResponse:
    """How to play, with card pictures: open to visitors, linked from the landing page, lobby and table."""
    return render(request, "pages/rules.html")
