"""What every staff page shares: the permissions that guard its actions, and the context its
own templates are rendered with."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

CANCEL = "staff.cancel_game"
CLOSE = "staff.close_table"
SUSPEND = "accounts.suspend_player"
APPROVE = "staff.approve_adjustment"
VIEW_LIVE = "staff.view_live_hands"


def page_context(model_admin: admin.ModelAdmin, request: HttpRequest, **extra: Any) -> dict[str, Any]:  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    return {**model_admin.admin_site.each_context(request), "opts": model_admin.model._meta, **extra}
