"""The WebSocket entry is guarded, and the Redis channel layer really carries messages."""

from __future__ import annotations

import uuid

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.test import override_settings

from accounts.models import User
from rummy_site.asgi import application
from tables.game.notify import LOBBY_GROUP
from tests.helpers import session_cookie
from tests.sockets import Page

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://localhost")


@sync_to_async
def _session_cookie(username: str) -> bytes:
    return session_cookie(User.objects.create_user(username, password="x-rummy-2026")).encode()


async def test_anonymous_websocket_is_refused() -> None:
    communicator = Page(application, "/ws/lobby/", headers=[ORIGIN])
    connected, _ = await communicator.connect()  # accepted, then closed: a browser sees the code only so
    assert connected
    assert await communicator.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}
    await communicator.disconnect()


async def test_foreign_origin_is_refused() -> None:
    cookie = await _session_cookie("asha")
    communicator = Page(
        application, "/ws/lobby/", headers=[(b"origin", b"http://evil.example.com"), (b"cookie", cookie)]
    )
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


async def test_logged_in_player_connects_and_receives_group_messages() -> None:
    cookie = await _session_cookie("asha")
    communicator = Page(application, "/ws/lobby/", headers=[ORIGIN, (b"cookie", cookie)])
    connected, _ = await communicator.connect()
    assert connected
    await get_channel_layer().group_send(LOBBY_GROUP, {"type": "lobby.update", "tables": [1]})
    assert await communicator.receive_json_from(timeout=3) == {
        "type": "lobby_update",
        "tables": [1],
        "rows": [],
    }
    await communicator.disconnect()


@pytest.mark.parametrize(
    "backend", ["channels_redis.pubsub.RedisPubSubChannelLayer", "channels_redis.core.RedisChannelLayer"]
)
async def test_group_message_arrives_through_the_redis_channel_layer(
    require_redis: str, backend: str
) -> None:
    """Both layers settings.CHANNEL_LAYER chooses from (pub/sub by default)."""
    prefix = f"test-{uuid.uuid4().hex[:8]}"
    layers = {"default": {"BACKEND": backend, "CONFIG": {"hosts": [require_redis], "prefix": prefix}}}
    cookie = await _session_cookie("ravi")
    with override_settings(CHANNEL_LAYERS=layers):
        from channels.layers import channel_layers

        channel_layers.backends.clear()
        layer = get_channel_layer()
        assert type(layer).__name__ == backend.rpartition(".")[2]
        communicator = Page(application, "/ws/lobby/", headers=[ORIGIN, (b"cookie", cookie)])
        connected, _ = await communicator.connect()
        assert connected
        await layer.group_send(LOBBY_GROUP, {"type": "lobby.update", "tables": [7]})
        assert await communicator.receive_json_from(timeout=5) == {
            "type": "lobby_update",
            "tables": [7],
            "rows": [],
        }
        await communicator.disconnect()
        await layer.flush()
    channel_layers.backends.clear()


async def test_pubsub_notices_stay_within_their_redis_database(require_redis: str) -> None:
    """Pub/sub channels span the Redis server; the layer's prefix keeps each database's apart."""
    import asyncio

    from channels_redis.pubsub import RedisPubSubChannelLayer

    from rummy_site.settings import channel_layers
    from tests.tables.procs import redis_db_url

    def layer(db: int) -> RedisPubSubChannelLayer:
        config = channel_layers(redis_db_url(require_redis, db), "pubsub")["default"]
        assert config["BACKEND"].endswith("RedisPubSubChannelLayer")
        return RedisPubSubChannelLayer(**config["CONFIG"])

    listener, same_db, other_db = layer(3), layer(3), layer(4)
    group = f"table_{uuid.uuid4().hex[:8]}"
    channel = await listener.new_channel()
    await listener.group_add(group, channel)
    try:
        await other_db.group_send(group, {"type": "table.changed", "version": 1})
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(listener.receive(channel), timeout=0.5)
        channel = await listener.new_channel()  # the timed-out receive gave up its channel
        await listener.group_add(group, channel)
        await same_db.group_send(group, {"type": "table.changed", "version": 2})
        assert await asyncio.wait_for(listener.receive(channel), timeout=5) == {
            "type": "table.changed",
            "version": 2,
        }
    finally:
        for each in (listener, same_db, other_db):
            await each.flush()
