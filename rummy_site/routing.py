"""WebSocket routes; the ASGI app guards them with auth and the origin check."""

from __future__ import annotations

from django.urls import path, re_path

from rummy_site.ws_security import NoRouteConsumer
from tables.realtime.consumers import LobbyConsumer, TableConsumer

websocket_urlpatterns = [
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
    re_path(r"", NoRouteConsumer.as_asgi()),  # anything else: closed cleanly (4404)
]
