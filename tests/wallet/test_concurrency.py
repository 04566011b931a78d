"""Real concurrent postings on PostgreSQL: each thread has its own connection and transaction.

These prove what SQLite cannot: the row locks taken in primary-key order make
double-spends and deadlocks impossible, and idempotency holds under races.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from tests.wallet.conftest import earned_mailbox_bonus
from wallet import services
from wallet.audit import check_ledger
from wallet.errors import (
    DailyTopupAlreadyClaimed,
    IdempotencyConflict,
    InsufficientFunds,
    NothingToRefund,
    SettlementMismatch,
)
from wallet.models import Entry, LedgerTransaction
from wallet.selectors import escrow_balance, wallet_balance

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
Fund = Callable[[User, int], None]
THREAD_TIMEOUT = 60


def run_concurrently(n: int, work: Callable[[int], Any]) -> list[tuple[str, Any]]:
    """Run ``work(i)`` in ``n`` threads released together; ("ok", result) or ("error", exception) each."""
    barrier = threading.Barrier(n)
    results: list[tuple[str, Any]] = [("missing", None)] * n

    def target(i: int) -> None:
        try:
            barrier.wait(timeout=THREAD_TIMEOUT)
            results[i] = ("ok", work(i))
        except BaseException as exc:  # recorded and asserted on by the test
            results[i] = ("error", exc)
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=target, args=(i,), daemon=True) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(THREAD_TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a posting hung (deadlock or lock wait)"
    return results


def outcome_counts(results: list[tuple[str, Any]]) -> Counter[str]:
    return Counter(type(value).__name__ if status == "error" else "ok" for status, value in results)


def test_fifty_concurrent_fees_from_a_wallet_that_affords_seven(
    require_postgres: None, player: User, fund: Fund
) -> None:
    fee = 10_00
    fund(player, 7 * fee + 5_00)

    def pay(i: int) -> LedgerTransaction:
        game = f"game:{i % 5}"  # five escrows, created concurrently too
        return services.pay_entry(user=player, game_ref=game, amount=fee, idempotency_key=f"join:{game}:{i}")

    counts = outcome_counts(run_concurrently(50, pay))
    assert counts == Counter({"ok": 7, "InsufficientFunds": 43}), counts
    assert wallet_balance(user=player) == 5_00
    assert sum(escrow_balance(game_ref=f"game:{g}") for g in range(5)) == 7 * fee
    assert LedgerTransaction.objects.filter(kind="entry_fee").count() == 7
    assert check_ledger() == []


def test_same_key_from_eight_threads_posts_once(require_postgres: None, player: User, fund: Fund) -> None:
    fund(player, 100_00)

    def pay(_: int) -> LedgerTransaction:
        return services.pay_entry(
            user=player, game_ref="game:1", amount=25_00, idempotency_key="join:game:1:p"
        )

    results = run_concurrently(8, pay)
    assert outcome_counts(results) == Counter({"ok": 8}), results
    assert len({txn.pk for _, txn in results}) == 1
    assert LedgerTransaction.objects.filter(idempotency_key="join:game:1:p").count() == 1
    assert Entry.objects.filter(transaction__idempotency_key="join:game:1:p").count() == 2
    assert wallet_balance(user=player) == 75_00
    assert check_ledger() == []


def test_same_key_for_different_accounts_races_on_the_unique_index(
    require_postgres: None, make_user: Callable[..., User], fund: Fund
) -> None:
    """No shared lock here, so the losers hit the unique index and must read the winner back."""
    players = [make_user() for _ in range(8)]
    for p in players:
        fund(p, 10_00)

    def pay(i: int) -> LedgerTransaction:
        return services.pay_entry(
            user=players[i], game_ref=f"game:{i}", amount=10_00, idempotency_key="shared"
        )

    counts = outcome_counts(run_concurrently(8, pay))
    assert counts == Counter({"ok": 1, "IdempotencyConflict": 7}), counts
    assert sum(wallet_balance(user=p) for p in players) == 7 * 10_00
    assert check_ledger() == []


def test_concurrent_daily_claims_pay_once(require_postgres: None, player: User) -> None:
    earned_mailbox_bonus(player)
    counts = outcome_counts(run_concurrently(8, lambda _: services.claim_daily_topup(user=player)))
    assert counts == Counter({"ok": 1, "DailyTopupAlreadyClaimed": 7}), counts
    assert LedgerTransaction.objects.filter(kind="daily_topup").count() == 1
    assert check_ledger() == []


def test_mixed_traffic_never_deadlocks(
    require_postgres: None, make_user: Callable[..., User], fund: Fund
) -> None:
    """Joins, leaves and settlements over shared wallets and escrows, in every lock order callers could want."""
    players = [make_user() for _ in range(4)]
    for p in players:
        fund(p, 1_000_00)
    # SettlementMismatch: the escrow moved between reading it and settling, as a real caller must expect.
    expected = (
        InsufficientFunds,
        IdempotencyConflict,
        DailyTopupAlreadyClaimed,
        SettlementMismatch,
        NothingToRefund,
    )

    def traffic(i: int) -> None:
        for n in range(12):
            p, game = players[(i + n) % 4], f"game:{(i * 7 + n) % 3}"
            try:
                if n % 4 == 3:
                    services.refund_entry(user=p, game_ref=game, idempotency_key=f"leave:{i}:{n}")
                elif n % 6 == 5:
                    balance = escrow_balance(game_ref=game)
                    services.settle_game(
                        game_ref=game,
                        payouts={p.pk: balance - balance // 10},
                        rake=balance // 10,
                        idempotency_key=f"settle:{i}:{n}",
                    )
                else:
                    services.pay_entry(user=p, game_ref=game, amount=5_00, idempotency_key=f"join:{i}:{n}")
            except expected:
                pass

    results = run_concurrently(8, traffic)
    assert outcome_counts(results) == Counter({"ok": 8}), results
    assert check_ledger() == []
    assert (
        sum(wallet_balance(user=p) for p in players)
        + sum(escrow_balance(game_ref=f"game:{g}") for g in range(3))
        + services.house_account().balance
        == 4 * 1_000_00
    )
