"""``rummy_site.twisted_writes``: a frame leaves at once; what the kernel refuses waits, in order."""

from __future__ import annotations

import contextlib
import os
import socket
from typing import Any

from twisted.internet import tcp
from twisted.internet.protocol import Protocol

from rummy_site.twisted_writes import write_at_once


class Reactor:
    """What a Twisted connection asks of its reactor here: to be watched for writing, or not."""

    def __init__(self) -> None:
        self.writers: set[Any] = set()

    def addWriter(self, fd: Any) -> None:  # noqa: N802 - Twisted's names
        self.writers.add(fd)

    def removeWriter(self, fd: Any) -> None:  # noqa: N802
        self.writers.discard(fd)

    def addReader(self, fd: Any) -> None:  # noqa: N802
        pass

    def removeReader(self, fd: Any) -> None:  # noqa: N802
        pass


def _connection() -> tuple[tcp.Connection, socket.socket, Reactor]:
    ours, peer = socket.socketpair()
    peer.settimeout(2)  # a byte not sent within write never comes: fail, not hang
    reactor = Reactor()
    conn = tcp.Connection(ours, Protocol(), reactor=reactor)  # type: ignore[arg-type]
    conn.connected = True
    return conn, peer, reactor


def _read_all(peer: socket.socket, conn: tcp.Connection, reactor: Reactor, size: int) -> bytes:
    """Read what the peer gets, letting the connection write when the reactor would."""
    peer.setblocking(False)
    got = bytearray()
    while len(got) < size:
        with contextlib.suppress(BlockingIOError):
            got += peer.recv(1 << 20)
        if conn in reactor.writers:
            conn.doWrite()
    return bytes(got)


def test_a_frame_goes_to_the_socket_at_once_without_watching_it() -> None:
    assert write_at_once()
    conn, peer, reactor = _connection()
    conn.write(b"frame one")
    assert peer.recv(100) == b"frame one"  # sent within write: Twisted's own write only buffers
    assert reactor.writers == set()
    assert conn.dataBuffer == b"" and not conn._tempDataBuffer


def test_what_the_kernel_refuses_waits_and_goes_out_in_order() -> None:
    assert write_at_once()
    conn, peer, reactor = _connection()
    big = os.urandom(16 << 20)  # more than a socket pair's buffers hold
    conn.write(big)
    assert reactor.writers == {conn}  # the rest waits for the socket to be writable
    conn.write(b"tail")  # behind what waits, never before it
    assert _read_all(peer, conn, reactor, len(big) + 4) == big + b"tail"
    assert reactor.writers == set()
    conn.write(b"again")  # nothing waits any more: at once again
    assert peer.recv(100) == b"again"


def test_a_pull_producer_keeps_twisteds_buffered_write() -> None:
    """A pull producer is asked for more only when a buffer drains: its writes must buffer."""
    assert write_at_once()
    conn, peer, reactor = _connection()
    conn.producer, conn.streamingProducer = object(), False
    conn.write(b"pulled")
    assert reactor.writers == {conn}
    conn.producer = None
    assert _read_all(peer, conn, reactor, 6) == b"pulled"
