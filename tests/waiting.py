"""Waiting for what a test asserts, rather than sleeping a fixed while (issue 42).

A test that waits for something to happen (a message arriving, a row changing, a log line, a Redis
key) looks at it again and again here: it goes on as soon as the condition holds, however busy the
machine, and fails, naming what it awaited, if the condition never comes. A plain sleep is left
only where time itself must pass (an expiry, a rate window, a process kept down, a negative check
over a period), with a comment saying so.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")

#: Seconds between two looks: short, so that a test goes on soon after its condition holds.
INTERVAL = 0.05
#: Seconds a wait lasts unless told: long enough for a loaded CI machine.
TIMEOUT = 30.0


class WaitTimeoutError(AssertionError):
    """What a test awaited did not come in time (an ``AssertionError``, so it fails the test as one)."""


def _timed_out(what: str, timeout: float, detail: Callable[[], object] | None) -> WaitTimeoutError:
    message = f"timed out after {timeout:g} s waiting for {what}"
    return WaitTimeoutError(f"{message}\n{detail()}" if detail is not None else message)


def poll(check: Callable[[], T | None], timeout: float, interval: float = INTERVAL) -> T | None:
    """``check()`` until it is truthy or ``timeout`` seconds pass: its last value, falsy on a timeout.

    For a caller that says itself what a timeout means (a process that exited, the tail of its log);
    ``wait_until`` fails on its own."""
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() >= end:
            return value
        time.sleep(interval)


def wait_until(
    check: Callable[[], T | None],
    what: str,
    timeout: float = TIMEOUT,
    interval: float = INTERVAL,
    *,
    detail: Callable[[], object] | None = None,
) -> T:
    """``check()``'s first truthy value, looked for every ``interval`` seconds.

    Fails if none comes within ``timeout`` seconds, naming ``what`` was awaited and, when given,
    ``detail()``: where things stood then (a game's state, a process's log)."""
    value = poll(check, timeout, interval)
    if not value:
        raise _timed_out(what, timeout, detail)
    return value


# a coroutine function's check gives what its coroutine returns; a plain one's, what it returns
@overload
async def eventually(
    check: Callable[[], Awaitable[T | None]],
    what: str,
    within: float = ...,
    interval: float = ...,
    *,
    detail: Callable[[], object] | None = ...,
) -> T: ...


@overload
async def eventually(
    check: Callable[[], T | None],
    what: str,
    within: float = ...,
    interval: float = ...,
    *,
    detail: Callable[[], object] | None = ...,
) -> T: ...


async def eventually(
    check: Callable[[], Any],
    what: str,
    within: float = TIMEOUT,
    interval: float = INTERVAL,
    *,
    detail: Callable[[], object] | None = None,
) -> Any:
    """``wait_until`` for a coroutine: the event loop runs on between two looks; fails after ``within`` s.

    ``check`` may be a coroutine function or a plain one; a plain one runs on the loop, so it must
    be quick and touch no database (wrap such a look in ``sync_to_async``)."""
    end = time.monotonic() + within
    while True:
        value = check()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if time.monotonic() >= end:
            raise _timed_out(what, within, detail)
        await asyncio.sleep(interval)
