"""Append-only and balance invariants, in Python (all databases) and in PostgreSQL itself."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from accounts.models import User
from wallet import services
from wallet.errors import AppendOnlyViolation
from wallet.models import Account, Entry, LedgerTransaction, TransactionKind

Fund = Callable[[User, int], None]


@pytest.fixture
def posted(player: User, fund: Fund) -> LedgerTransaction:
    fund(player, 100_00)
    return services.pay_entry(user=player, game_ref="game:1", amount=25_00, idempotency_key="join:game:1:a")


# --- Python guards (every database) ------------------------------------------------
@pytest.mark.django_db
def test_saved_rows_cannot_be_updated_or_deleted_through_the_orm(posted: LedgerTransaction) -> None:
    entry = posted.entries.first()
    assert entry is not None
    posted.memo = "rewritten"
    with pytest.raises(AppendOnlyViolation):
        posted.save()
    entry.amount = 1
    with pytest.raises(AppendOnlyViolation):
        entry.save()
    with pytest.raises(AppendOnlyViolation):
        entry.delete()
    with pytest.raises(AppendOnlyViolation):
        posted.delete()
    with pytest.raises(AppendOnlyViolation):
        Entry.objects.filter(transaction=posted).update(amount=0)
    with pytest.raises(AppendOnlyViolation):
        LedgerTransaction.objects.all().delete()


@pytest.mark.django_db
def test_wallet_and_escrow_balances_cannot_go_negative_in_the_database(posted: LedgerTransaction) -> None:
    for account in Account.objects.filter(kind__in=["wallet", "escrow"]):
        with pytest.raises(IntegrityError), transaction.atomic():
            Account.objects.filter(pk=account.pk).update(balance=-1)


@pytest.mark.django_db
def test_issuance_goes_negative_by_design(posted: LedgerTransaction) -> None:
    assert services.issuance_account().balance == -100_00


@pytest.mark.django_db
def test_zero_entries_and_duplicate_keys_are_refused(posted: LedgerTransaction) -> None:
    account = Account.objects.filter(kind="wallet").get()
    with pytest.raises(IntegrityError), transaction.atomic():
        Entry.objects.create(transaction=posted, account=services.house_account(), amount=0, balance_after=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerTransaction.objects.create(kind=TransactionKind.GRANT, idempotency_key=posted.idempotency_key)
    assert account.balance == 75_00


@pytest.mark.django_db
def test_one_wallet_per_user(player: User, posted: LedgerTransaction) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(kind="wallet", ref="user:other", user=player)


# --- PostgreSQL triggers ----------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE wallet_entry SET amount = amount + 1",
        "DELETE FROM wallet_entry",
        "UPDATE wallet_ledgertransaction SET memo = 'x'",
        "DELETE FROM wallet_ledgertransaction",
    ],
)
def test_postgres_refuses_update_and_delete(
    require_postgres: None, posted: LedgerTransaction, sql: str
) -> None:
    with (
        pytest.raises(IntegrityError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert Entry.objects.filter(transaction=posted).count() == 2


@pytest.mark.django_db
@pytest.mark.postgres
def test_postgres_refuses_unbalanced_transaction_when_checked(require_postgres: None, player: User) -> None:
    wallet = services.wallet_account_for(user_id=player.pk)
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        txn = LedgerTransaction.objects.create(kind=TransactionKind.GRANT, idempotency_key="forged")
        Entry.objects.create(transaction=txn, account=wallet, amount=500, balance_after=500)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS wallet_entry_balanced IMMEDIATE")


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_postgres_refuses_unbalanced_transaction_at_commit(require_postgres: None, player: User) -> None:
    wallet = services.wallet_account_for(user_id=player.pk)
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        txn = LedgerTransaction.objects.create(kind=TransactionKind.GRANT, idempotency_key="forged")
        # Within the transaction the legs may be unbalanced for a while: the check is deferred.
        Entry.objects.create(transaction=txn, account=wallet, amount=500, balance_after=500)
        Entry.objects.create(
            transaction=txn, account=services.issuance_account(), amount=-400, balance_after=-400
        )
    assert not LedgerTransaction.objects.filter(idempotency_key="forged").exists()
    assert not Entry.objects.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_postgres_refuses_negative_balance_and_flush_still_works(
    require_postgres: None, player: User, fund: Fund
) -> None:
    fund(player, 10_00)
    with pytest.raises(IntegrityError, match="non_negative"):
        Account.objects.filter(kind="wallet").update(balance=-1)
    # Test teardown truncates the tables; TRUNCATE fires no row DELETE trigger.
    call_command("flush", interactive=False, verbosity=0)
    assert not Entry.objects.exists()
    assert not LedgerTransaction.objects.exists()
