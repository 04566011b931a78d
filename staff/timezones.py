"""The operator's time zone (``OPERATOR_TIME_ZONE``) on every staff page, named where times show.

The site keeps UTC (``TIME_ZONE``) for storage, players and Celery; the admin's pages are read by
the operator's staff, so each admin request runs in their zone (``OperatorTimeZoneMiddleware``):
Django's templates and the admin's list cells turn aware times into the active zone. A time is
only readable with its zone, so pages name it (``time_zone_label``, a context processor)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

ADMIN_PREFIX = "/admin/"


def operator_zone() -> ZoneInfo:
    """The operator's time zone: their "today" on the dashboard, the days of the rake chart, every
    admin page's times. Players' daily limits keep UTC days (docs/rules.md, accounts.play)."""
    return ZoneInfo(settings.OPERATOR_TIME_ZONE)


def zone_label(at: datetime | None = None) -> str:
    """``IST (Asia/Kolkata, UTC+05:30)``: the zone's abbreviation at ``at`` (now), its name, its offset."""
    local = (at or timezone.now()).astimezone(operator_zone())
    offset = local.strftime("%z")
    return f"{local.tzname()} ({settings.OPERATOR_TIME_ZONE}, UTC{offset[:3]}:{offset[3:]})"


class OperatorTimeZoneMiddleware:
    """Admin requests render their times in the operator's zone; every other request keeps UTC."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(ADMIN_PREFIX):
            return self.get_response(request)
        with timezone.override(operator_zone()):
            return self.get_response(request)


def time_zone_label(request: HttpRequest) -> dict[str, str]:
    """Templates' ``time_zone_label`` on admin pages (the zone their times are in)."""
    if not request.path.startswith(ADMIN_PREFIX):
        return {}
    return {"time_zone_label": zone_label()}
