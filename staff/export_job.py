"""Writing an admin export (``ExportJob``) on the exports worker, never in a web process.

The list is read again as the staff member who asked saw it: the admin's own changelist, built
for a request with their user and the list's query string (filters, search, order), so its
columns, filters and role checks are the admin's (a staff member who lost the list's view
permission meanwhile gets nothing). Rows are read ``EXPORT_CHUNK_ROWS`` at a time and written
straight to a temporary file, so memory stays the same whatever the list's length. Where the list's
order can be followed by seek (``core.admin_paging``: its own columns, ending with a unique one,
as every big list's default order does) each piece is the rows after the last one written, a short
query read by the order's index, no transaction held open; else one server-side cursor
(``QuerySet.iterator``), which PostgreSQL, outside a transaction (``WITH HOLD``), fills with the
whole list before it returns the first row. The progress is saved after the first row, then after
each piece or every ``PROGRESS_SECONDS``, whichever comes first, so the exports page shows rows
moving within a second of the worker's start whatever a piece costs to write.
The finished file goes into the ``exports`` storage (``STORAGES``) and is served only by
``staff.export_views``.
"""

from __future__ import annotations

import csv
import gc
import logging
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.files.storage import Storage, storages
from django.db.models import Model, QuerySet
from django.http import HttpRequest, QueryDict
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify

from core.admin_paging import beyond, seek_fields
from staff.export import cell_text, list_columns, safe_cell
from staff.models import ExportJob

logger = logging.getLogger(__name__)

#: At most this long between two saves of an export's progress while it is written.
PROGRESS_SECONDS = 0.5
#: The first piece read by seek, at most: its first row is written (and shown) before a whole
#: piece of ``EXPORT_CHUNK_ROWS`` is read.
FIRST_PIECE_ROWS = 100


def storage() -> Storage:
    """Where finished exports are kept (``STORAGES["exports"]``)."""
    return storages["exports"]


def _list_as_asked(job: ExportJob) -> tuple[admin.ModelAdmin, HttpRequest, QuerySet[Any]]:  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    """The admin, a request as the staff member, and the rows they chose, as the list showed them."""
    model = next(m for m in admin.site._registry if m._meta.label == job.model)
    model_admin = admin.site._registry[model]
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    request = RequestFactory().get(url, QueryDict(job.query))
    request.user = get_user_model().objects.get(pk=job.requested_by_id)
    if not (request.user.is_active and request.user.is_staff and model_admin.has_view_permission(request)):
        raise PermissionError("you may no longer view this list")
    queryset = model_admin.get_changelist_instance(request).get_queryset(request)
    if not job.select_across:
        queryset = queryset.filter(pk__in=job.selected)
    return model_admin, request, queryset


def pieces(queryset: QuerySet[Any], size: int) -> Iterator[Model]:
    """The rows of ``queryset`` in its order, read ``size`` at a time: by seek where the order allows
    (each piece begins after the last row of the one before), else through a server-side cursor."""
    seek = seek_fields(queryset.model, list(queryset.query.order_by))
    if seek is None:
        yield from queryset.iterator(chunk_size=size)
        return
    piece, limit = queryset, min(size, FIRST_PIECE_ROWS)
    while True:
        rows = list(piece[:limit])
        yield from rows
        if len(rows) < limit:
            return
        limit = size
        last = rows[-1]
        piece = queryset.filter(beyond(seek, {name: getattr(last, name) for name, _ in seek}, forward=True))


def _finish(job: ExportJob, status: str, detail: str = "", **fields: Any) -> None:
    ExportJob.objects.filter(pk=job.pk).update(
        status=status, detail=detail[:300], finished_at=timezone.now(), **fields
    )


def run(job_id: int) -> str:
    """Write export ``job_id``'s file; returns its final status. Run again (a redelivered task), a
    finished export is left as it is and an unfinished one starts over."""
    job = ExportJob.objects.select_related("requested_by").get(pk=job_id)
    if job.status in (ExportJob.Status.DONE, ExportJob.Status.REFUSED):
        return job.status
    purge_expired()
    ExportJob.objects.filter(pk=job.pk).update(
        status=ExportJob.Status.RUNNING, started_at=timezone.now(), rows_written=0
    )
    try:
        model_admin, request, queryset = _list_as_asked(job)
    except PermissionError as exc:
        _finish(job, ExportJob.Status.REFUSED, str(exc))
        return ExportJob.Status.REFUSED
    cap, chunk = int(settings.EXPORT_MAX_ROWS), int(settings.EXPORT_CHUNK_ROWS)
    columns = list_columns(model_admin, request)
    written = 0
    save_at = time.monotonic()  # the first row is saved at once: the page shows the rows moving
    try:
        with tempfile.TemporaryFile("w+b") as raw:
            text = _Utf8(raw)
            writer = csv.writer(text, quoting=csv.QUOTE_ALL)
            writer.writerow([safe_cell(label) for _, label in columns])
            for obj in pieces(queryset, chunk):
                if written == cap:
                    _finish(job, ExportJob.Status.REFUSED, f"the list grew past {cap} rows; narrow it")
                    return ExportJob.Status.REFUSED
                writer.writerow([safe_cell(cell_text(name, obj, model_admin)) for name, _ in columns])
                written += 1
                piece_done = written % chunk == 0
                if piece_done or time.monotonic() >= save_at:
                    ExportJob.objects.filter(pk=job.pk).update(rows_written=written)
                    save_at = time.monotonic() + PROGRESS_SECONDS
                if piece_done:
                    # the piece's rows are garbage now, in cycles (prefetch caches point back at
                    # their row) that only the collector frees: free them before the next piece
                    gc.collect()
            raw.seek(0)
            name = f"{job.pk}-{slugify(job.list_name)}-{job.created_at:%Y%m%d-%H%M%S}.csv"
            name = storage().save(name, File(raw, name=name))
    except Exception as exc:
        logger.exception("export %s failed", job.pk)
        _finish(job, ExportJob.Status.FAILED, f"{type(exc).__name__}: {exc}", rows_written=written)
        return ExportJob.Status.FAILED
    _finish(job, ExportJob.Status.DONE, rows_written=written, file=name)
    return ExportJob.Status.DONE


class _Utf8:
    """A text sink for ``csv.writer`` that encodes each row into a binary file as it comes."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def write(self, value: str) -> int:
        return int(self.raw.write(value.encode("utf-8")))


def purge_expired(now: Any = None) -> int:
    """Delete the files of exports written more than ``EXPORT_KEEP_HOURS`` ago (their rows stay,
    marked expired); returns how many."""
    cutoff = (now or timezone.now()) - timedelta(hours=int(settings.EXPORT_KEEP_HOURS))
    old = ExportJob.objects.filter(status=ExportJob.Status.DONE, finished_at__lt=cutoff).exclude(file="")
    done = 0
    for job in old.only("pk", "file"):
        try:
            storage().delete(job.file)
        except OSError:
            logger.warning("could not delete export file %s", job.file, exc_info=True)
            continue
        ExportJob.objects.filter(pk=job.pk).update(file="", detail="expired: ask for it again")
        done += 1
    return done
