"""Daphne agrees permessage-deflate (RFC 7692) with the browsers that offer it (``WS_DEFLATE``).

Every update a player receives is the seat's whole view, most of it the same as the view before;
with the compressor's context kept from message to message, deflate sends what changed as
references back into the last views, so a phone on mobile data reads a fraction of the bytes
(docs/operations.md, "The socket's traffic a round"). Daphne builds autobahn's factory without
an offer accepter, which refuses every offer; here the factory is given one when it is built.

The compressor's window (``WS_DEFLATE_WINDOW_BITS``) and memory level
(``WS_DEFLATE_MEM_LEVEL``) bound what each socket holds: the window must span the last view for
the references to reach it, and no more, since every socket keeps its own for as long as it is open.
The client is asked to compress with a small window too: its messages are small.
"""

from __future__ import annotations

from typing import Any

#: Decompressed size past which a client's message is refused (a zip bomb ends here).
MAX_CLIENT_MESSAGE = 64 * 1024
#: The window the client is asked to use: its messages are small.
CLIENT_WINDOW_BITS = 10


def deflate_accepter(window_bits: int, mem_level: int) -> Any:
    """autobahn's ``perMessageCompressionAccept``: the first permessage-deflate offer, if any."""
    from autobahn.websocket.compress import PerMessageDeflateOffer, PerMessageDeflateOfferAccept

    def accept(offers: list[Any]) -> Any:
        for offer in offers:
            if not isinstance(offer, PerMessageDeflateOffer):
                continue
            wanted = offer.request_max_window_bits  # the client's cap on the server's window, if any
            return PerMessageDeflateOfferAccept(
                offer,
                request_max_window_bits=CLIENT_WINDOW_BITS if offer.accept_max_window_bits else 0,
                window_bits=min(window_bits, wanted) if wanted else window_bits,
                mem_level=mem_level,
                max_message_size=MAX_CLIENT_MESSAGE,
            )
        return None

    return accept


def accept_deflate(window_bits: int, mem_level: int) -> bool:
    """Make every Daphne WebSocket factory built from now on accept permessage-deflate (once);
    False if Daphne is not there."""
    try:
        from daphne.ws_protocol import WebSocketFactory
    except ImportError:  # pragma: no cover - Daphne is a dependency
        return False
    built = getattr(WebSocketFactory, "_rummy_original_init", WebSocketFactory.__init__)
    accept = deflate_accepter(window_bits, mem_level)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        built(self, *args, **kwargs)
        self.setProtocolOptions(perMessageCompressionAccept=accept)

    WebSocketFactory._rummy_original_init = built
    WebSocketFactory.__init__ = __init__
    return True
