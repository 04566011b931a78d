"""The ledger's one posting primitive (``post``) and its accounts: where chips move.

Every posting is one ``transaction.atomic()``: it makes sure the accounts it needs exist, locks
them all in primary-key order (``wallet.locks``), checks the idempotency key, checks funds, then
writes one ``LedgerTransaction`` with entries that sum to zero and updates the cached balances.

Idempotency: posting again with the same ``idempotency_key`` returns the first
``LedgerTransaction`` and moves nothing. Two concurrent callers with the same key and the same
accounts serialise on the account locks, and the second one then finds the key
(check-then-insert under the locks). If the accounts differ the unique index is the last line of
defence: the insert runs in a savepoint so the ``IntegrityError`` (which aborts a PostgreSQL
transaction) can be caught and the winner re-read. Reusing a key for a different kind, amount or
set of accounts raises ``IdempotencyConflict``.

Locks (Zulip-style note): callers should not hold other ledger locks when they call in; one
posting per database transaction is the safe pattern, because lock ordering is only guaranteed
within one call. The money use cases that post are ``wallet.services``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from wallet.errors import (
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    WalletError,
)
from wallet.locks import accounts_for_update
from wallet.models import NON_NEGATIVE_KINDS, Account, AccountKind, Entry, LedgerTransaction

HOUSE_REF = "house"
ISSUANCE_REF = "issuance"

#: account pk -> signed paise
Legs = dict[int, int]


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------
def paise(amount: object, *, what: str = "amount", allow_zero: bool = False) -> int:
    """Refuse floats, Decimals, bools and non-positive amounts: money is an int of paise."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidAmount(f"{what} must be an int of paise, got {type(amount).__name__} {amount!r}")
    if amount < 0 or (amount == 0 and not allow_zero):
        raise InvalidAmount(f"{what} must be {'>= 0' if allow_zero else 'positive'}, got {amount}")
    return amount


def checked_key(idempotency_key: str) -> str:
    if not isinstance(idempotency_key, str) or not idempotency_key.strip():
        raise ValueError("an idempotency_key is required")
    if len(idempotency_key) > 200:
        raise ValueError("idempotency_key is longer than 200 characters")
    return idempotency_key


def checked_game_ref(game_ref: str) -> str:
    if not isinstance(game_ref, str) or not game_ref.strip() or len(game_ref) > 100:
        raise ValueError(f"bad game_ref {game_ref!r}: expected a short string such as 'game:42'")
    return game_ref


# ---------------------------------------------------------------------------
# Accounts (created lazily, race-safe via get_or_create's savepoint)
# ---------------------------------------------------------------------------
def _account(*, kind: str, ref: str, user_id: int | None = None) -> Account:
    account, _ = Account.objects.get_or_create(kind=kind, ref=ref, defaults={"user_id": user_id})
    return account


def wallet_account_for(*, user_id: int) -> Account:
    """The player's wallet, created on first use."""
    return _account(kind=AccountKind.WALLET, ref=f"user:{user_id}", user_id=user_id)


def bonus_account_for(*, user_id: int) -> Account:
    """The player's bonus chips (entry fees only), created on first use."""
    return _account(kind=AccountKind.BONUS, ref=f"user:{user_id}")


def escrow_account_for(game_ref: str) -> Account:
    """The escrow holding a pool game's entry fees (``game_ref`` e.g. ``"game:42"``), created on first use."""
    return _account(kind=AccountKind.ESCROW, ref=checked_game_ref(game_ref))


def house_account() -> Account:
    """Where rake goes."""
    return _account(kind=AccountKind.HOUSE, ref=HOUSE_REF)


def issuance_account() -> Account:
    """The source of every chip; its balance is minus the chips in circulation."""
    return _account(kind=AccountKind.ISSUANCE, ref=ISSUANCE_REF)


# ---------------------------------------------------------------------------
# The one posting primitive
# ---------------------------------------------------------------------------
def _fingerprint(kind: str, legs: Legs, accounts: Mapping[int, Account]) -> str:
    payload = [kind, sorted([accounts[pk].label, amount] for pk, amount in legs.items() if amount != 0)]
    return hashlib.sha256(json.dumps(payload, separators=(",", ":")).encode()).hexdigest()


def _replay(
    existing: LedgerTransaction, *, kind: str, fingerprint: str | None, account_ids: set[int]
) -> LedgerTransaction:
    """Return the first result of a key, or refuse if the key now means something else."""
    if existing.kind != kind:
        raise IdempotencyConflict(
            idempotency_key=existing.idempotency_key, detail=f"first used for {existing.kind}, now {kind}"
        )
    if fingerprint is not None:
        if existing.fingerprint != fingerprint:
            raise IdempotencyConflict(
                idempotency_key=existing.idempotency_key, detail="amounts or accounts differ"
            )
    else:
        used = set(existing.entries.values_list("account_id", flat=True))
        if not used <= account_ids:
            raise IdempotencyConflict(idempotency_key=existing.idempotency_key, detail="accounts differ")
    return existing


def post(
    *,
    kind: str,
    idempotency_key: str,
    accounts: list[Account],
    legs: Callable[[dict[int, Account]], Legs],
    fixed_legs: Legs | None,
    memo: str,
    caused_by: User | None,
    now: datetime | None = None,
) -> tuple[LedgerTransaction, bool]:
    """Lock ``accounts``, then post ``legs(locked)`` once per key. Returns (transaction, created).

    ``fixed_legs`` are the legs known from the arguments alone; when given they make
    the fingerprint a replay is compared against. Otherwise (a refund, whose amount
    depends on the ledger) a replay must match the kind and the accounts.
    """
    key = checked_key(idempotency_key)
    with transaction.atomic():
        locked = {a.pk: a for a in accounts_for_update(a.pk for a in accounts)}
        expected = _fingerprint(kind, fixed_legs, locked) if fixed_legs is not None else None
        existing = LedgerTransaction.objects.filter(idempotency_key=key).first()
        if existing is not None:
            return _replay(existing, kind=kind, fingerprint=expected, account_ids=set(locked)), False

        amounts = {pk: amount for pk, amount in legs(locked).items() if amount != 0}
        if sum(amounts.values()) != 0:
            raise WalletError(f"internal error: legs of {kind} do not balance: {amounts}")
        for pk, amount in sorted(amounts.items()):
            account = locked[pk]
            if account.kind in NON_NEGATIVE_KINDS and account.balance + amount < 0:
                raise InsufficientFunds(account_ref=account.label, balance=account.balance, required=-amount)

        fingerprint = _fingerprint(kind, amounts, locked)
        try:
            with transaction.atomic():  # savepoint: PostgreSQL aborts the whole transaction on IntegrityError
                txn = LedgerTransaction.objects.create(
                    kind=kind,
                    memo=memo[:255],
                    caused_by=caused_by,
                    idempotency_key=key,
                    fingerprint=fingerprint,
                    created_at=now or timezone.now(),
                )
        except IntegrityError:
            existing = LedgerTransaction.objects.filter(idempotency_key=key).first()
            if existing is None:
                raise
            return _replay(existing, kind=kind, fingerprint=expected, account_ids=set(locked)), False

        entries = []
        for pk, amount in sorted(amounts.items()):
            account = locked[pk]
            account.balance += amount
            Account.objects.filter(pk=pk).update(balance=account.balance)
            entries.append(
                Entry(transaction=txn, account=account, amount=amount, balance_after=account.balance)
            )
        Entry.objects.bulk_create(entries)
        return txn, True


def fixed(legs: Legs) -> Callable[[dict[int, Account]], Legs]:
    return lambda _locked: legs


def transfer(
    *,
    kind: str,
    source: Account,
    target: Account,
    amount: int,
    idempotency_key: str,
    memo: str,
    caused_by: User | None,
    now: datetime | None = None,
) -> tuple[LedgerTransaction, bool]:
    """A fixed amount from one account to another: the two-leg posting most services are."""
    legs = {source.pk: -amount, target.pk: amount}
    return post(
        kind=kind,
        idempotency_key=idempotency_key,
        accounts=[source, target],
        legs=fixed(legs),
        fixed_legs=legs,
        memo=memo,
        caused_by=caused_by,
        now=now,
    )
