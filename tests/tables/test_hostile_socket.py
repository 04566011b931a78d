"""What a hostile client sends over the table socket: each gets an error, the socket stays open, nothing is written.

Every message below once closed the socket with 1011 (a traceback in the
server log), or wrote into the game row, or came back echoed in full.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings

from rummy_site.asgi import application
from tables.realtime import sockets
from tests.helpers import session_cookie
from tests.sockets import ORIGIN, Page, open_socket, still_open
from tests.tables.conftest import make_player
from tests.tables.games import game_fingerprint, two_seat_game

pytestmark = pytest.mark.django_db(transaction=True)


async def answer_to(
    page: WebsocketCommunicator, *, text: str | None = None, data: bytes | None = None
) -> Any:
    await page.send_to(text_data=text, bytes_data=data)
    message = await page.receive_json_from(timeout=5)
    while message["type"] in ("update", "snapshot"):
        message = await page.receive_json_from(timeout=5)
    return message


HOSTILE_FRAMES: list[tuple[str, str | None, bytes | None]] = [
    ("deep JSON", "[" * 20_000 + "]" * 20_000, None),
    ("deep object", '{"a":' * 3000 + "1" + "}" * 3000, None),
    (
        "deep action",
        json.dumps({"type": "action", "request_id": "d", "action": {"groups": [[[[[["AH"]]]]]]}}),
        None,
    ),
    ("binary frame", None, b"\x00\x01\x02{not text"),
    ("binary JSON", None, b'{"type": "ping"}'),
    ("not JSON", "draw the closed card please", None),
    ("a JSON list", '["action"]', None),
    ("a JSON string", '"ping"', None),
    ("a huge frame", json.dumps({"type": "x" * 1_000_000}), None),
    (
        "card is a dict",
        json.dumps({"type": "action", "request_id": "c1", "action": {"type": "discard", "card": {"a": 1}}}),
        None,
    ),
    (
        "source is a list",
        json.dumps({"type": "action", "request_id": "c2", "action": {"type": "draw", "source": ["closed"]}}),
        None,
    ),
    (
        "action type is a dict",
        json.dumps({"type": "action", "request_id": "c3", "action": {"type": {"x": 1}}}),
        None,
    ),
    (
        "action type is a list",
        json.dumps({"type": "action", "request_id": "c4", "action": {"type": ["draw"]}}),
        None,
    ),
    ("message type is a dict", json.dumps({"type": {"a": 1}}), None),
    (
        "groups hold dicts",
        json.dumps(
            {"type": "action", "request_id": "c5", "action": {"type": "arrange", "groups": [[{"c": 1}]]}}
        ),
        None,
    ),
    (
        "groups are a string",
        json.dumps({"type": "action", "request_id": "c6", "action": {"type": "show", "groups": "AH 2H 3H"}}),
        None,
    ),
    (
        "on is a number",
        json.dumps({"type": "action", "request_id": "c7", "action": {"type": "auto_drop", "on": 1}}),
        None,
    ),
    (
        "request id with NUL",
        '{"type":"action","request_id":"a\\u0000b","action":{"type":"auto_drop","on":true}}',
        None,
    ),
    (
        "request id lone surrogate",
        '{"type":"action","request_id":"a\\ud800","action":{"type":"auto_drop","on":true}}',
        None,
    ),
    (
        "request id is a dict",
        '{"type":"action","request_id":{"x":1},"action":{"type":"auto_drop","on":true}}',
        None,
    ),
    (
        "request id too long",
        json.dumps({"type": "action", "request_id": "r" * 65, "action": {"type": "drop"}}),
        None,
    ),
    (
        "card with NUL",
        '{"type":"action","request_id":"n1","action":{"type":"discard","card":"K\\u0000S"}}',
        None,
    ),
    (
        "card lone surrogate",
        '{"type":"action","request_id":"n2","action":{"type":"discard","card":"\\udc00"}}',
        None,
    ),
    (
        "raw lone surrogate",
        '{"type":"action","request_id":"n3","action":{"type":"discard","card":"\udc00"}}',
        None,
    ),
    ("NUL in the message type", '{"type":"ping\\u0000"}', None),
    ("action missing", json.dumps({"type": "action", "request_id": "m1"}), None),
    ("action is a string", json.dumps({"type": "action", "request_id": "m2", "action": "draw"}), None),
    (
        "server-only action",
        json.dumps({"type": "action", "request_id": "m3", "action": {"type": "timeout"}}),
        None,
    ),
    (
        "huge card",
        json.dumps({"type": "action", "request_id": "m4", "action": {"type": "discard", "card": "K" * 5000}}),
        None,
    ),
]


@pytest.mark.parametrize(("name", "text", "data"), HOSTILE_FRAMES, ids=[c[0] for c in HOSTILE_FRAMES])
async def test_a_hostile_frame_gets_an_error_the_socket_stays_open_and_nothing_is_written(
    require_postgres: None, name: str, text: str | None, data: bytes | None
) -> None:
    table, game, users = await sync_to_async(two_seat_game)()
    before = await sync_to_async(game_fingerprint)(game.pk)
    for user in (users[0], await sync_to_async(make_player)("stranger")):  # a seated player and a stranger
        page = await open_socket(user, f"/ws/tables/{table.pk}/")
        answer = await answer_to(page, text=text, data=data)
        assert answer["type"] in ("error", "result"), answer
        if answer["type"] == "result":
            assert answer["ok"] is False and answer["error"]["code"] == "bad_request", answer
        else:
            assert answer["error"]["code"] == "bad_message", answer
        assert len(json.dumps(answer)) < 600, "an error answer echoes at most a short excerpt"
        await still_open(page)
        await page.disconnect()
    assert await sync_to_async(game_fingerprint)(game.pk) == before


async def test_the_lobby_socket_survives_junk_too() -> None:
    user = await sync_to_async(make_player)("asha")
    page = await open_socket(user, "/ws/lobby/")
    for text, data in (("[" * 5000, None), (None, b"\xff"), ('{"type": "action"}', None)):
        await page.send_to(text_data=text, bytes_data=data)
        assert (await page.receive_json_from(timeout=5))["type"] == "error"
    await page.send_json_to({"type": "ping"})
    assert (await page.receive_json_from(timeout=5))["type"] == "pong"
    await page.disconnect()


async def test_an_error_echoes_no_more_than_a_short_excerpt() -> None:
    """A 1 MB ``type`` came back as 1 MB; a 7 KB one (under the frame limit) comes back as 32 characters."""
    table, _game, users = await sync_to_async(two_seat_game)()
    page = await open_socket(users[0], f"/ws/tables/{table.pk}/")
    await page.receive_json_from(timeout=5)
    for message in (
        {"type": "z" * 7000},
        {"type": "action", "request_id": "e1", "action": {"type": "q" * 7000}},
        {"type": "action", "request_id": "e2", "action": {"type": "discard", "card": "c" * 7000}},
    ):
        await page.send_json_to(message)
        answer = await page.receive_json_from(timeout=5)
        assert len(json.dumps(answer)) < 400, answer
    await page.disconnect()


async def test_a_seated_players_valid_action_still_goes_through() -> None:
    table, game, users = await sync_to_async(two_seat_game)()
    page = await open_socket(users[0], f"/ws/tables/{table.pk}/")
    await page.receive_json_from(timeout=5)
    await page.send_json_to(
        {"type": "action", "request_id": "ok-1", "action": {"type": "auto_drop", "on": True, "seat": 5}}
    )
    while (answer := await page.receive_json_from(timeout=5))["type"] != "result":
        pass
    assert answer == {"type": "result", "request_id": "ok-1", "ok": True, "version": answer["version"]}
    await page.disconnect()


@override_settings(WS_MESSAGES_PER_SECOND=5, WS_MESSAGE_BURST=10)
async def test_a_flood_is_refused_past_the_rate_then_closed() -> None:
    """40,000 pipelined no-ops were each applied as a row write: past the rate each is refused, then the socket closed."""
    table, game, users = await sync_to_async(two_seat_game)()
    before = await sync_to_async(game_fingerprint)(game.pk)
    page = await open_socket(users[0], f"/ws/tables/{table.pk}/")
    await page.receive_json_from(timeout=5)
    for i in range(200):
        await page.send_json_to({"type": "action", "request_id": f"f{i}", "action": {"type": "drop"}})
    answers: list[dict[str, Any]] = []
    while True:
        output = await page.receive_output(timeout=10)
        if output["type"] == "websocket.close":
            assert output["code"] == sockets.CLOSE_TOO_MANY
            break
        answers.append(json.loads(output["text"]))
    limited = [a for a in answers if a["type"] == "error" and a["error"]["code"] == "rate_limited"]
    handled = [a for a in answers if a["type"] == "result"]
    assert len(handled) <= 10 + 2 and len(limited) >= 10
    assert len(answers) < 40, "a flood costs a bounded number of answers"
    after = await sync_to_async(game_fingerprint)(game.pk)
    assert after[0] <= before[0] + 1  # at most the one drop that was legal
    await page.wait()


@override_settings(WS_MAX_SOCKETS_PER_USER=3)
async def test_one_user_may_hold_only_so_many_sockets() -> None:
    table, _game, users = await sync_to_async(two_seat_game)()
    cookie = (await sync_to_async(session_cookie)(users[0])).encode()
    held = []
    for _ in range(3):
        held.append(
            await open_socket(users[0], f"/ws/tables/{table.pk}/", headers=[ORIGIN, (b"cookie", cookie)])
        )
    extra = Page(application, "/ws/lobby/", headers=[ORIGIN, (b"cookie", cookie)])
    connected, _ = await extra.connect()  # accepted, then closed: a browser sees the code only so
    assert connected
    assert await extra.receive_output(timeout=5) == {
        "type": "websocket.close",
        "code": sockets.CLOSE_TOO_MANY,
    }
    await held.pop().disconnect()  # one closes: one more may open
    again = await open_socket(users[0], "/ws/lobby/", headers=[ORIGIN, (b"cookie", cookie)])
    for page in (*held, again):
        await page.disconnect()


@pytest.mark.parametrize("path", ["/ws/nope/", "/ws/tables/abc/", "/", "/ws/tables/1/extra/", "/ws/lobby"])
async def test_an_unknown_websocket_path_is_closed_cleanly(path: str) -> None:
    """``No route found`` raised and answered 500; now the socket is closed with 4404."""
    user = await sync_to_async(make_player)("asha")
    cookie = (await sync_to_async(session_cookie)(user)).encode()
    communicator = Page(application, path, headers=[ORIGIN, (b"cookie", cookie)])
    connected, code = await communicator.connect()
    assert not connected and code == 4404
    await communicator.disconnect()


async def test_logging_out_closes_that_sessions_sockets() -> None:
    table, _game, users = await sync_to_async(two_seat_game)()
    client = Client()
    await sync_to_async(client.force_login)(users[0])
    from django.conf import settings

    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()
    page = await open_socket(users[0], f"/ws/tables/{table.pk}/", headers=[ORIGIN, (b"cookie", cookie)])
    lobby = await open_socket(users[0], "/ws/lobby/", headers=[ORIGIN, (b"cookie", cookie)])
    other_device = await open_socket(users[0], "/ws/lobby/")  # another session of the same user
    await page.receive_json_from(timeout=5)
    response = await sync_to_async(client.post)("/accounts/logout/")
    assert response.status_code == 302
    for socket in (page, lobby):
        output = await socket.receive_output(timeout=5)
        assert output == {"type": "websocket.close", "code": sockets.CLOSE_SIGNED_OUT}
    await still_open(other_device)
    await other_device.disconnect()


async def test_a_password_change_closes_all_the_users_sockets() -> None:
    user = await sync_to_async(make_player)("asha")
    pages = [await open_socket(user, "/ws/lobby/") for _ in range(2)]

    def change() -> None:
        user.set_password("a-new-password-2026")
        user.save()

    await sync_to_async(change)()
    for page in pages:
        assert await page.receive_output(timeout=5) == {
            "type": "websocket.close",
            "code": sockets.CLOSE_SIGNED_OUT,
        }


async def test_close_user_sockets_closes_them_on_demand() -> None:
    """What a suspension or a self-exclusion calls."""
    user = await sync_to_async(make_player)("asha")
    page = await open_socket(user, "/ws/lobby/")
    await sync_to_async(sockets.close_user_sockets)(user.pk)
    assert await page.receive_output(timeout=5) == {
        "type": "websocket.close",
        "code": sockets.CLOSE_SIGNED_OUT,
    }


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "ok"),
    [
        (b"http://localhost", None, "ws", True),
        (b"https://localhost:4444", None, "ws", False),
        (b"https://localhost", None, "ws", False),
        (b"http://localhost:8001", None, "ws", False),
        (b"http://127.0.0.1:8001", b"127.0.0.1:8001", "ws", True),
        (b"http://127.0.0.1:8002", b"127.0.0.1:8001", "ws", False),
        (b"https://127.0.0.1:8001", b"127.0.0.1:8001", "ws", False),
        (b"https://localhost", b"localhost", "wss", True),
        (b"http://localhost", b"localhost", "wss", False),
        (b"http://evil.example.com", b"localhost", "ws", False),
        (b"null", None, "ws", False),
    ],
)
async def test_the_origin_must_match_scheme_host_and_port(
    origin: bytes, host: bytes | None, scheme: str, ok: bool
) -> None:
    user = await sync_to_async(make_player)("asha")
    cookie = (await sync_to_async(session_cookie)(user)).encode()
    headers = [(b"origin", origin), (b"cookie", cookie)] + ([(b"host", host)] if host else [])
    communicator = Page(application, "/ws/lobby/", headers=headers)
    communicator.scope["scheme"] = scheme
    connected, _ = await communicator.connect()
    assert connected is ok
    await communicator.disconnect()
