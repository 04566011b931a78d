"""Whole-ledger consistency check, used by ``manage.py check_ledger``, tests and other apps."""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.db.models import F, Q, Sum, Value, Window
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.money import format_money
from wallet.models import NON_NEGATIVE_KINDS, Account, AccountKind, Entry, LedgerCheck, LedgerTransaction

MAX_LISTED = 20


@dataclass(frozen=True)
class LedgerSummary:
    accounts: int
    transactions: int
    entries: int
    balances_by_kind: dict[str, int]

    def lines(self) -> list[str]:
        out = [f"accounts: {self.accounts}, transactions: {self.transactions}, entries: {self.entries}"]
        for kind in AccountKind:
            out.append(f"  {kind.value:<9} {format_money(self.balances_by_kind.get(kind.value, 0)):>16}")
        out.append(f"  {'total':<9} {format_money(sum(self.balances_by_kind.values())):>16}")
        return out


def ledger_summary() -> LedgerSummary:
    """Counts and stored balances per account kind."""
    by_kind = {
        row["kind"]: row["total"] or 0
        for row in Account.objects.values("kind").annotate(total=Sum("balance"))
    }
    return LedgerSummary(
        accounts=Account.objects.count(),
        transactions=LedgerTransaction.objects.count(),
        entries=Entry.objects.count(),
        balances_by_kind=by_kind,
    )


def check_ledger() -> list[str]:
    """Every problem found, as readable lines; an empty list means the ledger is sound.

    Checks: each transaction's entries sum to zero; each stored balance equals the
    sum of its entries; each entry's ``balance_after`` equals the running sum; the
    whole ledger sums to zero; no wallet or escrow is negative.
    """
    problems: list[str] = []

    unbalanced = (
        Entry.objects.values("transaction_id")
        .annotate(total=Sum("amount"))
        .exclude(total=0)
        .order_by("transaction_id")
    )
    for row in unbalanced[:MAX_LISTED]:
        problems.append(
            f"transaction #{row['transaction_id']} does not balance: its entries sum to {row['total']}"
        )

    drifted = (
        Account.objects.annotate(total=Coalesce(Sum("entries__amount"), Value(0)))
        .exclude(balance=F("total"))
        .order_by("pk")
    )
    for account in drifted[:MAX_LISTED]:
        problems.append(
            f"account {account.label} (#{account.pk}) stored balance {account.balance} != sum of entries {account.total}"
        )

    running = Entry.objects.annotate(
        running=Window(Sum("amount"), partition_by=[F("account_id")], order_by=F("id").asc())
    )
    for entry in running.exclude(running=F("balance_after")).order_by("id")[:MAX_LISTED]:
        problems.append(
            f"entry #{entry.pk} on account #{entry.account_id}: balance_after {entry.balance_after} "
            f"!= running sum {entry.running}"
        )

    entry_total = Entry.objects.aggregate(total=Sum("amount"))["total"] or 0
    if entry_total != 0:
        problems.append(f"the ledger's entries sum to {entry_total}, not zero")
    balance_total = Account.objects.aggregate(total=Sum("balance"))["total"] or 0
    if balance_total != 0:
        problems.append(f"stored account balances sum to {balance_total}, not zero")

    negative = Account.objects.filter(Q(kind__in=NON_NEGATIVE_KINDS) & Q(balance__lt=0)).order_by("pk")
    for below in negative[:MAX_LISTED]:
        problems.append(f"{below.kind} account {below.label} is negative: {below.balance}")
    return problems


def run_check(*, via: str) -> LedgerCheck:
    """Run ``check_ledger`` and keep its verdict (the dashboard shows the last one)."""
    started_at = timezone.now()
    started = time.perf_counter()
    problems = check_ledger()
    return LedgerCheck.objects.create(
        started_at=started_at,
        seconds=round(time.perf_counter() - started, 3),
        ok=not problems,
        problems=problems,
        via=via,
    )


def last_check() -> LedgerCheck | None:
    """The newest kept verdict, if the ledger was ever checked."""
    return LedgerCheck.objects.order_by("-started_at", "-id").first()
