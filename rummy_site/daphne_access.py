"""Daphne's access log as log lines of the site's format, not NCSA text on standard output.

Daphne writes an access line for each HTTP request and each WebSocket's handshake and close,
to standard output in its own text format, with no latency and no request id. HTTP requests
are logged by ``rummy_site.requestlog`` (with both), so Daphne's HTTP lines go out at DEBUG
only; the WebSocket ones are logged on ``daphne.access`` as JSON like every other line.
Daphne has no setting for this: its generator's entry point is replaced when the ASGI
application loads, as ``rummy_site.daphne_limits`` does for its send buffer.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger("daphne.access")

_WEBSOCKET = {"connected": "WSCONNECT", "rejected": "WSREJECT", "disconnected": "WSDISCONNECT"}


def log_access(protocol: str, action: str, details: dict[str, Any]) -> None:
    """One of Daphne's access events as a log line (``AccessLogGenerator.__call__``'s arguments)."""
    client = details.get("client")
    if protocol == "http" and action == "complete":
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "%s %s %s",
                details.get("method"),
                details.get("path"),
                details.get("status"),
                extra={"client": client, "status": details.get("status"), "size": details.get("size")},
            )
    elif protocol == "websocket" and action in _WEBSOCKET:
        logger.info(
            "%s %s",
            _WEBSOCKET[action],
            details.get("path"),
            extra={"client": client, "path": details.get("path")},
        )


def route_access_log() -> bool:
    """Send Daphne's access entries through ``log_access``; False when Daphne is not there."""
    try:
        from daphne.access import AccessLogGenerator
    except ImportError:  # pragma: no cover - Daphne is a dependency
        return False

    def call(self: Any, protocol: str, action: str, details: dict[str, Any]) -> None:
        log_access(protocol, action, details)

    AccessLogGenerator.__call__ = call
    return True
