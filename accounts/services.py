"""Account use cases: confirming an e-mail address, which earns the sign-up bonus once per mailbox."""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.dispatch import Signal
from django.template.loader import render_to_string

from accounts.emails import email_key
from accounts.models import BonusMailbox, User

log = logging.getLogger(__name__)

#: Sent in the transaction that recorded the first confirmed address of a mailbox (``user``): the
#: wallet grants the sign-up bonus (``wallet.receivers``). Accounts imports no app above it; they listen.
signup_bonus_earned = Signal()

_SALT = "accounts.confirm-email"
#: A resend waits this long after the last mail, so the button cannot flood a mailbox.
RESEND_SECONDS = 60


class Confirmed(StrEnum):
    """What confirming an address earned."""

    BONUS = "bonus"  # this confirmation earned the account its sign-up bonus
    HAD_BONUS = "had_bonus"  # the account earned it before (a second click, or a changed address)
    MAILBOX_HAD_BONUS = "mailbox_had_bonus"  # another account on the same mailbox earned it


class ConfirmationRefused(Exception):
    """A confirmation link that confirms nothing; the message says why and what to do."""


def confirmation_token(user: User) -> str:
    """A signed token for the account's current address; it expires (``EMAIL_CONFIRM_DAYS``) and is
    worthless once the address changes, so only the mailbox it was sent to can use it."""
    return str(signing.dumps({"u": user.pk, "e": user.email.lower()}, salt=_SALT, compress=True))


def needs_confirmation(user: Any) -> bool:
    """Whether the player still has a sign-up bonus to earn by confirming their address."""
    return bool(
        getattr(user, "is_authenticated", False)
        and user.email
        and not user.is_bot
        and not user.email_confirmed
        and not BonusMailbox.objects.filter(user_id=user.pk).exists()
    )


def send_confirmation(*, user: User, link: str) -> bool:
    """Mail ``link`` (the confirmation page of ``confirmation_token``) to the account's address.

    False, and no mail, when one went out less than ``RESEND_SECONDS`` ago or the mail server
    refused it (logged): the player is told to try again.
    """
    if not cache.add(f"confirm-mail:{user.pk}", 1, timeout=RESEND_SECONDS):
        return False
    context = {
        "user": user,
        "link": link,
        "chips": settings.SIGNUP_BONUS_CHIPS,
        "days": settings.EMAIL_CONFIRM_DAYS,
    }
    try:
        send_mail(
            "Confirm your e-mail address for Pool Rummy",
            render_to_string("registration/confirm_email.txt", context),
            None,
            [user.email],
        )
    except Exception:
        log.exception("the confirmation mail to account %s was not sent", user.pk)
        cache.delete(f"confirm-mail:{user.pk}")
        return False
    return True


def confirm_by_token(token: str) -> tuple[User, Confirmed]:
    """The account a link confirms, and what that earned; ``ConfirmationRefused`` for a link that is
    forged, expired, or for an address the account no longer uses."""
    try:
        data = signing.loads(token, salt=_SALT, max_age=settings.EMAIL_CONFIRM_DAYS * 24 * 3600)
    except signing.SignatureExpired:
        raise ConfirmationRefused(
            "This confirmation link has expired. Log in and press “Send again” for a new one."
        ) from None
    except signing.BadSignature:
        raise ConfirmationRefused(
            "This confirmation link is not valid. Use the newest mail we sent you."
        ) from None
    user_id = data.get("u") if isinstance(data, dict) else None
    user = User.objects.filter(pk=user_id).first() if user_id is not None else None
    if user is None or not isinstance(data.get("e"), str):
        raise ConfirmationRefused("This confirmation link is not valid. Use the newest mail we sent you.")
    return user, confirm_email(user=user, address=data["e"])


def confirm_email(*, user: User, address: str) -> Confirmed:
    """Record that the account's owner reads ``address`` (its current address), and grant the
    sign-up bonus if neither this account nor any account on the same mailbox earned one.

    Idempotent: the account's row is locked, and the unique mailbox key and account of
    ``BonusMailbox`` make a second click, a second account on the mailbox or two confirmations at
    once earn nothing more. Used by the link and by operators' scripts (the demo data).
    """
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        key = email_key(address)
        if not key or locked.email.lower() != address.lower():
            raise ConfirmationRefused(
                "This link is for an address your account no longer uses. Log in and press “Send again” "
                "to confirm the address in your profile."
            )
        if locked.confirmed_email != locked.email:
            locked.confirmed_email = locked.email
            locked.save(update_fields=["confirmed_email"])
        user.confirmed_email = locked.confirmed_email
        if BonusMailbox.objects.filter(user=locked).exists():
            return Confirmed.HAD_BONUS
        try:
            with transaction.atomic():
                BonusMailbox.objects.create(key=key, user=locked)
        except IntegrityError:  # another account's confirmation of this mailbox came first
            return Confirmed.MAILBOX_HAD_BONUS
        signup_bonus_earned.send(sender=User, user=locked)
    return Confirmed.BONUS
