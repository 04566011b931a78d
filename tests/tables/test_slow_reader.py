"""A client that never reads is closed by Daphne instead of growing it (``WS_MAX_SEND_BUFFER``).

A real Daphne, and a raw socket with a tiny receive buffer that completes the
handshake, then asks for snapshot after snapshot and reads nothing. Daphne kept
every answer in memory (+280 MB in two seconds); now it drops the connection
once what waits for that client passes the limit, and keeps serving others.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct

import pytest

from tables import services
from tests.helpers import session_cookie
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import Proc, start_daphne
from tests.waiting import poll

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
]


def _frame(text: str) -> bytes:
    """One masked text frame, as a client must send it."""
    payload = text.encode()
    mask = os.urandom(4)
    header = bytes([0x81])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    else:
        header += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _open_without_reading(port: int, path: str, cookie: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a client that takes almost nothing
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: http://127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        assert chunk, "the handshake was refused"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def test_a_client_that_does_not_read_is_closed(redis_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WS_MAX_SEND_BUFFER", str(64 * 1024))
    monkeypatch.setenv("WS_MESSAGES_PER_SECOND", "100000")
    monkeypatch.setenv("WS_MESSAGE_BURST", "100000")
    table = make_table(seats=2, fee=0)
    users = [make_player("asha"), make_player("ravi")]
    for user in users:
        services.table_join(table_id=table.pk, user=user)
    daphne: Proc | None = None
    try:
        daphne, port = start_daphne(redis_db)
        sock = _open_without_reading(port, f"/ws/tables/{table.pk}/", session_cookie(users[0]))
        request = _frame(json.dumps({"type": "snapshot"}))
        sent = 0

        def closed() -> bool:
            """Fifty more requests, unread answers piling up; whether Daphne dropped the client."""
            nonlocal sent
            assert daphne is not None
            try:
                sock.sendall(request * 50)
                sent += 50
            except OSError:  # reset by the server: the connection was dropped
                return True
            return bool(daphne.count("closing a WebSocket whose client does not read"))

        # what the kernel buffers on the server's side (megabytes on loopback) fills first: on a busy
        # machine, answering snapshots slowly, that takes minutes
        assert poll(closed, timeout=300, interval=0.02), (
            f"Daphne kept a client that read nothing after {sent} requests\n{daphne.tail()}"
        )
        sock.close()
        assert daphne.alive()
        # the server still serves a well-behaved client
        with socket.create_connection(("127.0.0.1", port), timeout=5) as ok:
            ok.sendall(
                f"GET /rules/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
            )
            assert ok.recv(100).startswith(b"HTTP/1.1 200")
    finally:
        if daphne is not None:
            daphne.stop()
