"""Any admin list to CSV (issue 27): hostile cells escaped against spreadsheet formulas, the list's
own filters and columns, the role's view permission, and every export in the audit trail.

Since issue 39 the request only queues the export (``ExportJob``) for the exports worker; these
tests run the job as the worker does (``staff.export_job.run``) and read the file it wrote."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from staff import export, export_job
from staff.export import FORMULA_STARTS, safe_cell
from staff.models import ExportJob, StaffAction

pytestmark = pytest.mark.django_db
ClientFor = Callable[[User], Client]

HOSTILE = [
    '=HYPERLINK("http://evil.example","x")',
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


def test_every_dangerous_first_character_is_escaped_and_others_are_not() -> None:
    for cell in HOSTILE:
        assert safe_cell(cell) == "'" + cell
    assert set(FORMULA_STARTS) == {"=", "+", "-", "@", "\t", "\r"}
    assert safe_cell("asha") == "asha" and safe_cell("a=b") == "a=b" and safe_cell(None) == ""
    assert safe_cell(-5) == "'-5"


@pytest.fixture
def sent(
    settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    """Exports kept under ``tmp_path``; the tasks the web side sends, recorded instead of sent."""
    settings.STORAGES = {
        **settings.STORAGES,
        "exports": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "exports"), "base_url": None},
        },
    }
    calls: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(
        export.celery_app, "send_task", lambda name, args=(), **kw: calls.append((name, args))
    )
    yield calls


def _export(client: Client, url: str, reason: str | None, **post: object) -> Any:
    data: dict[str, object] = {"action": "export_csv", **post}
    if reason is not None:
        data.update(apply="1", reason=reason)
    return client.post(url, data)


def _run_latest() -> ExportJob:
    """The worker's part: write the latest export's file."""
    job = ExportJob.objects.latest("id")
    export_job.run(job.pk)
    job.refresh_from_db()
    return job


def _file_rows(job: ExportJob) -> list[list[str]]:
    with export_job.storage().open(job.file, "rb") as f:
        body = f.read().decode()
    return list(csv.reader(io.StringIO(body, newline="")))


def _rows(response: Any) -> list[list[str]]:
    """The file of the export ``response`` (the request's answer) queued, once the worker wrote it."""
    assert response.status_code == 302 and response["Location"] == reverse("staff-exports")
    job = _run_latest()
    assert job.status == ExportJob.Status.DONE, job.detail
    return _file_rows(job)


def test_a_list_with_hostile_names_exports_them_as_text(
    administrator: User, client_for: ClientFor, sent: list[Any]
) -> None:
    hostile = [
        User.objects.create_user(f"h{n}", display_name=name[:24], email=f"h{n}@example.com")
        for n, name in enumerate(HOSTILE)
    ]
    User.objects.create_user("asha", display_name="Asha")
    client = client_for(administrator)
    url = reverse("admin:accounts_user_changelist")
    ids = [u.pk for u in hostile]
    # first the reason is asked: nothing exported, nothing recorded yet
    ask = _export(client, url, None, index="0", _selected_action=ids)
    assert ask.status_code == 200 and 'id="export-form"' in ask.content.decode()  # type: ignore[attr-defined]
    assert not StaffAction.objects.filter(verb="export_csv").exists()
    response = _export(
        client, url, "player list for the fraud review", _selected_action=ids, select_across="0"
    )
    rows = _rows(response)
    header, body = rows[0], rows[1:]
    assert header[:3] == ["username", "display name", "email address"] and "may play?" in header
    assert len(body) == len(HOSTILE)
    names = {row[0]: row[1] for row in body}
    for n, name in enumerate(HOSTILE):
        assert names[f"h{n}"] == "'" + name[:24], name
    for row in body:
        for cell in row:
            assert not cell.startswith(FORMULA_STARTS), cell
    entry = StaffAction.objects.get(verb="export_csv")
    assert entry.actor == administrator and entry.reason == "player list for the fraud review"
    assert entry.after["rows"] == len(HOSTILE) and entry.after["list"] == "users"
    assert "username" in entry.after["columns"] and entry.object_repr == "users (CSV export)"


def test_all_matching_rows_follow_the_lists_search(
    support: User, client_for: ClientFor, sent: list[Any]
) -> None:
    for n in range(7):
        User.objects.create_user(f"ravi{n}")
    User.objects.create_user("asha")
    client = client_for(support)
    url = reverse("admin:accounts_user_changelist") + "?q=ravi"
    response = _export(
        client,
        url,
        "count the ravis",
        _selected_action=[User.objects.get(username="ravi0").pk],
        select_across="1",
    )
    names = [row[0] for row in _rows(response)[1:]]
    assert sorted(names) == [f"ravi{n}" for n in range(7)]
    entry = StaffAction.objects.get(verb="export_csv")
    assert entry.after["chosen"] == "all matching the list" and entry.after["filters"] == "q=ravi"


def test_an_export_needs_a_reason_and_the_lists_view_permission(
    support: User, client_for: ClientFor, sent: list[Any]
) -> None:
    asha = User.objects.create_user("asha")
    url = reverse("admin:accounts_user_changelist")
    response = _export(client_for(support), url, "", _selected_action=[asha.pk], select_across="0")
    assert response.status_code == 200 and "This field is required" in response.content.decode()  # type: ignore[attr-defined]
    # a staff member without a role views no list, so exports none
    nobody = User.objects.create_user("nobody", is_staff=True)
    response = _export(client_for(nobody), url, "curious", _selected_action=[asha.pk], select_across="0")
    assert response.status_code == 403
    # a support agent may not view roles (groups): no export of them either
    groups = reverse("admin:auth_group_changelist")
    assert (
        _export(client_for(support), groups, "curious", _selected_action=[1], select_across="0").status_code
        == 403
    )
    assert not StaffAction.objects.filter(verb="export_csv").exists()
    assert not ExportJob.objects.exists() and not sent


def test_the_action_is_offered_on_every_list_its_viewer_may_view(administrator: User, support: User) -> None:
    from django.contrib import admin
    from django.test import RequestFactory

    for staff in (administrator, support):
        request = RequestFactory().get("/admin/")
        request.user = staff
        viewed = []
        for model, model_admin in admin.site._registry.items():
            offered = "export_csv" in model_admin.get_actions(request)
            assert offered == model_admin.has_view_permission(request), (staff, model._meta.label)
            if offered:
                viewed.append(model._meta.label)
        assert (
            "accounts.User" in viewed
            and "wallet.LedgerTransaction" in viewed
            and "staff.StaffAction" in viewed
        )


# ---------------------------------------------------------------- issue 39: exports off the web process
def test_the_request_answers_at_once_and_only_queues_the_export(
    support: User, client_for: ClientFor, sent: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    """The web side writes no file: it records the export, queues a job and sends its task."""
    for n in range(3):
        User.objects.create_user(f"ravi{n}")
    client = client_for(support)
    with django_capture_on_commit_callbacks(execute=True):  # the task goes once the request commits
        response = _export(
            client,
            reverse("admin:accounts_user_changelist") + "?q=ravi",
            "weekly review",
            select_across="1",
            _selected_action=[User.objects.get(username="ravi0").pk],
        )
    assert response.status_code == 302 and response["Location"] == reverse("staff-exports")
    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.QUEUED and job.requested_by == support
    assert job.rows_total == 3 and job.rows_written == 0 and job.file == "" and job.query == "q=ravi"
    assert sent == [(export.RUN_EXPORT, (job.pk,))]
    exports_dir = Path(export_job.storage().location)
    assert not exports_dir.exists() or not any(exports_dir.iterdir())
    assert StaffAction.objects.filter(verb="export_csv").count() == 1
    page = client.get(reverse("staff-exports")).content.decode()
    assert f'id="export-{job.pk}"' in page and "Waiting for the exports worker" in page
    assert 'http-equiv="refresh"' in page  # follows the job while it is not done


def test_only_the_staff_member_who_asked_and_superusers_may_download(
    support: User, administrator: User, client_for: ClientFor, sent: list[Any]
) -> None:
    User.objects.create_user("asha", display_name="=cmd")
    mine = client_for(support)
    _export(mine, reverse("admin:accounts_user_changelist"), "check", select_across="1", _selected_action=[1])
    job = _run_latest()
    url = reverse("staff-export-download", args=[job.pk])
    assert f'href="{url}"' in mine.get(reverse("staff-exports")).content.decode()
    response = mine.get(url)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"].startswith('attachment; filename="users-')
    body = b"".join(response.streaming_content).decode()
    assert '"\'=cmd"' in body
    # another staff member (an administrator, not a superuser) neither sees it listed nor gets it
    other = client_for(administrator)
    assert f'id="export-{job.pk}"' not in other.get(reverse("staff-exports")).content.decode()
    assert other.get(url).status_code == 403
    boss = User.objects.create_superuser("root", password="x-root-2026")
    assert client_for(boss).get(url).status_code == 200
    downloads = StaffAction.objects.filter(verb="download_export")
    assert [d.actor for d in downloads.order_by("id")] == [support, boss]


def test_an_export_above_the_cap_is_refused_before_anything_is_queued(
    support: User, client_for: ClientFor, sent: list[Any], settings: Any
) -> None:
    settings.EXPORT_MAX_ROWS = 2
    for n in range(3):
        User.objects.create_user(f"ravi{n}")
    response = _export(
        client_for(support),
        reverse("admin:accounts_user_changelist"),
        "all",
        select_across="1",
        _selected_action=[1],
    )
    assert response.status_code == 200 and "more than an export may hold (2)" in response.content.decode()
    assert not ExportJob.objects.exists() and not sent


def test_the_worker_refuses_a_list_its_asker_may_no_longer_view(
    support: User, client_for: ClientFor, sent: list[Any]
) -> None:
    User.objects.create_user("asha")
    _export(
        client_for(support),
        reverse("admin:accounts_user_changelist"),
        "x",
        select_across="1",
        _selected_action=[1],
    )
    support.groups.clear()
    job = _run_latest()
    assert job.status == ExportJob.Status.REFUSED and not job.file


def _bulk_users(count: int, start: int = 0) -> None:
    User.objects.bulk_create(
        [
            User(username=f"p{n:06d}", display_name=f"=player {n}", email=f"p{n}@example.com")
            for n in range(start, start + count)
        ]
    )


def _peak_of_export(client: Client) -> tuple[int, ExportJob]:
    """The peak traced memory while the worker writes the whole users list."""
    import tracemalloc

    _export(
        client, reverse("admin:accounts_user_changelist"), "size", select_across="1", _selected_action=[1]
    )
    job = ExportJob.objects.latest("id")
    tracemalloc.start()
    try:
        export_job.run(job.pk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    job.refresh_from_db()
    return peak, job


def test_the_workers_memory_does_not_grow_with_the_list(
    administrator: User, client_for: ClientFor, sent: list[Any], settings: Any
) -> None:
    """N rows and 10 N rows, read EXPORT_CHUNK_ROWS at a time: the peak stays about the same
    (a list built whole would need about ten times as much)."""
    settings.EXPORT_CHUNK_ROWS = 100
    client = client_for(administrator)
    n = 300
    _bulk_users(20)
    _peak_of_export(client)  # warm: imports, templates, the admin's first changelist
    _bulk_users(n - 20, start=20)
    small, job = _peak_of_export(client)
    assert job.status == ExportJob.Status.DONE and job.rows_written == User.objects.count()
    _bulk_users(9 * n, start=n)
    large, job = _peak_of_export(client)
    assert job.status == ExportJob.Status.DONE and job.rows_written == User.objects.count() >= 10 * n
    rows = _file_rows(job)
    assert len(rows) == job.rows_written + 1 and all(r[1].startswith("'=player") for r in rows[1:] if r[1])
    assert large < 2 * small, (small, large)


def _progress_saved(client: Client, monkeypatch: pytest.MonkeyPatch, step: float) -> list[int]:
    """The ``rows_written`` the worker saves while it writes the users list, its clock moving
    ``step`` seconds each time it looks (the final save, with the status, left out)."""
    import re
    from types import SimpleNamespace

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    ticks = iter(range(1_000_000))
    monkeypatch.setattr(export_job, "time", SimpleNamespace(monotonic=lambda: next(ticks) * step))
    _export(
        client, reverse("admin:accounts_user_changelist"), "progress", select_across="1", _selected_action=[1]
    )
    job = ExportJob.objects.latest("id")
    with CaptureQueriesContext(connection) as captured:
        export_job.run(job.pk)
    saves = [q["sql"] for q in captured.captured_queries if q["sql"].startswith('UPDATE "staff_exportjob"')]
    progress = [int(m.group(1)) for sql in saves[:-1] if (m := re.search(r'"rows_written" = (\d+)', sql))]
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE and job.rows_written == User.objects.count()
    return [n for n in progress if n]  # the start's save of 0 left out


def test_progress_shows_the_first_row_at_once_then_each_piece_or_half_second(
    administrator: User,
    client_for: ClientFor,
    sent: list[Any],
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A piece may take seconds to write (a million rows, a loaded worker): the exports page must
    not wait for it to say that rows are being written."""
    settings.EXPORT_CHUNK_ROWS = 4
    client = client_for(administrator)
    _bulk_users(9)
    rows = User.objects.count()
    assert rows == 10  # the administrator and nine players
    # a fast worker: the first row, then each piece of 4
    assert _progress_saved(client, monkeypatch, 0.0) == [1, 4, 8]
    # a slow one, PROGRESS_SECONDS gone each time it looks at the clock: every row
    assert _progress_saved(client, monkeypatch, export_job.PROGRESS_SECONDS) == list(range(1, rows + 1))


@pytest.mark.parametrize("query", ["", "o=6", "o=-6"])  # the list's own order; joined, both ways
def test_a_list_is_read_by_seek_in_its_own_order_without_a_cursor(
    query: str, administrator: User, client_for: ClientFor, sent: list[Any], settings: Any
) -> None:
    """The worker reads a big list a piece at a time, each piece the rows after the last one
    written (PostgreSQL fills a cursor held outside a transaction with the whole list before its
    first row): the file holds every row once, in the list's order, ties in the sort included."""
    from datetime import UTC, datetime, timedelta

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.EXPORT_CHUNK_ROWS = 3
    day = datetime(2026, 1, 1, tzinfo=UTC)
    User.objects.bulk_create(
        [User(username=f"p{n:02d}", date_joined=day + timedelta(days=n % 4)) for n in range(11)]
    )
    url = reverse("admin:accounts_user_changelist") + (f"?{query}" if query else "")
    _export(client_for(administrator), url, "order", select_across="1", _selected_action=[1])
    job = ExportJob.objects.latest("id")
    _, _, queryset = export_job._list_as_asked(job)
    expected = [u.username for u in queryset]  # the list's order, read at once
    with CaptureQueriesContext(connection) as captured:
        export_job.run(job.pk)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE
    assert [row[0] for row in _file_rows(job)[1:]] == expected and len(expected) == 12
    reads = [q["sql"] for q in captured.captured_queries if 'FROM "accounts_user"' in q["sql"]]
    assert not any("DECLARE" in sql or "CURSOR" in sql for sql in reads)
    assert sum("LIMIT 3" in sql for sql in reads) == 5  # four full pieces and the last, short one


def test_under_asgi_the_file_is_sent_a_block_at_a_time(
    support: User, client_for: ClientFor, sent: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Django's ASGI handler reads a file response's ordinary iterator whole into a list before it
    sends a byte: in a Daphne, the one that serves the tables' sockets, the download must be an
    asynchronous iterator of blocks."""
    import asyncio

    from django.core.signals import request_finished
    from django.db import close_old_connections
    from django.test import AsyncRequestFactory, RequestFactory

    from staff import export_views

    _bulk_users(40)
    users = reverse("admin:accounts_user_changelist")
    _export(client_for(support), users, "x", select_across="1", _selected_action=[1])
    job = _run_latest()
    with export_job.storage().open(job.file, "rb") as f:
        whole = f.read()
    monkeypatch.setattr(export_views, "BLOCK_BYTES", 100)
    url = reverse("staff-export-download", args=[job.pk])

    async def blocks(response: Any) -> list[bytes]:
        return [block async for block in response.streaming_content]

    # a response's close() says the request finished, which would close the test's connection
    # (the test client keeps it open the same way)
    request_finished.disconnect(close_old_connections)
    try:
        request = AsyncRequestFactory().get(url)
        request.user = support
        response = export_views.download(request, job.pk)
        assert response.is_async and response["Content-Length"] == str(len(whole))
        sent_blocks = asyncio.run(blocks(response))
        response.close()
        assert b"".join(sent_blocks) == whole and len(sent_blocks) == -(-len(whole) // 100) > 3
        # under WSGI (the test client, the embedded server) the file response is Django's own
        request = RequestFactory().get(url)
        request.user = support
        response = export_views.download(request, job.pk)
        assert not response.is_async and b"".join(response.streaming_content) == whole
        response.close()
    finally:
        request_finished.connect(close_old_connections)


def test_the_first_piece_is_small_so_that_the_first_row_comes_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _bulk_users(7)
    monkeypatch.setattr(export_job, "FIRST_PIECE_ROWS", 2)
    everyone = User.objects.order_by("-pk")
    with CaptureQueriesContext(connection) as captured:
        read = [u.pk for u in export_job.pieces(everyone, 3)]
    assert read == [u.pk for u in everyone]
    limits = [q["sql"].rsplit("LIMIT", 1)[1].strip() for q in captured.captured_queries]
    assert limits == ["2", "3", "3"], limits  # 2 + 3 rows, then the last 2 of a piece of 3
