"""Real server processes for the infrastructure tests: a Celery worker with beat, Daphne.

Each process gets the test database (``DATABASE_URL`` derived from the test
connection), the test settings and its own Redis URL. Its output is read by a
thread into memory, so a chatty child never blocks on a full pipe and a failing
test can print the tail. Every wait here is bounded; callers stop their
children in ``finally``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.waiting import poll
from tests.workers import worker_redis_dbs

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


#: The pool and socket threads of a production process (README, "Running in production").
PRODUCTION = {"DB_POOL_SIZE": "8", "WS_DB_THREADS": "4"}


def child_database_url() -> str:
    """The URL of the database this test run uses (``test_rummy``), for child processes."""
    from django.db import connection

    s = connection.settings_dict
    assert connection.vendor == "postgresql", "child processes share only a PostgreSQL test database"
    user = s.get("USER") or "postgres"
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    host = s.get("HOST") or "127.0.0.1"
    port = s.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{s['NAME']}"


def redis_db_url(base_url: str, db: int) -> str:
    """``base_url`` pointing at Redis database ``db``."""
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


def flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.flushdb()
    finally:
        client.close()


#: Redis databases the tests may claim: not 0 (the default REDIS_URL) nor 13 (the load bench's), nor
#: (``_claimable``) those the xdist workers of this run use as their own (tests/workers.py).
CLAIMABLE_REDIS_DBS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15)


def _claimable() -> list[int]:
    taken = worker_redis_dbs()
    return [db for db in CLAIMABLE_REDIS_DBS if db not in taken]


_CLAIM_KEY = "rummy-tests:claimed-by"
#: Keys that Celery (kombu's Redis transport, beat), channels-redis and tables.realtime.socket_registry write.
_OUR_KEYS = ("_kombu.", "celery", "unacked", "asgi", "rummy-tests:", "rummy:ws:")


@contextlib.contextmanager
def private_redis(base_url: str) -> Iterator[str]:
    """A Redis database no other test (of this run or another run side by side) is using.

    Its channel layer groups, Celery queue and beat state are then this test's alone.
    The claim is a key set only if absent (with an expiry, should this process die).
    A database holding keys that are not Celery's or channels-redis' is someone
    else's and is skipped; leftovers of a test run that died are deleted. The
    database is flushed on release.
    """
    import redis

    owner = f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}:{time.monotonic_ns()}"
    claimable = _claimable()
    for db in claimable:
        client = redis.Redis.from_url(redis_db_url(base_url, db), socket_connect_timeout=2)
        try:
            if not client.set(_CLAIM_KEY, owner, nx=True, ex=900):
                continue
            keys = [k.decode() for k in client.scan_iter(count=500) if k != _CLAIM_KEY.encode()]
            if not all(k.startswith(_OUR_KEYS) for k in keys):  # someone else's data: leave it be
                client.delete(_CLAIM_KEY)
                continue
            if keys:  # what the servers of a test run that died left behind
                client.delete(*keys)
        finally:
            client.close()
        url = redis_db_url(base_url, db)
        try:
            yield url
        finally:
            flush_redis(url)
        return
    raise AssertionError(f"every Redis database in {claimable} is claimed by another test")


def child_env(redis_url: str, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": child_database_url(),
        "DJANGO_SETTINGS_MODULE": "rummy_site.test_settings",
        "REDIS_URL": redis_url,
        "RUMMY_EMBEDDED_WORKER": "0",
        "PYTHONUNBUFFERED": "1",
        "LOG_LEVEL": "INFO",
    }
    env.pop("CELERY_RESULT_BACKEND", None)
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def free_ports(count: int) -> list[int]:
    """``count`` different free ports: held open together while chosen (free_port twice may give one port twice)."""
    with contextlib.ExitStack() as stack:
        sockets = [
            stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) for _ in range(count)
        ]
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in sockets]


class Proc:
    """A child process whose combined output is collected line by line."""

    def __init__(self, name: str, args: list[str], env: dict[str, str]) -> None:
        self.name = name
        self.args = args
        self.lines: list[str] = []
        self._lock = threading.Lock()
        self.popen = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,  # its own process group: a stop reaches its children too
        )
        self._reader = threading.Thread(target=self._read, name=f"read-{name}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            with self._lock:
                self.lines.append(line.rstrip("\n"))

    @property
    def output(self) -> str:
        with self._lock:
            return "\n".join(self.lines)

    def matching(self, *texts: str) -> list[str]:
        """The output lines that contain every one of ``texts``."""
        with self._lock:
            return [line for line in self.lines if all(t in line for t in texts)]

    def messages(self, *texts: str) -> list[str]:
        """The log messages that contain every one of ``texts``: the ``message`` of each JSON line
        (the site's log format, docs/operations.md), other lines (a banner, a traceback) as they are."""
        found = []
        for line in self.matching(*texts):
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            text = record.get("message", line) if isinstance(record, dict) else line
            if all(t in text for t in texts):
                found.append(text)
        return found

    def count(self, text: str) -> int:
        with self._lock:
            return sum(text in line for line in self.lines)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def wait_for(self, text: str, timeout: float, *, times: int = 1) -> bool:
        """Wait until ``text`` appeared in ``times`` output lines; False on timeout or exit."""
        return bool(poll(lambda: self.count(text) >= times or not self.alive(), timeout)) and (
            self.count(text) >= times
        )

    def tail(self, lines: int = 60) -> str:
        with self._lock:
            return f"--- last output of {self.name} (exit {self.popen.poll()}) ---\n" + "\n".join(
                self.lines[-lines:]
            )

    def kill(self) -> None:
        """SIGKILL, the harsh way: no graceful shutdown, no message returned to the broker."""
        self._signal(signal.SIGKILL)
        self._reap(10)

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM, then SIGKILL if it has not exited within ``timeout`` seconds."""
        if self.alive():
            self._signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
        self._reap(10)

    def _signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, sig)  # the group this child leads (start_new_session)

    def _reap(self, timeout: float) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=timeout)
        self._reader.join(timeout=5)


def start_worker(
    redis_url: str,
    workdir: Path,
    *,
    name: str = "worker",
    sweep_seconds: int = 1,
    beat: bool = True,
    pool: str = "solo",
    **env: str,
) -> Proc:
    """A Celery worker, with embedded beat (``-B``) unless ``beat`` is False, on ``redis_url``; waits until it is ready.

    ``pool``: Celery's ``-P`` (``prefork`` runs the tasks in a child process, as production does);
    ``env``: settings of its own."""
    proc = Proc(
        name,
        [
            str(BIN / "celery"),
            "-A",
            "rummy_site",
            "worker",
            *(["-B"] if beat else []),
            "-P",
            pool,
            *(["-c", "1"] if pool == "prefork" else []),
            "-l",
            "INFO",
            "-n",
            f"{name}-{os.getpid()}@%h",
            "-s",
            str(workdir / f"{name}-beat-schedule"),
            "--without-mingle",
            "--without-gossip",
            "--without-heartbeat",
        ],
        child_env(redis_url, CELERY_SWEEP_SECONDS=str(sweep_seconds), **env),
    )
    if not proc.wait_for(" ready.", timeout=90):
        tail = proc.tail()
        proc.stop()
        raise AssertionError(f"the Celery worker did not become ready\n{tail}")
    return proc


def start_beat(
    redis_url: str, workdir: Path, *, name: str = "beat", sweep_seconds: int = 1, **env: str
) -> Proc:
    """Celery beat alone (the deadline sweep) on ``redis_url``; waits until it has started
    (``env``: settings of its own)."""
    proc = Proc(
        name,
        [
            str(BIN / "celery"),
            "-A",
            "rummy_site",
            "beat",
            "-l",
            "INFO",
            "-s",
            str(workdir / f"{name}-schedule"),
        ],
        child_env(redis_url, CELERY_SWEEP_SECONDS=str(sweep_seconds), **env),
    )
    if not proc.wait_for("beat: Starting", timeout=90):
        tail = proc.tail()
        proc.stop()
        raise AssertionError(f"Celery beat did not start\n{tail}")
    return proc


def start_redis_server(port: int, *, name: str = "redis") -> Proc:
    """A redis-server of this test's own on ``port`` (no persistence): one a test may kill.

    Never the shared Redis: tests that kill or restart Redis start their own.
    """
    proc = Proc(
        name,
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        dict(os.environ),
    )

    def answering() -> bool:
        if not proc.alive():
            return True
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    if not poll(answering, timeout=20) or not proc.alive():
        tail = proc.tail()
        proc.stop()
        raise AssertionError(f"redis-server did not start on port {port}\n{tail}")
    return proc


def start_daphne(redis_url: str, *, name: str = "daphne", **env: str) -> tuple[Proc, int]:
    """A Daphne server on a free port (``env``: settings of its own), once it says it listens there.

    Not once something answers on the port: the suite's workers start servers side by side, and a
    port free when chosen can be taken before this Daphne binds it. It then fails ("Address already
    in use") while the other server answers, and a test talked to a server of another database (its
    sockets closed 4401, a clean clone's CI run, 2026-11-27). Such a port is chosen again.
    """
    for _ in range(3):
        port = free_port()
        proc = Proc(
            name,
            [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "rummy_site.asgi:application"],
            child_env(redis_url, **env),
        )
        if proc.wait_for(f"Listening on TCP address 127.0.0.1:{port}", timeout=90) and proc.alive():
            return proc, port
        tail = proc.tail()
        proc.stop()
        if "Address already in use" not in tail:
            break
    raise AssertionError(f"Daphne did not start on port {port}\n{tail}")


async def open_socket(port: int, cookie: str, path: str = "/ws/lobby/", **options: Any) -> Any:
    """A WebSocket to the Daphne on ``port``, as a logged-in browser on that site opens it
    (offering permessage-deflate, as browsers do); ``options``: more of websockets' ``connect``."""
    from websockets.asyncio.client import connect
    from websockets.typing import Origin

    ws = await connect(
        f"ws://127.0.0.1:{port}{path}",
        origin=Origin(f"http://127.0.0.1:{port}"),
        additional_headers={"Cookie": cookie},
        proxy=None,
        open_timeout=10,
        **options,
    )
    ws.keep_alive = asyncio.create_task(_ping_while_open(ws))  # held, lest the task be collected
    return ws


#: How often a test's socket pings, as the page pings one it has not written to (static/js/socket.js).
PING_EVERY = 5.0


async def _ping_while_open(ws: Any) -> None:
    """Ping ``ws`` as the page does, so a test that waits on other players is not closed as idle."""
    from websockets.exceptions import ConnectionClosed

    try:
        while True:
            await asyncio.sleep(PING_EVERY)  # time passes on purpose: the page pings this far apart
            await ws.send(json.dumps({"type": "ping"}))
    except ConnectionClosed:
        pass


def point_celery_at(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make this process's Celery app send to ``url``, as a web server with ``REDIS_URL`` does.

    ``monkeypatch`` (pytest's) restores the in-memory broker and its cached pools afterwards.
    """
    from rummy_site.celery import app

    monkeypatch.setattr(app.conf, "broker_url", url)
    monkeypatch.setattr(app, "_pool", None)
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
