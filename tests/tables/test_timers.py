"""One armed timer follows each game's deadline (``record.arm_timer``).

A change sends a new timer task only when its deadline comes before the armed
one; the armed timer, when it fires and finds the game moved on, arms the next.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from game_engine.game import GameState
from tables import services
from tables.game import notify
from tables.models import PoolGame
from tests.tables.conftest import FakeClock, make_player, make_table

pytestmark = pytest.mark.django_db

Timer = tuple[int, datetime]  # (version, eta)


@pytest.fixture
def timers(monkeypatch: pytest.MonkeyPatch) -> list[Timer]:
    sent: list[Timer] = []

    def record(*, game_id: int, version: int, eta: datetime) -> None:
        sent.append((version, eta))

    monkeypatch.setattr(notify, "schedule_timeout", record)
    monkeypatch.setattr(notify, "table_changed", lambda **_: None)
    return sent


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Callable[..., Any]:
    """Run ``func`` and then its on-commit callbacks, as a real commit would."""

    def run(func: Callable[..., Any], **kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return func(**kwargs)

    return run


@pytest.fixture
def game(committed: Callable[..., Any], timers: list[Timer]) -> Iterator[tuple[PoolGame, dict[int, Any]]]:
    table = make_table(seats=2, seed=11, turn_seconds=30, extra_time_seconds=0)
    asha, ravi = make_player("asha"), make_player("ravi")
    committed(services.table_join, table_id=table.pk, user=asha)
    committed(services.table_join, table_id=table.pk, user=ravi)
    yield table.games.get(), {0: asha, 1: ravi}


def _act(committed: Callable[..., Any], game: PoolGame, user: Any, action: dict[str, Any], rid: str) -> None:
    answer = committed(services.game_act, game_id=game.pk, user=user, request_id=rid, action=action)
    assert answer["ok"], answer


def _turn(game: PoolGame) -> int:
    game.refresh_from_db()
    state = GameState.from_dict(game.state)
    assert state.deal is not None
    return state.deal.turn


def _timeout(committed: Callable[..., Any], game: PoolGame, timer: Timer) -> bool:
    version, eta = timer
    result: bool = committed(services.game_timeout, game_id=game.pk, version=version, armed_for=eta)
    return result


def _draw_and_discard(committed: Callable[..., Any], game: PoolGame, users: dict[int, Any], n: int) -> None:
    seat = _turn(game)
    _act(committed, game, users[seat], {"type": "draw", "source": "closed"}, f"draw-{n}")
    game.refresh_from_db()
    state = GameState.from_dict(game.state)
    assert state.deal is not None
    drawn = state.deal.hands[seat][-1]
    _act(committed, game, users[seat], {"type": "discard", "card": str(drawn)}, f"discard-{n}")
    game.refresh_from_db()


def test_moves_that_push_the_deadline_later_send_no_timer_and_the_armed_one_arms_the_next(
    clock: FakeClock, committed: Callable[..., Any], timers: list[Timer], game: Any
) -> None:
    pool, users = game
    pool.refresh_from_db()
    assert timers == [(pool.version, pool.deadline_at)]  # the start armed one timer
    assert pool.timer_at == pool.deadline_at
    armed = timers[0]

    clock.advance(5)
    _draw_and_discard(committed, pool, users, 1)
    assert pool.deadline_at is not None and pool.deadline_at > armed[1]  # the next turn ends later ...
    assert timers == [armed]  # ... so the armed timer stays and nothing more was sent
    assert pool.timer_at == armed[1]

    clock.advance(26)  # the armed timer's time: the turn it was armed for is over
    version, deadline = pool.version, pool.deadline_at
    assert _timeout(committed, pool, armed) is False
    pool.refresh_from_db()
    assert pool.version == version  # nothing enforced ...
    assert timers == [armed, (version, deadline)]  # ... and the next timer armed
    assert pool.timer_at == deadline

    clock.advance(5)  # the new turn's deadline
    assert _timeout(committed, pool, timers[-1]) is True
    pool.refresh_from_db()
    assert pool.version == version + 1


def test_an_earlier_deadline_arms_a_new_timer_and_the_one_it_replaced_does_nothing(
    clock: FakeClock, committed: Callable[..., Any], timers: list[Timer], game: Any
) -> None:
    pool, users = game
    armed = timers[0]
    clock.advance(5)
    _act(committed, pool, users[_turn(pool)], {"type": "drop"}, "drop")  # 2 players: the deal ends
    pool.refresh_from_db()
    assert pool.deadline_at is not None and pool.deadline_at < armed[1]  # the pause ends first
    assert timers[-1] == (pool.version, pool.deadline_at)
    assert pool.timer_at == pool.deadline_at
    sent = len(timers)

    clock.advance(30)  # both times have passed; the replaced timer fires: it is not the armed one
    version = pool.version
    assert _timeout(committed, pool, armed) is False
    pool.refresh_from_db()
    assert pool.version == version and len(timers) == sent


def test_a_draw_keeps_the_deadline_and_the_armed_timer_enforces_it_through_one_re_arm(
    clock: FakeClock, committed: Callable[..., Any], timers: list[Timer], game: Any
) -> None:
    pool, users = game
    armed = timers[0]
    seat = _turn(pool)
    _act(committed, pool, users[seat], {"type": "draw", "source": "closed"}, "d1")
    pool.refresh_from_db()
    assert pool.deadline_at == armed[1] and len(timers) == 1  # same turn, same deadline: nothing sent

    clock.advance(31)
    before = pool.version
    assert _timeout(committed, pool, armed) is False  # armed at the version before the draw
    assert timers[-1] == (before, armed[1])  # so it arms the same deadline at the current version
    assert _timeout(committed, pool, timers[-1]) is True  # and that one enforces the turn
    pool.refresh_from_db()
    assert pool.version == before + 1
    assert _timeout(committed, pool, timers[-2]) is False  # the same timer again: nothing


def test_an_earlier_deadline_arms_a_new_timer(
    clock: FakeClock, committed: Callable[..., Any], timers: list[Timer], game: Any
) -> None:
    pool, users = game
    pool.refresh_from_db()
    PoolGame.objects.filter(pk=pool.pk).update(timer_at=pool.deadline_at + timedelta(hours=1))
    seat = _turn(pool)
    _act(committed, pool, users[seat], {"type": "draw", "source": "closed"}, "d1")
    pool.refresh_from_db()
    assert timers[-1] == (pool.version, pool.deadline_at)
    assert pool.timer_at == pool.deadline_at


def test_a_timer_that_fires_early_arms_itself_again(
    clock: FakeClock, committed: Callable[..., Any], timers: list[Timer], game: Any
) -> None:
    pool, _ = game
    armed = timers[0]
    assert _timeout(committed, pool, armed) is False  # the clock has not reached it
    assert timers == [armed, armed]


def test_the_task_knows_its_timer_by_the_iso_time_it_carries(
    clock: FakeClock, committed: Callable[..., Any], timers: list[Timer], game: Any
) -> None:
    """What Celery delivers: the armed time as ISO text, compared with the stored ``timer_at``."""
    from tables.tasks import enforce_deadline

    pool, users = game
    version, eta = timers[0]
    clock.advance(5)
    _draw_and_discard(committed, pool, users, 1)
    clock.advance(26)
    assert committed(enforce_deadline, game_id=pool.pk, version=version, armed_for=eta.isoformat()) is False
    pool.refresh_from_db()
    assert timers[-1] == (pool.version, pool.deadline_at)  # it was the armed timer: it armed the next
    assert committed(enforce_deadline, game_id=pool.pk, version=version) is False  # unnamed and stale
    assert len(timers) == 2
