"""Daphne agrees permessage-deflate with a client that offers it (``rummy_site.ws_deflate``).

Through a real Daphne: the table socket's frames arrive compressed, with the window the settings
give, and read back as the same messages; a client that offers nothing, or a site with
``WS_DEFLATE=0``, gets plain frames; a compressed message that inflates past the limit closes
the socket before it is inflated whole or read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest
from autobahn.websocket.compress import PerMessageDeflateOffer, PerMessageDeflateOfferAccept
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from rummy_site.ws_deflate import CLIENT_WINDOW_BITS, MAX_CLIENT_MESSAGE, deflate_accepter
from tables.game.seating import practice_table_start
from tests.helpers import session_cookie
from tests.tables.conftest import make_player
from tests.tables.procs import open_socket, start_daphne


def _offer(**asked: Any) -> PerMessageDeflateOffer:
    return PerMessageDeflateOffer(
        accept_no_context_takeover=True,
        accept_max_window_bits=asked.pop("accept_max_window_bits", True),
        request_no_context_takeover=False,
        request_max_window_bits=asked.pop("request_max_window_bits", 0),
    )


def test_the_first_deflate_offer_is_taken_with_the_sites_window_and_a_small_one_for_the_client() -> None:
    accept = deflate_accepter(13, 4)([object(), _offer()])
    assert isinstance(accept, PerMessageDeflateOfferAccept)
    assert (accept.window_bits, accept.mem_level) == (13, 4)
    assert accept.request_max_window_bits == CLIENT_WINDOW_BITS
    assert accept.max_message_size == MAX_CLIENT_MESSAGE
    assert "client_max_window_bits=10" in accept.get_extension_string()


def test_a_client_that_caps_the_servers_window_gets_its_cap_and_one_that_cannot_be_asked_is_not() -> None:
    accept = deflate_accepter(13, 4)([_offer(request_max_window_bits=11, accept_max_window_bits=False)])
    assert accept.window_bits == 11
    assert accept.request_max_window_bits == 0
    assert "client_max_window_bits" not in accept.get_extension_string()


def test_no_deflate_offer_is_no_compression() -> None:
    assert deflate_accepter(13, 4)([]) is None
    assert deflate_accepter(13, 4)([object()]) is None


class _Counted(ClientConnection):
    """A client connection that counts the bytes it reads after the opening handshake's answer,
    from its first read: the snapshot may come in the same read as that answer."""

    wire = 0
    _head: bytes | None = b""

    def data_received(self, data: bytes) -> None:
        if self._head is None:
            self.wire += len(data)
        else:
            self._head += data
            end = self._head.find(b"\r\n\r\n")
            if end >= 0:
                self.wire += len(self._head) - end - 4
                self._head = None
        super().data_received(data)


async def _table_messages(
    port: int, cookie: str, table_id: int, **connect_options: Any
) -> tuple[str, int, int]:
    """(the extensions Daphne agreed, the snapshot's payload bytes, the bytes read for it off the wire)."""
    ws = await open_socket(
        port, cookie, f"/ws/tables/{table_id}/", create_connection=_Counted, **connect_options
    )
    try:
        assert ws.response is not None
        agreed = ws.response.headers.get("Sec-WebSocket-Extensions") or ""
        while True:
            raw = await asyncio.wait_for(ws.recv(decode=False), timeout=10)  # the payload's bytes
            message = json.loads(raw)
            if message.get("type") == "snapshot":
                assert message["view"]["hand"], message  # the seat's own cards: the view read back whole
                return agreed, len(raw), ws.wire
    finally:
        await ws.close()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_table_socket_is_compressed_when_offered_and_plain_otherwise(redis_db: str) -> None:
    player = make_player("squeezed")
    table = practice_table_start(user=player, fmt="101", seats=4)
    cookie = session_cookie(player)
    daphne, port = start_daphne(redis_db, WS_DEFLATE_WINDOW_BITS="12", WS_DEFLATE_MEM_LEVEL="4")
    plain, plain_port = start_daphne(redis_db, name="daphne-plain", WS_DEFLATE="0")
    try:
        agreed, payload, wire = asyncio.run(_table_messages(port, cookie, table.pk))
        assert "permessage-deflate" in agreed and "client_max_window_bits=10" in agreed, agreed
        assert wire < payload / 2, (wire, payload)  # a view of repeated card codes and names

        agreed, payload, wire = asyncio.run(_table_messages(port, cookie, table.pk, compression=None))
        assert agreed == "" and wire > payload, (agreed, wire, payload)  # offered nothing: frames as sent

        agreed, payload, wire = asyncio.run(_table_messages(plain_port, cookie, table.pk))
        assert agreed == "" and wire > payload, (agreed, wire, payload)  # WS_DEFLATE=0: offers refused

        async def inflate_past_the_limit() -> list[str]:
            """The types of the messages that came before the server closed the socket."""
            came: list[str] = []
            ws = await open_socket(port, cookie, f"/ws/tables/{table.pk}/", max_size=None)
            try:
                came.append(json.loads(await asyncio.wait_for(ws.recv(), timeout=10))["type"])
                # a few hundred bytes on the wire, four times the limit once inflated
                await ws.send(json.dumps({"type": "ping", "pad": "0" * (4 * MAX_CLIENT_MESSAGE)}))
                with contextlib.suppress(ConnectionClosed):
                    while True:
                        came.append(json.loads(await asyncio.wait_for(ws.recv(), timeout=10))["type"])
            finally:
                await ws.close()
            return came

        # closed (autobahn drops the connection) without the message reaching the site: no pong
        # (a presence change of this test's earlier sockets, closed just before, may come meanwhile)
        came = asyncio.run(inflate_past_the_limit())
        assert [kind for kind in came if kind != "presence"] == ["snapshot"], came
    except BaseException:
        print(daphne.tail(30), plain.tail(30))
        raise
    finally:
        daphne.stop()
        plain.stop()
