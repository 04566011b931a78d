"""Browser tests: a real Daphne server on the test database, driven by headless Chromium.

The server runs in a subprocess (``daphne rummy_site.asgi:application``) with
the test settings, the pytest-django test database (a file for SQLite,
``test_<name>`` on PostgreSQL) and the embedded Celery worker, so the game's
timers run inside it. Tests using it must be ``transaction=True``: the server
only sees committed rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import shared
from tests.waiting import poll
from tests.workers import worker_index

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "e2e"
#: The log of the server ``live_server_url`` starts: one per xdist worker, as their servers run at once.
SERVER_LOG = ARTIFACTS / f"daphne-{worker_index()}.log"
#: Where the server's mail goes (Django's file backend): a browser test reads the confirmation link
#: there and follows it, as the player would from their inbox (``pages.confirm_address``).
MAIL_DIR = ARTIFACTS / f"mail-{worker_index()}"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Chromium 156's headless windows each load the address bar's WebUI popups (two
#: ``chrome://omnibox-popup.top-chrome`` pages in a renderer of their own) for every browser context:
#: about 0.3 s of CPU a context, more than the context and a small page cost together, for a popup a
#: headless test never opens (10 contexts with a small page each: 5.5 s of CPU with them, 2.6 s without).
UNUSED_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")


def playwright_disabled_features() -> list[str]:
    """The features Playwright's launch turns off (``chromiumSwitches.ts``), read from its driver.

    Chromium keeps only the last ``--disable-features`` of its command line, so ours must repeat
    Playwright's list, which it does not expose; a driver where the list is not found fails here.
    """
    import playwright

    bundle = Path(playwright.__file__).parent / "driver" / "package" / "lib" / "coreBundle.js"
    found = re.search(r"disabledFeatures = \[(.*?)\]\.filter", bundle.read_text(), re.S)
    if found is None:
        raise RuntimeError(f"Playwright's disabled Chromium features not found in {bundle}")
    return re.findall(r'^\s*"(\w+)"', found.group(1), re.M)


def chromium_args() -> list[str]:
    features = [*playwright_disabled_features(), *UNUSED_FEATURES]
    return [*CHROMIUM_ARGS, "--disable-features=" + ",".join(features)]


DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
PHONE: dict[str, Any] = {
    "viewport": {"width": 375, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


#: What a fresh machine's (or an operator's) shell does not have: the suite's database, Redis and
#: Django settings, and what rummy_site.test_settings put in this process's environment (no
#: embedded worker, a test key).
NOT_ON_A_FRESH_MACHINE = (
    "DATABASE_URL",
    "REDIS_URL",
    "DJANGO_SETTINGS_MODULE",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "RUMMY_EMBEDDED_WORKER",
    "SECRET_KEY",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _database_url() -> str:
    """The URL of the test database pytest-django created (what the server must use)."""
    from django.db import connection

    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    if connection.vendor == "postgresql":
        auth = db["USER"] or ""
        if db.get("PASSWORD"):
            auth += f":{db['PASSWORD']}"
        host = f"{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
        return f"postgres://{auth}@{host}/{db['NAME']}"
    raise RuntimeError(f"no e2e server for a {connection.vendor} database")


#: The PostgreSQL application name of the test server's connections, so teardown waits for those alone.
SERVER_APPLICATION = "rummy-e2e-server"


def _server_database_url() -> str:
    """The test database's URL for the server this fixture starts, its connections named."""
    url = _database_url()
    return f"{url}?application_name={SERVER_APPLICATION}" if url.startswith("postgres") else url


@pytest.fixture(autouse=True)
def _close_connections() -> Iterator[None]:
    yield
    from django.db import connections

    # Playwright's sync API may have made the ORM open its own connection: close it,
    # or PostgreSQL cannot drop the test database at the end of the run.
    connections.close_all()


SERVER_LOG_LINES = 80
#: What a test that starts servers of its own registers with ``log_tails``: a name, and how to read the end of that log.
LOG_TAILS = pytest.StashKey[dict[str, Callable[[], str]]]()
#: Where this test's part of the server log begins (the server serves every browser test of a worker).
SERVER_LOG_START = pytest.StashKey[int]()


def without_static(text: str) -> list[str]:
    """A server log's lines, less the requests for static files (many, and seldom the story)."""
    return [line for line in text.splitlines() if "GET /static/" not in line]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed browser test's report carries the end of its servers' logs (CI shows only the report)."""
    report = yield
    if not report.failed:
        return report
    log = SERVER_LOG
    if "live_server_url" in getattr(item, "fixturenames", ()) and log.exists():
        with log.open("rb") as f:  # this test's part: the server serves every browser test of the worker
            f.seek(item.stash.get(SERVER_LOG_START, 0))
            lines = without_static(f.read().decode(errors="replace"))
        report.sections.append(
            (f"server log, last {SERVER_LOG_LINES} lines", "\n".join(lines[-SERVER_LOG_LINES:]))
        )
    for name, tail in item.stash.get(LOG_TAILS, {}).items():
        report.sections.append((name, tail()))
    return report


@pytest.fixture
def log_tails(request: pytest.FixtureRequest) -> dict[str, Callable[[], str]]:
    """Register ``name: read_the_end_of_its_log`` here; a failed test's report then carries each."""
    tails: dict[str, Callable[[], str]] = {}
    request.node.stash[LOG_TAILS] = tails
    return tails


def serving(url: str, proc: subprocess.Popen[Any], timeout: float) -> bool:
    """Whether the site at ``url`` answers ``/healthz`` within ``timeout`` seconds while ``proc`` runs."""

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    return (
        bool(poll(lambda: proc.poll() is not None or healthy(), timeout, interval=0.2))
        and proc.poll() is None
    )


class _Server:
    """This worker's Daphne for its browser tests, kept from one to the next (a Django process's
    start is the dearest part of a short browser test) and stopped before any other test
    (``tests/e2e/shared.py``: its embedded beat sweeps the whole database's deadlines)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[Any] | None = None
        self.url = ""
        self.environ: dict[str, str] = {}

    def url_for_this_test(self, *, fresh: bool) -> str:
        """The running server's address; a new server's when the test asks for one (``fresh``), set
        the server's environment (``monkeypatch.setenv``: a knob such as ``WS_MAX_SOCKETS_PER_USER``),
        or the server stopped answering."""
        environ = self._environ()
        if not fresh and environ == self.environ and self.proc and serving(self.url, self.proc, 5):
            return self.url
        return self.start(environ)

    @staticmethod
    def _environ() -> dict[str, str]:
        environ = dict(os.environ)
        environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # the test process's, never the server's
        environ.pop("PYTEST_CURRENT_TEST", None)
        return environ

    def start(self, environ: dict[str, str]) -> str:
        self.stop()
        self.environ = environ
        daphne = Path(sys.executable).with_name("daphne")
        port = _free_port()
        env = {
            **environ,
            "DJANGO_SETTINGS_MODULE": "rummy_site.test_settings",
            "DATABASE_URL": _server_database_url(),
            "RUMMY_EMBEDDED_WORKER": "1",
            # its worker picks up a timer or a bot's move within 50 ms, not kombu's second
            "CELERY_MEMORY_POLL_MS": "50",
            "PYTHONUNBUFFERED": "1",
            "EMAIL_URL": f"file:///{MAIL_DIR}",  # file:////abs/path: dj-email-url drops one slash
        }
        env.pop("REDIS_URL", None)  # one process: the in-memory channel layer and the embedded worker
        if env["DATABASE_URL"].startswith("postgres"):  # as in production: a pool, not kept connections
            env.update(DB_POOL_SIZE="8", DB_CONN_MAX_AGE="0")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        with SERVER_LOG.open("a") as log:
            self.proc = subprocess.Popen(
                [str(daphne), "-b", "127.0.0.1", "-p", str(port), "rummy_site.asgi:application"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.url = f"http://127.0.0.1:{port}"
        # a busy machine (xdist workers side by side) starts it slowly
        if not serving(self.url, self.proc, timeout=90):
            raise RuntimeError(f"daphne did not start; see {SERVER_LOG}")
        return self.url

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


@pytest.fixture(scope="session")
def _server(django_db_setup: None, django_db_blocker: Any) -> Iterator[_Server]:
    server = _Server()
    shared.STOP.append(("live_server_url", server.stop))
    SERVER_LOG.parent.mkdir(parents=True, exist_ok=True)
    SERVER_LOG.write_text("")
    try:
        yield server
    finally:
        server.stop()
        with django_db_blocker.unblock():
            _wait_for_server_sessions_to_end()
            from django.db import connections

            connections.close_all()  # the wait's own, or PostgreSQL cannot drop the test database


@pytest.fixture
def live_server_url(transactional_db: None, _server: _Server, request: pytest.FixtureRequest) -> str:
    """The site served by Daphne against the test database.

    One server a worker, kept across its browser tests in a row: each test's rows are its own (the
    database is emptied after each test, and ids are never reused, so a timer left from an earlier
    test finds no game of a later one); see ``_Server.url_for_this_test`` for when it starts anew.
    """
    request.node.stash[SERVER_LOG_START] = SERVER_LOG.stat().st_size if SERVER_LOG.exists() else 0
    return _server.url_for_this_test(fresh=request.node.get_closest_marker("fresh_server") is not None)


def _wait_for_server_sessions_to_end(timeout: float = 10) -> None:
    """PostgreSQL drops the test database at the end of the run only once the server's sessions are gone.

    Only the server's own (``SERVER_APPLICATION``): counting every other session made this
    wait run out its whole timeout, held up by the connection the ORM opens in Playwright's
    greenlet, which ``_close_connections`` closes after each browser test.
    """
    from django.db import connection

    if connection.vendor != "postgresql":
        return

    def gone() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
                [SERVER_APPLICATION],
            )
            return bool(cursor.fetchone()[0] == 0)

    poll(gone, timeout, interval=0.1)  # past it, the drop of the database says what is left


class _Chromium:
    """This worker's Chromium, kept across its browser tests (a launch with Playwright's driver costs
    about a second of CPU, some fifty times in a run); each test's contexts are its own and closed
    after it. Stopped before any test that does not use it (``tests/e2e/shared.py``).

    Playwright's sync API marks its event loop as running in this thread (``asyncio``'s running
    loop) and leaves it so between its calls. Between tests it is unmarked (``pause``), so the next
    test's fixtures (making its rows, which notify through ``async_to_sync``) run as plain code, and
    marked again when a test gets the browser, as Playwright's driver greenlet expects.
    """

    def __init__(self) -> None:
        self.playwright: Any = None
        self.browser: Any = None

    def get(self) -> Any:
        if self.browser is not None:
            asyncio._set_running_loop(self.playwright._loop)
            if self.browser.is_connected():
                return self.browser
        self.stop()
        from playwright.sync_api import sync_playwright

        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=chromium_args()
        )
        return self.browser

    def pause(self) -> None:
        """After a test: its contexts closed (the next starts with none), the loop unmarked."""
        if self.browser is None:
            return
        try:
            if self.browser.is_connected():
                for context in self.browser.contexts:
                    context.close()
        finally:
            asyncio._set_running_loop(None)

    def stop(self) -> None:
        if self.browser is None:
            return
        from playwright.sync_api import Error

        asyncio._set_running_loop(self.playwright._loop)
        try:
            with contextlib.suppress(Error):  # a browser that crashed is gone already
                self.browser.close()
            self.playwright.stop()
        finally:
            self.browser = self.playwright = None
            asyncio._set_running_loop(None)


_CHROMIUM = _Chromium()
shared.STOP.append(("browser", _CHROMIUM.stop))


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.fail(f"Chromium is missing at {CHROMIUM}: apt-get install -y chromium (scripts/test does it)")
    # Playwright's sync API keeps an event loop in this thread; the test's own ORM
    # calls (arranging the deal, reading the state) are plain synchronous code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    try:
        yield _CHROMIUM.get()
    finally:
        _CHROMIUM.pause()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _CHROMIUM.stop()
