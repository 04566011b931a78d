"""Responsible play and suspensions at the tables: who may sit, and how long they played today.

The rules live in ``accounts.play``; this module reads them for the table services
(``services.table_join`` refuses, ``services.drop_blocked_player`` drops).
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from accounts import play
from accounts.models import PlayLimit, User
from tables.errors import PlayBlocked, PlayLimitReached
from tables.models import Seat


def played_seconds(user: User, *, since: datetime, now: datetime | None = None) -> int:
    """Seconds of ``user``'s games running since ``since``: each started game they were dealt
    into counts from its start (or ``since``) to its end (or now)."""
    now = now or timezone.now()
    rows = (
        Seat.objects.filter(user=user, engine_seat__isnull=False, game__started_at__isnull=False)
        .filter(Q(game__finished_at__isnull=True) | Q(game__finished_at__gt=since))
        .values_list("game__started_at", "game__finished_at")
    )
    total = 0.0
    for started, finished in rows:
        start, end = max(started, since), min(finished or now, now)
        total += max(0.0, (end - start).total_seconds())
    return int(total)


def check_may_join(user: User, *, now: datetime | None = None) -> None:
    """Raise ``PlayBlocked`` (suspension, self-exclusion) or ``PlayLimitReached`` (play time today)."""
    now = now or timezone.now()
    reason = play.block_reason(user, now=now)
    if reason is not None:
        raise PlayBlocked(reason)
    minutes = play.current_limit(user, PlayLimit.Kind.TIME, now=now)
    if minutes is not None:
        played = played_seconds(user, since=play.day_start(now), now=now)
        if played >= minutes * 60:
            raise PlayLimitReached(
                f"you have played {played // 60} minutes today, your daily limit is {minutes} minutes; "
                "it resets at midnight UTC"
            )
