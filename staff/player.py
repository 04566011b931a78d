"""The player page for staff (issue 27): one player seen whole, for support answering "where did my
chips go?" without opening five lists. Amounts in rupees; times in the operator's time zone.

Each part is read with a fixed number of queries, however long the player's history: the ledger
statement and the games are paginated, the rest are a player's own short lists.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.db.models import Prefetch, Q
from django.urls import reverse
from django.utils import timezone

from accounts.models import PlayLimit, SelfExclusion, Suspension, User
from core.money import format_money
from staff import roles
from staff.models import StaffNote
from staff.selectors import integrity_sections
from staff.shapes import LimitRow
from staff.statement import StatementPage, StatementRow
from staff.statement import statement as statement_page
from staff.timezones import operator_zone
from tables.models import Deal, PoolGame, Seat
from wallet.models import Account, AccountKind

GAMES_PER_PAGE = 20
PLAYER_KINDS = (AccountKind.WALLET, AccountKind.BONUS)


def local(at: datetime | None) -> str:
    """A time as the operator reads it: ``03 Dec 2026 21:40`` in ``OPERATOR_TIME_ZONE``."""
    if at is None:
        return "—"
    return f"{timezone.localtime(at, operator_zone()):%d %b %Y %H:%M}"


def statement(
    *, accounts: dict[str, Account], cursor: dict[str, Any] | None = None
) -> tuple[StatementPage, list[StatementRow]]:
    """The ledger statement (``staff.statement``), its times as the operator reads them."""
    return statement_page(accounts=accounts, cursor=cursor or {}, local=local)


def _game_outcome(game: PoolGame, seat: Seat, user_id: int) -> tuple[str, str]:
    """(what became of the player in ``game``, what they were paid, in rupees)."""
    result = game.result or {}
    paid = int((result.get("payouts") or {}).get(str(user_id)) or 0)
    if seat.left_at is not None:
        return "left before the start (fee refunded)", ""
    if game.status in (PoolGame.Status.WAITING, PoolGame.Status.RUNNING):
        return game.get_status_display().lower(), ""
    if result.get("cancelled"):
        return "cancelled by staff", format_money(paid) if paid else ""
    if str(result.get("winner")) == str(user_id):
        return "won", format_money(paid)
    if paid:
        return "shared the prize (split)", format_money(paid)
    return "lost", ""


@dataclass
class GamesPage:
    """Where a page of the player's games is: "older" (``games_before=<seat>``) and "newest"."""

    older: str | None = None
    first: bool = True


def games_cursor(params: Any) -> int | None:
    value = str(params.get("games_before") or "")
    return int(value) if value.isdigit() and len(value) < 19 else None


def games(*, user: User, before: int | None = None) -> tuple[GamesPage, list[dict[str, Any]]]:
    """The player's games, newest first, each with the deals and the player's part in each: paged
    by seek (the seats after the last one shown), so a player of many games costs one page."""
    seats = Seat.objects.filter(user=user)
    if before is not None:
        pivot = Seat.objects.filter(pk=before, user=user).values_list("game_id", flat=True).first()
        if pivot is not None:
            seats = seats.filter(Q(game_id__lt=pivot) | Q(game_id=pivot, id__lt=before))
    rows = list(
        seats.select_related("game__table")
        .prefetch_related(Prefetch("game__deals", queryset=Deal.objects.order_by("number")))
        .order_by("-game_id", "-id")[: GAMES_PER_PAGE + 1]
    )
    where = GamesPage(first=before is None)
    if len(rows) > GAMES_PER_PAGE:
        rows = rows[:GAMES_PER_PAGE]
        where.older = urlencode({"games_before": rows[-1].pk})
    out = []
    for seat in rows:
        game = seat.game
        outcome, paid = _game_outcome(game, seat, user.pk)
        deals = []
        for deal in game.deals.all():
            mine = ((deal.result or {}).get("players") or {}).get(str(seat.engine_seat), {})
            deals.append(
                {
                    "number": deal.number,
                    "status": mine.get("status", "—") if deal.finished_at else "being played",
                    "points": mine.get("points", "") if deal.finished_at else "",
                    "won": str((deal.result or {}).get("winner")) == str(seat.engine_seat),
                    "replay": reverse("deal-detail", args=[deal.pk]) if deal.finished_at else None,
                }
            )
        out.append(
            {
                "game": game,
                "table": game.table.name,
                "started": local(game.started_at or game.created_at),
                "outcome": outcome,
                "paid": paid,
                "url": reverse("admin:tables_poolgame_change", args=[game.pk]),
                "history": reverse("game-detail", args=[game.pk]),
                "deals": deals,
            }
        )
    return where, out


def _limit_words(row: PlayLimit) -> str:
    if row.value is None:
        return "no limit"
    return format_money(row.value) if row.kind == PlayLimit.Kind.SPEND else f"{row.value} minutes"


def limits(*, user: User, now: datetime) -> list[LimitRow]:
    """Every setting of the player's daily limits, newest first: in effect, waiting, or replaced."""
    rows = list(PlayLimit.objects.filter(user=user))
    current: dict[str, int] = {}
    for row in sorted(rows, key=lambda r: (r.effective_at, r.pk), reverse=True):
        if row.effective_at <= now and row.kind not in current:
            current[row.kind] = row.pk
    return [
        {
            "kind": row.get_kind_display(),
            "value": _limit_words(row),
            "asked": local(row.created_at),
            "effective": local(row.effective_at),
            "state": "in effect"
            if current.get(row.kind) == row.pk
            else (
                "waiting (a raise applies 24 hours after it is asked)"
                if row.effective_at > now
                else "replaced"
            ),
        }
        for row in rows
    ]


def _blocked(suspensions: list[Suspension], exclusions: list[SelfExclusion], now: datetime) -> str | None:
    """Why the player may not play now, for staff (from the rows already read)."""
    for s in suspensions:
        if s.in_force(now):
            until = f"until {local(s.ends_at)}" if s.ends_at else "until lifted"
            return f"suspended {until} (the player is told: {s.message or 'please contact support'})"
    for e in exclusions:
        if e.starts_at <= now < e.ends_at:
            return f"has taken a break (self-excluded) until {local(e.ends_at)}"
    return None


def player_page(
    *,
    user: User,
    viewer: Any = None,
    statement_cursor: dict[str, Any] | None = None,
    games_before: int | None = None,
) -> dict[str, Any]:
    """Everything the staff player page shows (``admin/staff/player.html``)."""
    now = timezone.now()
    accounts = {a.kind: a for a in Account.objects.filter(kind__in=PLAYER_KINDS, ref=f"user:{user.pk}")}
    cash = accounts[AccountKind.WALLET].balance if AccountKind.WALLET in accounts else 0
    bonus = accounts[AccountKind.BONUS].balance if AccountKind.BONUS in accounts else 0
    statement_at, statement_rows = statement(accounts=accounts, cursor=statement_cursor)
    games_at, game_rows = games(user=user, before=games_before)
    suspensions = list(Suspension.objects.filter(user=user).select_related("created_by", "lifted_by"))
    exclusions = list(SelfExclusion.objects.filter(user=user))
    return {
        "player": user,
        "role": roles.role_name(user),
        "joined": local(user.date_joined),
        "last_login": local(user.last_login),
        "zone": settings.OPERATOR_TIME_ZONE,
        "cash": format_money(cash),
        "bonus": format_money(bonus),
        "total": format_money(cash + bonus),
        "accounts": accounts,
        "statement_page": statement_at,
        "statement_query": urlencode(statement_cursor or {}),
        "games_query": urlencode({"games_before": games_before} if games_before else {}),
        "statement": statement_rows,
        "games_page": games_at,
        "games": game_rows,
        "suspensions": [
            {
                "reason": s.reason,
                "message": s.message,
                "starts": local(s.starts_at),
                "ends": local(s.ends_at) if s.ends_at else "until lifted",
                "by": s.created_by.username,
                "lifted": f"{local(s.lifted_at)} by {s.lifted_by.username if s.lifted_by else '—'}: {s.lift_reason}"
                if s.lifted_at
                else "",
                "in_force": s.in_force(now),
            }
            for s in suspensions
        ],
        "exclusions": [
            {
                "period": e.get_period_display(),
                "starts": local(e.starts_at),
                "ends": local(e.ends_at),
                "in_force": e.starts_at <= now < e.ends_at,
            }
            for e in exclusions
        ],
        "limits": limits(user=user, now=now),
        "blocked": _blocked(suspensions, exclusions, now),
        "notes": [
            {"text": n.text, "author": n.author.username, "at": local(n.created_at)}
            for n in StaffNote.objects.filter(user=user).select_related("author")
        ],
        "integrity": integrity_sections(user, viewer=viewer),
    }
