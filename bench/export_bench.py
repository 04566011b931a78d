"""The export of the admin's biggest list, a million game events, as staff ask for it (issue 39),
against the processes production runs: a Daphne and the exports worker (README, "Running in
production": Celery on Redis, queue ``exports``), both started here on ``bench/admin_crawl.py``'s
database with the production settings and ``DEBUG`` off.

A staff member logs in through the log-in form, opens the list, ticks the page's rows, chooses
"select all", the action "Export to CSV", gives a reason, and follows the exports page (read
every ``--poll`` seconds, the page itself refreshes every 2 s) until the file is offered; then
downloads it. It prints the time until the exports page shows rows written, until the file is
offered, the rows per second the worker wrote, the file's size, and the resident memory of the
Daphne and of the worker (its main process and pool child together) before, at their peak and
after, during the export and during the download. Targets: rows shown within 1 s; no web or
socket process (the Daphne) grows by more than 50 MB.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/rummy_admin_bench_crawl \\
        .venv/bin/python bench/export_bench.py --redis-url redis://127.0.0.1:6379/9 [--role superuser]
"""

from __future__ import annotations

import argparse
import functools
import html
import os
import re
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import admin_crawl  # noqa: E402
import live_site  # noqa: E402

SELECTED = re.compile(r'name="_selected_action" value="([^"]+)"')
JOB_ROW = re.compile(r'<tr id="export-(\d+)" class="export-(\w+)">(.*?)</tr>', re.S)
print = functools.partial(print, flush=True)  # noqa: A001  (a pipe to a file: each line as it comes)
ROWS = re.compile(r"</progress> (\d+) of (\d+)")
DOWNLOAD = re.compile(r'href="([^"]+)" class="export-download"')


def newest_job(page: bytes) -> tuple[int, str, int, int] | None:
    """The exports page's newest export: id, state, rows written, rows in all."""
    found = JOB_ROW.search(page.decode(errors="replace"))
    if not found:
        return None
    rows = ROWS.search(found.group(3))
    written, total = (int(rows.group(1)), int(rows.group(2))) if rows else (0, 0)
    return int(found.group(1)), found.group(2), written, total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--redis-url", required=True, help="the broker and caches (a Redis database of the bench's own)"
    )
    parser.add_argument("--role", default="superuser", choices=admin_crawl.ROLES)
    parser.add_argument("--list", default="/admin/tables/gameevent/", help="the list to export, as its URL")
    parser.add_argument(
        "--poll", type=float, default=0.2, help="seconds between two reads of the exports page"
    )
    parser.add_argument(
        "--logs", default="/tmp/export_bench", help="where the Daphne's and the worker's output go"
    )
    args = parser.parse_args()
    live_site.exit_on_sigterm()

    exports_dir = tempfile.mkdtemp(prefix="export-bench-")
    env = live_site.site_env(os.environ["DATABASE_URL"], args.redis_url, EXPORTS_DIR=exports_dir)
    os.environ.update(env)
    import django

    django.setup()
    from staff.models import ExportJob

    admin_crawl.make_staff(live=True)
    logs = Path(args.logs)
    with ExitStack() as stack:
        worker = stack.enter_context(live_site.exports_worker(env, logs / "worker.log"))
        server = stack.enter_context(live_site.daphne(env, logs / "daphne.log"))
        print(f"load average {admin_crawl.load()}; Daphne pid {server.pid}, exports worker pid {worker.pid}")
        browser = live_site.Browser(server.base_url)
        name = admin_crawl.staff_name(args.role, live=True)
        if browser.login(name, admin_crawl.PASSWORD) != 302:
            raise SystemExit(f"{name} could not log in")
        status, page, seconds = browser.request("GET", args.list)
        print(f"{args.role}: the list {args.list}: {status} in {seconds * 1000:.0f} ms")
        web = live_site.Peak("Daphne", server.pid)
        work = live_site.Peak("exports worker", worker.pid, with_children=True)
        web.start()
        work.start()

        ticked = [("_selected_action", pk) for pk in SELECTED.findall(page.decode(errors="replace"))]
        action = [("action", "export_csv"), ("select_across", "1"), ("index", "0"), *ticked]
        status, form, seconds = browser.request(
            "POST", args.list, [("csrfmiddlewaretoken", browser.form_token(page)), *action]
        )
        count = re.search(r'id="export-count">(\d+)', form.decode(errors="replace"))
        print(
            f"the action's form (the list counted: {count.group(1) if count else '?'} rows): {status} in {seconds * 1000:.0f} ms"
        )
        fields = [
            ("csrfmiddlewaretoken", browser.form_token(form)),
            *[("_selected_action", pk) for pk in SELECTED.findall(form.decode(errors="replace"))],
            ("select_across", "1"),
            ("reason", "export bench: the whole event log"),
            ("action", "export_csv"),
            ("apply", "Export to CSV"),
        ]
        asked = time.perf_counter()
        status, _, seconds = browser.request("POST", args.list, fields)
        print(f"asked: {status} in {seconds * 1000:.0f} ms")
        if status != 302:
            raise SystemExit("the export was not queued")

        running = shown = None
        polls = 0
        while True:
            status, page, _ = browser.request("GET", "/admin/exports/")
            if status != 200:
                raise SystemExit(f"the exports page answered {status}: logged out?")
            polls += 1
            job = newest_job(page)
            now = time.perf_counter() - asked
            if job and job[1] == "running" and running is None:
                running = now
            if job and job[2] > 0 and shown is None:
                shown = now
                print(f"rows shown after {shown:.2f} s: {job[2]:,} of {job[3]:,}", flush=True)
            if job and job[1] in ("done", "failed", "refused"):
                break
            time.sleep(args.poll)
        offered = time.perf_counter() - asked
        web.stop()
        work.stop()
        pk, state, written, total = job
        record = ExportJob.objects.get(pk=pk)
        path = Path(exports_dir) / record.file if record.file else None
        size = path.stat().st_size if path and path.exists() else 0
        took = (record.finished_at - record.started_at).total_seconds() if record.started_at else 0
        print(
            f"\nexport {pk}: {state} ({record.detail or 'no detail'}), {written:,} of {total:,} rows; {polls} reads of the exports page"
        )
        print(
            f"  running after {running if running is not None else float('nan'):.2f} s; rows shown after "
            f"{shown if shown is not None else float('nan'):.2f} s (target 1 s); file offered after {offered:.1f} s"
        )
        print(
            f"  the worker wrote {written / took if took else 0:,.0f} rows/s ({took:.1f} s); file {size / 1e6:,.1f} MB"
        )
        print(f"  {web.line()}")
        print(f"  {work.line()}")

        link = DOWNLOAD.search(page.decode(errors="replace"))
        if link:
            web = live_site.Peak("Daphne", server.pid)
            web.start()
            status, body, seconds = browser.request("GET", html.unescape(link.group(1)))
            web.stop()
            print(f"\ndownload: {status}, {len(body) / 1e6:,.1f} MB in {seconds:.1f} s")
            print(f"  {web.line()}")
        print(f"\nload average {admin_crawl.load()} (target: the Daphne grows by less than 50 MB)")
        if path and path.exists():
            path.unlink()


if __name__ == "__main__":
    main()
