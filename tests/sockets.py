"""Sockets as the pages open them, for the tests of every app: logged in by a session cookie,
from the site's own origin, through the whole ASGI application."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import User
from rummy_site.asgi import application
from tests.helpers import session_cookie

#: The ``Origin`` a page of the test site sends.
ORIGIN = (b"origin", b"http://localhost")

Message = dict[str, Any]


class Page(WebsocketCommunicator):
    """A socket read as a page reads it: past the ``presence`` frames a table socket gets whenever
    another player's page there opens or closes (tables/realtime/presence.py), as the page's other
    parts do, unless it is ``watching_presence``."""

    def __init__(self, *args: Any, watching_presence: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.watching_presence = watching_presence

    async def receive_from(self, timeout: float = 1) -> Any:  # noqa: ASYNC109 - Channels' own signature
        while True:
            frame = await super().receive_from(timeout)
            if self.watching_presence or not (
                isinstance(frame, str) and frame.startswith('{"type":"presence"')
            ):
                return frame


async def open_socket(
    user: User,
    path: str,
    *,
    headers: list[tuple[bytes, bytes]] | None = None,
    watching_presence: bool = False,
) -> Page:
    """``user``'s socket at ``path`` (``/ws/tables/<id>/``, ``/ws/lobby/``), connected."""
    cookie = (await sync_to_async(session_cookie)(user)).encode()
    headers = headers or [ORIGIN, (b"cookie", cookie)]
    communicator = Page(application, path, headers=headers, watching_presence=watching_presence)
    connected, code = await communicator.connect()
    assert connected, code
    return communicator


async def open_table(user: User, table_id: int, *, watching_presence: bool = False) -> Page:
    """The table page's socket of ``user`` at table ``table_id``."""
    return await open_socket(user, f"/ws/tables/{table_id}/", watching_presence=watching_presence)


async def until(
    communicator: WebsocketCommunicator,
    wanted: Callable[[Message], bool],
    *,
    within: float = 10,
    seen: list[Message] | None = None,
) -> Message:
    """The first message ``wanted`` accepts; those before it go to ``seen``. Fails after ``within`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    passed = seen if seen is not None else []
    while True:
        left = deadline - loop.time()
        assert left > 0, f"nothing wanted came in {within} s; came: {[m.get('type') for m in passed]}"
        message: Message = await communicator.receive_json_from(timeout=left)
        if wanted(message):
            return message
        passed.append(message)


def of_type(message_type: str, /, **fields: Any) -> Callable[[Message], bool]:
    """Accepts a message of that ``type`` whose ``fields`` have those values (``kind="..."``)."""
    return lambda m: m.get("type") == message_type and all(m.get(k) == v for k, v in fields.items())


async def still_open(page: WebsocketCommunicator) -> None:
    """The socket answers a ping: it was not closed (a 1011 close would show here)."""
    await page.send_json_to({"type": "ping"})
    while (await page.receive_json_from(timeout=5))["type"] != "pong":
        pass
