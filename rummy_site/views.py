from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for the proxy: the process answers and the database is reachable."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True, "database": connection.vendor})
