"""A double-entry chip ledger.

Every movement of chips is one ``LedgerTransaction`` whose ``Entry`` rows sum to
zero. ``Account.balance`` is a cache of the sum of the account's entries, written
in the same database transaction as the entries (``wallet.services`` is the only
writer). Chips enter circulation from the single *issuance* account, whose balance
is therefore negative by design (minus the chips in existence); the *house*
account collects rake and may in principle go negative too (staff could debit it),
so only *wallet*, *bonus* and *escrow* balances are constrained to be >= 0.

A player holds two accounts: the *wallet* (cash chips: winnings and staff credits)
and *bonus* (free chips: the sign-up bonus and the daily top-up). Bonus chips pay
entry fees only, and the share of a prize pool that bonus chips funded is paid to
the winners as bonus (docs/rules.md §8.6), so free chips cannot be passed to
another account as cash by losing to it on purpose.

Transactions and entries are append-only: refused here in Python, in the admin,
and on PostgreSQL by triggers (migration 0002).
"""

from __future__ import annotations

from typing import Any, NoReturn

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from wallet.errors import AppendOnlyViolation


class AccountKind(models.TextChoices):
    WALLET = "wallet", "Player wallet"
    #: Free chips (sign-up bonus, daily top-up): entry fees only, never paid to another player as cash.
    BONUS = "bonus", "Player bonus chips"
    ESCROW = "escrow", "Game escrow"
    HOUSE = "house", "House (rake)"
    ISSUANCE = "issuance", "Issuance (source of chips)"


#: Kinds whose balance may never go below zero (also a CHECK constraint).
NON_NEGATIVE_KINDS = (AccountKind.WALLET, AccountKind.BONUS, AccountKind.ESCROW)


class Account(models.Model):
    """One ledger account: a player's wallet, a pool game's escrow, the house or issuance."""

    kind = models.CharField(max_length=16, choices=AccountKind.choices)
    #: ``user:<id>`` for wallets and bonus accounts, the game ref (``game:<id>``) for escrows, ``house``, ``issuance``.
    ref = models.CharField(max_length=100)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="wallet_account",
    )
    balance = models.BigIntegerField(default=0, help_text="Paise; the sum of this account's entries.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "ref"], name="wallet_account_unique_kind_ref"),
            models.CheckConstraint(
                condition=Q(kind__in=["house", "issuance"]) | Q(balance__gte=0),
                name="wallet_account_wallet_escrow_non_negative",
            ),
            models.CheckConstraint(
                condition=(Q(kind="wallet") & Q(user__isnull=False))
                | (~Q(kind="wallet") & Q(user__isnull=True)),
                name="wallet_account_user_iff_wallet",
            ),
        ]
        # the admin's kind filter, newest first, read by index (issue 39)
        indexes = [models.Index(fields=["kind", "-id"], name="wallet_account_kind_recent")]
        permissions = [("adjust_balance", "Can credit or debit a player's wallet")]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        """Stable name used in fingerprints and messages."""
        return f"{self.kind}:{self.ref}"

    @property
    def player_id(self) -> int | None:
        """The player whose cash or bonus chips this holds (a bonus account has no ``user`` link:
        that one-to-one link is the wallet's)."""
        if self.kind not in (AccountKind.WALLET, AccountKind.BONUS):
            return None
        return int(self.ref.removeprefix("user:"))


class TransactionKind(models.TextChoices):
    SIGNUP_BONUS = "signup_bonus", "Sign-up bonus"
    DAILY_TOPUP = "daily_topup", "Daily free chips"
    GRANT = "grant", "Grant"
    ENTRY_FEE = "entry_fee", "Entry fee"
    REFUND = "refund", "Entry fee refund"
    SETTLEMENT = "settlement", "Game settlement"
    RAKE = "rake", "Rake"
    PAYOUT = "payout", "Payout"
    ADJUSTMENT = "adjustment", "Staff adjustment"


class AppendOnlyQuerySet(models.QuerySet):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    """Bulk update and delete are refused: the ledger is append-only."""

    def update(self, **kwargs: Any) -> NoReturn:
        raise AppendOnlyViolation(f"{self.model.__name__} rows are append-only; update refused")

    def delete(self) -> NoReturn:  # type: ignore[override]  # append-only: it refuses what the base allows
        raise AppendOnlyViolation(f"{self.model.__name__} rows are append-only; delete refused")


class AppendOnlyModel(models.Model):
    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyViolation(f"{type(self).__name__} rows are append-only; update refused")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:  # type: ignore[override]  # append-only: it refuses what the base allows
        raise AppendOnlyViolation(f"{type(self).__name__} rows are append-only; delete refused")


class LedgerTransaction(AppendOnlyModel):
    """One atomic movement of chips; its entries sum to zero."""

    kind = models.CharField(max_length=20, choices=TransactionKind.choices)
    memo = models.CharField(max_length=255, blank=True)
    caused_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    idempotency_key = models.CharField(max_length=200, unique=True)
    #: sha256 of (kind, sorted legs); a reused key with other contents is an IdempotencyConflict.
    fingerprint = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = "ledger transaction"
        # the admin's kind filter, newest first, read by index (issue 39)
        indexes = [models.Index(fields=["kind", "-id"], name="wallet_tx_kind_recent")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind} {self.idempotency_key}"


class Entry(AppendOnlyModel):
    """One leg of a transaction: a signed amount on one account (+ credit, - debit)."""

    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="entries")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    amount = models.BigIntegerField()
    #: The account's balance right after this entry: a free running balance for history pages.
    balance_after = models.BigIntegerField()

    class Meta:
        verbose_name_plural = "entries"
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="wallet_entry_amount_non_zero"),
            models.UniqueConstraint(
                fields=["transaction", "account"], name="wallet_entry_one_leg_per_account"
            ),
        ]
        indexes = [models.Index(fields=["account", "-id"], name="wallet_entry_account_recent")]

    def __str__(self) -> str:
        return f"{self.account} {self.amount:+d}"


class LedgerCheck(models.Model):
    """The verdict of one whole-ledger check (``wallet.audit.check_ledger``), kept so the staff
    dashboard shows the last one without running it: the check reads every entry."""

    started_at = models.DateTimeField(default=timezone.now, db_index=True)
    seconds = models.FloatField(default=0)
    ok = models.BooleanField()
    problems = models.JSONField(default=list, blank=True)
    #: ``nightly`` (the beat task) or ``command`` (``manage.py check_ledger``).
    via = models.CharField(max_length=20)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"ledger check {self.started_at:%Y-%m-%d %H:%M}: {'sound' if self.ok else 'problems'}"
