"""Daphne's sockets send a frame at once when nothing is waiting before it.

Twisted's TCP transport never writes in ``write``: it buffers the bytes, asks the
reactor to watch the socket for writing, writes on the next loop turn and stops
watching again. On Daphne's asyncio reactor that is two ``epoll_ctl`` calls and a
loop turn for every WebSocket frame, a visible share of a Daphne's CPU under load
(bench/load/README.md), for frames that almost always fit in the kernel's buffer at once.

Here a write on a plain TCP connection with nothing buffered goes to the socket
directly; whatever the kernel does not take (a slow reader) is buffered and
written as before, so the order of bytes, the send-buffer limit
(``rummy_site.daphne_limits``) and every error path stay Twisted's. A streaming
producer (the HTTP channel a WebSocket grew from) may be registered: Twisted
pauses it only when bytes wait. A pull producer keeps Twisted's path: it is asked
for more only when a buffer drains.
"""

from __future__ import annotations

from typing import Any

_installed = False


def write_at_once() -> bool:
    """Patch Twisted's TCP connections (once); ``False`` if Twisted is not there."""
    global _installed
    if _installed:
        return True
    try:
        from twisted.internet import tcp
    except ImportError:  # pragma: no cover - Twisted comes with Daphne
        return False
    buffered_write = tcp.Connection.write

    def write(self: Any, data: bytes) -> None:
        if (
            data
            and type(data) is bytes
            and not self.TLS
            and self.connected
            and not self.disconnecting
            and not self._writeDisconnected
            and (self.producer is None or self.streamingProducer)
            and not self._tempDataBuffer
            and self.offset == len(self.dataBuffer)
        ):
            try:
                sent = self.socket.send(data)
            except OSError:  # would block, or a broken connection: Twisted's own path decides
                sent = 0
            if sent == len(data):
                return
            data = data[sent:]
        buffered_write(self, data)

    tcp.Connection.write = write  # type: ignore[method-assign]  # the patch this module is for
    _installed = True
    return True
