"""What a log line belongs to: the request, user, table and game being served.

Each id lives in a ``contextvars.ContextVar``, so it follows the work through ``await``
and into the threads Channels and asgiref run database calls on (they copy the context),
and a line a service writes deep down carries the ids its caller bound (``ContextFilter``).
"""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

#: The fields a line carries when they are known, in the order they are written.
FIELDS = ("request_id", "task_id", "user_id", "table_id", "game_id")

_vars: dict[str, ContextVar[Any]] = {name: ContextVar(f"sitelog_{name}", default=None) for name in FIELDS}

#: An incoming ``X-Request-ID`` kept as it is: 8 to 64 letters, digits, ``-``, ``_``, ``.``, ``:``
#: (a uuid, a proxy's hex id, a trace id). Anything else is replaced: the id is written into every
#: line and echoed in a header, so it must not carry spaces, quotes or control characters.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{8,64}")


def request_id_from(header: str | None) -> str:
    """The request id to use: the caller's ``X-Request-ID`` when well formed, else a new one."""
    if header and _REQUEST_ID.fullmatch(header):
        return header
    return uuid.uuid4().hex


def current() -> dict[str, Any]:
    """The ids bound now (only those that are set). An id bound as a function is read through it,
    when a line is written (``None``: not known yet)."""
    found = {}
    for name, var in _vars.items():
        value = var.get()
        if callable(value):
            value = value()
        if value is not None:
            found[name] = value
    return found


def bind(**ids: Any) -> dict[str, Any]:
    """Bind ids (``FIELDS``), each a value or a function that returns it; ``None`` leaves one as it is.

    Returns what they were, for ``restore``. Values are set, not reset by token: asgiref copies
    the context into the threads a request passes through and back, where a token would not
    belong to the context it is reset in.
    """
    previous = {}
    for name, value in ids.items():
        if value is not None:
            var = _vars[name]
            previous[name] = var.get()
            var.set(value)
    return previous


def snapshot() -> dict[str, Any]:
    """Every id as it is now, set or not, for ``restore``."""
    return {name: var.get() for name, var in _vars.items()}


def restore(previous: dict[str, Any]) -> None:
    """Put back the values ``bind`` or ``snapshot`` returned."""
    for name, value in previous.items():
        _vars[name].set(value)


def clear() -> None:
    """Unbind every id (the end of a request or task in a thread that serves the next one)."""
    for var in _vars.values():
        var.set(None)


@contextlib.contextmanager
def bound(**ids: Any) -> Iterator[None]:
    """``bind`` for the length of a block."""
    previous = bind(**ids)
    try:
        yield
    finally:
        restore(previous)
