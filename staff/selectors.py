"""Reads for the staff pages: a pool game in words and amounts in rupees, and the dashboard."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, F, Max, Q, Sum
from django.db.models.functions import Abs, TruncDate
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify

from accounts import play
from game_engine.game import GameState
from game_engine.pool import prize_pool
from integrity.selectors import player_sections
from staff.models import AdjustmentRequest
from staff.timezones import operator_zone, zone_label
from tables.models import Deal, PoolGame, Seat
from tables.realtime import sockets
from wallet.audit import last_check
from wallet.models import Account, AccountKind, Entry, TransactionKind
from wallet.money import format_money

SUITS = {"S": ("♠", False), "H": ("♥", True), "D": ("♦", True), "C": ("♣", False)}
PHASE_WORDS = {
    "dealing": "about to deal",
    "playing": "a deal is being played",
    "declaring": "a player declared; the others are showing",
    "between_deals": "between deals",
    "rejoin_window": "eliminated players may rejoin",
    "split_offer": "a split of the prize pool is offered",
    "finished": "finished",
}


def integrity_sections(user: Any, *, viewer: Any) -> list[dict[str, Any]]:
    """The player page's integrity sections (``integrity.selectors.player_sections``): sign-up and
    recent log-in addresses and devices, and linked accounts, as tables of cells (``text``, and a
    ``link`` where there is one). Addresses and devices are personal data: only for a viewer
    with ``integrity.view_signals`` (the Game integrity role, docs/integrity.md)."""
    if viewer is None or not viewer.has_perm("integrity.view_signals"):
        return []
    return [
        {
            "id": slugify(section["title"]),
            "title": section["title"],
            "columns": ["", ""],
            "rows": [
                [{"text": row["label"]}, {"text": row["value"], "link": row.get("link")}]
                for row in section["rows"]
            ],
        }
        for section in player_sections(user)
    ]


def card(code: str) -> dict[str, Any]:
    """A card code as a picture's parts: rank, suit symbol, colour (``PJ``: the printed joker)."""
    if code == "PJ":
        return {"code": code, "rank": "★", "suit": "JKR", "red": False, "joker": True}
    rank, suit = code[:-1], code[-1]
    symbol, red = SUITS.get(suit, (suit, False))
    return {"code": code, "rank": rank, "suit": symbol, "red": red, "joker": False}


def cards(codes: list[str]) -> list[dict[str, Any]]:
    return [card(c) for c in codes]


def game_page(game: PoolGame) -> dict[str, Any]:
    """Everything the staff game page shows, with amounts already in rupees."""
    seats = list(game.seats.select_related("user").order_by("position"))
    by_user = {str(s.user_id): s for s in seats}
    state = GameState.from_dict(game.state) if game.state else None
    out: dict[str, Any] = {"game": game, "state": state, "seats": seats}
    entry_fee = game.table.settings.entry_fee
    out["entry_fee"] = format_money(entry_fee)
    if state is None:
        fees = sum(1 for s in seats if s.left_at is None) * entry_fee
        out.update(fees_paid=format_money(fees), prize_pool="—", rake="—", players=[], live=None)
    else:
        pool, rake = prize_pool(state.fees_paid, state.rules)
        out.update(
            fees_paid=format_money(state.fees_paid), prize_pool=format_money(pool), rake=format_money(rake)
        )
        out["players"] = [
            {
                "seat": i,
                "name": p.name,
                "user": by_user[p.id].user if p.id in by_user else None,
                "score": p.score,
                "drops_remaining": state.drops_remaining(i),
                "eliminated": p.eliminated,
                "left": p.left,
                "rejoins": p.rejoins,
                "fees_paid": format_money(p.fees_paid),
                "auto_drop": p.auto_drop,
                "blocked": play.block_reason(by_user[p.id].user) if p.id in by_user else None,
            }
            for i, p in enumerate(state.players)
        ]
        out["live"] = _live(state) if game.status == PoolGame.Status.RUNNING else None
    names = {str(i): p["name"] for i, p in enumerate(out["players"])}
    out["deals"] = [_deal_row(d, names) for d in game.deals.order_by("number")]
    out["result"] = _result(game.result, by_user)
    if game.result and game.result.get("cancelled"):  # what the cancellation actually paid
        out["prize_pool"] = format_money(int(game.result.get("prize_pool") or 0))
        out["rake"] = format_money(int(game.result.get("rake") or 0))
    return out


def _live(state: GameState) -> dict[str, Any]:
    """What any staff member sees of a deal being played: what the players all see, no hand."""
    deal = state.deal
    live: dict[str, Any] = {
        "phase": PHASE_WORDS.get(state.phase, state.phase),
        "deal_no": state.deal_no,
        "deadline": state.deadline,
    }
    if deal is not None:
        live.update(
            turn=state.players[deal.turn].name,
            has_drawn=deal.drawn is not None,
            cut_joker=card(deal.cut_joker.code),
            wild_rank=deal.wild_rank,
            open_top=card(deal.open_pile[-1].code) if deal.open_pile else None,
            closed_count=len(deal.closed),
            hand_counts=[
                {"name": state.players[seat].name, "cards": len(deal.hands.get(seat, []))}
                for seat in deal.order
            ],
        )
    return live


def live_hands(game: PoolGame) -> dict[str, Any] | None:
    """Every hand and the closed deck in order of the deal being played, for the one role whose
    job needs them (``staff.view_live_hands``); the caller records the view. ``None``: no deal runs."""
    if game.status != PoolGame.Status.RUNNING or not game.state:
        return None
    state = GameState.from_dict(game.state)
    deal = state.deal
    if deal is None:
        return None
    return {
        **_live(state),
        "closed": [card(c.code) for c in reversed(deal.closed)],  # the next card drawn first
        "hands": [
            {
                "name": state.players[seat].name,
                "status": deal.status.get(seat, ""),
                "on_turn": seat == deal.turn,
                "cards": cards([c.code for c in deal.hands.get(seat, [])]),
            }
            for seat in deal.order
        ],
    }


def _deal_row(deal: Deal, names: dict[str, str]) -> dict[str, Any]:
    result = deal.result or {}
    players = result.get("players", {})
    scores = result.get("scores", {})
    winner = result.get("winner")
    return {
        "number": deal.number,
        "finished": deal.finished_at,
        "winner": names.get(str(winner), "—") if winner is not None else "—",
        "rows": [
            {
                "name": names.get(seat, seat),
                "status": p.get("status", ""),
                "reason": p.get("reason") or "",
                "points": p.get("points", 0),
                "score": scores.get(seat, ""),
            }
            for seat, p in players.items()
        ],
        "replay": reverse("deal-detail", args=[deal.pk]) if deal.finished_at else None,
    }


def _result(result: dict[str, Any] | None, by_user: dict[str, Seat]) -> dict[str, Any] | None:
    if not result:
        return None

    def who(uid: str) -> str:
        seat = by_user.get(str(uid))
        return seat.user.table_name if seat else f"user {uid}"

    return {
        "cancelled": bool(result.get("cancelled")),
        "reason": result.get("reason", ""),
        "rule": result.get("rule", ""),
        "settlement": result.get("settlement")
        or result.get("split")
        or ("winner" if result.get("winner") else ""),
        "winner": who(result["winner"]) if result.get("winner") else None,
        "payouts": [
            (who(uid), format_money(int(a))) for uid, a in (result.get("payouts") or {}).items() if a
        ],
        "rake": format_money(int(result.get("rake") or 0)),
        "prize_pool": format_money(int(result.get("prize_pool") or 0)),
    }


# ---------------------------------------------------------------------------
# dashboard
# ---------------------------------------------------------------------------
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


def _nice_top(value: int) -> int:
    """A round number of paise at or above ``value`` for the chart's top (1, 2 or 5 × a power of ten rupees)."""
    if value <= 0:
        return 100
    step = 100
    while True:
        for m in (1, 2, 5):
            if m * step >= value:
                return m * step
        step *= 10


def _short(paise: int) -> str:
    """A bar's value in few characters: ₹940, ₹1.2k, ₹35k, ₹1.5L (lakh), ₹2.3Cr."""
    symbol = settings.CURRENCY_SYMBOL
    rupees = paise / 100
    for size, unit in ((10_000_000, "Cr"), (100_000, "L"), (1_000, "k")):
        if rupees >= size:
            shown = rupees / size
            return f"{symbol}{shown:.1f}{unit}" if shown < 10 else f"{symbol}{shown:.0f}{unit}"
    return f"{symbol}{rupees:.0f}" if rupees == int(rupees) else f"{symbol}{rupees:.2f}"


def rake_chart(series: list[tuple[Any, int]], *, width: int = 760, height: int = 260) -> dict[str, Any]:
    """An SVG bar chart drawn by the template (no script): a y axis in rupees with three gridlines,
    an x axis of days labelled every fifth day, each bar with its value above it and a tooltip."""
    left, right, top_pad, bottom = 64, 10, 24, 44
    plot_w, plot_h = width - left - right, height - top_pad - bottom
    top = _nice_top(max((v for _, v in series), default=0))
    step = plot_w / max(len(series), 1)
    baseline = top_pad + plot_h
    bars = []
    for i, (day, value) in enumerate(series):
        h = round(plot_h * value / top, 1)
        x = round(left + i * step + 1, 1)
        bars.append(
            {
                "x": x,
                "y": round(baseline - h, 1),
                "w": round(step - 2, 1),
                "h": h,
                "label": f"{day:%a %d %b}: {format_money(value)}",
                "day": f"{day:%a %d %b}",
                "money": format_money(value),
                "value": _short(value) if value else "",
                "vx": round(left + i * step + step / 2, 1),
                "vy": round(baseline - h - 4, 1),
                "tick": f"{day:%d %b}" if i % 5 == 0 or i == len(series) - 1 else "",
                "tx": round(left + i * step + step / 2, 1),
            }
        )
    grid = [
        {"y": round(baseline - plot_h * f, 1), "label": format_money(round(top * f))} for f in (0, 0.5, 1)
    ]
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "top": top_pad,
        "baseline": baseline,
        "bars": bars,
        "grid": grid,
        "tick_y": baseline + 16,
        "axis_title_y": height - 6,
        "mid_x": left + plot_w / 2,
        "max": format_money(max((v for _, v in series), default=0)),
        "total": format_money(sum(v for _, v in series)),
        "zone": settings.OPERATOR_TIME_ZONE,
    }


def overdue_timers(now: datetime) -> tuple[int, list[dict[str, Any]]]:
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


def stuck_games(now: datetime) -> tuple[int, list[dict[str, Any]]]:
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


def dashboard() -> dict[str, Any]:
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
