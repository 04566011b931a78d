"""The integrity scan, run by Celery beat every ``INTEGRITY_SCAN_MINUTES`` (docs/integrity.md)."""

from __future__ import annotations

from celery import shared_task

from integrity import services


@shared_task(name="integrity.tasks.scan", acks_late=True, ignore_result=True)
def scan() -> int:
    """Digest the games finished since the last run and run the signals; returns flags raised."""
    return services.scan().flags_raised
