"""The money controls on staff adjustments (docs/staff.md): the approval threshold over a window,
what a staff member moved lately, and the controls as the adjustment form states them."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Sum
from django.db.models.functions import Abs
from django.utils import timezone

from core.money import format_money
from staff.models import AdjustmentRequest
from wallet.models import AccountKind, Entry, TransactionKind


def rupees_setting(name: str) -> int:
    return int(getattr(settings, name)) * 100


def approval_threshold() -> int:
    """Paise: a staff member's adjustments over the window above this wait for a second
    administrator (0: every adjustment waits)."""
    return rupees_setting("ADJUSTMENT_APPROVAL_ABOVE_RUPEES")


def adjusted_recently(*, staff: Any, since: datetime) -> int:
    """Paise ``staff`` moved (credits and debits alike) since ``since``: applied at once, or asked
    for (still waiting or approved; an approved one counts once, as asked)."""
    asked = AdjustmentRequest.objects.filter(
        requested_by=staff,
        requested_at__gte=since,
        status__in=[AdjustmentRequest.Status.PENDING, AdjustmentRequest.Status.APPROVED],
    )
    asked_total = asked.aggregate(total=Sum(Abs("amount")))["total"] or 0
    direct = (
        Entry.objects.filter(
            transaction__kind=TransactionKind.ADJUSTMENT,
            transaction__caused_by=staff,
            transaction__created_at__gte=since,
            account__kind__in=[AccountKind.WALLET, AccountKind.BONUS],
        )
        .exclude(transaction__idempotency_key__in=AdjustmentRequest.objects.values("idempotency_key"))
        .aggregate(total=Sum(Abs("amount")))["total"]
        or 0
    )
    return int(asked_total) + int(direct)


def adjustment_controls(*, staff: Any) -> dict[str, str]:
    """The money controls as the adjustment form states them to ``staff`` (docs/staff.md)."""
    now = timezone.now()
    window = int(settings.ADJUSTMENT_APPROVAL_WINDOW_HOURS)
    threshold = approval_threshold()
    return {
        "threshold": format_money(threshold) if threshold else "",
        "window_hours": str(window),
        "used_window": format_money(adjusted_recently(staff=staff, since=now - timedelta(hours=window))),
        "ceiling": format_money(int(settings.ADJUSTMENT_MAX_RUPEES) * 100),
        "daily_limit": format_money(int(settings.ADJUSTMENT_DAILY_LIMIT_RUPEES) * 100),
        "used_today": format_money(adjusted_recently(staff=staff, since=now - timedelta(hours=24))),
    }
