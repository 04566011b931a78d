"""Property: any sequence of grants, fees, refunds, settlements (rake and payouts), adjustments and
replays conserves chips (the ledger sums to zero), keeps every wallet and escrow >= 0, and matches
a plain-Python model of the balances."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import User
from wallet import services
from wallet.audit import check_ledger
from wallet.errors import InsufficientFunds, NothingToRefund
from wallet.models import Account, AccountKind, Entry, LedgerTransaction
from wallet.selectors import escrow_balance, wallet_balance

USERS, GAMES = 3, 2
user_i = st.integers(0, USERS - 1)
game_i = st.integers(0, GAMES - 1)
pct = st.integers(0, 100)

ops = st.one_of(
    st.tuples(st.just("grant"), user_i, st.integers(1, 100_00)),
    st.tuples(st.just("fee"), user_i, game_i, st.integers(1, 60_00)),
    st.tuples(st.just("refund"), user_i, game_i),
    st.tuples(st.just("settle"), game_i, pct, st.lists(user_i, min_size=1, max_size=USERS, unique=True)),
    st.tuples(st.just("adjust"), user_i, st.integers(-50_00, 50_00).filter(bool)),
    st.tuples(st.just("replay"), st.integers(0, 1000)),
)


class Rollback(Exception):
    pass


@pytest.fixture
def players(make_user: Callable[..., User], staff: User) -> list[User]:
    return [make_user() for _ in range(USERS)]


@pytest.mark.django_db
@pytest.mark.slow  # many generated sequences
@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(ops, max_size=25))
def test_random_sequences_conserve_chips(
    players: list[User], staff: User, steps: list[tuple[Any, ...]]
) -> None:
    try:
        with transaction.atomic():  # each example starts from an empty ledger
            _run(players, staff, steps)
            raise Rollback
    except Rollback:
        pass


def _run(players: list[User], staff: User, steps: list[tuple[Any, ...]]) -> None:
    wallets = [0] * USERS
    escrows = [0] * GAMES
    paid = {(u, g): 0 for u in range(USERS) for g in range(GAMES)}
    house = 0
    done: list[tuple[Callable[[], LedgerTransaction], LedgerTransaction]] = []

    def attempt(
        call: Callable[[], LedgerTransaction], ok: bool, error: type[Exception] = InsufficientFunds
    ) -> bool:
        if ok:
            done.append((call, call()))
            return True
        count = LedgerTransaction.objects.count()
        with pytest.raises(error):
            call()
        assert LedgerTransaction.objects.count() == count
        return False

    for i, step in enumerate(steps):
        key = f"op:{i}"
        match step:
            case ("grant", u, amount):
                attempt(partial(services.grant, user=players[u], amount=amount, idempotency_key=key), True)
                wallets[u] += amount
            case ("fee", u, g, amount):
                call = partial(
                    services.pay_entry,
                    user=players[u],
                    game_ref=f"game:{g}",
                    amount=amount,
                    idempotency_key=key,
                )
                if attempt(call, wallets[u] >= amount):
                    wallets[u] -= amount
                    escrows[g] += amount
                    paid[u, g] += amount
            case ("refund", u, g):
                owed = paid[u, g]
                call = partial(
                    services.refund_entry, user=players[u], game_ref=f"game:{g}", idempotency_key=key
                )
                if owed <= 0:
                    attempt(call, False, NothingToRefund)
                elif attempt(call, escrows[g] >= owed):
                    wallets[u] += owed
                    escrows[g] -= owed
                    paid[u, g] = 0
            case ("settle", g, p, winners):
                pot = escrows[g]
                rake = pot * p // 100
                share, odd = divmod(pot - rake, len(winners))
                payouts = {players[w].pk: share + (1 if n < odd else 0) for n, w in enumerate(winners)}
                attempt(
                    partial(
                        services.settle_game,
                        game_ref=f"game:{g}",
                        payouts=payouts,
                        rake=rake,
                        idempotency_key=key,
                    ),
                    True,
                )
                for n, w in enumerate(winners):
                    wallets[w] += share + (1 if n < odd else 0)
                escrows[g] = 0
                house += rake
            case ("adjust", u, amount):
                call = partial(
                    services.adjust,
                    user=players[u],
                    amount=amount,
                    reason="property test",
                    staff_user=staff,
                    idempotency_key=key,
                )
                if attempt(call, wallets[u] + amount >= 0):
                    wallets[u] += amount
            case ("replay", j):
                if done:
                    call, first = done[j % len(done)]
                    count = Entry.objects.count()
                    assert call().pk == first.pk
                    assert Entry.objects.count() == count

        assert [wallet_balance(user=p) for p in players] == wallets
        assert [escrow_balance(game_ref=f"game:{g}") for g in range(GAMES)] == escrows

    assert check_ledger() == []
    assert not Account.objects.filter(
        kind__in=[AccountKind.WALLET, AccountKind.ESCROW], balance__lt=0
    ).exists()
    issuance = Account.objects.filter(kind=AccountKind.ISSUANCE).values_list("balance", flat=True).first()
    assert -(issuance or 0) == sum(wallets) + sum(escrows) + house
