"""The stack with nothing of the game in it: Daphne, Channels and the Redis channel layer.

Served by ``floor.py`` (``daphne bench.load.floor_app:application``) to measure what the
required stack itself costs per WebSocket frame and per table notice, before any rule,
query or view of ours. It uses the same cheap choices as the real site (orjson for JSON,
``rummy_site.twisted_writes``, ``rummy_site.autobahn_logs``, the pub/sub channel layer), so the figures are a floor of
the real consumer's cost, not a straw man.

One socket per ``/ws/floor/<group>/``; a message ``{"t": "e", ...}`` is answered to its
sender alone (an evaluation's round trip), ``{"t": "f", ...}`` is sent to the socket's group
through the channel layer and each member forwards it to its client (a table notice).
"""

from __future__ import annotations

import os
from typing import Any

import django
import orjson
from django.conf import settings

settings.configure(
    DEBUG=False,
    INSTALLED_APPS=["channels"],
    CHANNEL_LAYERS={
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/13")]},
        }
    },
    USE_TZ=True,
)
django.setup()

from channels.consumer import get_handler_name  # noqa: E402
from channels.generic.websocket import AsyncJsonWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from rummy_site.autobahn_logs import defer_frame_highlights  # noqa: E402
from rummy_site.twisted_writes import write_at_once  # noqa: E402

write_at_once()
defer_frame_highlights()


class FloorConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    async def connect(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        self.group, self.seat = "floor_" + kwargs["group"], str(kwargs["seat"])
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """No thread hop before each message (Channels closes old database connections there),
        as the real consumers do (``tables.realtime.socket_base.SocketConsumer``): nothing here uses the database."""
        await getattr(self, get_handler_name(message))(message)

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        return orjson.loads(text_data)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        return orjson.dumps(content).decode()

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        if content.get("t") == "f":
            await self.channel_layer.group_send(self.group, {"type": "floor.notice", "body": content})
        else:
            await self.send_json(content)

    async def floor_notice(self, event: dict[str, Any]) -> None:
        body = event["body"]  # every seat's view travels; each socket sends its own
        await self.send_json({"t": "f", "n": body["n"], "view": body["views"][self.seat]})


application = ProtocolTypeRouter(
    {"websocket": URLRouter([path("ws/floor/<str:group>/<int:seat>/", FloorConsumer.as_asgi())])}
)


async def raw_application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The server alone, without Channels: a plain ASGI WebSocket echo (round trips only)."""
    if scope["type"] != "websocket":
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] != "websocket.receive":
            return
        await send({"type": "websocket.send", "text": message.get("text")})
