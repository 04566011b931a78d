"""Reads of the ledger. Selectors never create accounts or lock rows."""

from __future__ import annotations

from datetime import datetime

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet

from accounts.models import User
from wallet.models import Account, AccountKind, Entry, LedgerTransaction
from wallet.services import PLAYER_KINDS, daily_topup_key


def wallet_balance(*, user: User) -> int:
    """The player's cash chips in paise; 0 before their wallet exists."""
    balance = Account.objects.filter(kind=AccountKind.WALLET, user_id=user.pk).values_list(
        "balance", flat=True
    )
    return next(iter(balance), 0)


def chip_balances(*, user: User) -> dict[str, int]:
    """``cash``, ``bonus`` (entry fees only, docs/rules.md §8.6) and their ``total``, in paise."""
    rows = dict(
        Account.objects.filter(kind__in=PLAYER_KINDS, ref=f"user:{user.pk}").values_list("kind", "balance")
    )
    cash, bonus = rows.get(AccountKind.WALLET, 0), rows.get(AccountKind.BONUS, 0)
    return {"cash": cash, "bonus": bonus, "total": cash + bonus}


def escrow_balance(*, game_ref: str) -> int:
    """Paise held for a game; 0 if nothing was ever paid in."""
    balance = Account.objects.filter(kind=AccountKind.ESCROW, ref=game_ref).values_list("balance", flat=True)
    return next(iter(balance), 0)


def wallet_history(*, user: User) -> QuerySet[Entry]:
    """The player's own entries (cash and bonus), newest first, with their transaction and account."""
    return (
        Entry.objects.filter(account__kind__in=PLAYER_KINDS, account__ref=f"user:{user.pk}")
        .select_related("transaction", "account")
        .order_by("-id")
    )


def wallet_history_page(*, user: User, page: int | str | None = 1, per_page: int = 25) -> Page:  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    """One page of ``wallet_history``; out-of-range page numbers give the last page."""
    return Paginator(wallet_history(user=user), per_page).get_page(page)


def daily_topup_claimed(*, user: User, now: datetime | None = None) -> bool:
    """Whether today's (UTC) free chips were already claimed."""
    return LedgerTransaction.objects.filter(
        idempotency_key=daily_topup_key(user_id=user.pk, now=now)
    ).exists()


def transaction_for_key(*, idempotency_key: str) -> LedgerTransaction | None:
    """The transaction posted under a key, if any (lets callers check before retrying)."""
    return LedgerTransaction.objects.filter(idempotency_key=idempotency_key).first()
