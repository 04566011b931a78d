"""The audit trail of staff actions and wallet adjustments waiting for a second approval."""

from __future__ import annotations

from typing import Any, NoReturn

from auditlog.models import AbstractLogEntry, LogEntryManager
from django.conf import settings
from django.db import models
from django.utils import timezone


class AuditImmutable(Exception):
    """Audit entries are written once and never changed or deleted."""


class _AppendOnlyQuerySet(models.QuerySet):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    def update(self, **kwargs: Any) -> NoReturn:
        raise AuditImmutable(f"{self.model._meta.verbose_name_plural} cannot be changed")

    def delete(self) -> NoReturn:  # type: ignore[override]  # append-only: it refuses what the base allows
        raise AuditImmutable(f"{self.model._meta.verbose_name_plural} cannot be deleted")


class StaffActionManager(LogEntryManager.from_queryset(_AppendOnlyQuerySet)):  # type: ignore[misc]  # django-stubs ships no types: the base class is Any
    """django-auditlog's manager (it writes its entries through ``log_create`` and
    ``log_m2m_changes``), filled in from the staff member acting (``staff.audit``)."""

    def log_create(self, instance: Any, force_log: bool = False, **kwargs: Any) -> Any:
        from staff import audit

        if not audit.recording():
            return None
        return super().log_create(instance, force_log, **audit.entry_defaults(instance, kwargs))

    def log_m2m_changes(
        self, changed_queryset: Any, instance: Any, operation: str, field_name: str, **kwargs: Any
    ) -> Any:
        from staff import audit

        if not audit.recording():
            return None
        kwargs.setdefault("action", AbstractLogEntry.Action.UPDATE)
        return super().log_m2m_changes(
            changed_queryset, instance, operation, field_name, **audit.entry_defaults(instance, kwargs)
        )


class StaffAction(AbstractLogEntry):
    """The one audit trail of what staff did (docs/staff.md): each change made through the admin
    (written by django-auditlog, whose log-entry model this is: ``AUDITLOG_LOGENTRY_MODEL``), each
    staff use case (``staff.services``), each view of a live deal and each refused attempt.

    ``changes`` maps each field or figure to ``[before, after]`` in readable units (rupees, not
    paise); ``verb`` says what was done (``change_user``, ``cancel_game``, ``view_live_hands``,
    ``refused_change_user``...); ``reason`` is the staff member's own words. Rows are only ever
    added: the model, its queryset and (on PostgreSQL) a trigger refuse any change or deletion.
    """

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    verb = models.CharField(max_length=60, db_index=True)
    reason = models.CharField(max_length=300, blank=True)

    objects = StaffActionManager()

    class Meta(AbstractLogEntry.Meta):
        ordering = ["-timestamp", "-id"]
        # the admin's filters (who, what), newest first (issue 39)
        indexes = [
            models.Index(fields=["actor", "-timestamp", "-id"], name="staff_action_actor_recent"),
            models.Index(fields=["verb", "-timestamp", "-id"], name="staff_action_verb_recent"),
            models.Index(fields=["action", "-timestamp", "-id"], name="staff_action_kind_recent"),
        ]
        verbose_name = "staff action"
        verbose_name_plural = "staff actions"
        permissions = [
            ("view_dashboard", "Can see the staff dashboard"),
            ("cancel_game", "Can cancel a game"),
            ("close_table", "Can close and reopen tables, and create tables"),
            ("approve_adjustment", "Can approve another staff member's wallet adjustment"),
            (
                "view_live_hands",
                "Can see the hands and closed deck of a deal being played (each view recorded)",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.timestamp:%Y-%m-%d %H:%M} {self.actor} {self.verb} {self.object_repr}"

    @property
    def staff(self) -> Any:
        return self.actor

    @property
    def at(self) -> Any:
        return self.timestamp

    @property
    def target(self) -> str:
        return self.object_repr

    @property
    def before(self) -> dict[str, Any]:
        return {k: v[0] for k, v in _pairs(self.changes).items() if v[0] is not None}

    @property
    def after(self) -> dict[str, Any]:
        return {k: v[1] for k, v in _pairs(self.changes).items() if v[1] is not None}

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AuditImmutable("staff audit entries cannot be changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:  # type: ignore[override]  # append-only: it refuses what the base allows
        raise AuditImmutable("staff audit entries cannot be deleted")


def _pairs(changes: Any) -> dict[str, list[Any]]:
    """``changes`` as ``{field: [before, after]}`` (a many-to-many change becomes removed/added names)."""
    out: dict[str, list[Any]] = {}
    for key, value in (changes or {}).items():
        if isinstance(value, dict) and value.get("type") == "m2m":
            names = ", ".join(value.get("objects", []))
            out[key] = [names, None] if value.get("operation") == "delete" else [None, names]
        elif isinstance(value, list | tuple) and len(value) == 2:
            out[key] = list(value)
        else:
            out[key] = [None, value]
    return out


class AdjustmentRequest(models.Model):
    """A wallet adjustment over the approval threshold waits for a second administrator (docs/staff.md)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for approval"
        APPROVED = "approved", "Approved and applied"
        REJECTED = "rejected", "Rejected"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField(help_text="Paise: positive credits, negative debits.")
    bonus = models.BooleanField(default=False, help_text="Of the player's bonus chips, not their cash chips.")
    reason = models.CharField(max_length=200, help_text="Internal note: staff see it, the player never does.")
    message = models.CharField(
        max_length=200, blank=True, help_text="What the player's wallet history says about it."
    )
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


class StaffNote(models.Model):
    """One entry of a player's case history, written by staff on the player page (issue 27).

    Append-only like the audit trail: a note is never edited or deleted (a correction is a new
    note); the model, its queryset and (on PostgreSQL) a trigger refuse it. Adding one is itself
    recorded in the audit trail (``staff.services.add_note``). Players never see notes.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="staff_notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField(max_length=2000)
    created_at = models.DateTimeField(default=timezone.now)

    objects = _AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="staff_note_user_recent")]

    def __str__(self) -> str:
        return f"note on {self.user} by {self.author} at {self.created_at:%Y-%m-%d %H:%M}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AuditImmutable("staff notes cannot be changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:  # type: ignore[override]  # append-only: it refuses what the base allows
        raise AuditImmutable("staff notes cannot be deleted")


class ExportJob(models.Model):
    """One admin list asked for as a CSV file (``staff.export``): written by a Celery worker, never
    by the process that serves players (``staff.export_job``), and offered to whoever asked for it
    (and to superusers) when done. The list is kept as the admin showed it (its query string and
    the rows chosen) and read again by the worker as the same staff member."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Waiting for the exports worker"
        RUNNING = "running", "Being written"
        DONE = "done", "Ready to download"
        FAILED = "failed", "Failed"
        REFUSED = "refused", "Refused"

    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    model = models.CharField(max_length=100, help_text="The list's model, as app_label.ModelName.")
    list_name = models.CharField(max_length=100)
    query = models.TextField(blank=True, help_text="The list's query string: its filters, search and order.")
    select_across = models.BooleanField(default=False)
    selected = models.JSONField(default=list, blank=True, help_text="The rows chosen, when not all matching.")
    reason = models.CharField(max_length=300)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rows_total = models.PositiveBigIntegerField(default=0, help_text="Rows the list held when asked.")
    rows_written = models.PositiveBigIntegerField(default=0)
    file = models.CharField(max_length=255, blank=True, help_text="Its name in the exports storage.")
    detail = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["requested_by", "-created_at"], name="staff_export_by_recent")]

    def __str__(self) -> str:
        return f"export of {self.list_name} by {self.requested_by_id} ({self.status})"

    @property
    def percent(self) -> int:
        """How far the file is written, against the rows the list held when asked."""
        if self.status == self.Status.DONE:
            return 100
        if not self.rows_total:
            return 0
        return min(99, self.rows_written * 100 // self.rows_total)
