"""A notice that reaches a socket as it closes is dropped quietly (issue 26's last finding).

Daphne refuses a frame for a connection that has gone with autobahn's ``Disconnected``
("Attempt to send on a closed protocol"), raised through the consumer's handler into
"Exception inside application". The consumers' ``send`` drops such a frame and marks the
socket closing; a handler that sends on after it finds nothing to fail on."""

from __future__ import annotations

from typing import Any

import pytest
from autobahn.exception import Disconnected

from tables.realtime.consumers import LobbyConsumer, TableConsumer


def _gone_away(consumer: Any, sent: list[dict[str, Any]]) -> None:
    """The server side of a connection that closed: the first frame goes, the rest are refused."""

    async def base_send(message: dict[str, Any]) -> None:
        if sent:
            raise Disconnected("Attempt to send on a closed protocol")
        sent.append(message)

    consumer.base_send = base_send


@pytest.mark.parametrize("consumer_class", [TableConsumer, LobbyConsumer])
async def test_a_notice_to_a_socket_that_closed_is_dropped_and_the_socket_counts_as_closing(
    consumer_class: type[Any],
) -> None:
    consumer = consumer_class()
    sent: list[dict[str, Any]] = []
    _gone_away(consumer, sent)
    await consumer.send_json({"type": "pong"})  # before the close: sent
    assert len(sent) == 1 and not consumer.closing
    await consumer.send_json({"type": "notice", "kind": "play_reminder"})  # after it: no exception
    await consumer.send_error("bad_message", "late")
    assert consumer.closing and len(sent) == 1


async def test_a_table_notice_handler_survives_a_socket_closing_under_it() -> None:
    consumer = TableConsumer()
    sent: list[dict[str, Any]] = []
    _gone_away(consumer, sent)
    sent.append({"type": "websocket.accept"})  # the socket was open; it has closed since
    await consumer.table_notice({"notice": {"type": "notice", "kind": "game_cancelled"}})
    await consumer.table_quick({"message": {"type": "quick_message", "seat": 0}})
    assert consumer.closing
