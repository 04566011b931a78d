"""Practice tables: bots fill the empty seats and a whole 101 pool is played to its end."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from game_engine.game import GameState
from tables import services
from tables.game import drivers, notify, practice
from tables.models import GameEvent, PoolGame, TableSettings
from tests.tables.conftest import FakeClock, make_player, make_table
from wallet.audit import check_ledger
from wallet.selectors import wallet_balance

pytestmark = pytest.mark.django_db


def test_practice_tables_are_free() -> None:
    settings = TableSettings(name="p", format="101", entry_fee=100, practice=True)
    with pytest.raises(ValidationError):
        settings.clean()


def test_bots_fill_the_empty_seats_after_the_wait(clock: FakeClock) -> None:
    table = make_table("101", fee=0, seats=4, practice=True, bot_wait_seconds=5, seed=31)
    asha = make_player("asha")
    services.table_join(table_id=table.pk, user=asha)
    game = PoolGame.objects.get(table=table)
    assert game.deadline_kind == "bots" and game.status == PoolGame.Status.WAITING
    assert services.game_timeout(game_id=game.pk, version=game.version) is False  # still waiting
    clock.advance(6)
    assert services.game_timeout(game_id=game.pk, version=game.version) is True
    game.refresh_from_db()
    assert game.status == PoolGame.Status.RUNNING
    seats = list(game.seats.order_by("position"))
    assert [s.is_bot for s in seats] == [False, True, True, True]
    assert all(s.user.is_bot and not s.user.has_usable_password() for s in seats[1:])
    assert sorted(game.bot_seats) == [1, 2, 3]
    assert len(GameState.from_dict(game.state).players) == 4


def test_a_bot_filled_101_practice_game_plays_to_its_end(clock: FakeClock) -> None:
    """The person never moves (their turns time out); the bots play through the services."""
    table = make_table("101", fee=0, seats=3, practice=True, bot_wait_seconds=1, seed=77)
    asha = make_player("asha")
    services.table_join(table_id=table.pk, user=asha)
    game = PoolGame.objects.get(table=table)
    clock.advance(2)
    services.game_timeout(game_id=game.pk, version=game.version)
    final = drivers.play_out(game_id=game.pk, clock=clock)
    assert final.status == PoolGame.Status.FINISHED
    assert final.result["winner"] is not None or final.result["split"] in ("manual", "auto")
    assert sum(final.result["payouts"].values()) == final.result["prize_pool"] == 0  # a free table
    bot_moves = GameEvent.objects.filter(game=final, type__in=["draw", "discard", "finish", "drop"]).count()
    assert bot_moves > 10
    assert GameEvent.objects.filter(game=final, type="turn_missed").exists()  # the idle person
    assert wallet_balance(user=asha) == 100 * 100  # free: no chips moved
    assert check_ledger() == []


def test_a_stale_bot_task_does_nothing(clock: FakeClock) -> None:
    table = make_table("101", fee=0, seats=2, practice=True, bot_wait_seconds=1, seed=5)
    services.table_join(table_id=table.pk, user=make_player("asha"))
    game = PoolGame.objects.get(table=table)
    clock.advance(2)
    services.game_timeout(game_id=game.pk, version=game.version)
    game.refresh_from_db()
    assert drivers.bot_move(game_id=game.pk, version=game.version - 1) is False


def test_a_worker_that_starts_again_schedules_the_move_of_every_bot_due(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot's task lost with its worker would leave the bot idle until its turn timer."""
    due = make_table("101", fee=0, seats=2, practice=True, bot_wait_seconds=1, seed=5)
    services.table_join(table_id=due.pk, user=make_player("asha"))
    clock.advance(2)
    services.game_timeout(game_id=PoolGame.objects.get(table=due).pk, version=1)  # the bots sit down
    idle = make_table("101", fee=0, seats=2, practice=True, bot_wait_seconds=1, seed=5)
    services.table_join(table_id=idle.pk, user=make_player("meera"))  # still waiting for its bot
    game = PoolGame.objects.get(table=due)
    assert game.status == PoolGame.Status.RUNNING
    for _ in range(5):  # the person is first: let the turn and its time bank run out
        if practice.seats_to_act(GameState.from_dict(game.state), game.bot_seats):
            break
        assert game.deadline_at is not None
        clock.advance((game.deadline_at - clock.now()).total_seconds() + 0.1)
        services.game_timeout(game_id=game.pk, version=game.version)
        game.refresh_from_db()
    else:
        pytest.fail("the bot never came to act")
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(
        notify, "schedule_bot_move", lambda *, game_id, version, delay: sent.append((game_id, version))
    )

    assert drivers.bots_rearm() == 1

    assert sent == [(game.pk, game.version)]
    assert drivers.bot_move(game_id=game.pk, version=game.version) is True  # and that task moves the bot
