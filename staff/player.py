"""The player page for staff (issue 27): one player seen whole, for support answering "where did my
chips go?" without opening five lists. Amounts in rupees; times in the operator's time zone.

Each part is read with a fixed number of queries, however long the player's history: the ledger
statement and the games are paginated, the rest are a player's own short lists.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import Prefetch, Sum
from django.urls import reverse
from django.utils import timezone

from accounts.models import PlayLimit, SelfExclusion, Suspension, User
from staff import roles
from staff.models import StaffNote
from staff.selectors import integrity_sections
from staff.timezones import operator_zone
from tables.models import Deal, PoolGame, Seat
from wallet.models import Account, AccountKind, Entry
from wallet.money import format_money

STATEMENT_PER_PAGE = 25
GAMES_PER_PAGE = 20
PLAYER_KINDS = (AccountKind.WALLET, AccountKind.BONUS)


def local(at: datetime | None) -> str:
    """A time as the operator reads it: ``03 Dec 2026 21:40`` in ``OPERATOR_TIME_ZONE``."""
    if at is None:
        return "—"
    return f"{timezone.localtime(at, operator_zone()):%d %b %Y %H:%M}"


@dataclass(frozen=True)
class StatementRow:
    at: str
    what: str
    memo: str
    cash: str
    bonus: str
    cash_balance: str
    bonus_balance: str
    game_url: str | None
    game_label: str
    transaction_url: str


def statement(*, user: User, accounts: dict[str, Account], page: Any) -> tuple[Page, list[StatementRow]]:  # type: ignore[type-arg]
    """The ledger statement of ``user``'s cash and bonus accounts, newest first, one row per ledger
    transaction on the page, with both running balances after it.

    Read from the ledger's entries and their ``balance_after`` (the running balance the ledger
    keeps), so every movement is here whatever caused it: a grant or a settlement has no
    ``caused_by``, and nothing is found by searching memos. A row's game is the escrow account on
    the other side of the same transaction (entry fees, refunds, settlements).
    """
    ids = [a.pk for a in accounts.values()]
    entries = Entry.objects.filter(account_id__in=ids).select_related("transaction").order_by("-id")
    paginator = Paginator(entries, STATEMENT_PER_PAGE)
    current = paginator.get_page(page)
    rows = list(current.object_list)
    if not rows:
        return current, []
    cash_id = accounts[AccountKind.WALLET].pk if AccountKind.WALLET in accounts else None
    # each account's balance just after the page's newest entry: its balance now, less what
    # came after (nothing, on the first page)
    balances = {a.pk: a.balance for a in accounts.values()}
    if current.number > 1:
        later = (
            Entry.objects.filter(account_id__in=ids, id__gt=rows[0].pk)
            .values("account_id")
            .annotate(total=Sum("amount"))
        )
        for row in later:
            balances[row["account_id"]] -= int(row["total"] or 0)
    games = dict(
        Entry.objects.filter(
            transaction_id__in={e.transaction_id for e in rows}, account__kind=AccountKind.ESCROW
        ).values_list("transaction_id", "account__ref")
    )
    out: list[StatementRow] = []
    by_tx: dict[int, list[Entry]] = {}
    order: list[int] = []
    for entry in rows:
        if entry.transaction_id not in by_tx:
            order.append(entry.transaction_id)
        by_tx.setdefault(entry.transaction_id, []).append(entry)
    for tx_id in order:
        legs = by_tx[tx_id]
        tx = legs[0].transaction
        moved = {"cash": 0, "bonus": 0}
        shown = dict(balances)
        for leg in legs:
            moved["cash" if leg.account_id == cash_id else "bonus"] += leg.amount
            shown[leg.account_id] = leg.balance_after
            balances[leg.account_id] = leg.balance_after - leg.amount  # before this row
        ref = games.get(tx_id, "")
        game_id = int(ref.removeprefix("game:")) if ref.startswith("game:") else None
        out.append(
            StatementRow(
                at=local(tx.created_at),
                what=tx.get_kind_display(),
                memo=tx.memo,
                cash=format_money(moved["cash"]) if moved["cash"] else "",
                bonus=format_money(moved["bonus"]) if moved["bonus"] else "",
                cash_balance=format_money(shown.get(cash_id, 0)) if cash_id else format_money(0),
                bonus_balance=format_money(shown.get(accounts[AccountKind.BONUS].pk, 0))
                if AccountKind.BONUS in accounts
                else format_money(0),
                game_url=reverse("admin:tables_poolgame_change", args=[game_id]) if game_id else None,
                game_label=f"game {game_id}" if game_id else "",
                transaction_url=reverse("admin:wallet_ledgertransaction_change", args=[tx_id]),
            )
        )
    return current, out


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


def games(*, user: User, page: Any) -> tuple[Page, list[dict[str, Any]]]:  # type: ignore[type-arg]
    """The player's games, newest first, each with the deals and the player's part in each."""
    seats = (
        Seat.objects.filter(user=user)
        .select_related("game__table")
        .prefetch_related(Prefetch("game__deals", queryset=Deal.objects.order_by("number")))
        .order_by("-game_id", "-id")
    )
    paginator = Paginator(seats, GAMES_PER_PAGE)
    current = paginator.get_page(page)
    out = []
    for seat in current.object_list:
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
    return current, out


def _limit_words(row: PlayLimit) -> str:
    if row.value is None:
        return "no limit"
    return format_money(row.value) if row.kind == PlayLimit.Kind.SPEND else f"{row.value} minutes"


def limits(*, user: User, now: datetime) -> list[dict[str, Any]]:
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
    *, user: User, viewer: Any = None, statement_page: Any = 1, games_page: Any = 1
) -> dict[str, Any]:
    """Everything the staff player page shows (``admin/staff/player.html``)."""
    now = timezone.now()
    accounts = {a.kind: a for a in Account.objects.filter(kind__in=PLAYER_KINDS, ref=f"user:{user.pk}")}
    cash = accounts[AccountKind.WALLET].balance if AccountKind.WALLET in accounts else 0
    bonus = accounts[AccountKind.BONUS].balance if AccountKind.BONUS in accounts else 0
    statement_at, statement_rows = statement(user=user, accounts=accounts, page=statement_page)
    games_at, game_rows = games(user=user, page=games_page)
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
