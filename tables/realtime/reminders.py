"""Responsible play at the table: a reminder after each hour played today (issue 14).

Each table socket of a seated player runs one small task: it sleeps until the
player's play time today (``restrictions.played_seconds``) reaches the next whole
``PLAY_REMINDER_SECONDS`` and then sends a ``notice`` (docs/protocol.md):
``contract.PlayReminderNotice``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings
from django.utils import timezone

from accounts import limits
from accounts.models import User
from tables.contract import PlayReminderNotice
from tables.game import restrictions
from tables.models import PoolGame, Seat

#: How often a socket whose player is not in a running game looks again.
IDLE_CHECK_SECONDS = 60.0


def play_clock(user: User, table_id: int) -> tuple[int, bool]:
    """(seconds played today, whether the player is in a running game at this table)."""
    now = timezone.now()
    playing = Seat.objects.filter(
        user=user, engine_seat__isnull=False, game__table_id=table_id, game__status=PoolGame.Status.RUNNING
    ).exists()
    return restrictions.played_seconds(user, since=limits.day_start(now), now=now), playing


def reminder(played_seconds: int) -> dict[str, Any]:
    minutes = played_seconds // 60
    hours, rest = divmod(minutes, 60)
    spent = f"{hours} hour{'s' if hours != 1 else ''}" + (f" {rest} min" if rest else "")
    return PlayReminderNotice(
        played_minutes=minutes,
        message=f"You have played for {spent} today. Take a break if you need one; "
        "you can set daily limits on your profile.",
    ).wire()


async def remind(
    *,
    user: User,
    table_id: int,
    clock: Callable[[User, int], Awaitable[tuple[int, bool]]],
    send: Callable[[dict[str, Any]], Awaitable[None]],
) -> None:
    """Run until cancelled: send a reminder each time today's play crosses a whole interval."""
    interval = max(1, int(settings.PLAY_REMINDER_SECONDS))
    told: int | None = None
    while True:
        played, playing = await clock(user, table_id)
        mark = played // interval
        if told is None:
            told = mark  # the hours played before this socket opened are not told again
        elif playing and mark > told:
            await send(reminder(played))
            told = mark
        if playing:
            wait = float((mark + 1) * interval - played) + 0.2
        else:
            wait = min(IDLE_CHECK_SECONDS, float(interval))
        await asyncio.sleep(max(0.2, min(wait, float(interval))))
