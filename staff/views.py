"""The staff dashboard, an admin page (``/admin/dashboard/``)."""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from staff.dashboard import figures


def dashboard(request: HttpRequest) -> HttpResponse:
    if not request.user.has_perm("staff.view_dashboard"):
        raise PermissionDenied
    context = {**admin.site.each_context(request), "title": "Dashboard", "d": figures()}
    return TemplateResponse(request, "admin/staff/dashboard.html", context)


dashboard_view = admin.site.admin_view(dashboard)
