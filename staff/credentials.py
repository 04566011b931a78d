"""A staff change of an account's e-mail address is held like a password change (docs/staff.md).

``staff.authority`` lets only a superuser change a staff account's address. Any other staff
change of an address (a player's, or a superuser's change of any account) goes through
``accounts.emailchange.hold``, whatever admin page, form or code path saves it: the old address
is told, with a link to object, and no password reset goes to the account for
``EMAIL_CHANGE_RESET_HOLD_HOURS``. django-auditlog records the change itself (the address before
and after); an objection that reverts it is recorded here. The address as it was stored is
read by ``staff.authority``'s guard, which loads the stored row before every staff save anyway.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts import emailchange
from accounts.models import EmailChange, User
from staff import audit


@receiver(post_save, sender=User)
def hold_resets_after_a_staff_change(
    sender: Any, instance: User, created: bool, raw: bool = False, **kwargs: Any
) -> None:
    stored = getattr(instance, "_stored_email", None)
    instance._stored_email = None  # type: ignore[attr-defined]  # an attribute of ours on another library's object
    reverted = getattr(instance, "_email_reverted", False)
    instance._email_reverted = False  # type: ignore[attr-defined]  # an attribute of ours on another library's object
    acting = audit.current()
    if acting is None or raw or created or stored is None or reverted:
        return
    if stored.lower() == (instance.email or "").lower():
        return  # the same mailbox (a change of case at most)
    emailchange.hold(
        user=instance,
        old_email=stored,
        new_email=instance.email,
        changed_by=acting.user,
        origin=acting.origin,
    )


@receiver(emailchange.email_change_reverted)
def record_reverted(
    sender: Any, change: EmailChange, by: User, reason: str, email_before: str, **kwargs: Any
) -> None:
    """The objection in the audit trail, by the owner or the staff member who made it."""
    audit.record(
        staff=by,
        action="revert_email_change",
        target=change.user,
        reason=reason,
        before={"email": email_before},
        after={"email": change.old_email},
        label=f"{change.user} (e-mail change of {change.created_at:%d %b %Y %H:%M} UTC)",
    )
