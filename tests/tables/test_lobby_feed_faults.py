"""An open lobby keeps hearing of seats taken on another server after Redis restarts.

Two real Daphnes share a Redis of the test's own: Asha's lobby socket is on one, the
players who join tables post the lobby's Join form to the other, so every notice crosses
Redis (``tables.realtime.lobbyfeed`` listens to the lobby group once per process). Then Redis is
killed and started again, as its supervisor would, while her page stays open: the joins
made after it must still reach her page. On the pub/sub layer (the default) they come over
the socket she already has. On channels-redis' list layer Channels closes every socket when
Redis goes (1011) and the page opens it again, as socket.js does; the feed, whose group
membership lived in Redis and was lost with it, must have joined again.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from tests.helpers import session_cookie
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import (
    Proc,
    free_port,
    open_socket,
    point_celery_at,
    start_daphne,
    start_redis_server,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.redis]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def join_by_form(port: int, cookie: str, table_id: int) -> str:
    """What the lobby's Join button does: the lobby page for its CSRF token, then the POST."""
    base = f"http://127.0.0.1:{port}"
    opener = urllib.request.build_opener(_NoRedirect)
    page = opener.open(urllib.request.Request(f"{base}/", headers={"Cookie": cookie}), timeout=10)
    cookies = "\n".join(page.headers.get_all("Set-Cookie") or [])  # the device cookie may come first
    csrf = re.search(r"csrftoken=([^;]+)", cookies).group(1)  # type: ignore[union-attr]
    request = urllib.request.Request(
        f"{base}/tables/{table_id}/join/",
        data=b"",
        method="POST",
        headers={"Cookie": f"{cookie}; csrftoken={csrf}", "X-CSRFToken": csrf, "Origin": base},
    )
    try:
        opener.open(request, timeout=10)
    except urllib.error.HTTPError as answer:  # the 302 the page follows
        return str(answer.headers["Location"])
    raise AssertionError("the join form did not redirect")


@pytest.fixture
def redis_url(require_postgres: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    port = free_port()
    point_celery_at(f"redis://127.0.0.1:{port}/0", monkeypatch)
    yield f"redis://127.0.0.1:{port}/0"


@pytest.mark.parametrize("layer", ["pubsub", "lists"])
def test_an_open_lobby_hears_of_joins_on_another_server_after_redis_restarts(
    redis_url: str, layer: str
) -> None:
    redis_port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
    procs: dict[str, Proc] = {"redis": start_redis_server(redis_port)}
    # the list layer keeps group members in Redis, which forgets them: the feed joins again
    knobs = {"CHANNEL_LAYER": layer, "LOBBY_PUSH_SECONDS": "0.2", "LOBBY_RENEW_SECONDS": "1"}
    try:
        procs["lobby"], lobby_port = start_daphne(redis_url, name="daphne-lobby", **knobs)
        procs["joins"], join_port = start_daphne(redis_url, name="daphne-joins", **knobs)
        asha = session_cookie(make_player("asha"))
        tables = [make_table(seats=6) for _ in range(12)]
        joiners = [session_cookie(make_player(f"joiner{i}")) for i in range(len(tables))]
        log: list[str] = []

        async def open_lobby() -> ClientConnection:
            return await open_socket(lobby_port, asha)  # type: ignore[no-any-return]

        async def watch() -> None:
            page = await open_lobby()

            async def heard_of(table_id: int, seconds: float) -> bool:
                nonlocal page
                end = time.monotonic() + seconds
                while (left := end - time.monotonic()) > 0:
                    try:
                        message = json.loads(await asyncio.wait_for(page.recv(), timeout=left))
                    except TimeoutError:
                        return False
                    except ConnectionClosed:  # what socket.js does: open it again
                        log.append("reconnected")
                        # time passes on purpose: socket.js waits a moment before it tries again
                        await asyncio.sleep(0.5)
                        page = await open_lobby()
                        continue
                    log.append(str(message))
                    if message.get("type") == "lobby_update" and table_id in message["tables"]:
                        row = next(r for r in message["rows"] if r["id"] == table_id)
                        return bool(row["seats_taken"] >= 1)
                return False

            def join(i: int) -> None:
                where = join_by_form(join_port, joiners[i], tables[i].pk)
                assert where == f"/tables/{tables[i].pk}/", where

            try:
                await asyncio.to_thread(join, 0)
                assert await heard_of(tables[0].pk, 5), log

                procs["redis"].kill()
                await asyncio.sleep(1.0)  # time passes on purpose: Redis stays away a while, as in a restart
                procs["redis"] = start_redis_server(redis_port, name="redis-again")
                for i in range(1, len(tables)):
                    await asyncio.to_thread(join, i)
                    if await heard_of(tables[i].pk, 3):
                        log.append(f"heard of join {i} after the restart")
                        break
                else:
                    raise AssertionError("no join after the restart reached the open lobby")
            finally:
                await page.close()

        asyncio.run(watch())
        assert any("after the restart" in line for line in log), log
        if layer == "pubsub":  # Asha's page kept its socket all along
            assert "reconnected" not in log, log
    finally:
        for proc in procs.values():
            proc.stop()
