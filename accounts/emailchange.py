"""The address a password reset goes to is a credential (docs/staff.md).

Whoever reads an account's e-mail address can reset its password through the public "forgot
password" page. So when a staff member changes that address (``staff.credentials`` calls
``hold``), the old address is told, with a signed link to object, and no reset mail goes to the
account for ``EMAIL_CHANGE_RESET_HOLD_HOURS`` (``HeldPasswordResetForm``): the owner has that
long to object before whoever reads the new address could take the account over. An objection
(``revert``: the owner's link, or staff) puts the old address back and ends the hold; the apps
above record it (``email_change_reverted``). A player changing their own address on the profile
is told at the old one too (``tell_own_change``), since a stolen session could do it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.dispatch import Signal
from django.urls import reverse
from django.utils import timezone

from accounts.models import EmailChange, User

#: The salt of the objection links: a signature made for anything else is no objection.
SALT = "accounts.emailchange.object"

#: Sent in the transaction that reverted ``change`` (``by``: the owner or a staff member;
#: ``reason``: in words): the staff app records it in the audit trail.
email_change_reverted = Signal()


class EmailChangeError(Exception):
    """An objection that cannot be carried out, in words for the person who made it."""


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def _when(at: datetime) -> str:
    return f"{at:%d %b %Y %H:%M} UTC"


def _origin(origin: str | None) -> str:
    """The site's address for a link in a mail: the request's, else the first trusted origin."""
    if origin:
        return origin.rstrip("/")
    trusted = list(getattr(settings, "CSRF_TRUSTED_ORIGINS", []) or [])
    if trusted:
        return str(trusted[0]).rstrip("/")
    hosts = [h for h in settings.ALLOWED_HOSTS if h and not h.startswith(".") and h != "*"]
    return f"https://{hosts[0]}" if hosts else "http://localhost:8000"


def hold(
    *,
    user: User,
    old_email: str,
    new_email: str,
    changed_by: User,
    origin: str | None = None,
    now: datetime | None = None,
) -> EmailChange:
    """Record a staff member's change of ``user``'s address, hold resets back and (after commit)
    tell the old address, with the link that objects."""
    now = _now(now)
    change = EmailChange.objects.create(
        user=user,
        old_email=old_email or "",
        new_email=new_email or "",
        changed_by=changed_by,
        created_at=now,
        held_until=now + timedelta(hours=settings.EMAIL_CHANGE_RESET_HOLD_HOURS),
    )
    if old_email:
        link = _origin(origin) + reverse("email_change_object", args=[objection_token(change)])
        transaction.on_commit(lambda: _tell_old_address(change, link))
    return change


def _tell_old_address(change: EmailChange, link: str) -> None:
    hours = settings.EMAIL_CHANGE_RESET_HOLD_HOURS
    send_mail(
        "Pool Rummy: the e-mail address of your account was changed",
        f"Hello {change.user.get_username()},\n\n"
        f"On {_when(change.created_at)} a member of the Pool Rummy staff changed the e-mail address "
        f"of your account from {change.old_email} to {change.new_email or '(none)'}.\n\n"
        f"For {hours} hours, until {_when(change.held_until)}, no password reset link is sent "
        "to the new address.\n\n"
        "If you did not ask for this, keep your address (the link works until then):\n\n"
        f"{link}\n\n"
        "If you asked for it, there is nothing to do.\n",
        None,
        [change.old_email],
    )


def tell_own_change(*, user: User, old_email: str) -> None:
    """A player changed their own address: the old one is told (after commit)."""
    if not old_email or old_email.lower() == (user.email or "").lower():
        return
    when, new = _when(timezone.now()), user.email or "(none)"
    transaction.on_commit(
        lambda: send_mail(
            "Pool Rummy: the e-mail address of your account was changed",
            f"Hello {user.get_username()},\n\n"
            f"On {when} the e-mail address of your account was changed, on your profile, "
            f"from {old_email} to {new}.\n\n"
            "If that was not you, change your password and write to support at once.\n",
            None,
            [old_email],
        )
    )


def objection_token(change: EmailChange) -> str:
    """The signed token of the old address's link (Django's signing, with the site's key)."""
    return signing.dumps({"change": change.pk, "old": change.old_email}, salt=SALT)


def change_for_token(token: str) -> EmailChange | None:
    """The change a token objects to, or None for a forged or altered token."""
    try:
        data = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        return None
    change_id = data.get("change") if isinstance(data, dict) else None
    change = (
        EmailChange.objects.select_related("user").filter(pk=change_id).first()
        if change_id is not None
        else None
    )
    if change is None or change.old_email != data.get("old"):
        return None
    return change


def held_user_ids(user_ids: Iterable[int], *, now: datetime | None = None) -> set[int]:
    """Which of ``user_ids`` no reset mail goes to now (a staff change of their address is held)."""
    return set(
        EmailChange.objects.filter(
            user_id__in=list(user_ids), reverted_at__isnull=True, held_until__gt=_now(now)
        ).values_list("user_id", flat=True)
    )


def revert(change: EmailChange, *, by: User, reason: str, now: datetime | None = None) -> EmailChange:
    """Put the old address back and end the hold of ``change`` and of every later change of that
    account's address; ``email_change_reverted`` is sent in the transaction."""
    now = _now(now)
    with transaction.atomic():
        change = EmailChange.objects.select_for_update().get(pk=change.pk)
        if change.reverted_at is not None:
            raise EmailChangeError("This change was already undone.")
        user = User.objects.select_for_update().get(pk=change.user_id)
        before = user.email
        if (
            change.old_email
            and User.objects.filter(email__iexact=change.old_email).exclude(pk=user.pk).exists()
        ):
            raise EmailChangeError("Another account uses the old address now; write to support.")
        EmailChange.objects.filter(
            user=user, reverted_at__isnull=True, created_at__gte=change.created_at
        ).update(reverted_at=now, reverted_by=by)
        if user.email != change.old_email:
            user.email = change.old_email
            user._email_reverted = True  # type: ignore[attr-defined]  # not a new change to hold
            user.save(update_fields=["email"])
        change.refresh_from_db()
        email_change_reverted.send(
            sender=EmailChange, change=change, by=by, reason=reason, email_before=before
        )
    return change


class HeldPasswordResetForm(PasswordResetForm):
    """Django's reset form, that sends nothing to an account while a staff change of its address
    is held; the page after it says the same neutral words either way (no account enumeration)."""

    def get_users(self, email: str) -> Any:
        users = list(super().get_users(email))
        held = held_user_ids(u.pk for u in users)
        return (u for u in users if u.pk not in held)
