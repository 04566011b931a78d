"""``{% confirm_banner %}``: the lobby's and the wallet's reminder that the sign-up chips wait for a
confirmed address, with its "Send again" button, until the player confirms it."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings

from accounts.services import needs_confirmation

register = template.Library()


@register.inclusion_tag("accounts/_confirm_banner.html", takes_context=True)
def confirm_banner(context: dict[str, Any]) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    show = user is not None and needs_confirmation(user)
    return {
        "show": show,
        "address": getattr(user, "email", "") if show else "",
        "chips": settings.SIGNUP_BONUS_CHIPS,
        "next": request.get_full_path() if request is not None else "",
        "csrf_token": context.get("csrf_token"),
    }
