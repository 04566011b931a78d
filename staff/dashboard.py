"""The staff dashboard's reads: the rake by day of the operator's time zone, overdue timers, stuck
games, the ledger's last check, and the figures of the day."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, F, Max, Q, Sum
from django.db.models.functions import TruncDate
from django.urls import reverse
from django.utils import timezone

from core.money import format_money
from staff.rake_chart import rake_chart
from staff.shapes import DashboardFigures, OverdueTimer, StuckGame
from staff.timezones import operator_zone, zone_label
from tables.models import Deal, PoolGame, Seat
from tables.realtime import sockets
from wallet.audit import last_check
from wallet.models import Account, AccountKind, Entry, TransactionKind

CHART_DAYS = 30
#: A timer this many seconds past its deadline is overdue (a worker enforces it within a second or two).
OVERDUE_AFTER = timedelta(seconds=5)
#: At most this many overdue timers and stuck games are listed (the count says how many in all).
LISTED = 50


def operator_today(now: datetime | None = None) -> datetime:
    """Midnight today in the operator's time zone (``OPERATOR_TIME_ZONE``), as an aware time."""
    local = timezone.localtime(now or timezone.now(), operator_zone())
    return local.replace(hour=0, minute=0, second=0, microsecond=0)


#: The house account's balance just before each of the given times: the balance after its last
#: entry made before the first ledger transaction at or after that time. Three index lookups a
#: time (the transactions' created_at index, the entries' transaction index, the entries'
#: (account, -id) index), whatever the size of the ledger. The account is named as ``= ANY(ARRAY[..])``
#: and the order as ``account_id, id DESC`` so that only that index gives the order: with a plain
#: ``account_id = ..`` PostgreSQL may walk the ids backwards past every other account's entries
#: instead, hoping to meet a house entry soon (slow after a burst of other postings).
HOUSE_BALANCE_AT = """
SELECT b.at, COALESCE((
    SELECT e.balance_after FROM wallet_entry e
    WHERE e.account_id = ANY(ARRAY[%s]::bigint[]) AND e.id < COALESCE((
        SELECT e2.id FROM wallet_entry e2
        WHERE e2.transaction_id >= (
            SELECT t.id FROM wallet_ledgertransaction t WHERE t.created_at >= b.at ORDER BY t.created_at, t.id LIMIT 1
        )
        ORDER BY e2.transaction_id, e2.id LIMIT 1
    ), 9223372036854775807)
    ORDER BY e.account_id, e.id DESC LIMIT 1
), 0)
FROM unnest(%s::timestamptz[]) AS b(at) ORDER BY b.at
"""


def rake_by_day(*, days: int = CHART_DAYS, now: datetime | None = None) -> list[tuple[Any, int]]:
    """(date, paise) of rake taken by the house each day of the operator's time zone, the last
    ``days`` days, oldest first.

    On PostgreSQL, from the running balance the ledger keeps on the house account
    (``Entry.balance_after``): a day's rake is the house's balance at its end less its balance at
    its start, read at each midnight by index, so the chart costs the same at any size of ledger.
    (Entries and transactions get their ids in the order they are written, so a transaction in
    flight across midnight may land on either side of it.) The house takes rake only: staff
    adjust players' chips, never the house's. Elsewhere (SQLite), the rake entries are summed.
    """
    start = operator_today(now) - timedelta(days=days - 1)
    if connection.vendor == "postgresql":
        house = Account.objects.filter(kind=AccountKind.HOUSE).values_list("pk", flat=True).first()
        if house is None:
            return [(start.date() + timedelta(days=i), 0) for i in range(days)]
        bounds = [start + timedelta(days=i) for i in range(days + 1)]
        with connection.cursor() as cursor:
            cursor.execute(HOUSE_BALANCE_AT, [house, bounds])
            balances = [int(row[1]) for row in cursor.fetchall()]
        return [(start.date() + timedelta(days=i), balances[i + 1] - balances[i]) for i in range(days)]
    return rake_summed(start=start, days=days)


def rake_summed(*, start: datetime, days: int) -> list[tuple[Any, int]]:
    """``rake_by_day`` by summing the house's rake entries of each day (every entry read)."""
    zone = operator_zone()
    rows = (
        Entry.objects.filter(
            account__kind=AccountKind.HOUSE,
            transaction__kind__in=[TransactionKind.SETTLEMENT, TransactionKind.RAKE],
            transaction__created_at__gte=start,
        )
        .annotate(day=TruncDate("transaction__created_at", tzinfo=zone))
        .values("day")
        .annotate(total=Sum("amount"))
    )
    totals = {r["day"]: int(r["total"] or 0) for r in rows}
    first = start.date()
    return [(first + timedelta(days=i), totals.get(first + timedelta(days=i), 0)) for i in range(days)]


def overdue_timers(now: datetime) -> tuple[int, list[OverdueTimer]]:
    """Open games whose deadline passed more than ``OVERDUE_AFTER`` ago: how many, and the first
    ``LISTED`` (most overdue first) with links to their game pages."""
    late = PoolGame.objects.filter(
        status__in=[PoolGame.Status.WAITING, PoolGame.Status.RUNNING], deadline_at__lt=now - OVERDUE_AFTER
    )
    rows = list(late.select_related("table").order_by("deadline_at")[:LISTED])
    count = len(rows) if len(rows) < LISTED else late.count()
    return count, [
        {
            "game": g.pk,
            "table": g.table.name,
            "status": g.get_status_display(),
            "deadline": g.deadline_kind or "deadline",
            "late": _ago(now - g.deadline_at),
            "url": reverse("admin:tables_poolgame_change", args=[g.pk]),
        }
        for g in rows
        if g.deadline_at is not None  # every one: the query filtered by it
    ]


def stuck_games(now: datetime) -> tuple[int, list[StuckGame]]:
    """Running games nothing will move on: no deadline at all (every phase of a running game has
    one), or no event for ``STUCK_GAME_MINUTES`` (a turn lasts seconds). How many, and the first
    ``LISTED``, longest silent first, with links."""
    quiet_since = now - timedelta(minutes=int(settings.STUCK_GAME_MINUTES))
    running = PoolGame.objects.filter(status=PoolGame.Status.RUNNING).annotate(
        last_event=Max("events__created_at")
    )
    stuck = running.filter(
        Q(deadline_at__isnull=True)
        | Q(last_event__lt=quiet_since)
        | Q(last_event__isnull=True, started_at__lt=quiet_since)
    )
    rows = list(stuck.select_related("table").order_by(F("last_event").asc(nulls_first=True), "id")[:LISTED])
    count = len(rows) if len(rows) < LISTED else stuck.count()
    return count, [
        {
            "game": g.pk,
            "table": g.table.name,
            "why": "no deadline set"
            if g.deadline_at is None
            else f"no event for {_ago(now - (g.last_event or g.started_at or now))}",
            "last_event": g.last_event,
            "url": reverse("admin:tables_poolgame_change", args=[g.pk]),
        }
        for g in rows
    ]


def _ago(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"


def figures() -> DashboardFigures:
    """The dashboard's figures. The ledger's come from the balances it keeps on each account
    (``Account.balance``, written with every entry), never from reading every entry: the whole
    ``check_ledger`` runs nightly (``wallet.tasks``) and its last verdict is shown."""
    now = timezone.now()
    today = operator_today(now)
    open_games = PoolGame.objects.filter(status__in=[PoolGame.Status.WAITING, PoolGame.Status.RUNNING])
    seated = Seat.objects.filter(game__in=open_games, left_at__isnull=True, is_bot=False)
    balances = {
        row["kind"]: int(row["total"] or 0)
        for row in Account.objects.values("kind").annotate(total=Sum("balance"))
    }
    series = rake_by_day(now=now)
    counts = PoolGame.objects.filter(  # open games and today's, each part by its index
        Q(status__in=[PoolGame.Status.WAITING, PoolGame.Status.RUNNING])
        | Q(started_at__gte=today)
        | Q(finished_at__gte=today)
    ).aggregate(
        running=Count("id", filter=Q(status=PoolGame.Status.RUNNING)),
        waiting=Count("id", filter=Q(status=PoolGame.Status.WAITING)),
        today=Count("id", filter=Q(started_at__gte=today)),
        finished_today=Count("id", filter=Q(finished_at__gte=today, status=PoolGame.Status.FINISHED)),
        cancelled_today=Count("id", filter=Q(finished_at__gte=today, status=PoolGame.Status.CANCELLED)),
    )
    overdue_count, overdue = overdue_timers(now)
    stuck_count, stuck = stuck_games(now)
    check = last_check()
    return {
        "zone": settings.OPERATOR_TIME_ZONE,
        "today": f"{today:%d %b %Y}",
        "tables_running": counts["running"],
        "tables_waiting": counts["waiting"],
        "players_seated": seated.values("user_id").distinct().count(),
        "players_connected": sockets.connected_users(),
        "games_today": counts["today"],
        "games_finished_today": counts["finished_today"],
        "games_cancelled_today": counts["cancelled_today"],
        "deals_today": Deal.objects.filter(started_at__gte=today).count(),
        "chips_in_circulation": format_money(-balances.get(AccountKind.ISSUANCE, 0)),
        "chips_in_wallets": format_money(balances.get(AccountKind.WALLET, 0)),
        "chips_in_bonus": format_money(balances.get(AccountKind.BONUS, 0)),
        "chips_in_escrow": format_money(balances.get(AccountKind.ESCROW, 0)),
        "house": format_money(balances.get(AccountKind.HOUSE, 0)),
        # every chip is somewhere: the balances the ledger keeps sum to zero (cheap, on every load)
        "balances_sum_to_zero": sum(balances.values()) == 0,
        "timers_overdue": overdue_count,
        "overdue": overdue,
        "games_stuck": stuck_count,
        "stuck": stuck,
        "stuck_minutes": settings.STUCK_GAME_MINUTES,
        "ledger_check": check,
        # in the operator's zone and named, whatever zone the page renders in
        "ledger_checked_at": (
            f"{timezone.localtime(check.started_at, operator_zone()):%d %b %Y %H:%M} {zone_label(check.started_at)}"
            if check
            else None
        ),
        "ledger_ok": check.ok if check else None,
        "ledger_problems": check.problems if check else [],
        "chart": rake_chart(series),
        "rake_today": format_money(series[-1][1] if series else 0),
    }
