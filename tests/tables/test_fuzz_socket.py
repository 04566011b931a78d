"""Thousands of generated messages to the real table consumer on PostgreSQL (issue 16's fuzz suite).

Hypothesis draws messages shaped like the protocol's (docs/protocol.md: every
action with its fields, each field the right type or any JSON value) and raw
junk (not JSON, binary, huge, deep, NULs, unpaired surrogates). Each goes to a
seated player's socket and a stranger's; for each: an answer comes (``error``,
``result``, ``pong`` or ``snapshot``), the server never closes the socket, no
exception is logged, and a refused message leaves the game's row and event log
exactly as they were.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import User
from rummy_site.asgi import application
from tests.helpers import session_cookie
from tests.sockets import ORIGIN, Page
from tests.tables.conftest import make_player
from tests.tables.games import game_fingerprint, two_seat_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.slow]

CARDS = ["AH", "10S", "QD", "KC", "PJ", "2S", "JH", "9C"]
ANSWERS = {"error", "result", "pong", "snapshot"}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
any_text = st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF), max_size=20)
cards = st.sampled_from(CARDS) | any_text | json_values
groups = st.lists(st.lists(cards, max_size=5), max_size=5) | json_values


def _field(right: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(right, right, json_values)


actions = st.one_of(
    st.fixed_dictionaries({"type": st.just("draw"), "source": _field(st.sampled_from(["closed", "open"]))}),
    st.fixed_dictionaries({"type": st.just("discard"), "card": _field(cards)}),
    st.fixed_dictionaries({"type": st.just("finish"), "card": _field(cards), "groups": _field(groups)}),
    st.fixed_dictionaries({"type": st.just("show"), "groups": _field(groups)}),
    st.fixed_dictionaries({"type": st.just("arrange"), "groups": _field(groups)}),
    st.fixed_dictionaries({"type": st.just("auto_drop"), "on": _field(st.booleans())}),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                [
                    "drop",
                    "im_back",
                    "rejoin",
                    "split_accept",
                    "split_decline",
                    "leave",
                    "timeout",
                    "start_deal",
                ]
            )
        }
    ),
    st.dictionaries(st.sampled_from(["type", "card", "source", "groups", "on", "seat", "at"]), json_values),
    json_values,
)
request_ids = st.one_of(
    st.text(min_size=1, max_size=64), any_text, json_values, st.text(min_size=65, max_size=200)
)
envelopes = st.one_of(
    st.fixed_dictionaries({"type": st.just("action"), "request_id": request_ids, "action": actions}),
    st.fixed_dictionaries({"type": st.sampled_from(["ping", "snapshot"])}),
    st.dictionaries(st.sampled_from(["type", "request_id", "action", "version"]), json_values),
    st.fixed_dictionaries({"type": json_values}),
)


def _dump(value: Any) -> str | None:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):  # an int orjson or json cannot write: send it as text anyway
        return None


frames = st.one_of(
    envelopes.map(_dump).filter(lambda t: t is not None).map(lambda t: ("text", t)),
    envelopes.map(_dump).filter(lambda t: t is not None).map(lambda t: ("bytes", t.encode())),
    any_text.map(lambda t: ("text", t)),
    st.binary(max_size=64).map(lambda b: ("bytes", b)),
    st.integers(7, 4000).map(lambda n: ("text", "[" * n + "]" * n)),
    st.integers(7, 2000).map(lambda n: ("text", '{"a":' * n + "1" + "}" * n)),
    st.integers(8200, 300_000).map(lambda n: ("text", json.dumps({"type": "action", "request_id": "x" * n}))),
    st.sampled_from(
        ['{"type":"ping\\u0000"}', '{"type":"action","request_id":"\\ud800","action":{"type":"drop"}}']
    ).map(lambda t: ("text", t)),
)


async def _answer(page: WebsocketCommunicator) -> dict[str, Any]:
    """The next answer, skipping the updates an accepted move broadcasts; fails on a close."""
    while True:
        output = await page.receive_output(timeout=10)
        assert output["type"] != "websocket.close", f"the server closed the socket: {output}"
        message = json.loads(output["text"])
        if message["type"] in ANSWERS:
            return message


class _Session:
    """One game across Hypothesis' examples; in each, one socket each for a seated player and a stranger.

    (A communicator belongs to the event loop it was opened on, and each example runs on its own.)
    """

    def __init__(self) -> None:
        self.table, self.game, self.users = two_seat_game()
        self.stranger = make_player("stranger")
        self.pages: dict[int, WebsocketCommunicator] = {}
        #: each user's session cookie, made once: every example opens new sockets, logged in by it
        self.cookies: dict[int, bytes] = {}
        self.sent = 0
        #: The game as it was after the last accepted message (nothing else moves it: no timers run here).
        self.known: tuple[Any, ...] | None = None

    async def page(self, user: User) -> WebsocketCommunicator:
        if user.pk not in self.pages:
            if user.pk not in self.cookies:
                self.cookies[user.pk] = (await sync_to_async(session_cookie)(user)).encode()
            cookie = self.cookies[user.pk]
            page = Page(application, f"/ws/tables/{self.table.pk}/", headers=[ORIGIN, (b"cookie", cookie)])
            connected, code = await page.connect()
            assert connected, code
            await _answer(page)  # the snapshot
            self.pages[user.pk] = page
        return self.pages[user.pk]

    async def send(self, user: User, kind: str, payload: Any) -> None:
        page = await self.page(user)
        if self.known is None:
            self.known = await sync_to_async(game_fingerprint)(self.game.pk)
        await page.send_input({"type": "websocket.receive", kind: payload})  # empty frames too
        answer = await _answer(page)
        self.sent += 1
        refused = answer["type"] == "error" or (answer["type"] == "result" and not answer["ok"])
        if refused:
            after = await sync_to_async(game_fingerprint)(self.game.pk)
            assert after == self.known, f"a refused message changed the game: {answer}"
            assert len(json.dumps(answer)) < 1000
        else:
            self.known = None  # accepted (or a read): look again before the next one

    async def close(self) -> None:
        for page in self.pages.values():
            await page.disconnect()
        self.pages = {}


@override_settings(WS_MESSAGES_PER_SECOND=1_000_000, WS_MESSAGE_BURST=1_000_000)
def test_generated_messages_never_break_the_socket_or_change_the_game_when_refused(
    require_postgres: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    session = _Session()

    @settings(
        max_examples=260,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(batch=st.lists(st.tuples(st.booleans(), frames), min_size=5, max_size=25))
    def run(batch: list[tuple[bool, tuple[str, Any]]]) -> None:
        async def go() -> None:
            try:
                for as_stranger, (kind, payload) in batch:
                    user = session.stranger if as_stranger else session.users[0]
                    await session.send(user, kind, payload)
            finally:
                await session.close()

        async_to_sync(go)()

    run()
    assert session.sent >= 1500, session.sent
    logged = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not logged, [r.getMessage() for r in logged]
