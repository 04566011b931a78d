"""Typed refusals of the ledger: callers catch these, never a bare IntegrityError."""

from __future__ import annotations


class WalletError(Exception):
    """Base of every refusal raised by ``wallet.services``."""


class InvalidAmount(WalletError, ValueError):
    """An amount that is not a positive whole number of paise (floats are refused outright)."""


class InsufficientFunds(WalletError):
    """The posting would take a wallet or a game escrow below zero."""

    def __init__(self, *, account_ref: str, balance: int, required: int) -> None:
        self.account_ref = account_ref
        self.balance = balance
        self.required = required
        super().__init__(
            f"insufficient funds in {account_ref}: balance {balance} paise, needs {required} paise"
        )


class IdempotencyConflict(WalletError):
    """An idempotency key was reused for a posting with a different kind, amount or accounts."""

    def __init__(self, *, idempotency_key: str, detail: str = "") -> None:
        self.idempotency_key = idempotency_key
        super().__init__(
            f"idempotency key {idempotency_key!r} was already used for a different posting"
            + (f": {detail}" if detail else "")
        )


class DailyTopupAlreadyClaimed(WalletError):
    """The player already claimed today's (UTC) free chips."""

    def __init__(self, *, day: str) -> None:
        self.day = day
        super().__init__(f"You have already claimed today's free chips ({day}, UTC). Come back tomorrow.")


class DailyTopupNeedsMailbox(WalletError):
    """Daily free chips go to one account per confirmed mailbox: the one that earned its sign-up bonus.

    Free chips are what a farm of accounts is made for; a shared address never stops a sign-up, so
    the mailbox is what limits them (docs/integrity.md).
    """

    def __init__(self) -> None:
        super().__init__(
            "Daily free chips need a confirmed e-mail address: confirm yours (the link we mailed you, "
            "or Send again) to claim them. One account per mailbox gets free chips."
        )


class SettlementMismatch(WalletError):
    """Payouts plus rake must equal the escrow exactly, so the escrow ends at zero."""

    def __init__(self, *, game_ref: str, escrow: int, payouts: int, rake: int) -> None:
        self.game_ref = game_ref
        self.escrow = escrow
        self.payouts = payouts
        self.rake = rake
        super().__init__(
            f"settlement of {game_ref} does not empty the escrow: payouts {payouts} + rake {rake} "
            f"!= escrow {escrow} (paise)"
        )


class NothingToRefund(WalletError):
    """The player has no net entry fees held in that game's escrow."""


class ReasonRequired(WalletError, ValueError):
    """Staff adjustments must say why."""


class NotStaff(WalletError, PermissionError):
    """Only staff may adjust a wallet."""


class AppendOnlyViolation(WalletError):
    """Ledger transactions and entries are never updated or deleted."""


class SpendLimitReached(WalletError):
    """The player's own daily limit on entry fees (responsible play) would be passed."""
