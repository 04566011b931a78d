"""WebSocket routes; the ASGI app guards them with auth and the origin check."""

from __future__ import annotations

from django.urls import path

from tables.consumers import LobbyConsumer

websocket_urlpatterns = [
    path("ws/lobby/", LobbyConsumer.as_asgi()),
]
