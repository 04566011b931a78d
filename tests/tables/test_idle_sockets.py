"""The server's half of the heartbeat (issue 41): a socket that sends nothing, not even a ping, for
WS_IDLE_SECONDS is closed with 4408, and the others at the table see its player away; one whose
page pings stays open however long the game is quiet (docs/protocol.md, "Connecting")."""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from tables import services
from tables.realtime import idle
from tests.sockets import Message, of_type, open_socket, open_table, until
from tests.tables.conftest import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)

IDLE = 0.6


async def _closed_with(page: WebsocketCommunicator, within: float) -> tuple[int, float]:
    """The close code the socket gets, and when (``time.monotonic``); fails if none comes ``within``."""
    deadline = time.monotonic() + within
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"the socket was not closed within {within} s"
        output = await page.receive_output(timeout=left)
        if output["type"] == "websocket.close":
            return output.get("code"), time.monotonic()


async def _pinging(page: WebsocketCommunicator, seconds: float, every: float) -> list[Message]:
    """Ping every ``every`` s for ``seconds`` s, reading what comes; every message received."""
    seen: list[Message] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        await page.send_json_to({"type": "ping"})
        seen.append(await until(page, of_type("pong"), seen=seen, within=every * 4))
        await asyncio.sleep(every)  # time passes on purpose: a page's pings are that far apart
    return seen


@override_settings(WS_IDLE_SECONDS=IDLE)
async def test_a_silent_table_socket_is_closed_and_its_player_shown_away() -> None:
    table = await sync_to_async(make_table)(seats=2, seed=4)
    asha, ravi = [await sync_to_async(make_player)(name) for name in ("asha", "ravi")]
    for user in (asha, ravi):
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    before_open = time.monotonic()
    asha_page = await open_table(asha, table.pk, watching_presence=True)
    opened = time.monotonic()
    ravi_page = await open_table(ravi, table.pk, watching_presence=True)
    try:
        for page in (asha_page, ravi_page):
            await until(page, of_type("snapshot"))
        # Ravi's page pings; Asha's falls silent (her signal went) and is closed by the server
        pinging = asyncio.ensure_future(_pinging(ravi_page, seconds=IDLE * 4, every=IDLE / 4))
        code, closed_at = await _closed_with(asha_page, within=IDLE * 4)
        assert code == idle.CLOSE_IDLE
        # not before the idle time, and within one look of the watcher after it
        assert closed_at - before_open >= IDLE, closed_at - before_open
        assert closed_at - opened <= IDLE + idle.period(IDLE) + 0.5, closed_at - opened
        await asha_page.disconnect()  # the close done (Daphne: the close handshake, or its timeout)
        seen = await pinging
        # the pinging socket stayed open past several idle periods and heard her go away
        away = [m for m in seen if m["type"] == "presence" and not m["players"][str(asha.pk)]["connected"]]
        assert away, [m["type"] for m in seen]
        await ravi_page.send_json_to({"type": "ping"})
        assert (await until(ravi_page, of_type("pong")))["version"] >= 0
    finally:
        for page in (asha_page, ravi_page):
            await page.disconnect()


@override_settings(WS_IDLE_SECONDS=IDLE)
async def test_any_frame_counts_as_a_sign_of_life_a_refused_one_too() -> None:
    table = await sync_to_async(make_table)(seats=2, seed=5)
    asha = await sync_to_async(make_player)("asha")
    page = await open_table(asha, table.pk)
    try:
        await until(page, of_type("snapshot"))
        end = time.monotonic() + IDLE * 3
        while time.monotonic() < end:
            await page.send_json_to({"type": "no-such-type"})  # refused, but the page is there
            await until(page, of_type("error"))
            await asyncio.sleep(IDLE / 4)  # time passes on purpose: frames this far apart keep it open
        await page.send_json_to({"type": "ping"})
        await until(page, of_type("pong"))
        code, _ = await _closed_with(page, within=IDLE * 4)  # then silence: closed
        assert code == idle.CLOSE_IDLE
    finally:
        await page.disconnect()


@override_settings(WS_IDLE_SECONDS=IDLE)
async def test_a_silent_lobby_socket_is_closed_too() -> None:
    asha = await sync_to_async(make_player)("asha")
    page = await open_socket(asha, "/ws/lobby/")
    try:
        code, _ = await _closed_with(page, within=IDLE * 4)
        assert code == idle.CLOSE_IDLE
    finally:
        await page.disconnect()


@override_settings(WS_IDLE_SECONDS=0)
async def test_no_idle_close_when_turned_off() -> None:
    asha = await sync_to_async(make_player)("asha")
    page = await open_socket(asha, "/ws/lobby/")
    try:
        await asyncio.sleep(1.0)  # time passes on purpose: silent past IDLE, which closes a socket when on
        assert await page.receive_nothing(timeout=0.2)
        await page.send_json_to({"type": "ping"})
        assert (await page.receive_json_from(timeout=5))["type"] == "pong"
    finally:
        await page.disconnect()
