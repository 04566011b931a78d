"""The exports page (``/admin/exports/``): each staff member's exports with their progress, and
the finished file, served to whoever asked for it and to superusers only, each download recorded.

Under ASGI (the Daphnes) the file goes out a block at a time, each read in a thread: Django's ASGI
handler reads a file response's ordinary iterator whole into a list before it sends a byte, which
would hold the whole export in the process that serves the tables' sockets."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import BinaryIO

from asgiref.sync import sync_to_async
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.core.handlers.asgi import ASGIRequest
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse

from accounts.requests import signed_in
from staff import audit
from staff.export_job import storage
from staff.models import ExportJob

#: The page looks again this often while an export is waiting or being written (no script).
REFRESH_SECONDS = 2
SHOWN = 50
#: Bytes of an export file read and sent at a time under ASGI.
BLOCK_BYTES = 256 * 1024


def exports(request: HttpRequest) -> HttpResponse:
    """The staff member's latest exports (a superuser sees everyone's)."""
    jobs = ExportJob.objects.select_related("requested_by")
    if not request.user.is_superuser:
        jobs = jobs.filter(requested_by=signed_in(request))
    shown = list(jobs[:SHOWN])
    busy = any(j.status in (ExportJob.Status.QUEUED, ExportJob.Status.RUNNING) for j in shown)
    context = {
        **admin.site.each_context(request),
        "title": "Exports",
        "jobs": shown,
        "refresh": REFRESH_SECONDS if busy else None,
    }
    return TemplateResponse(request, "admin/staff/exports.html", context)


def download(request: HttpRequest, pk: int) -> FileResponse:
    """The finished file, to the staff member who asked for it or a superuser; recorded."""
    job = get_object_or_404(ExportJob, pk=pk)
    if job.requested_by_id != request.user.pk and not request.user.is_superuser:
        raise PermissionDenied
    if job.status != ExportJob.Status.DONE or not job.file:
        raise Http404("this export has no file (not finished, or expired)")
    audit.record(
        staff=request.user,
        action="download_export",
        target=job,
        reason=job.reason,
        kind=audit.Action.ACCESS,
        after={"list": job.list_name, "rows": job.rows_written, "file": job.file},
        label=f"{job.list_name} (CSV export {job.pk})",
        remote_addr=request.META.get("REMOTE_ADDR") or None,
    )
    name = job.file.split("/")[-1].split("-", 1)[-1]  # without the id the storage name starts with
    response = FileResponse(
        storage().open(job.file, "rb"),
        as_attachment=True,
        filename=name,
        content_type="text/csv; charset=utf-8",
    )
    stream = response.file_to_stream  # the storage's file, which has read(): never None here
    if isinstance(request, ASGIRequest) and stream is not None:  # its headers kept; the file closed after
        response.streaming_content = _blocks(stream)
    return response


async def _blocks(file: BinaryIO) -> AsyncIterator[bytes]:
    """``file`` a block at a time, each read in a thread, so that the server sends it as it is read."""
    while block := await sync_to_async(file.read, thread_sensitive=False)(BLOCK_BYTES):
        yield block


exports_view = admin.site.admin_view(exports)
download_view = admin.site.admin_view(download)
