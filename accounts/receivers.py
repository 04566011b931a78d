"""A suspended or self-excluded player sees why when they log in (issue 14)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from accounts import play


@receiver(user_logged_in)
def say_why_play_is_blocked(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    reason = play.block_reason(user)
    if reason is not None and request is not None and hasattr(request, "_messages"):
        messages.warning(request, reason)
