"""The staff's Celery tasks: admin exports, on their own queue (``CELERY_TASK_ROUTES``)."""

from __future__ import annotations

from celery import shared_task

from staff import export_job


@shared_task(name="staff.tasks.run_export", acks_late=True, ignore_result=True)
def run_export(job_id: int) -> str:
    """Write one admin export's file (``staff.export_job``)."""
    return export_job.run(job_id)
