"""``check_ledger``: the audit function and the management command."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.management import ManagementUtility, call_command
from django.core.management.base import CommandError

from accounts.models import User
from wallet import services
from wallet.audit import check_ledger
from wallet.models import Account

pytestmark = pytest.mark.django_db
Fund = Callable[[User, int], None]


@pytest.fixture
def busy_ledger(player: User, other_player: User, fund: Fund) -> None:
    fund(player, 100_00)
    fund(other_player, 100_00)
    services.pay_entry(user=player, game_ref="game:1", amount=40_00, idempotency_key="j1")
    services.pay_entry(user=other_player, game_ref="game:1", amount=40_00, idempotency_key="j2")
    services.settle_game(game_ref="game:1", payouts={player.pk: 72_00}, rake=8_00, idempotency_key="s1")


def test_empty_ledger_is_clean() -> None:
    assert check_ledger() == []


def test_clean_ledger_passes_and_prints_a_summary(
    busy_ledger: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_ledger() == []
    call_command("check_ledger")
    out = capsys.readouterr().out
    assert "transactions: 5" in out
    assert "ledger OK" in out


def test_tampered_balance_is_detected(
    busy_ledger: None, player: User, capsys: pytest.CaptureFixture[str]
) -> None:
    Account.objects.filter(user=player).update(balance=1_000_00)  # allowed: balance is a cache
    problems = check_ledger()
    assert any(f"user:{player.pk}" in p and "stored balance 100000" in p for p in problems), problems
    assert any("stored account balances sum to" in p for p in problems), problems
    with pytest.raises(CommandError, match="ledger check failed"):
        call_command("check_ledger")
    assert f"user:{player.pk}" in capsys.readouterr().err


def test_command_exits_non_zero_naming_the_problem(
    busy_ledger: None, player: User, capsys: pytest.CaptureFixture[str]
) -> None:
    services.escrow_account_for("game:1")
    Account.objects.filter(kind="escrow").update(balance=3)
    with pytest.raises(SystemExit) as exit_info:
        ManagementUtility(["manage.py", "check_ledger"]).execute()
    assert exit_info.value.code != 0
    err = capsys.readouterr().err
    assert "escrow:game:1" in err and "sum of entries 0" in err
