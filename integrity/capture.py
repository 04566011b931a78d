"""Where each sign-up and log-in came from (docs/integrity.md, "What is kept").

``DeviceCookieMiddleware`` gives every browser a long-lived random cookie (``DEVICE_COOKIE``),
the site's own device identifier. At a sign-up (``accounts.signals.signed_up``) and a log-in
(``user_logged_in``) one ``SignInEvent`` keeps the address (``REMOTE_ADDR``: Daphne runs with
``--proxy-headers`` behind nginx, so it is the client's), a keyed hash of the cookie and the
browser's user agent; and an account whose device was seen on another account is linked to it
at once, so that the two never meet at a table (``integrity.seating``).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.crypto import salted_hmac

from accounts.models import User
from accounts.signals import signed_up
from integrity import links, seating
from integrity.emails import email_key
from integrity.models import AccountLink, EmailKey, PlayerWarning, SignInEvent

DEVICE_COOKIE = "rdev"
#: 400 days: the longest a browser keeps a cookie (Chrome's cap).
DEVICE_COOKIE_AGE = 400 * 24 * 3600
_VALID = re.compile(r"^[A-Za-z0-9_-]{20,64}$")


def device_hash(value: str) -> str:
    """The cookie as stored: a keyed hash, so the table holds nothing that could be replayed."""
    return salted_hmac("integrity.device", value).hexdigest()


class DeviceCookieMiddleware:
    """Sets the device cookie where it is missing; ``request.device_id`` is its value."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        value = request.COOKIES.get(DEVICE_COOKIE, "")
        new = not _VALID.match(value)
        if new:
            value = secrets.token_urlsafe(24)
        request.device_id = value  # type: ignore[attr-defined]  # an attribute of ours on another library's object
        response: HttpResponse = self.get_response(request)
        if new:
            response.set_cookie(
                DEVICE_COOKIE,
                value,
                max_age=DEVICE_COOKIE_AGE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response


def record(request: HttpRequest, user: User, kind: str) -> SignInEvent | None:
    """Keep one sign-in event and link the account to any other seen on the same device."""
    if getattr(user, "is_bot", False):
        return None
    value = getattr(request, "device_id", "") or request.COOKIES.get(DEVICE_COOKIE, "")
    device = device_hash(value) if _VALID.match(value or "") else ""
    event = SignInEvent.objects.create(
        user=user,
        kind=kind,
        at=timezone.now(),
        address=request.META.get("REMOTE_ADDR") or None,
        device=device,
        user_agent=(request.META.get("HTTP_USER_AGENT") or "")[:300],
    )
    if device:
        others = (
            SignInEvent.objects.filter(device=device)
            .exclude(user=user)
            .values_list("user_id", flat=True)
            .distinct()[:50]
        )
        for other in list(others):
            row, _ = links.link(
                user.pk,
                other,
                source=AccountLink.Source.DEVICE,
                evidence=f"both signed in from one device ({kind} of {user.username}, {event.at:%Y-%m-%d})",
            )
            # sent away from a waiting table by this link (integrity.seating): told on the next page
            for user_id, table_name in getattr(row, "parted", ()):
                if user_id == user.pk and hasattr(request, "_messages"):
                    messages.warning(request, seating.sent_away(table_name))
    return event


@receiver(signed_up)
def capture_signup(sender: Any, user: User, request: HttpRequest, **kwargs: Any) -> None:
    record(request, user, SignInEvent.Kind.SIGNUP)
    request._integrity_signup = True  # type: ignore[attr-defined]  # its log-in is the sign-up


@receiver(user_logged_in)
def capture_login(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if request is None or getattr(request, "_integrity_signup", False):
        return
    record(request, user, SignInEvent.Kind.LOGIN)
    _show_warnings(request, user)


def _show_warnings(request: Any, user: Any) -> None:
    """A warning staff decided on after a review is shown once, at the next log-in."""
    pending = list(PlayerWarning.objects.filter(user=user, shown_at__isnull=True))
    if not pending or not hasattr(request, "_messages"):
        return
    for warning in pending:
        messages.warning(request, warning.message)
    PlayerWarning.objects.filter(pk__in=[w.pk for w in pending]).update(shown_at=timezone.now())


@receiver(post_save, sender=User)
def link_same_email(
    sender: Any, instance: User, created: bool, update_fields: Any = None, **kwargs: Any
) -> None:
    """Keep the account's e-mail key and link it to every other account with the same key."""
    if instance.is_bot or (update_fields is not None and "email" not in update_fields):
        return
    key = email_key(instance.email)
    row = EmailKey.objects.filter(user=instance).first()
    if row is not None and row.key == key:
        return
    if not key:
        if row is not None:
            row.delete()
        return
    EmailKey.objects.update_or_create(user=instance, defaults={"key": key})
    others = EmailKey.objects.filter(key=key).exclude(user_id=instance.pk).values_list("user_id", flat=True)
    for other in list(others[:50]):
        links.link(
            instance.pk,
            other,
            source=AccountLink.Source.EMAIL,
            evidence="the same e-mail address once written alike (case, dots, +tag)",
        )
