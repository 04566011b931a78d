"""The ledger statement on the staff player page: a player's cash and bonus entries, newest first,
with both running balances, paged by seek (issue 39).

Each page reads at most a page of entries per account, by the ledger's ``(account, -id)`` index,
and each balance from the entry's own ``balance_after`` (the running balance the ledger keeps at
posting time), never a sum of the newer entries and never an ``OFFSET``: the oldest page of a
player with a hundred thousand entries costs what the newest does. Its links: "newer"
(``statement_after=<entry>``), "older" (``statement_before=<entry>``) and "oldest"
(``statement_oldest``). It is not counted (the balances say what staff need).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.db.models import OuterRef, QuerySet, Subquery, Value
from django.urls import reverse

from core.money import format_money
from wallet.models import Account, AccountKind, Entry, TransactionKind

STATEMENT_PER_PAGE = 25
BEFORE, AFTER, OLDEST = "statement_before", "statement_after", "statement_oldest"


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


@dataclass
class StatementPage:
    """Where a statement page is: its seek links, each a query string (``statement_after=123``)."""

    newer: str | None = None
    older: str | None = None
    oldest: str | None = None
    first: bool = True

    @property
    def has_other_pages(self) -> bool:
        return bool(self.newer or self.older)


def cursor_from(params: Any) -> dict[str, Any]:
    """The statement's seek position from a request's query (``{}``: the newest page)."""
    for key in (BEFORE, AFTER):
        value = str(params.get(key) or "")
        if value.isdigit() and len(value) < 19:
            return {key: int(value)}
    return {OLDEST: 1} if OLDEST in params else {}


LEG = ("id", "transaction_id", "account_id", "amount", "balance_after")
TX = ("transaction__kind", "transaction__memo", "transaction__created_at")


def _legs(
    accounts: list[int], cursor: dict[str, Any], size: int
) -> tuple[list[dict[str, Any]], bool, list[dict[str, Any]]]:
    """The page's entries with their transactions and games, newest first, and whether more lie
    beyond it in the reading direction: one query, each account read by its ``(account, -id)`` index
    (``account = a [AND id < / > c] ORDER BY id LIMIT size + 1``, the parts joined by UNION ALL)."""
    forward = OLDEST not in cursor and AFTER not in cursor  # newest first
    # the game of a row: the escrow account on the other side of its transaction
    escrow = Entry.objects.filter(transaction_id=OuterRef("transaction_id"), account__kind=AccountKind.ESCROW)
    parts: list[QuerySet[Entry, dict[str, Any]]] = []
    for account in accounts:
        qs = Entry.objects.filter(account_id=account)
        if BEFORE in cursor:
            qs = qs.filter(id__lt=cursor[BEFORE])
        elif AFTER in cursor:
            qs = qs.filter(id__gt=cursor[AFTER])
        parts.append(_part(qs, escrow, "-id" if forward else "id", size + 1, behind=False))
        if AFTER in cursor:  # going newer, each account's balance before the page: its entry at the cursor
            at = Entry.objects.filter(account_id=account, id__lte=cursor[AFTER])
            parts.append(_part(at, escrow, "-id", 1, behind=True))
    if not parts:
        return [], False, []
    union = parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]
    rows = list(union)
    found = sorted((r for r in rows if not r["behind"]), key=lambda leg: leg["id"], reverse=forward)
    found += sorted((r for r in rows if r["behind"]), key=lambda leg: leg["id"], reverse=True)
    on_page = [r for r in found if not r["behind"]]
    more = len(on_page) > size
    page = on_page[:size]
    return (page if forward else page[::-1]), more, found


def _part(
    qs: QuerySet[Entry], escrow: QuerySet[Entry], order: str, limit: int, *, behind: bool
) -> QuerySet[Entry, dict[str, Any]]:
    """One account's rows of the statement's UNION ALL (``behind``: read for its balance only)."""
    return (
        qs.annotate(escrow=Subquery(escrow.values("account__ref")[:1]), behind=Value(behind))
        .order_by(order)
        .values(*LEG, *TX, "escrow", "behind")[:limit]
    )


def _balances_at(
    accounts: dict[str, Account],
    legs: list[dict[str, Any]],
    read: list[dict[str, Any]],
    cursor: dict[str, Any],
) -> dict[int, int]:
    """Each account's balance just after the page's newest entry: today's on the first page; else
    the ``balance_after`` of its newest entry on the page or, for an account that did not move on
    the page, of its latest entry before it: read with the page going older (each account's newest
    entry past the cursor is in ``read``), none on the oldest page (0), going newer each account's
    entry at the cursor (read with the page)."""
    if not cursor:
        return {a.pk: a.balance for a in accounts.values()}
    out: dict[int, int] = {}
    for leg in legs:  # newest first
        out.setdefault(leg["account_id"], leg["balance_after"])
    if BEFORE in cursor:
        for leg in read:  # newest first, past the page too
            out.setdefault(leg["account_id"], leg["balance_after"])
    if AFTER in cursor:
        for leg in read:
            if leg["behind"]:  # each account's entry at the cursor, read with the page
                out.setdefault(leg["account_id"], leg["balance_after"])
    for account in accounts.values():
        out.setdefault(account.pk, 0)  # no entry of it before the page (each account's was read)
    return out


def statement(
    *, accounts: dict[str, Account], cursor: dict[str, Any], local: Any
) -> tuple[StatementPage, list[StatementRow]]:
    """One page of the statement (see the module's docstring); ``local`` formats a time."""
    ids = [a.pk for a in accounts.values()]
    legs, more, read = _legs(ids, cursor, STATEMENT_PER_PAGE)
    where = StatementPage(first=not cursor)
    if not legs:
        return where, []
    forward = OLDEST not in cursor and AFTER not in cursor
    if more if forward else AFTER in cursor:
        where.older = urlencode({BEFORE: legs[-1]["id"]})
    if cursor and (True if forward else more):
        where.newer = urlencode({AFTER: legs[0]["id"]})
    if OLDEST not in cursor and where.older is not None:
        where.oldest = urlencode({OLDEST: 1})
    cash_id = accounts[AccountKind.WALLET].pk if AccountKind.WALLET in accounts else None
    bonus_id = accounts[AccountKind.BONUS].pk if AccountKind.BONUS in accounts else None
    balances = _balances_at(accounts, legs, read, cursor)
    by_tx: dict[int, list[dict[str, Any]]] = {}
    for leg in legs:
        by_tx.setdefault(leg["transaction_id"], []).append(leg)
    out: list[StatementRow] = []
    for tx_id, tx_legs in by_tx.items():
        first_leg = tx_legs[0]
        moved = {"cash": 0, "bonus": 0}
        shown = dict(balances)
        for leg in tx_legs:
            moved["cash" if leg["account_id"] == cash_id else "bonus"] += leg["amount"]
            shown[leg["account_id"]] = leg["balance_after"]
            balances[leg["account_id"]] = leg["balance_after"] - leg["amount"]  # before this row
        ref = next((leg["escrow"] for leg in tx_legs if leg["escrow"]), "")
        game_id = int(ref.removeprefix("game:")) if ref.startswith("game:") else None
        out.append(
            StatementRow(
                at=local(first_leg["transaction__created_at"]),
                what=str(TransactionKind(first_leg["transaction__kind"]).label),
                memo=first_leg["transaction__memo"],
                cash=format_money(moved["cash"]) if moved["cash"] else "",
                bonus=format_money(moved["bonus"]) if moved["bonus"] else "",
                cash_balance=format_money(shown.get(cash_id, 0)) if cash_id else format_money(0),
                bonus_balance=format_money(shown.get(bonus_id, 0)) if bonus_id else format_money(0),
                game_url=reverse("admin:tables_poolgame_change", args=[game_id]) if game_id else None,
                game_label=f"game {game_id}" if game_id else "",
                transaction_url=reverse("admin:wallet_ledgertransaction_change", args=[tx_id]),
            )
        )
    return where, out
