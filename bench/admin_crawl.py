"""The admin as staff use it, at a million rows (issue 39): log in through the log-in form as the
superuser and as each staff role, and follow every link the admin offers that role.

The database is ``bench/admin_bench.py``'s (100,000 players, about a million ledger entries, a
million events, 100,000 games) with one busy player given ``--busy`` more ledger transactions of
two legs each (100,000 entries on their account, 1.2 million entries in all). It drops and
creates its own database (``rummy_admin_bench_crawl`` unless told); ``--skip-fill`` crawls an
already filled one (migrating it first, so that new indexes are built on it).

For each role it reads the admin index and, from it, every list the role may see; from each
list's first page every link it offers (each filter value, "Show counts", each sort link and its
reverse, the page links), a search per search field, page 500 (by the list's own "older" links
where the list pages by seek, by ``?p=500`` where it pages by number), and the detail page of
the list's first row; then the busiest player's page and statement, first and deepest.

Requests go through one of two fetchers, the crawl (which links to follow) being the same:

- Django's test client in this process (the default), with ``DEBUG`` off and the site's whole
  middleware stack without the socket; it counts each load's queries and their time (``db``).
- ``--daphne``: a Daphne started on the bench database with the production settings and ``DEBUG``
  off (``bench/live_site.py``; ``--base-url`` takes a site already running), spoken to as nginx
  does, each staff member logged in through the log-in form; the time runs to the answer's last
  byte. The Daphne is another process: queries are not counted there (``-``), the test-client
  mode counts them.

Each URL is loaded three times: it prints the median time, ``db``, the queries of one load and the
status, and at the end the slowest twenty and every URL over the targets (300 ms, 20 queries). Where a list pages by seek, its page 500 is the list's own cursor link taken
at the row 50,000 rows in by id (following "older" 499 times would reach about the same row).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/rummy_admin_bench_crawl \\
        .venv/bin/python bench/admin_crawl.py [--scale 1] [--skip-fill] [--roles superuser,...] \\
        [--daphne --redis-url redis://127.0.0.1:6379/9]

The accounts it logs in with are ``crawl-<role>`` for the test client and ``live-<role>`` for a
Daphne (the two settings hash passwords differently), so that crawls of both kinds, one role
each, may run side by side (``--skip-collectstatic`` on all but the first ``--daphne``).
"""

from __future__ import annotations

import argparse
import html
import os
import re
import statistics
import sys
import time
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/rummy_admin_bench_crawl")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.test_settings")
os.environ.pop("REDIS_URL", None)

import admin_bench  # noqa: E402
import live_site  # noqa: E402

TARGET_MS, TARGET_QUERIES = 300, 20
PASSWORD = "crawl-password-2026"
ROLES = ("superuser", "Support agent", "Game integrity", "Administrator")
DEEP_PAGE = 500


def add_busy_player(*, player: int, transactions: int) -> int:
    """``transactions`` grants to ``player``'s cash account (two legs each: issuance and the
    wallet), appended after every other entry with their running balances; returns the entries."""
    from django.db import connection

    issuance, wallet = 1, 2 + player
    with connection.cursor() as cursor:
        raw = cursor.cursor
        raw.execute("SELECT id, balance FROM wallet_account WHERE id IN (%s, %s)", [issuance, wallet])
        balance = dict(raw.fetchall())
        raw.execute("SELECT max(id) FROM wallet_ledgertransaction")
        tx0 = raw.fetchone()[0]
        raw.execute("SELECT max(id) FROM wallet_entry")
        entry0 = raw.fetchone()[0]
        raw.execute("SET session_replication_role = replica")
        copy = admin_bench.Copier(raw)
        start = admin_bench.NOW - timedelta(days=59)
        step = timedelta(days=59) / max(transactions, 1)
        copy(
            "wallet_ledgertransaction",
            ["id", "kind", "memo", "caused_by_id", "idempotency_key", "fingerprint", "created_at"],
            (
                (tx0 + i, "grant", "Busy grant", None, f"busy:{i}", "0" * 64, start + step * i)
                for i in range(1, transactions + 1)
            ),
        )

        def legs() -> Any:
            for i in range(1, transactions + 1):
                balance[issuance] -= 100
                balance[wallet] += 100
                yield (entry0 + 2 * i - 1, tx0 + i, issuance, -100, balance[issuance])
                yield (entry0 + 2 * i, tx0 + i, wallet, 100, balance[wallet])

        n = copy("wallet_entry", ["id", "transaction_id", "account_id", "amount", "balance_after"], legs())
        for account, value in balance.items():
            raw.execute("UPDATE wallet_account SET balance = %s WHERE id = %s", [value, account])
        raw.execute("SET session_replication_role = origin")
        for table in ("wallet_ledgertransaction", "wallet_entry"):
            raw.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
            )
    return n


def recreate_database(url: str) -> None:
    """Drop and create the bench's database: only one whose name says it is a bench's."""
    import psycopg

    parsed = urlsplit(url)
    name = parsed.path.strip("/")
    if not name.startswith(("rummy_admin_bench", "rummy_crawl")):
        raise SystemExit(f"refusing to drop {name!r}: not a bench database (rummy_crawl*)")
    with psycopg.connect(parsed._replace(path="/postgres").geturl(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def staff_name(role: str, *, live: bool) -> str:
    """The bench's account for ``role``: one set for each settings module, whose password hashers
    differ (the test settings' MD5, the site's own), so that crawls of both kinds may run at once."""
    return ("live-" if live else "crawl-") + role.lower().replace(" ", "-")


def make_staff(*, live: bool = False) -> None:
    from django.contrib.auth.models import Group

    from accounts.models import User
    from staff import roles as staff_roles

    staff_roles.ensure_groups()
    for role in ROLES:
        name = staff_name(role, live=live)
        user = User.objects.filter(username=name).first() or User(username=name, email=f"{name}@example.com")
        user.is_staff = True
        user.is_superuser = role == "superuser"
        if not user.check_password(PASSWORD):  # a new hash would log out a crawl running beside
            user.set_password(PASSWORD)
        user.save()
        if role != "superuser":
            user.groups.set([Group.objects.get(name=role)])


HREF = re.compile(r'href="([^"]*)"')
CHANGE_LINK = re.compile(r'href="(/admin/[a-z_]+/[a-z_]+/[^/"]+/change/[^"]*)"')


def hrefs(page: str) -> list[str]:
    return [html.unescape(h) for h in HREF.findall(page)]


def over(ms: float, queries: int | None, status: int) -> bool:
    """Over a target (a query count only where one was counted) or not a page."""
    return ms >= TARGET_MS or (queries or 0) >= TARGET_QUERIES or status not in (200, 302)


class Fetched(NamedTuple):
    status: int
    body: bytes
    seconds: float
    queries: int | None  # None: served by another process, which does not say
    db_ms: float | None


class TestClientFetch:
    """Django's test client in this process: the site's whole middleware stack without the
    socket, and each load's queries counted (``CaptureQueriesContext``)."""

    def __init__(self) -> None:
        from django.test import Client

        self.client = Client()

    def login(self, username: str, password: str) -> int:
        self.client.get("/admin/login/")
        response = self.client.post(
            "/admin/login/?next=/admin/", {"username": username, "password": password, "next": "/admin/"}
        )
        return int(response.status_code)

    def get(self, url: str) -> Fetched:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        connection.queries_log.clear()  # the log keeps 9,000 queries: past that, counts read 0
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = self.client.get(url)
            body = response.content
            seconds = time.perf_counter() - started
        db = sum(float(q["time"]) for q in captured.captured_queries) * 1000
        return Fetched(response.status_code, body, seconds, len(captured), db)


class DaphneFetch:
    """A browser at a running site (``live_site.Browser``: a Daphne as nginx speaks to it), logged
    in through the log-in form; the time is from sending the request to the answer's last byte.
    The site is another process: it cannot say how many queries a page made."""

    def __init__(self, base_url: str) -> None:
        self.browser = live_site.Browser(base_url)

    def login(self, username: str, password: str) -> int:
        return self.browser.login(username, password)

    def get(self, url: str) -> Fetched:
        status, body, seconds = self.browser.request("GET", url)
        return Fetched(status, body, seconds, None, None)


Fetch = TestClientFetch | DaphneFetch


class Crawler:
    """One role's crawl: which links to follow is decided here, how a page is fetched by ``fetch``
    (the test client or a real Daphne)."""

    def __init__(self, role: str, repeat: int, fetch: Fetch) -> None:
        self.role = role
        self.repeat = repeat
        self.fetch = fetch
        self.rows: list[tuple[str, str, float, int | None, int]] = []
        self.seen: set[str] = set()

    def login(self) -> None:
        name = staff_name(self.role, live=isinstance(self.fetch, DaphneFetch))
        status = self.fetch.login(name, PASSWORD)
        if status != 302:
            raise SystemExit(f"{name} could not log in ({status})")

    def get(self, url: str, what: str) -> str:
        """Load ``url`` ``repeat`` times; record the median time and one load's queries."""
        if url in self.seen:
            return ""
        self.seen.add(url)
        samples = []
        for _ in range(self.repeat):
            fetched = self.fetch.get(url)
            samples.append(fetched.seconds)
        ms = statistics.median(samples) * 1000
        queries, status = fetched.queries, fetched.status
        self.rows.append((what, url, ms, queries, status))
        db = "       -" if fetched.db_ms is None else f"{fetched.db_ms:>7.1f}"
        q = "   -" if queries is None else f"{queries:>4}"
        flag = " <--" if over(ms, queries, status) else ""
        print(f"{self.role[:14]:<14} {ms:>9.1f} ms (db {db}) {q} q {status}  {what}: {url}{flag}", flush=True)
        return fetched.body.decode(errors="replace") if status == 200 else ""

    def crawl_list(self, changelist: str, model_admin: Any, terms: dict[str, str]) -> None:
        first = self.get(changelist, "list")
        if not first:
            return
        offered = []
        for link in hrefs(first):
            if link.startswith("?"):
                offered.append(link)
        sorts = set()
        for link in offered:
            params = dict(parse_qsl(link[1:], keep_blank_values=True))
            if "o" in params:
                for part in params["o"].split("."):
                    if part.lstrip("-").isdigit():
                        sorts.add(part.lstrip("-"))
        for link in offered:
            params = dict(parse_qsl(link[1:], keep_blank_values=True))
            kind = (
                "sort"
                if set(params) == {"o"}
                else "page"
                if "p" in params or "_before" in params or "_after" in params
                else "facets"
                if "_facets" in params
                else "filter"
            )
            self.get(changelist + link, kind)
        for column in sorted(sorts, key=int):
            self.get(f"{changelist}?o={column}", "sort")
            self.get(f"{changelist}?o=-{column}", "sort")
        self.deep(changelist, first, "page 500")
        for field in model_admin.search_fields or ():
            term = search_term(field, terms)
            self.get(f"{changelist}?{urlencode({'q': term})}", f"search {field}")
        term = terms.get("busy")
        if model_admin.model._meta.label in ("wallet.LedgerTransaction",) and term:
            url = f"{changelist}?{urlencode({'q': term})}"
            page = self.get(url, "search busy player")
            self.deep(url, page, "search busy player, page 500")
        found = CHANGE_LINK.search(first)
        if found:
            self.get(html.unescape(found.group(1)), "detail")

    def deep(self, url: str, page: str, what: str) -> None:
        """Page ``DEEP_PAGE`` of a list: by its own "older" link (a seek cursor) if it offers one,
        the cursor taken at that depth; else by number (``?p=``)."""
        base, _, query = url.partition("?")
        params = dict(parse_qsl(query, keep_blank_values=True))
        if "_before=" in page or "_after=" in page:
            cursor = self.cursor_at(url, page)
            if cursor:
                self.get(f"{base}?{urlencode({**params, **cursor})}", what)
            return
        self.get(f"{base}?{urlencode({**params, 'p': DEEP_PAGE})}", what)

    def cursor_at(self, url: str, page: str) -> dict[str, str] | None:
        """The list's "older" link of the page just before ``DEEP_PAGE``, reached by following the
        links from the first page at a stride: the admin's own cursor, not one made up here."""
        older = re.search(r'href="(\?[^"]*_before=[^"]*)"[^>]*id="older"', page) or re.search(
            r'id="older"[^>]*href="(\?[^"]*)"', page
        )
        if not older:
            return None
        params = dict(parse_qsl(html.unescape(older.group(1))[1:], keep_blank_values=True))
        step = params.get("_before", "")
        # jump: the cursor is the last id of a page; the page at depth D starts after row D * size
        jumped = jump_cursor(url, step, DEEP_PAGE - 1)
        if jumped is None:
            return None
        params["_before"] = jumped
        return params

    def busy_player(self, player: int) -> None:
        url = f"/admin/accounts/user/{player}/player/"
        page = self.get(url, "busy player page")
        older = re.search(r'id="statement-older"[^>]*href="([^"]*)"', page) or re.search(
            r'href="([^"]*)"[^>]*id="statement-older"', page
        )
        if older:
            self.get(url + html.unescape(older.group(1)).split("#")[0], "busy player statement, page 2")
        last = re.search(r'href="([^"]*)"[^>]*id="statement-oldest"', page)
        if last:
            self.get(url + html.unescape(last.group(1)).split("#")[0], "busy player statement, oldest")
        if "statement_before=" in page:
            # page 500 of the statement: the "older" link's cursor 499 pages on (read here, untimed)
            from wallet.models import Entry

            depth = 25 * (DEEP_PAGE - 1)
            ids = Entry.objects.filter(account__ref=f"user:{player}").order_by("-id")
            at = ids.values_list("id", flat=True)[depth : depth + 1].first()
            if at is not None:
                self.get(f"{url}?statement_before={at}", "busy player statement, page 500")
        else:
            self.get(f"{url}?statement={DEEP_PAGE}", "busy player statement, page 500")


def jump_cursor(url: str, first_cursor: str, pages: int) -> str | None:
    """The ``_before`` cursor ``pages`` pages on from the first page's (what following the "older"
    link ``pages`` times reaches, read from the database here, untimed)."""
    from django.contrib import admin

    path = urlsplit(url).path.strip("/").split("/")
    app, model = path[1], path[2]
    for m, model_admin in admin.site._registry.items():
        if (m._meta.app_label, m._meta.model_name) == (app, model):
            per_page = model_admin.list_per_page
            ids = m._default_manager.filter(pk__lte=int(first_cursor)).order_by("-pk")
            row = ids.values_list("pk", flat=True)[per_page * pages - 1 : per_page * pages]
            found = list(row)
            return str(found[0]) if found else None
    return None


def search_term(field: str, terms: dict[str, str]) -> str:
    name = field.lstrip("^=@").split("__")[-1]
    return {
        "username": terms["username"],
        "email": terms["email"],
        "display_name": terms["display_name"],
        "name": terms["table"],
        "ref": terms["ref"],
        "idempotency_key": terms["key"],
        "object_repr": terms["username"],
        "reason": "bench",
        "text": "note",
        "verb": "change_user",
        "old_email": terms["email"],
        "new_email": terms["email"],
    }.get(name, terms["username"])


Row = tuple[str, str, float, int | None, int]


def crawl(role: str, fetch: Fetch, *, players: int, busy: int, repeat: int) -> list[Row]:
    from django.contrib import admin
    from django.urls import reverse

    crawler = Crawler(role, repeat, fetch)
    crawler.login()
    index = crawler.get("/admin/", "admin index")
    crawler.get(reverse("staff-dashboard"), "dashboard")
    p = players // 3
    terms = {
        "username": f"player{p:06d}",
        "email": f"player{p:06d}@example.com",
        "display_name": f"P{p - p % 3}",
        "table": "Table 42",
        "ref": f"user:{p}",
        "key": f"signup:{p}",
        "busy": f"player{busy:06d}",
    }
    lists = sorted({h for h in hrefs(index) if re.fullmatch(r"/admin/[a-z_]+/[a-z_]+/", h)})
    for changelist in lists:
        _, _, app, model, _ = changelist.split("/")
        for m, model_admin in admin.site._registry.items():
            if (m._meta.app_label, m._meta.model_name) == (app, model):
                crawler.crawl_list(changelist, model_admin, terms)
    crawler.busy_player(busy)
    return crawler.rows


def retime(role: str, fetch: Fetch, output: str, *, repeat: int) -> list[Row]:
    """Load again the URLs ``output`` (a previous run's printout) marked over target for ``role``."""
    crawler = Crawler(role, repeat, fetch)
    crawler.login()
    for line in Path(output).read_text().splitlines():
        found = re.search(r" \d{3}  (.*?): (/\S+) <--$", line)
        if line.startswith(f"{role[:14]:<14} ") and found:
            crawler.get(found.group(2), found.group(1))
    return crawler.rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--busy", type=int, default=None, help="the busy player's transactions (100,000)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-fill", action="store_true")
    parser.add_argument("--roles", default=",".join(ROLES))
    parser.add_argument(
        "--retime",
        metavar="OUTPUT",
        help="load again only the URLs a previous run's OUTPUT marked over target",
    )
    parser.add_argument(
        "--daphne",
        action="store_true",
        help="fetch through a Daphne started here on the bench database (production settings, DEBUG off)",
    )
    parser.add_argument(
        "--base-url", help="fetch through the site already running there (production settings)"
    )
    parser.add_argument("--redis-url", default="", help="REDIS_URL of the Daphne started by --daphne")
    parser.add_argument(
        "--skip-collectstatic",
        action="store_true",
        help="--daphne without collecting the static files first (another crawl running beside did)",
    )
    parser.add_argument(
        "--daphne-log", default="/tmp/admin_crawl_daphne.log", help="where the Daphne's output goes"
    )
    args = parser.parse_args()
    live_site.exit_on_sigterm()
    players = int(100_000 * args.scale)
    games = int(100_000 * args.scale)
    busy_tx = args.busy if args.busy is not None else int(100_000 * args.scale)
    url = os.environ["DATABASE_URL"]
    live = args.daphne or bool(args.base_url)
    if live:
        # this process makes the staff accounts: with the site's settings, their passwords are
        # hashed as the site checks them
        os.environ.update(live_site.site_env(url, args.redis_url))
    if not args.skip_fill:
        recreate_database(url)
    import django
    from django.conf import settings

    django.setup()
    settings.DEBUG = False
    from django.core.management import call_command
    from django.db import connection

    busy = players // 2
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    print(f"migrate {time.perf_counter() - started:.1f} s")
    if not args.skip_fill:
        started = time.perf_counter()
        counts = admin_bench.fill(players=players, games=games)
        counts["busy player's entries"] = add_busy_player(player=busy, transactions=busy_tx)
        filled = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        print(f"fill {filled - started:.1f} s, vacuum/analyze {time.perf_counter() - filled:.1f} s")
        print(", ".join(f"{k}: {v:,}" for k, v in counts.items()))
    make_staff(live=live)
    with ExitStack() as stack:
        if args.daphne:
            env = live_site.site_env(url, args.redis_url)
            log = Path(args.daphne_log)
            server = stack.enter_context(live_site.daphne(env, log, collect=not args.skip_collectstatic))
            base_url = server.base_url
            print(f"through a Daphne at {base_url} (pid {server.pid}, log {args.daphne_log})")
        elif args.base_url:
            base_url = args.base_url
            print(f"through the site at {base_url}")
        if live:
            print(
                "queries: not counted (the site is another process); the test-client mode "
                "(without --daphne) counts them; db: likewise"
            )
        else:
            print("through Django's test client in this process (no socket); queries counted")
        rows: list[tuple[str, str, str, float, int | None, int]] = []
        for role in args.roles.split(","):
            print(f"\n=== {role} ===", flush=True)
            fetch: Fetch = DaphneFetch(base_url) if live else TestClientFetch()
            if args.retime:
                rows += [(role, *r) for r in retime(role, fetch, args.retime, repeat=args.repeat)]
                continue
            rows += [(role, *r) for r in crawl(role, fetch, players=players, busy=busy, repeat=args.repeat)]
    print(f"\n{len(rows)} URLs crawled (median of {args.repeat} loads each); load average {load()}")
    print("\nslowest twenty:")
    for row in sorted(rows, key=lambda r: -r[3])[:20]:
        print(summary(*row))
    missed = [r for r in rows if over(r[3], r[4], r[5])]
    print(f"\n{len(missed)} URLs over {TARGET_MS} ms, {TARGET_QUERIES} queries or not 200, by role:")
    for role in args.roles.split(","):
        print(f"  {role}: {sum(1 for r in missed if r[0] == role)}")
    for row in missed:
        print(summary(*row))


def summary(role: str, what: str, link: str, ms: float, queries: int | None, status: int) -> str:
    q = "   -" if queries is None else f"{queries:>4}"
    return f"  {ms:>9.1f} ms {q} q {status}  {role}: {what}: {link}"


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes): the figures are measured on a shared one."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
