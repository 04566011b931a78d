"""A blocked player sees why when they log in (issue 14); deactivating an account blocks it (issue 23)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from accounts import play
from accounts.models import User


@receiver(user_logged_in)
def say_why_play_is_blocked(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    reason = play.block_reason(user)
    if reason is not None and request is not None and hasattr(request, "_messages"):
        messages.warning(request, reason)


@receiver(pre_save, sender=User)
def note_a_deactivation(sender: Any, instance: User, update_fields: Any = None, **kwargs: Any) -> None:
    """Whether this save turns ``is_active`` from true to false (a query only when it saves it false)."""
    instance._deactivated = bool(
        instance.pk is not None
        and not instance.is_active
        and (update_fields is None or "is_active" in update_fields)
        and User.objects.filter(pk=instance.pk, is_active=True).exists()
    )


@receiver(post_save, sender=User)
def block_a_deactivated_account(sender: Any, instance: User, **kwargs: Any) -> None:
    """From any path (the admin, a script): after commit the player is auto-dropped at their running
    games and their sockets are closed, as for a suspension (``play.announce_block``). Their next
    action is refused anyway (``play.play_block`` reads ``is_active``), should a socket survive."""
    if getattr(instance, "_deactivated", False):
        instance._deactivated = False
        play.announce_block(instance.pk)
