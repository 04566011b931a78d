"""The audit trail of staff actions and wallet adjustments waiting for a second approval."""

from __future__ import annotations

from typing import Any, NoReturn

from django.conf import settings
from django.db import models


class AuditImmutable(Exception):
    """Audit entries are written once and never changed or deleted."""


class _AppendOnlyQuerySet(models.QuerySet):  # type: ignore[type-arg]
    def update(self, **kwargs: Any) -> NoReturn:
        raise AuditImmutable("staff audit entries cannot be changed")

    def delete(self) -> NoReturn:  # type: ignore[override]
        raise AuditImmutable("staff audit entries cannot be deleted")


class StaffAction(models.Model):
    """Who did what, when, to what, why, with the state before and after (issue 14)."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    staff = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    action = models.CharField(max_length=40, db_index=True)
    target = models.CharField(max_length=120, help_text="What was acted on, e.g. game:12, user:7.")
    reason = models.CharField(max_length=300, blank=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)

    objects = _AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = "staff action"
        permissions = [
            ("view_dashboard", "Can see the staff dashboard"),
            ("cancel_game", "Can cancel a game"),
            ("close_table", "Can close and reopen tables, and create tables"),
            ("approve_adjustment", "Can approve another staff member's wallet adjustment"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.staff} {self.action} {self.target}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AuditImmutable("staff audit entries cannot be changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:  # type: ignore[override]
        raise AuditImmutable("staff audit entries cannot be deleted")


class AdjustmentRequest(models.Model):
    """A wallet adjustment above ``ADJUSTMENT_APPROVAL_ABOVE`` waits for a second staff member."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for approval"
        APPROVED = "approved", "Approved and applied"
        REJECTED = "rejected", "Rejected"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField(help_text="Paise: positive credits, negative debits.")
    bonus = models.BooleanField(default=False, help_text="Of the player's bonus chips, not their cash chips.")
    reason = models.CharField(max_length=200)
    idempotency_key = models.CharField(max_length=100, unique=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"adjustment of {self.user} ({self.get_status_display()})"
