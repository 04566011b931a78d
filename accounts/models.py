"""The user: Django's own, plus the name shown at tables."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

#: What a form says when an e-mail address belongs to another account already.
EMAIL_TAKEN = "Another account already uses this e-mail address."


class User(AbstractUser):
    #: Set by ``accounts.receivers`` between a save's pre_save and post_save: whether it deactivates
    #: the account (an annotation only: no column, no default).
    _deactivated: bool

    display_name = models.CharField(
        max_length=24, blank=True, help_text="Shown to other players at the table; the username if blank."
    )

    is_bot = models.BooleanField(default=False, help_text="A practice-table bot, not a person.")

    @property
    def table_name(self) -> str:
        return self.display_name or self.username

    # Set at sign-up (issue 14): the player confirmed being 18 or over and accepted the terms.
    age_confirmed_at = models.DateTimeField(null=True, blank=True)
    terms_accepted_at = models.DateTimeField(null=True, blank=True)

    # The address the player proved to read, by the link mailed to it (issue 37): the sign-up bonus
    # waits for it. A changed ``email`` is unconfirmed until its own link is followed.
    confirmed_email = models.EmailField(blank=True)

    @property
    def email_confirmed(self) -> bool:
        return bool(self.email) and self.confirmed_email.lower() == self.email.lower()

    class Meta(AbstractUser.Meta):
        constraints = [
            # one account per e-mail address, whatever its case (issue 27); accounts without one
            # (bots, staff made on the command line) are not counted
            models.UniqueConstraint(
                Lower("email"),
                condition=~Q(email=""),
                name="accounts_user_email_ci_unique",
                violation_error_message=EMAIL_TAKEN,
            )
        ]
        # the admin's users list: each filter read in its own order, never a scan (issue 39)
        indexes = [
            models.Index(fields=["is_staff", "username"], name="accounts_user_staff_name"),
            models.Index(fields=["is_superuser", "username"], name="accounts_user_super_name"),
            models.Index(fields=["is_active", "username"], name="accounts_user_active_name"),
            models.Index(fields=["date_joined"], name="accounts_user_joined"),
        ]


class Suspension(models.Model):
    """A staff decision that a player may not play, until ``ends_at`` (or until lifted)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="suspensions")
    reason = models.CharField(max_length=200, help_text="Internal note: staff see it, the player never does.")
    message = models.CharField(
        max_length=200, blank=True, help_text="What the player is told when they log in or try to play."
    )
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(null=True, blank=True, help_text="Blank: until lifted.")
    created_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    lift_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-starts_at"]
        permissions = [("suspend_player", "Can suspend a player and lift a suspension")]

    def __str__(self) -> str:
        return f"suspension of {self.user}"

    def in_force(self, now: datetime) -> bool:
        return (
            self.lifted_at is None and self.starts_at <= now and (self.ends_at is None or now < self.ends_at)
        )


class SelfExclusion(models.Model):
    """A player's own break from play; it cannot be shortened or lifted (issue 14)."""

    class Period(models.TextChoices):
        DAY = "1d", "1 day"
        WEEK = "7d", "7 days"
        MONTH = "30d", "30 days"
        HALF_YEAR = "6m", "6 months"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="self_exclusions")
    period = models.CharField(max_length=3, choices=Period.choices)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()

    class Meta:
        ordering = ["-ends_at"]

    def __str__(self) -> str:
        return f"self-exclusion of {self.user} until {self.ends_at:%Y-%m-%d %H:%M} UTC"


class PlayLimit(models.Model):
    """One setting of a responsible-play limit; the newest in effect applies (``accounts.play``).

    ``value`` is paise for ``spend`` (entry fees a day) and minutes for ``time`` (play a day);
    ``None`` means no limit. A raise takes effect 24 hours after it was asked, a cut at once.
    """

    class Kind(models.TextChoices):
        SPEND = "spend", "Daily entry fees"
        TIME = "time", "Daily play time"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="play_limits")
    kind = models.CharField(max_length=5, choices=Kind.choices)
    value = models.BigIntegerField(null=True, blank=True)
    effective_at = models.DateTimeField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-effective_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} limit of {self.user}: {self.value}"


class EmailChange(models.Model):
    """A staff member changed an account's e-mail address (``accounts.emailchange``).

    The address a password reset goes to is a credential: until ``held_until`` no reset mail goes
    to the account, so that the owner, told at ``old_email``, can object before whoever reads
    ``new_email`` could take the account over. An objection sets ``reverted_at``.
    """

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="email_changes")
    old_email = models.EmailField(blank=True)
    new_email = models.EmailField(blank=True)
    changed_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()
    held_until = models.DateTimeField(help_text="No password reset mail goes to the account before this.")
    reverted_at = models.DateTimeField(null=True, blank=True)
    reverted_by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "held_until"], name="accounts_emailchange_hold")]

    def __str__(self) -> str:
        return f"e-mail change of {self.user}"

    def open(self, now: datetime) -> bool:
        """Whether the change still holds resets back (not reverted, hold not over)."""
        return self.reverted_at is None and now < self.held_until


class BonusMailbox(models.Model):
    """The one account whose confirmed address earned a mailbox's sign-up bonus (issue 37).

    ``key`` is the mailbox as the fair-play rules compare addresses (``accounts.emails.email_key``:
    case, ``+tags``, Gmail's dots): its unique constraint keeps a second account on the mailbox, or
    two confirmations at once, from a second bonus; ``user`` is unique too, so an account that
    confirms a new address earns no second one.
    """

    key = models.CharField(max_length=254, unique=True)
    user = models.OneToOneField(User, on_delete=models.PROTECT, related_name="bonus_mailbox")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"sign-up bonus of {self.key}"
