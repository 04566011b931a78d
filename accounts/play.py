"""Who may play: staff suspensions, self-exclusion, deactivated accounts and the player's own
daily limits (issues 14 and 23).

``play_block`` is the one answer to "may this user play or pay now?": read by the
services that seat a player, start practice and apply every table action
(``tables.game.restrictions``), so the pages, the JSON API and the sockets all obey it.
Starting a block (a suspension, a self-exclusion, a deactivation) sends
``play_blocked``: the tables app drops the player at their tables and closes their
sockets (connected in ``tables.receivers``; accounts imports no other app).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.sessions.backends.db import SessionStore as DbSessionStore
from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Subquery
from django.dispatch import Signal
from django.utils import timezone

from accounts import session_check
from accounts.models import SelfExclusion, Suspension, User
from core.boundsql import bound_cursor

#: Sent after commit with ``user_id`` when a player may no longer play (suspended, self-excluded,
#: deactivated).
play_blocked = Signal()

EXCLUSION_LENGTHS = {
    SelfExclusion.Period.DAY: timedelta(days=1),
    SelfExclusion.Period.WEEK: timedelta(days=7),
    SelfExclusion.Period.MONTH: timedelta(days=30),
    SelfExclusion.Period.HALF_YEAR: timedelta(days=182),
}


class PlayRefused(Exception):
    """A responsible-play request that cannot be granted (e.g. shortening a self-exclusion)."""


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def when(at: datetime) -> str:
    return f"{at:%d %b %Y %H:%M} UTC"


# ---------------------------------------------------------------------------
# blocks
# ---------------------------------------------------------------------------
def active_suspension(user: User, *, now: datetime | None = None) -> Suspension | None:
    now = _now(now)
    for suspension in Suspension.objects.filter(user=user, lifted_at__isnull=True, starts_at__lte=now):
        if suspension.in_force(now):
            return suspension
    return None


def active_exclusion(user: User, *, now: datetime | None = None) -> SelfExclusion | None:
    now = _now(now)
    return SelfExclusion.objects.filter(user=user, starts_at__lte=now, ends_at__gt=now).first()


@dataclass(frozen=True)
class Block:
    """Why a user may not play now, in words for them.

    ``signed_out``: the account is deactivated or the socket's session is over, so nothing at
    all is accepted from it; otherwise (a suspension, a self-exclusion) the player may still
    leave a game (``tables.game.restrictions.check_may_play``).
    """

    reason: str
    signed_out: bool = False


DEACTIVATED = "This account is closed (deactivated by staff); it may not play."
SIGNED_OUT = "You are signed out on this device (logged out, or your password changed); log in again to play."


def play_block(user: User, *, session_key: str | None = None, now: datetime | None = None) -> Block | None:
    """Whether ``user`` may play or pay now: ``None`` if they may, else why not.

    One query however many checks: the account is active, no suspension or self-exclusion is in
    force and, given ``session_key`` (a socket's), that session still logs this user in as an HTTP
    request would (the row exists and has not expired, it names the user and the hash of their
    password now). Only a refusal costs more queries (the words of a suspension). A table action
    reads the same row in its game row's lock statement instead (``BlockQuery``).
    """
    query = BlockQuery.of(user.pk, session_key, _now(now))
    with bound_cursor(connection) as cursor:  # prepared: it runs with every table action
        cursor.execute(query.sql, [*query.params, user.pk])
        found = cursor.fetchone()
    return query.judge(user, found)


@dataclass(frozen=True)
class BlockQuery:
    """``play_block``'s one query, to run alone (``play_block``) or inside another statement (a
    table action reads it with its game row's lock, ``tables.game.gamerows.lock_game_beside``: a round trip
    and a statement fewer per action): ``sql`` selects the block's columns of the user ``u`` whose
    id is the last parameter, after ``params``; ``judge`` reads the row it gave (None: no such user).
    """

    sql: str
    params: tuple[Any, ...]
    session_key: str | None
    with_session: bool
    now: datetime

    @classmethod
    def of(cls, user_id: int, session_key: str | None, now: datetime) -> BlockQuery:
        """Written once in SQL (``_block_sql``): built by the ORM (an annotation with two ``Exists`` and
        a ``Subquery``) it cost as much CPU as the rest of the action (bench/load/action_cpu.py)."""
        with_session = session_key is not None and issubclass(session_check.session_store(), DbSessionStore)
        at = connection.ops.adapt_datetimefield_value(now)
        params: tuple[Any, ...] = (at, at, at, at, session_key, at) if with_session else (at, at, at, at)
        return cls(_block_sql(with_session), params, session_key, with_session, now)

    def judge(self, user: User, found: Sequence[Any] | None) -> Block | None:
        """The ``Block`` that ``found`` (the query's columns, or None) says ``user`` is under, if any."""
        if found is None or not found[0]:  # no such user (None, or all None beside a lock), or not active
            return Block(DEACTIVATED, signed_out=True)
        row = {"is_active": found[0], "password": found[1], "suspended": found[2], "excluded": found[3]}
        if self.with_session:
            row["session_data"] = found[4]
        if self.session_key is not None and not session_check.session_logs_in(user, row, self.session_key):
            return Block(SIGNED_OUT, signed_out=True)
        if row["suspended"]:
            suspension = active_suspension(user, now=self.now)
            if suspension is not None:  # lifted in between: it no longer blocks
                until = f"until {when(suspension.ends_at)}" if suspension.ends_at else "until further notice"
                why = suspension.message or "please contact support"  # never the internal note
                return Block(f"Your account is suspended {until}: {why}")
        if row["excluded"]:
            exclusion = active_exclusion(user, now=self.now)
            if exclusion is not None:
                return Block(
                    f"You have taken a break from play until {when(exclusion.ends_at)} (self-exclusion)."
                )
        return None


def block_reason(user: User, *, now: datetime | None = None) -> str | None:
    """Why ``user`` may not play now, in words for them; ``None`` if they may (``play_block``)."""
    block = play_block(user, now=now)
    return block.reason if block is not None else None


@functools.cache
def _block_sql(with_session: bool) -> str:
    q = connection.ops.quote_name

    def table(model: Any) -> str:
        return q(model._meta.db_table)

    def col(model: Any, name: str) -> str:
        return q(model._meta.get_field(name).column)

    s, e, u = Suspension, SelfExclusion, User
    suspended = (
        f"EXISTS (SELECT 1 FROM {table(s)} s WHERE s.{col(s, 'user')} = u.{col(u, 'id')}"
        f" AND s.{col(s, 'lifted_at')} IS NULL AND s.{col(s, 'starts_at')} <= %s"
        f" AND (s.{col(s, 'ends_at')} IS NULL OR s.{col(s, 'ends_at')} > %s))"
    )
    excluded = (
        f"EXISTS (SELECT 1 FROM {table(e)} e WHERE e.{col(e, 'user')} = u.{col(u, 'id')}"
        f" AND e.{col(e, 'starts_at')} <= %s AND e.{col(e, 'ends_at')} > %s)"
    )
    columns = [f"u.{col(u, 'is_active')}", f"u.{col(u, 'password')}", suspended, excluded]
    if with_session:
        d = session_check.session_store().get_model_class()
        columns.append(
            f"(SELECT d.{col(d, 'session_data')} FROM {table(d)} d"
            f" WHERE d.{col(d, 'session_key')} = %s AND d.{col(d, 'expire_date')} > %s)"
        )
    return f"SELECT {', '.join(columns)} FROM {table(u)} u WHERE u.{col(u, 'id')} = %s"


def with_blocks(users: QuerySet[User], *, now: datetime | None = None) -> QuerySet[User]:
    """``users`` with what keeps each from play now, for staff lists (no query per row):
    ``suspended`` (a suspension in force), ``suspended_until`` (its end; ``None``: until lifted)
    and ``excluded_until`` (the end of a self-exclusion in force, else ``None``)."""
    now = _now(now)
    in_force = Suspension.objects.filter(
        user=OuterRef("pk"), lifted_at__isnull=True, starts_at__lte=now
    ).filter(Q(ends_at__isnull=True) | Q(ends_at__gt=now))
    excluded = SelfExclusion.objects.filter(user=OuterRef("pk"), starts_at__lte=now, ends_at__gt=now)
    return users.annotate(
        suspended=Exists(in_force),
        suspended_until=Subquery(
            in_force.order_by(F("ends_at").desc(nulls_first=True)).values("ends_at")[:1]
        ),
        excluded_until=Subquery(excluded.order_by("-ends_at").values("ends_at")[:1]),
    )


def block_summary(user: User) -> str:
    """What keeps ``user`` from play, in a few words for staff, from ``with_blocks``' figures."""
    if not user.is_active:
        return "account deactivated"
    if getattr(user, "suspended", False):
        until = user.suspended_until  # type: ignore[attr-defined]  # annotated by with_blocks
        return f"suspended until {when(until)}" if until else "suspended until lifted"
    excluded_until = getattr(user, "excluded_until", None)
    if excluded_until is not None:
        return f"has taken a break (self-excluded) until {when(excluded_until)}"
    return "yes"


def self_exclude(*, user: User, period: str, now: datetime | None = None) -> SelfExclusion:
    """Start a self-exclusion now. It cannot be shortened: a shorter one while excluded is refused."""
    now = _now(now)
    try:
        length = EXCLUSION_LENGTHS[SelfExclusion.Period(period)]
    except ValueError:
        raise PlayRefused(f"choose a break of {', '.join(p.label for p in SelfExclusion.Period)}") from None
    ends_at = now + length
    with transaction.atomic():
        User.objects.select_for_update().get(pk=user.pk)
        current = active_exclusion(user, now=now)
        if current is not None and current.ends_at >= ends_at:
            raise PlayRefused(
                f"you are already excluded until {when(current.ends_at)}; a break cannot be shortened or lifted"
            )
        exclusion = SelfExclusion.objects.create(user=user, period=period, starts_at=now, ends_at=ends_at)
        announce_block(user.pk)
    return exclusion


def announce_block(user_id: int) -> None:
    """After commit, tell the other apps that ``user_id`` may no longer play."""
    transaction.on_commit(lambda: play_blocked.send(sender=User, user_id=user_id))
