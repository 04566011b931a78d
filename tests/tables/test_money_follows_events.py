"""Money follows the engine's events (issue 12): a rejoin fee is charged because the engine
emitted ``rejoined`` with that fee, a settlement because it emitted ``game_over``."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from game_engine import events as ev
from game_engine.game import GameState
from tables import services
from tables.game import play
from tables.models import PoolGame
from tests.tables.games import game_in_rejoin_window
from wallet.audit import check_ledger
from wallet.selectors import wallet_balance

pytestmark = pytest.mark.django_db


def test_the_rejoin_fee_charged_is_the_one_the_engine_emitted(monkeypatch: pytest.MonkeyPatch) -> None:
    game, (rejoiner, *_) = game_in_rejoin_window()
    real_apply = play.apply

    def apply(state: GameState, action: Any) -> tuple[GameState, list[ev.Event]]:
        new, events = real_apply(state, action)
        return new, [dataclasses.replace(e, fee=777) if isinstance(e, ev.Rejoined) else e for e in events]

    monkeypatch.setattr(play, "apply", apply)
    before = wallet_balance(user=rejoiner)
    answer = services.game_act(game_id=game.pk, user=rejoiner, request_id="r1", action={"type": "rejoin"})
    assert answer["ok"] is True
    assert wallet_balance(user=rejoiner) == before - 777
    assert check_ledger() == []


def test_a_rejoin_the_engine_did_not_emit_charges_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    game, (rejoiner, *_) = game_in_rejoin_window()
    real_apply = play.apply

    def apply(state: GameState, action: Any) -> tuple[GameState, list[ev.Event]]:
        new, events = real_apply(state, action)
        return new, [e for e in events if not isinstance(e, ev.Rejoined)]

    monkeypatch.setattr(play, "apply", apply)
    before = wallet_balance(user=rejoiner)
    services.game_act(game_id=game.pk, user=rejoiner, request_id="r1", action={"type": "rejoin"})
    assert wallet_balance(user=rejoiner) == before


def test_settlement_pays_what_game_over_carries() -> None:
    game, (rejoiner, ravi, meera) = game_in_rejoin_window()
    # the eliminated seat declines by leaving; then a live player leaves: one is left and wins
    services.game_act(game_id=game.pk, user=rejoiner, request_id="r1", action={"type": "leave"})
    services.game_act(game_id=game.pk, user=ravi, request_id="r2", action={"type": "leave"})
    game.refresh_from_db()
    assert game.status == PoolGame.Status.FINISHED
    over = game.events.filter(type="game_over").get().data
    assert over["payouts"][str(meera.pk)] == 2_700  # 3 fees of 1000, 10% rake
    assert wallet_balance(user=meera) == 100 * 100 - 1_000 + over["payouts"][str(meera.pk)]
    assert check_ledger() == []
