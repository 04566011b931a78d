"""Autobahn's per-frame debug lines cost nothing unless they are written.

Autobahn (under Daphne) logs every frame it sends and every read at debug level,
and builds that line's arguments before the logger decides to drop it:
``hltype(self.sendData)``, ``hlval(self.peer)``, ``hlval(len(data))`` (in
``sendData``) and the same three in ``dataReceived``, each a qualified-name lookup
through ``inspect`` and a colouring by ``click.style``: a visible share of a Daphne's CPU
under the load benchmark's traffic (bench/load/README.md), for lines nobody reads.

Here the two modules that call them per frame get highlighters that return a
placeholder which renders the same text only when formatted: a debug line that is
written reads as before, one that is dropped costs an object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_installed = False


class _Deferred:
    """``render(*args)``, computed when the log line is formatted (``str`` or ``format``)."""

    __slots__ = ("_args", "_render")

    def __init__(self, render: Callable[..., str], args: tuple[Any, ...]) -> None:
        self._render, self._args = render, args

    def __str__(self) -> str:
        return self._render(*self._args)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return str(self)


def defer_frame_highlights() -> bool:
    """Patch autobahn's frame path (once); ``False`` if autobahn is not installed."""
    global _installed
    if _installed:
        return True
    try:
        from autobahn import util
        from autobahn.twisted import websocket as twisted_websocket
        from autobahn.websocket import protocol
    except ImportError:  # pragma: no cover - autobahn comes with Daphne
        return False
    eager_type, eager_val = util.hltype, util.hlval

    def hltype(obj: Any) -> _Deferred:
        return _Deferred(eager_type, (obj,))

    def hlval(val: Any, color: str = "white", bold: bool = True) -> _Deferred:
        return _Deferred(eager_val, (val, color, bold))

    for module in (protocol, twisted_websocket):
        module.hltype = hltype  # type: ignore[attr-defined]  # an attribute of ours on another library's object
        module.hlval = hlval  # type: ignore[attr-defined]  # an attribute of ours on another library's object
    _installed = True
    return True
