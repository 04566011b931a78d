"""WebSocket protocol of the lobby and the tables."""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer

LOBBY_GROUP = "lobby"


class LobbyConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """Pushes lobby changes (seats taken, games started) to logged-in players."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)

    async def lobby_update(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "lobby_update", "tables": event.get("tables", [])})
