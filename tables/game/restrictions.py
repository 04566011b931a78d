"""Responsible play and blocks at the tables: who may sit or act, and how long they played today.

The rules live in ``accounts.play``; this module reads them for the table services:
``check_may_join`` (``table_join``, ``practice_table_start``) and ``check_may_play``
(every action of ``game_act``: a rejoin's fee, an auto drop turned off, a discard)
refuse; ``play.drop_blocked_player`` drops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone

from accounts import limits, play
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
        if started is None:  # none: the query keeps started games only
            continue
        start, end = max(started, since), min(finished or now, now)
        total += max(0.0, (end - start).total_seconds())
    return int(total)


#: What a suspended or self-excluded player may still do at a table: leave it. Leaving forfeits the
#: seat and pays nothing to anyone, which is what a break from play asks for; a deactivated account
#: or a signed-out socket may not even do that (the auto drop carries its seat to the end).
ALLOWED_WHILE_BLOCKED = frozenset({"leave"})


def check_may_play(
    user: User, *, session_key: str | None = None, action: str | None = None, now: datetime | None = None
) -> None:
    """Raise ``PlayBlocked`` unless ``user`` may play or pay now (``accounts.play.play_block``, one query).

    ``session_key``: the session a socket logged in with, which must still log the user in
    (after a log-out returns, nothing sent on its sockets is accepted). ``action``: the table
    action asked for, if any (``ALLOWED_WHILE_BLOCKED``).
    """
    _refuse(play.play_block(user, session_key=session_key, now=now), action)


@dataclass(frozen=True)
class MayPlay:
    """``check_may_play`` for one table action, which ``tables.game.play.run_on_game`` reads in its game
    row's lock statement on PostgreSQL (``query``, then ``verify`` what it found), and elsewhere
    runs as it is (``check``)."""

    user: User
    session_key: str | None
    action: str | None

    def check(self) -> None:
        check_may_play(self.user, session_key=self.session_key, action=self.action)

    def query(self) -> play.BlockQuery:
        return play.BlockQuery.of(self.user.pk, self.session_key, timezone.now())

    def verify(self, query: play.BlockQuery, found: Sequence[Any] | None) -> None:
        _refuse(query.judge(self.user, found), self.action)


def _refuse(block: play.Block | None, action: str | None) -> None:
    if block is not None and (block.signed_out or action not in ALLOWED_WHILE_BLOCKED):
        raise PlayBlocked(block.reason)


def check_may_join(user: User, *, now: datetime | None = None) -> None:
    """Raise ``PlayBlocked`` (deactivated, suspended, self-excluded) or ``PlayLimitReached`` (play time today)."""
    now = now or timezone.now()
    check_may_play(user, now=now)
    minutes = limits.current_limit(user, PlayLimit.Kind.TIME, now=now)
    if minutes is not None:
        played = played_seconds(user, since=limits.day_start(now), now=now)
        if played >= minutes * 60:
            raise PlayLimitReached(
                f"you have played {played // 60} minutes today, your daily limit is {minutes} minutes; "
                "it resets at midnight UTC"
            )
