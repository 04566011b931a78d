"""Bonus chips (docs/rules.md §8.6): entry fees only, spent first, refunded to their source,
and paid on from a prize pool only as bonus."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts.models import User
from tests.wallet.conftest import earned_mailbox_bonus
from wallet import services
from wallet.audit import check_ledger
from wallet.errors import IdempotencyConflict, InsufficientFunds
from wallet.models import Account, AccountKind
from wallet.selectors import chip_balances, wallet_history

pytestmark = pytest.mark.django_db


def _player(name: str, *, cash: int = 0, bonus: int = 0) -> User:
    user = User.objects.create_user(name, password="x-rummy-2026")
    if cash:
        services.grant(user=user, amount=cash, idempotency_key=f"cash:{name}")
    if bonus:
        services.grant(
            user=user,
            amount=bonus,
            idempotency_key=f"signup:{name}",
            kind=services.TransactionKind.SIGNUP_BONUS,
        )
    return user


def test_an_entry_fee_takes_bonus_chips_first_then_cash() -> None:
    asha = _player("asha", cash=50_00, bonus=30_00)
    services.pay_entry(user=asha, game_ref="game:1", amount=40_00, idempotency_key="join:1:asha")
    assert chip_balances(user=asha) == {"cash": 40_00, "bonus": 0, "total": 40_00}
    # the history names which chips moved
    assert sorted((e.account.kind, e.amount) for e in wallet_history(user=asha) if e.amount < 0) == [
        ("bonus", -30_00),
        ("wallet", -10_00),
    ]
    with pytest.raises(InsufficientFunds):
        services.pay_entry(user=asha, game_ref="game:2", amount=41_00, idempotency_key="join:2:asha")
    assert chip_balances(user=asha)["total"] == 40_00


def test_a_refund_gives_each_part_back_to_where_it_came_from() -> None:
    ravi = _player("ravi", cash=50_00, bonus=30_00)
    services.pay_entry(user=ravi, game_ref="game:1", amount=40_00, idempotency_key="join:1:ravi")
    services.refund_entry(user=ravi, game_ref="game:1", idempotency_key="leave:1:ravi")
    assert chip_balances(user=ravi) == {"cash": 50_00, "bonus": 30_00, "total": 80_00}
    services.pay_entry(user=ravi, game_ref="game:2", amount=40_00, idempotency_key="join:2:ravi")
    services.refund_all_entries(game_ref="game:2", idempotency_key="cancel:2")
    assert chip_balances(user=ravi) == {"cash": 50_00, "bonus": 30_00, "total": 80_00}
    assert check_ledger() == []


def test_a_winner_gets_their_stake_back_as_paid_and_the_losers_bonus_as_bonus() -> None:
    main = _player("main", cash=100_00)
    mule = _player("mule", bonus=100_00)
    mixed = _player("mixed", cash=60_00, bonus=40_00)
    for user in (main, mule, mixed):
        services.pay_entry(user=user, game_ref="game:9", amount=100_00, idempotency_key=f"join:9:{user.pk}")
    # pool 300, rake 30, main wins 270: 100 own (cash) + 170 of the 200 lost (140 bonus : 60 cash)
    services.settle_game(game_ref="game:9", payouts={main.pk: 270_00}, rake=30_00, idempotency_key="settle:9")
    assert chip_balances(user=main) == {"cash": 100_00 + 51_00, "bonus": 119_00, "total": 270_00}
    assert services.house_account().balance == 30_00
    # settling again is the same transaction, nothing moves
    services.settle_game(game_ref="game:9", payouts={main.pk: 270_00}, rake=30_00, idempotency_key="settle:9")
    assert chip_balances(user=main)["total"] == 270_00
    assert check_ledger() == []


def test_a_split_pays_each_player_their_own_stake_first() -> None:
    a, b = _player("a", cash=100_00), _player("b", bonus=100_00)
    c = _player("c", bonus=100_00)
    for user in (a, b, c):
        services.pay_entry(user=user, game_ref="game:5", amount=100_00, idempotency_key=f"join:5:{user.pk}")
    services.settle_game(
        game_ref="game:5", payouts={a.pk: 150_00, b.pk: 150_00}, rake=0, idempotency_key="s:5"
    )
    # c's lost 100 bonus is shared 50/50 as bonus; each gets their own 100 back as they paid it
    assert chip_balances(user=a) == {"cash": 100_00, "bonus": 50_00, "total": 150_00}
    assert chip_balances(user=b) == {"cash": 0, "bonus": 150_00, "total": 150_00}


def test_a_settlement_key_reused_for_other_payouts_conflicts() -> None:
    """The legs depend on the stakes, so the replay check compares the payouts and the rake."""
    asha, ravi = _player("asha", bonus=50_00), _player("ravi", cash=50_00)
    for user in (asha, ravi):
        services.pay_entry(user=user, game_ref="game:5", amount=50_00, idempotency_key=f"join:5:{user.pk}")
    txn = services.settle_game(
        game_ref="game:5", payouts={asha.pk: 90_00}, rake=10_00, idempotency_key="settle:5"
    )
    after = chip_balances(user=asha), chip_balances(user=ravi)
    assert (
        services.settle_game(
            game_ref="game:5", payouts={asha.pk: 90_00}, rake=10_00, idempotency_key="settle:5"
        )
        == txn
    )
    for payouts, rake in (({asha.pk: 80_00}, 20_00), ({asha.pk: 45_00, ravi.pk: 45_00}, 10_00)):
        with pytest.raises(IdempotencyConflict):
            services.settle_game(game_ref="game:5", payouts=payouts, rake=rake, idempotency_key="settle:5")
    assert (chip_balances(user=asha), chip_balances(user=ravi)) == after
    assert check_ledger() == []


def test_free_chips_go_to_the_bonus_account_and_staff_credits_to_cash() -> None:
    user = _player("newbie")
    services.grant_signup_bonus(user=user)
    earned_mailbox_bonus(user)
    services.claim_daily_topup(user=user)
    services.grant(user=user, amount=7_00, idempotency_key="staff:1")
    balances = chip_balances(user=user)
    assert balances["cash"] == 7_00 and balances["bonus"] > 0


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the CHECK constraint is checked on PostgreSQL")
def test_the_database_refuses_a_negative_bonus_account() -> None:
    user = _player("neg", bonus=1_00)
    account = Account.objects.get(kind=AccountKind.BONUS, ref=f"user:{user.pk}")
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=account.pk).update(balance=-1)


@settings(max_examples=300, deadline=None)
@given(
    stakes=st.lists(st.tuples(st.integers(0, 5_000), st.integers(0, 5_000)), min_size=2, max_size=6),
    winners=st.integers(1, 3),
    rake_bp=st.integers(0, 2_000),
    data=st.data(),
)
def test_prize_sources_pay_every_paisa_and_never_turn_lost_bonus_into_cash(
    stakes: list[tuple[int, int]], winners: int, rake_bp: int, data: st.DataObject
) -> None:
    by_user = dict(enumerate(stakes, start=1))
    total = sum(c + b for c, b in stakes)
    rake = total * rake_bp // 10_000
    paid_to = list(by_user)[: min(winners, len(by_user))]
    cuts = sorted(
        data.draw(
            st.lists(st.integers(0, total - rake), min_size=len(paid_to) - 1, max_size=len(paid_to) - 1)
        )
    )
    edges = [0, *cuts, total - rake]
    payouts = {uid: edges[i + 1] - edges[i] for i, uid in enumerate(paid_to)}

    parts = services.prize_sources(payouts=payouts, rake=rake, stakes=by_user)

    assert {uid: c + b for uid, (c, b) in parts.items()} == payouts
    assert all(c >= 0 and b >= 0 for c, b in parts.values())
    # cash never grows beyond the cash that was staked: bonus chips never become cash
    assert sum(c for c, _ in parts.values()) <= sum(c for c, _ in stakes)
    for uid, (cash, _bonus) in parts.items():
        stake_cash, stake_bonus = by_user[uid]
        own_back = min(payouts[uid], stake_cash + stake_bonus)
        assert cash >= min(own_back, stake_cash)  # their own cash comes back as cash
