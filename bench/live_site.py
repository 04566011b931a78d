"""The site as production runs it, for the benches that must not take Django's test client's word:
a Daphne (and an exports worker) started on the bench's database with the production settings and
``DEBUG`` off, a browser-like HTTP client that logs in through the log-in form, and a sampler of
processes' resident memory.

The client speaks to the Daphne as nginx does (README, "Running in production"): plain HTTP to
127.0.0.1 with ``X-Forwarded-Proto: https`` and ``X-Forwarded-For``, so the site's secure cookies,
its HTTPS redirect and its CSRF origin check are the production ones; it keeps the cookies itself
(they are ``Secure``, which a cookie jar would not send over plain HTTP).
"""

from __future__ import annotations

import html
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def site_env(database_url: str, redis_url: str = "", **extra: str) -> dict[str, str]:
    """The environment of the README's production processes, ``DEBUG`` off, on the bench's
    database (and Redis, if given: the exports queue and the caches live there)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "rummy_site.settings",
        "DATABASE_URL": database_url,
        "DEBUG": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-only-secret-key-" + "0" * 48,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "TRUST_X_FORWARDED_PROTO": "1",
        "RUMMY_EMBEDDED_WORKER": "0",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }
    env.pop("REDIS_URL", None)
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Process:
    """A server the bench started: its pid, where it listens (if it does) and its log."""

    proc: subprocess.Popen[bytes]
    log: Path
    base_url: str = ""

    @property
    def pid(self) -> int:
        return self.proc.pid


def exit_on_sigterm() -> None:
    """A ``TERM`` ends the bench as an interrupt does, so that the servers it started are stopped."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


@contextmanager
def started(
    argv: list[str], env: dict[str, str], log: Path, stop: int = signal.SIGTERM
) -> Iterator[subprocess.Popen[bytes]]:
    """``argv`` run in the checkout with its output in ``log``; stopped on exit (``stop``, then
    ``KILL`` after 20 s)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield proc
        finally:
            proc.send_signal(stop)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextmanager
def daphne(
    env: dict[str, str], log: Path, *, boot_seconds: float = 90, collect: bool = True
) -> Iterator[Process]:
    """A Daphne serving ``rummy_site.asgi`` on a free port, as the README starts one; yields when
    it answers ``/healthz`` (with whatever status). The static files are collected first, as the
    README does before starting the Daphnes (the production storage serves them by their manifest),
    unless ``collect`` is false (Daphnes started side by side: one collects, the others wait)."""
    if collect:
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
    port = free_port()
    argv = [
        str(BIN / "daphne"),
        "-b",
        "127.0.0.1",
        "-p",
        str(port),
        "--proxy-headers",
        "--websocket-max-message-size",
        "65536",
        "rummy_site.asgi:application",
    ]
    with started(argv, env, log) as proc:
        server = Process(proc, log, f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + boot_seconds
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"daphne exited ({proc.returncode}): see {log}")
            try:
                Browser(server.base_url).request("GET", "/healthz")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"daphne did not answer in {boot_seconds} s: see {log}") from None
                time.sleep(0.2)
        yield server


@contextmanager
def exports_worker(env: dict[str, str], log: Path, *, boot_seconds: float = 90) -> Iterator[Process]:
    """The exports worker as the README starts it (queue ``exports``, one child, a fresh child per
    task); yields when it says it is ready. Messages left on the queue by an earlier run are purged."""
    argv = [
        str(BIN / "celery"),
        "-A",
        "rummy_site",
        "worker",
        "-Q",
        "exports",
        "-c",
        "1",
        "--max-tasks-per-child",
        "1",
        "-n",
        f"exports-bench-{os.getpid()}@%h",
        "-l",
        "INFO",
        "--purge",
        "--without-gossip",
        "--without-mingle",
    ]
    with started(argv, env, log, stop=signal.SIGQUIT) as proc:  # QUIT: no waiting for the export
        deadline = time.monotonic() + boot_seconds
        while b" ready." not in log.read_bytes():
            if proc.poll() is not None:
                raise SystemExit(f"the exports worker exited ({proc.returncode}): see {log}")
            if time.monotonic() > deadline:
                raise SystemExit(f"the exports worker was not ready in {boot_seconds} s: see {log}")
            time.sleep(0.2)
        yield Process(proc, log)


class Browser:
    """One staff member's browser behind nginx: one kept-alive HTTP/1.1 connection, its cookies."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.netloc = parts.netloc
        self.origin = f"https://{parts.netloc}"
        self.cookies: dict[str, str] = {}
        self.conn: http.client.HTTPConnection | None = None

    def request(
        self, method: str, url: str, fields: list[tuple[str, str]] | None = None, referer: str = ""
    ) -> tuple[int, bytes, float]:
        """Send one request and read the whole answer; returns the status, the body and the
        seconds from sending to the last byte."""
        headers = {
            "Host": self.netloc,
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": "127.0.0.1",
            "User-Agent": "rummy-bench",
            "Accept": "text/html,*/*",
        }
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if fields is not None:
            body = urlencode(fields).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = self.origin
            headers["Referer"] = self.origin + (referer or url)
        for attempt in (1, 2):  # a kept-alive connection the server closed meanwhile: once more
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=900)
            try:
                started_at = time.perf_counter()
                self.conn.request(method, url, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                seconds = time.perf_counter() - started_at
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
                continue
            for line in response.headers.get_all("Set-Cookie") or []:
                self._keep(line)
            if response.will_close:
                self.conn.close()
                self.conn = None
            return response.status, data, seconds
        raise AssertionError("unreachable")

    def _keep(self, line: str) -> None:
        cookie = SimpleCookie()
        cookie.load(line)
        for name, morsel in cookie.items():
            if morsel.value == "" or morsel["max-age"] == "0":
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = morsel.value

    def form_token(self, page: bytes) -> str:
        found = CSRF_FIELD.search(page.decode(errors="replace"))
        if not found:
            raise SystemExit("no CSRF token on the page")
        return html.unescape(found.group(1))

    def login(self, username: str, password: str) -> int:
        """Log in through the admin's log-in form; returns the answer's status (302 when it worked)."""
        _, page, _ = self.request("GET", "/admin/login/?next=/admin/")
        fields = [
            ("csrfmiddlewaretoken", self.form_token(page)),
            ("username", username),
            ("password", password),
            ("next", "/admin/"),
        ]
        status, _, _ = self.request("POST", "/admin/login/?next=/admin/", fields)
        return status


def rss_kb(pid: int) -> int:
    """A process's resident memory (``VmRSS``), 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    """``pid``'s child processes (a Celery worker's pool)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


@dataclass
class Peak:
    """Resident memory of one process (and of whichever children it has) sampled on a thread."""

    name: str
    pid: int
    with_children: bool = False
    before: int = 0
    peak: int = 0
    after: int = 0
    child_peak: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def now(self) -> tuple[int, int]:
        own = rss_kb(self.pid)
        kids = sum(rss_kb(c) for c in children(self.pid)) if self.with_children else 0
        return own, kids

    def total(self) -> int:
        return sum(self.now())

    def start(self, every: float = 0.05) -> None:
        self.before = self.peak = self.total()

        def sample() -> None:
            while not self._stop.wait(every):
                own, kids = self.now()
                self.peak = max(self.peak, own + kids)
                self.child_peak = max(self.child_peak, kids)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()
        self.after = self.total()

    def line(self) -> str:
        mb = 1024
        grew = (self.peak - self.before) / mb
        kids = f" (its pool's child at most {self.child_peak / mb:.0f} MiB)" if self.with_children else ""
        return (
            f"{self.name:<16} RSS before {self.before / mb:7.1f} MiB, peak {self.peak / mb:7.1f} MiB, "
            f"after {self.after / mb:7.1f} MiB: grew {grew:+.1f} MiB at most{kids}"
        )
