"""The services: the only way chips move (runs on SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.test import override_settings

from accounts.models import User
from accounts.services import confirm_email
from core.money import format_money
from tests.wallet.conftest import earned_mailbox_bonus
from wallet import services
from wallet.audit import check_ledger
from wallet.errors import (
    DailyTopupAlreadyClaimed,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    NothingToRefund,
    NotStaff,
    ReasonRequired,
    SettlementMismatch,
    WalletError,
)
from wallet.models import Account, AccountKind, Entry, LedgerTransaction, TransactionKind
from wallet.selectors import (
    chip_balances,
    escrow_balance,
    wallet_balance,
    wallet_history,
    wallet_history_page,
)

pytestmark = pytest.mark.django_db
Fund = Callable[[User, int], None]


def house_balance() -> int:
    return services.house_account().balance


@pytest.fixture(autouse=True)
def _ledger_stays_clean(db: None):  # depends on db so it runs before the rollback
    yield
    assert check_ledger() == []


# --- money -------------------------------------------------------------------
@override_settings(CURRENCY_SYMBOL="₹")
def test_format_money() -> None:
    assert format_money(1250) == "₹12.50"
    assert format_money(5) == "₹0.05"
    assert format_money(0) == "₹0.00"
    assert format_money(-199) == "-₹1.99"
    assert format_money(100_000_00) == "₹100000.00"


@override_settings(CURRENCY_SYMBOL="C$")
def test_format_money_uses_the_setting() -> None:
    assert format_money(100) == "C$1.00"


@pytest.mark.parametrize("bad", [12.5, Decimal("12.50"), True, "100"])
def test_format_money_refuses_non_int(bad: object) -> None:
    with pytest.raises(TypeError):
        format_money(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -5, 12.5, Decimal("1"), True, None])
def test_amounts_must_be_positive_ints(player: User, bad: object) -> None:
    with pytest.raises(InvalidAmount):
        services.pay_entry(user=player, game_ref="game:1", amount=bad, idempotency_key="k")  # type: ignore[arg-type]
    assert LedgerTransaction.objects.count() == 0


# --- grants ------------------------------------------------------------------
@override_settings(SIGNUP_BONUS_CHIPS=1000)
def test_a_confirmed_address_wires_the_bonus_once(player: User) -> None:
    player.email = "alice@example.com"
    player.save()
    confirm_email(user=player, address=player.email)
    confirm_email(user=player, address=player.email)
    assert chip_balances(user=player) == {"cash": 0, "bonus": 1000_00, "total": 1000_00}
    txn = LedgerTransaction.objects.get()
    assert txn.kind == TransactionKind.SIGNUP_BONUS
    assert txn.idempotency_key == f"signup:{player.pk}"
    assert services.issuance_account().balance == -1000_00


@override_settings(SIGNUP_BONUS_CHIPS=0)
def test_no_bonus_when_the_setting_is_zero(player: User) -> None:
    assert services.grant_signup_bonus(user=player) is None
    assert wallet_balance(user=player) == 0


@override_settings(DAILY_TOPUP_CHIPS=500)
def test_daily_topup_once_per_utc_day(player: User) -> None:
    earned_mailbox_bonus(player)
    day1 = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)
    txn = services.claim_daily_topup(user=player, now=day1)
    assert txn.idempotency_key == f"daily:{player.pk}:2026-03-01"
    with pytest.raises(DailyTopupAlreadyClaimed):
        services.claim_daily_topup(user=player, now=day1 + timedelta(seconds=30))
    assert chip_balances(user=player)["bonus"] == 500_00
    services.claim_daily_topup(user=player, now=day1 + timedelta(minutes=2))  # 00:01 UTC next day
    assert chip_balances(user=player) == {"cash": 0, "bonus": 1000_00, "total": 1000_00}


def test_grant_rejects_non_grant_kinds(player: User) -> None:
    with pytest.raises(ValueError):
        services.grant(user=player, amount=100, idempotency_key="g", kind=TransactionKind.PAYOUT)


# --- entry fees and refunds ------------------------------------------------------
def test_pay_entry_moves_the_fee_into_escrow(player: User, fund: Fund) -> None:
    fund(player, 100_00)
    txn = services.pay_entry(user=player, game_ref="game:7", amount=25_00, idempotency_key="join:game:7:1")
    assert wallet_balance(user=player) == 75_00
    assert escrow_balance(game_ref="game:7") == 25_00
    assert services.escrow_account_for("game:7").kind == AccountKind.ESCROW
    assert sorted(txn.entries.values_list("amount", flat=True)) == [-25_00, 25_00]
    assert txn.caused_by == player


def test_pay_entry_insufficient_funds_moves_nothing(player: User, fund: Fund) -> None:
    fund(player, 10_00)
    with pytest.raises(InsufficientFunds) as info:
        services.pay_entry(user=player, game_ref="game:7", amount=25_00, idempotency_key="join:game:7:1")
    assert info.value.balance == 10_00 and info.value.required == 25_00
    assert wallet_balance(user=player) == 10_00
    assert not LedgerTransaction.objects.filter(idempotency_key="join:game:7:1").exists()


def test_same_key_twice_returns_the_first_result(player: User, fund: Fund) -> None:
    fund(player, 100_00)
    first = services.pay_entry(user=player, game_ref="game:7", amount=25_00, idempotency_key="join:game:7:1")
    again = services.pay_entry(user=player, game_ref="game:7", amount=25_00, idempotency_key="join:game:7:1")
    assert again.pk == first.pk
    assert wallet_balance(user=player) == 75_00
    assert Entry.objects.filter(transaction=first).count() == 2


def test_replay_is_returned_even_when_the_wallet_is_now_empty(player: User, fund: Fund) -> None:
    fund(player, 25_00)
    first = services.pay_entry(user=player, game_ref="game:7", amount=25_00, idempotency_key="join:game:7:1")
    assert (
        services.pay_entry(user=player, game_ref="game:7", amount=25_00, idempotency_key="join:game:7:1")
        == first
    )


@pytest.mark.parametrize(
    "change",
    [
        {"amount": 30_00},
        {"game_ref": "game:8"},
        {"user": "other"},
    ],
)
def test_key_reuse_with_different_contents_conflicts(
    player: User, other_player: User, fund: Fund, change: dict[str, object]
) -> None:
    fund(player, 100_00)
    fund(other_player, 100_00)
    services.pay_entry(user=player, game_ref="game:7", amount=25_00, idempotency_key="join:game:7:1")
    kwargs: dict[str, object] = {"user": player, "game_ref": "game:7", "amount": 25_00, **change}
    if kwargs["user"] == "other":
        kwargs["user"] = other_player
    with pytest.raises(IdempotencyConflict):
        services.pay_entry(**kwargs, idempotency_key="join:game:7:1")  # type: ignore[arg-type]
    assert wallet_balance(user=player) == 75_00
    assert wallet_balance(user=other_player) == 100_00


def test_key_reuse_with_a_different_kind_conflicts(player: User, fund: Fund) -> None:
    fund(player, 100_00)
    services.pay_entry(user=player, game_ref="game:7", amount=25_00, idempotency_key="k1")
    with pytest.raises(IdempotencyConflict):
        services.refund_entry(user=player, game_ref="game:7", idempotency_key="k1")


def test_refund_gives_back_exactly_what_was_paid_including_rejoins(
    player: User, other_player: User, fund: Fund
) -> None:
    fund(player, 100_00)
    fund(other_player, 100_00)
    services.pay_entry(user=player, game_ref="game:1", amount=25_00, idempotency_key="join:game:1:a")
    services.pay_entry(user=player, game_ref="game:1", amount=25_00, idempotency_key="rejoin:game:1:a:1")
    services.pay_entry(user=other_player, game_ref="game:1", amount=25_00, idempotency_key="join:game:1:b")
    services.pay_entry(user=player, game_ref="game:2", amount=10_00, idempotency_key="join:game:2:a")
    refund = services.refund_entry(user=player, game_ref="game:1", idempotency_key="leave:game:1:a")
    assert wallet_balance(user=player) == 90_00
    assert escrow_balance(game_ref="game:1") == 25_00
    # replay: same transaction, nothing more moves
    assert services.refund_entry(user=player, game_ref="game:1", idempotency_key="leave:game:1:a") == refund
    assert wallet_balance(user=player) == 90_00
    with pytest.raises(NothingToRefund):
        services.refund_entry(user=player, game_ref="game:1", idempotency_key="leave:game:1:a:again")
    with pytest.raises(IdempotencyConflict):
        services.refund_entry(user=player, game_ref="game:2", idempotency_key="leave:game:1:a")


def test_refund_with_nothing_paid(player: User) -> None:
    with pytest.raises(NothingToRefund):
        services.refund_entry(user=player, game_ref="game:1", idempotency_key="leave")


def test_refund_all_entries_empties_the_escrow(player: User, other_player: User, fund: Fund) -> None:
    fund(player, 100_00)
    fund(other_player, 100_00)
    services.pay_entry(user=player, game_ref="game:1", amount=25_00, idempotency_key="j1")
    services.pay_entry(user=player, game_ref="game:1", amount=25_00, idempotency_key="j2")
    services.pay_entry(user=other_player, game_ref="game:1", amount=25_00, idempotency_key="j3")
    services.refund_entry(user=other_player, game_ref="game:1", idempotency_key="r3")
    services.pay_entry(user=other_player, game_ref="game:1", amount=25_00, idempotency_key="j4")
    txn = services.refund_all_entries(game_ref="game:1", idempotency_key="cancel:game:1")
    assert escrow_balance(game_ref="game:1") == 0
    assert wallet_balance(user=player) == 100_00
    assert wallet_balance(user=other_player) == 100_00
    assert txn.entries.count() == 3
    assert services.refund_all_entries(game_ref="game:1", idempotency_key="cancel:game:1") == txn


# --- settlement ----------------------------------------------------------------
def _seat(players: list[User], fund: Fund, *, game: str, fee: int) -> None:
    for p in players:
        fund(p, fee)
        services.pay_entry(user=p, game_ref=game, amount=fee, idempotency_key=f"join:{game}:{p.pk}")


def test_settle_game_rake_and_winner_in_one_transaction(make_user: Callable[..., User], fund: Fund) -> None:
    a, b, c = make_user(), make_user(), make_user()
    _seat([a, b, c], fund, game="game:9", fee=50_00)
    txn = services.settle_game(
        game_ref="game:9", payouts={a.pk: 135_00}, rake=15_00, idempotency_key="settle:9"
    )
    assert txn.kind == TransactionKind.SETTLEMENT
    assert escrow_balance(game_ref="game:9") == 0
    assert wallet_balance(user=a) == 135_00
    assert wallet_balance(user=b) == 0
    assert house_balance() == 15_00
    again = services.settle_game(
        game_ref="game:9", payouts={a.pk: 135_00}, rake=15_00, idempotency_key="settle:9"
    )
    assert again == txn
    with pytest.raises(IdempotencyConflict):
        services.settle_game(
            game_ref="game:9", payouts={b.pk: 135_00}, rake=15_00, idempotency_key="settle:9"
        )


def test_settle_split_rules_example(make_user: Callable[..., User], fund: Fund) -> None:
    """docs/rules.md §8 worked example: pool ₹150, 0% rake -> 91.67 / 41.67 / 16.66 (all 15000 paise paid)."""
    a, b, c = make_user(), make_user(), make_user()
    _seat([a, b, c], fund, game="game:2", fee=50_00)
    payouts = {a.pk: 91_67, b.pk: 41_67, c.pk: 16_66}
    services.settle_game(game_ref="game:2", payouts=payouts, rake=0, idempotency_key="settle:2")
    assert [wallet_balance(user=u) for u in (a, b, c)] == [91_67, 41_67, 16_66]
    assert escrow_balance(game_ref="game:2") == 0
    assert house_balance() == 0


@pytest.mark.parametrize("payout,rake", [(100_00, 10_00), (150_00, 10_00), (0, 0)])
def test_settle_must_empty_the_escrow_exactly(
    make_user: Callable[..., User], fund: Fund, payout: int, rake: int
) -> None:
    a, b = make_user(), make_user()
    _seat([a, b], fund, game="game:3", fee=60_00)
    with pytest.raises(SettlementMismatch):
        services.settle_game(game_ref="game:3", payouts={a.pk: payout}, rake=rake, idempotency_key="s")
    assert escrow_balance(game_ref="game:3") == 120_00
    assert not LedgerTransaction.objects.filter(kind=TransactionKind.SETTLEMENT).exists()


def test_settle_refuses_unknown_users_and_negative_amounts(player: User, fund: Fund) -> None:
    _seat([player], fund, game="game:4", fee=10_00)
    with pytest.raises(WalletError, match="unknown user"):
        services.settle_game(game_ref="game:4", payouts={999_999: 10_00}, rake=0, idempotency_key="s")
    with pytest.raises(InvalidAmount):
        services.settle_game(game_ref="game:4", payouts={player.pk: 11_00}, rake=-1_00, idempotency_key="s")


# --- staff adjustments -------------------------------------------------------------
def test_adjust_credit_and_debit(player: User, staff: User) -> None:
    services.adjust(user=player, amount=40_00, reason="goodwill", staff_user=staff, idempotency_key="adj1")
    txn = services.adjust(user=player, amount=-15_00, reason="bug", staff_user=staff, idempotency_key="adj2")
    assert wallet_balance(user=player) == 25_00
    assert txn.kind == TransactionKind.ADJUSTMENT
    assert txn.caused_by == staff
    assert "bug" in txn.memo
    with pytest.raises(InsufficientFunds):
        services.adjust(
            user=player, amount=-26_00, reason="too much", staff_user=staff, idempotency_key="adj3"
        )


def test_adjust_needs_a_reason_and_staff(player: User, other_player: User, staff: User) -> None:
    with pytest.raises(ReasonRequired):
        services.adjust(user=player, amount=1_00, reason="  ", staff_user=staff, idempotency_key="a")
    with pytest.raises(NotStaff):
        services.adjust(user=player, amount=1_00, reason="x", staff_user=other_player, idempotency_key="a")
    with pytest.raises(InvalidAmount):
        services.adjust(user=player, amount=0, reason="x", staff_user=staff, idempotency_key="a")
    assert LedgerTransaction.objects.count() == 0


# --- selectors ----------------------------------------------------------------
def test_history_is_own_newest_first_with_running_balance(
    player: User, other_player: User, fund: Fund
) -> None:
    fund(player, 100_00)
    fund(other_player, 100_00)
    for n in range(3):
        services.pay_entry(user=player, game_ref=f"game:{n}", amount=10_00, idempotency_key=f"j{n}")
    history = list(wallet_history(user=player))
    assert [e.amount for e in history] == [-10_00, -10_00, -10_00, 100_00]
    assert [e.balance_after for e in history] == [70_00, 80_00, 90_00, 100_00]
    assert {e.account.user_id for e in history} == {player.pk}
    page = wallet_history_page(user=player, page=2, per_page=3)
    assert [e.amount for e in page.object_list] == [100_00]


def test_selectors_do_not_create_accounts(player: User) -> None:
    assert wallet_balance(user=player) == 0
    assert escrow_balance(game_ref="game:404") == 0
    assert not Account.objects.exists()
