"""Who may play: staff suspensions, self-exclusion and the player's own daily limits (issue 14).

The checks are read by the services that seat a player and take entry fees
(``tables.services.table_join``, ``wallet.services.pay_entry``), so the pages,
the JSON API and the sockets all obey them. Starting a block sends
``play_blocked``: the tables app drops the player at their tables and closes
their sockets (connected in ``staff.receivers``; accounts imports no other app).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Subquery
from django.dispatch import Signal
from django.utils import timezone

from accounts.models import PlayLimit, SelfExclusion, Suspension, User

#: Sent after commit with ``user_id`` when a player may no longer play (suspended, self-excluded).
play_blocked = Signal()

#: A raised limit waits this long before it applies; a lowered one applies at once.
RAISE_DELAY = timedelta(hours=24)

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


def block_reason(user: User, *, now: datetime | None = None) -> str | None:
    """Why ``user`` may not play now, in words for them; ``None`` if they may."""
    suspension = active_suspension(user, now=now)
    if suspension is not None:
        until = f"until {when(suspension.ends_at)}" if suspension.ends_at else "until further notice"
        why = suspension.message or "please contact support"
        return f"Your account is suspended {until}: {why}"
    exclusion = active_exclusion(user, now=now)
    if exclusion is not None:
        return f"You have taken a break from play until {when(exclusion.ends_at)} (self-exclusion)."
    return None


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
    if getattr(user, "suspended", False):
        until = user.suspended_until  # type: ignore[attr-defined]
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


# ---------------------------------------------------------------------------
# daily limits
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class LimitStatus:
    kind: str
    current: int | None
    pending: int | None
    pending_at: datetime | None
    has_pending: bool


def current_limit(user: User, kind: str, *, now: datetime | None = None) -> int | None:
    """The limit in effect now (paise or minutes), ``None`` for none."""
    row = PlayLimit.objects.filter(user=user, kind=kind, effective_at__lte=_now(now)).first()
    return row.value if row is not None else None


def limit_status(user: User, kind: str, *, now: datetime | None = None) -> LimitStatus:
    now = _now(now)
    pending = PlayLimit.objects.filter(user=user, kind=kind, effective_at__gt=now).first()
    return LimitStatus(
        kind=kind,
        current=current_limit(user, kind, now=now),
        pending=pending.value if pending else None,
        pending_at=pending.effective_at if pending else None,
        has_pending=pending is not None,
    )


def set_limit(*, user: User, kind: str, value: int | None, now: datetime | None = None) -> PlayLimit:
    """Set a daily limit: lowering (or a first limit) applies now, raising or removing after 24 hours.

    A newer request replaces one still waiting, so a raise never overtakes a later cut.
    """
    now = _now(now)
    if kind not in PlayLimit.Kind.values:
        raise PlayRefused(f"unknown limit {kind!r}")
    if value is not None and value <= 0:
        raise PlayRefused("a limit must be more than zero (or empty for none)")
    with transaction.atomic():
        User.objects.select_for_update().get(pk=user.pk)
        current = current_limit(user, kind, now=now)
        PlayLimit.objects.filter(user=user, kind=kind, effective_at__gt=now).delete()
        raising = current is not None and (value is None or value > current)
        effective_at = now + RAISE_DELAY if raising else now
        return PlayLimit.objects.create(
            user=user, kind=kind, value=value, effective_at=effective_at, created_at=now
        )


def day_start(now: datetime | None = None) -> datetime:
    """Midnight UTC of today: the day the daily limits count over."""
    return _now(now).replace(hour=0, minute=0, second=0, microsecond=0)
