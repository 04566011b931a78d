"""``rummy_site.autobahn_logs``: autobahn's per-frame debug arguments are built only when written."""

from __future__ import annotations

from typing import Any

import pytest
from autobahn import util
from autobahn.twisted import websocket as twisted_websocket
from autobahn.websocket import protocol
from twisted.logger import formatEvent

import rummy_site.asgi  # noqa: F401 - the site's ASGI module installs it
from rummy_site.autobahn_logs import defer_frame_highlights


@pytest.fixture
def styled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every colouring autobahn does (``util.hl``, which ``hltype`` and ``hlval`` call)."""
    calls: list[str] = []
    real = util.hl

    def counting(text: Any, bold: bool = False, color: str = "yellow") -> str:
        calls.append(str(text))
        return real(text, bold=bold, color=color)

    monkeypatch.setattr(util, "hl", counting)
    return calls


def test_the_site_defers_them_in_both_frame_modules() -> None:
    assert defer_frame_highlights()  # already installed by rummy_site.asgi: the same answer
    for module in (protocol, twisted_websocket):
        assert module.hlval is not util.hlval and module.hltype is not util.hltype


def test_a_dropped_line_colours_nothing(styled: list[str]) -> None:
    """What ``sendData`` and ``dataReceived`` pass to a debug line that is not written."""
    for module in (protocol, twisted_websocket):
        module.hltype(protocol.WebSocketProtocol.sendData)
        module.hlval("tcp4:127.0.0.1:5000")
        module.hlval(1234)
    assert styled == []


def test_a_written_line_reads_as_before(styled: list[str]) -> None:
    func, peer, size = protocol.WebSocketProtocol.sendData, "tcp4:127.0.0.1:5000", 1234
    event = {
        "log_format": "{func} sent {data_len} bytes for peer {peer}",
        "func": protocol.hltype(func),
        "peer": protocol.hlval(peer),
        "data_len": protocol.hlval(size),
    }
    eager = {**event, "func": util.hltype(func), "peer": util.hlval(peer), "data_len": util.hlval(size)}
    assert formatEvent(event) == formatEvent(eager)
    assert "WebSocketProtocol.sendData" in formatEvent(event) and "1234" in formatEvent(event)
    assert str(twisted_websocket.hlval(size, color="green", bold=False)) == util.hlval(
        size, color="green", bold=False
    )
