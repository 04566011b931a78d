"""Daphne closes a WebSocket whose client does not read (``WS_MAX_SEND_BUFFER``).

Daphne hands every message the application sends to Twisted, which keeps what
the client has not read yet in memory, without limit: a client that never reads
grows a server by hundreds of megabytes in seconds, not returned after it leaves. Here, before
each send, Daphne's WebSocket protocol looks at what its transport still holds;
past the limit it aborts the connection (the consumer gets its disconnect) and
sends nothing more. Daphne has no setting for this, so its reply handler is
wrapped once, when the ASGI application loads; elsewhere (tests' in-process
communicators) nothing changes.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)


def buffered_bytes(transport: Any) -> int:
    """What a Twisted transport holds that the peer has not taken yet (0 if it cannot say)."""
    data = getattr(transport, "dataBuffer", b"")
    return len(data) - int(getattr(transport, "offset", 0)) + int(getattr(transport, "_tempDataLen", 0))


def limit_send_buffer(limit: int) -> bool:
    """Wrap Daphne's WebSocket reply handler with the limit; False if Daphne is not there or limit is 0."""
    try:
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:  # pragma: no cover - Daphne is a dependency
        return False
    if limit <= 0:
        return False
    original = getattr(WebSocketProtocol, "_rummy_original_handle_reply", WebSocketProtocol.handle_reply)

    def handle_reply(self: Any, message: dict[str, Any]) -> Any:
        if message.get("type") == "websocket.send" and self.state == self.STATE_OPEN:
            if getattr(self, "_rummy_dropped", False):
                return None
            waiting = buffered_bytes(self.transport)
            if waiting > limit:
                self._rummy_dropped = True
                logger.warning(
                    "closing a WebSocket whose client does not read (%d bytes waiting): %s",
                    waiting,
                    getattr(self, "client_addr", None),
                )
                self.dropConnection(abort=True)
                return None
        return original(self, message)

    WebSocketProtocol._rummy_original_handle_reply = original
    WebSocketProtocol.handle_reply = handle_reply
    return True
