"""No action is accepted after log-out returns (issue 23): in 1 of 96 runs a socket accepted two.

Log-out closes the session's sockets through the channel layer, which is asynchronous: what a
socket had queued, or a socket that opened while the log-out ran, could still act after the
log-out's answer. Now every action checks, in its own transaction, that its session still logs
its user in; log-out deletes the session row before it answers.

Arriving as the attacker does: a real Daphne (with Redis for its channel layer) and the test
database, a real log-in and log-out over HTTP with their CSRF tokens, real WebSocket clients.
In each run one socket sends arrangements in a tight loop and new sockets keep opening with
the same session cookie while the same browser logs out. An action counts as sent after the
log-out once the log-out's response has arrived; none of those may be answered ``ok``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from tables import services
from tables.realtime import sockets
from tests.tables import procs
from tests.tables.conftest import make_player, make_table
from tests.tables.games import regrouped

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

RUNS = 40
PASSWORD = "x-rummy-2026"  # make_player's
IN_FLIGHT = 4  # actions the tight loop keeps unanswered at once
LATE_SOCKETS = 16  # sockets opened, 4 ms apart, while the log-out runs


class Browser:
    """One browser's cookies, logging in and out through the site's own forms."""

    def __init__(self, site: str) -> None:
        self.site = site
        self.http = requests.Session()

    def post(self, path: str, data: dict[str, str]) -> int:
        token = self.http.cookies.get("csrftoken", "")
        response = self.http.post(
            f"{self.site}{path}",
            data={**data, "csrfmiddlewaretoken": token},
            headers={"Origin": self.site, "Referer": f"{self.site}{path}"},
            allow_redirects=False,
            timeout=20,
        )
        return response.status_code

    def log_in(self, username: str) -> None:
        assert self.http.get(f"{self.site}/accounts/login/", timeout=20).status_code == 200
        assert self.post("/accounts/login/", {"username": username, "password": PASSWORD}) == 302

    def cookie(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())


@dataclass
class Run:
    """What one run saw: the request ids sent after log-out returned, and those answered ok."""

    logged_out: threading.Event = field(default_factory=threading.Event)
    #: The same moment for the event loop (set from the log-out's thread through the loop).
    out: asyncio.Event = field(default_factory=asyncio.Event)
    after: set[str] = field(default_factory=set)
    accepted: set[str] = field(default_factory=set)
    sent: int = 0
    #: Sockets of the session still open after the log-out (they would go on receiving the hand).
    orphans: int = 0
    closes: list[int | None] = field(default_factory=list)

    def request_id(self, prefix: str) -> str:
        self.sent += 1
        rid = f"{prefix}-{self.sent}"
        if self.logged_out.is_set():  # read just before the send: the log-out's answer is in
            self.after.add(rid)
        return rid

    def violations(self) -> set[str]:
        return self.after & self.accepted


async def _read(ws: Any, run: Run, answered: asyncio.Semaphore | None = None) -> None:
    """Every result until the socket closes."""
    try:
        while True:
            message = json.loads(await ws.recv())
            if message.get("type") == "result":
                if message.get("ok"):
                    run.accepted.add(message["request_id"])
                if answered is not None:
                    answered.release()
    except ConnectionClosed:
        run.closes.append(ws.close_code)


async def _tight_loop(ws: Any, run: Run, groups: list[list[str]], stop: asyncio.Event) -> None:
    """Arrangements, ``IN_FLIGHT`` unanswered at a time, until the socket closes or ``stop``."""
    answered = asyncio.Semaphore(IN_FLIGHT)
    reader = asyncio.create_task(_read(ws, run, answered))
    try:
        while not stop.is_set() and not reader.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(answered.acquire(), timeout=0.05)
                action = {"type": "arrange", "groups": groups}
                try:
                    await ws.send(
                        json.dumps({"type": "action", "request_id": run.request_id("t"), "action": action})
                    )
                except ConnectionClosed:
                    break
        await asyncio.wait_for(reader, timeout=5)  # every answer, then the close
    finally:
        reader.cancel()


async def _late_socket(port: int, cookie: str, path: str, run: Run, groups: list[list[str]]) -> None:
    """A socket opened while the log-out runs; once it has returned, it tries one action."""
    try:
        ws = await procs.open_socket(port, cookie, path)
    except (InvalidHandshake, ConnectionClosed, OSError, TimeoutError):
        return  # refused at the handshake: signed out already
    reader = asyncio.create_task(_read(ws, run))
    try:
        waiting = asyncio.create_task(run.out.wait())
        await asyncio.wait([waiting, reader], return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if not reader.done():
            action = {"type": "arrange", "groups": groups}
            with contextlib.suppress(ConnectionClosed):
                await ws.send(
                    json.dumps({"type": "action", "request_id": run.request_id("l"), "action": action})
                )
        try:
            await asyncio.wait_for(asyncio.shield(reader), timeout=2)
        except TimeoutError:
            run.orphans += 1  # still open 2 s after the log-out answered
    finally:
        reader.cancel()
        await ws.close()


async def _one_run(port: int, table_id: int, username: str) -> Run:
    site = f"http://127.0.0.1:{port}"
    browser = Browser(site)
    await asyncio.to_thread(browser.log_in, username)
    cookie, path = browser.cookie(), f"/ws/tables/{table_id}/"
    ws = await procs.open_socket(port, cookie, path)
    snapshot = json.loads(await ws.recv())
    groups = regrouped(snapshot["view"]["hand"])
    run, stop = Run(), asyncio.Event()
    loop = asyncio.get_running_loop()

    def log_out() -> None:
        assert browser.post("/accounts/logout/", {}) == 302
        run.logged_out.set()
        loop.call_soon_threadsafe(run.out.set)

    async def keep_opening() -> None:
        late: list[asyncio.Task[None]] = []
        while not run.logged_out.is_set() and len(late) < LATE_SOCKETS:
            late.append(asyncio.create_task(_late_socket(port, cookie, path, run, groups)))
            await asyncio.sleep(0.004)  # time passes on purpose: late sockets spread over the log-out
        await asyncio.gather(*late)

    tight = asyncio.create_task(_tight_loop(ws, run, groups, stop))
    # time passes on purpose, a random while: each run's race falls at another moment
    await asyncio.sleep(random.uniform(0.0, 0.03))
    opening = asyncio.create_task(keep_opening())
    await asyncio.sleep(random.uniform(0.0, 0.03))
    await asyncio.to_thread(log_out)
    await asyncio.sleep(0.3)  # the loop goes on after the answer, as a client that did not notice would
    stop.set()
    await asyncio.wait_for(asyncio.gather(tight, opening), timeout=20)
    with contextlib.suppress(Exception):
        await ws.close()
    return run


def test_no_action_is_accepted_after_log_out_returns(require_postgres: None, require_redis: str) -> None:
    table = make_table(seats=2, seed=11, turn_seconds=600)
    asha, ravi = make_player("asha"), make_player("ravi")
    for user in (asha, ravi):
        services.table_join(table_id=table.pk, user=user)
    with procs.private_redis(require_redis) as redis_url:
        daphne, port = procs.start_daphne(
            redis_url,
            WS_MESSAGES_PER_SECOND="100000",
            WS_MESSAGE_BURST="100000",
            WS_MAX_SOCKETS_PER_USER="1000",
        )
        try:
            runs = [asyncio.run(_one_run(port, table.pk, "asha")) for _ in range(RUNS)]
        except BaseException:
            print(daphne.tail())
            raise
        finally:
            daphne.stop()
    bad = {n: sorted(run.violations()) for n, run in enumerate(runs) if run.violations()}
    sent_after = sum(len(run.after) for run in runs)
    print(f"{RUNS} runs, {sum(r.sent for r in runs)} actions, {sent_after} sent after log-out returned")
    assert not bad, f"accepted after log-out returned, by run: {bad}"
    assert sent_after >= RUNS, "each run sent actions after the log-out's answer"
    assert not any(run.orphans for run in runs), f"sockets the log-out left open: {[r.orphans for r in runs]}"
    assert all(run.closes and sockets.CLOSE_SIGNED_OUT in run.closes for run in runs), [
        r.closes for r in runs
    ]
