"""Reads for the staff pages: a pool game in words and amounts in rupees, and the dashboard."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Q, Sum
from django.db.models.functions import Abs, TruncDate
from django.urls import reverse
from django.utils import timezone

from accounts import play
from game_engine.game import GameState
from game_engine.pool import prize_pool
from staff.models import AdjustmentRequest
from tables import sockets
from tables.models import Deal, PoolGame, Seat
from wallet.audit import check_ledger
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
                "user": by_user.get(p.id).user if p.id in by_user else None,
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


def rake_by_day(*, days: int = CHART_DAYS) -> list[tuple[Any, int]]:
    """(date, paise) of rake taken by the house each UTC day, the last ``days`` days, oldest first."""
    today = timezone.now().date()
    start = today - timedelta(days=days - 1)
    rows = (
        Entry.objects.filter(
            account__kind=AccountKind.HOUSE,
            transaction__kind__in=[TransactionKind.SETTLEMENT, TransactionKind.RAKE],
            transaction__created_at__date__gte=start,
        )
        .annotate(day=TruncDate("transaction__created_at"))
        .values("day")
        .annotate(total=Sum("amount"))
    )
    totals = {r["day"]: int(r["total"] or 0) for r in rows}
    return [(start + timedelta(days=i), totals.get(start + timedelta(days=i), 0)) for i in range(days)]


def rake_chart(series: list[tuple[Any, int]], *, width: int = 640, height: int = 180) -> dict[str, Any]:
    """Bars of an inline SVG (drawn by the template; no script): x, y, w, h and labels per day."""
    top = max((v for _, v in series), default=0) or 1
    pad_bottom, pad_top = 20, 10
    plot_h = height - pad_bottom - pad_top
    step = width / max(len(series), 1)
    bars = []
    for i, (day, value) in enumerate(series):
        h = round(plot_h * value / top, 1)
        bars.append(
            {
                "x": round(i * step + 1, 1),
                "y": round(pad_top + plot_h - h, 1),
                "w": round(step - 2, 1),
                "h": h,
                "label": f"{day:%d %b}: {format_money(value)}",
                "tick": f"{day:%d}" if i % 5 == 0 or i == len(series) - 1 else "",
                "tx": round(i * step + step / 2, 1),
            }
        )
    return {
        "width": width,
        "height": height,
        "bars": bars,
        "max": format_money(top if top > 1 else 0),
        "total": format_money(sum(v for _, v in series)),
        "baseline": height - pad_bottom,
    }


def dashboard() -> dict[str, Any]:
    now = timezone.now()
    today = play.day_start(now)
    open_games = PoolGame.objects.filter(status__in=[PoolGame.Status.WAITING, PoolGame.Status.RUNNING])
    seated = Seat.objects.filter(game__in=open_games, left_at__isnull=True, is_bot=False)
    balances = {
        row["kind"]: int(row["total"] or 0)
        for row in Account.objects.values("kind").annotate(total=Sum("balance"))
    }
    problems = check_ledger()
    series = rake_by_day()
    counts = PoolGame.objects.aggregate(
        running=Count("id", filter=Q(status=PoolGame.Status.RUNNING)),
        waiting=Count("id", filter=Q(status=PoolGame.Status.WAITING)),
        today=Count("id", filter=Q(started_at__gte=today)),
        finished_today=Count("id", filter=Q(finished_at__gte=today, status=PoolGame.Status.FINISHED)),
        cancelled_today=Count("id", filter=Q(finished_at__gte=today, status=PoolGame.Status.CANCELLED)),
    )
    return {
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
        "timers_overdue": open_games.filter(deadline_at__lt=now - timedelta(seconds=5)).count(),
        "ledger_ok": not problems,
        "ledger_problems": problems,
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
