"""A player's own daily limits on entry fees and play time (issue 23): a lowered limit applies at
once, a raised or removed one after ``RAISE_DELAY``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import PlayLimit, User
from accounts.play import PlayRefused

#: A raised limit waits this long before it applies; a lowered one applies at once.
RAISE_DELAY = timedelta(hours=24)


@dataclass(frozen=True)
class LimitStatus:
    kind: str
    current: int | None
    pending: int | None
    pending_at: datetime | None
    has_pending: bool


def current_limit(user: User, kind: str, *, now: datetime | None = None) -> int | None:
    """The limit in effect now (paise or minutes), ``None`` for none."""
    row = PlayLimit.objects.filter(user=user, kind=kind, effective_at__lte=now or timezone.now()).first()
    return row.value if row is not None else None


def limit_status(user: User, kind: str, *, now: datetime | None = None) -> LimitStatus:
    now = now or timezone.now()
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
    now = now or timezone.now()
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
    return (now or timezone.now()).replace(hour=0, minute=0, second=0, microsecond=0)
