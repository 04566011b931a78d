"""The game clock on a real Celery worker process (with beat) through the Redis broker.

The test process plays the web server: its service calls schedule the timers
(``enforce_deadline`` with an ETA) on Redis, and a worker subprocess enforces
them on the shared test database. Timers are one second long, so a player who
never moves is really dropped by the clock, and a worker killed while a timer
is pending really comes back to enforce the deadline through beat's sweep.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.utils import timezone

from game_engine.game import GameState
from tables import services
from tables.models import Deal, GameEvent, PoolGame
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import Proc, point_celery_at, private_redis, start_worker
from tests.waiting import poll
from wallet.audit import check_ledger

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.redis]

WAIT = 30.0


@pytest.fixture
def broker(require_postgres: None, require_redis: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A private Redis database; this process's Celery app sends to it, as a web server with REDIS_URL does."""
    with private_redis(require_redis) as url:
        point_celery_at(url, monkeypatch)
        yield url


def _events(game: PoolGame) -> list[GameEvent]:
    return list(GameEvent.objects.filter(game=game).order_by("seq"))


def _fail(message: str, *workers: Proc) -> None:
    pytest.fail("\n".join([message, *(w.tail() for w in workers)]))


def test_a_player_who_never_moves_misses_three_turns_and_is_middle_dropped(
    broker: str, tmp_path: Path
) -> None:
    worker = start_worker(broker, tmp_path)
    try:
        table = make_table(
            seats=2, fee=1_000, seed=41, turn_seconds=1, extra_time_seconds=0, pause_seconds=600
        )
        idle, active = make_player("idle"), make_player("active")
        services.table_join(table_id=table.pk, user=idle)
        services.table_join(table_id=table.pk, user=active)  # the game starts: its timer goes to Redis
        game = table.games.get()
        idle_seat = game.seats.get(user=idle).engine_seat
        active_seat = game.seats.get(user=active).engine_seat
        requests = 0

        def deal_over() -> bool:
            """Whether the deal is over; the other player plays at once when it is their turn."""
            nonlocal requests
            game.refresh_from_db()
            state = GameState.from_dict(game.state)
            if state.phase != "playing":
                return True
            deal = state.deal
            assert deal is not None
            if deal.turn == active_seat and deal.phase == "turn":
                action = (
                    {"type": "draw", "source": "closed"}
                    if deal.drawn is None
                    else {"type": "discard", "card": deal.drawn.code}
                )
                requests += 1
                services.game_act(game_id=game.pk, user=active, request_id=f"a{requests}", action=action)
            return False

        if not poll(deal_over, timeout=WAIT):
            _fail(f"the deal did not end within {WAIT:.0f} s: {[e.type for e in _events(game)]}", worker)

        events = _events(game)
        misses = [e.data for e in events if e.type == "turn_missed"]
        drops = [e.data for e in events if e.type == "drop"]
        third = next((m for m in misses if m["misses"] == 3), None)
        if third is None or not drops:
            _fail(f"no one was dropped for missed turns: {[(e.type, e.data) for e in events]}", worker)
        assert third is not None
        assert third["seat"] == idle_seat, misses
        assert [m["misses"] for m in misses if m["seat"] == idle_seat] == [1, 2, 3]
        assert drops == [{"seat": idle_seat, "points": 40, "reason": "missed_turns"}]
        # the deal is over and scored: the idle player carries the middle drop, 40 points in 101
        game.refresh_from_db()
        state = GameState.from_dict(game.state)
        assert state.phase == "between_deals", state.phase
        assert state.players[idle_seat].score == 40 and state.players[active_seat].score == 0
        result = Deal.objects.get(game=game, number=1).result
        assert result is not None and result["scores"] == {str(idle_seat): 40, str(active_seat): 0}
        # and it was the worker that enforced the turns, timer by timer
        assert worker.count("Task tables.tasks.enforce_deadline") >= 3, worker.tail()
        # each timer's lines say which game it was about, in the site's JSON format (docs/operations.md)
        succeeded = [json.loads(line) for line in worker.matching("enforce_deadline", "succeeded")]
        assert len(succeeded) >= 3 and all(line["game_id"] == game.pk for line in succeeded), worker.tail()
        assert all(line["task_id"] in line["message"] for line in succeeded)
    finally:
        worker.stop()
    assert check_ledger() == []


@pytest.mark.slow
def test_a_deadline_that_came_due_while_the_worker_was_down_is_enforced_after_a_restart(
    broker: str, tmp_path: Path
) -> None:
    turn_seconds = 5
    url = broker
    first = start_worker(url, tmp_path, name="worker1")
    second: Proc | None = None
    try:
        table = make_table(
            seats=2, fee=1_000, seed=42, turn_seconds=turn_seconds, extra_time_seconds=0, pause_seconds=600
        )
        asha, ravi = make_player("asha"), make_player("ravi")
        services.table_join(table_id=table.pk, user=asha)
        services.table_join(table_id=table.pk, user=ravi)
        game = table.games.get()
        version, due = game.version, game.deadline_at
        assert game.deadline_kind == "turn" and due is not None
        # the worker took the timer off the queue (it holds it until its ETA) ... and dies
        if not first.wait_for("Task tables.tasks.enforce_deadline", timeout=WAIT):
            _fail("the worker never received the turn timer", first)
        game.refresh_from_db()
        assert game.version == version, (
            "the deadline was enforced before the worker was killed: "
            f"{[(e.version, e.type, e.data) for e in _events(game)]}\n{first.tail()}"
        )
        first.kill()

        # time passes on purpose: the deadline passes while no worker runs, and nothing enforces it
        time.sleep(
            max(0.0, (due - timezone.now()).total_seconds()) + services.SWEEP_GRACE.total_seconds() + 1.5
        )
        game.refresh_from_db()
        assert game.version == version, "something other than a worker enforced the deadline"

        second = start_worker(url, tmp_path, name="worker2")
        restarted = time.monotonic()

        def moved() -> bool:
            game.refresh_from_db()
            return game.version > version

        if not poll(moved, timeout=WAIT, interval=0.1):
            _fail(f"the overdue deadline was not enforced {WAIT:.0f} s after the restart", first, second)
        print(f"enforced {time.monotonic() - restarted:.1f} s after the restart")
        missed = GameEvent.objects.filter(game=game, version=version + 1, type="turn_missed")
        assert missed.count() == 1
        # the restarted worker did it: the timer the dead worker held is not redelivered before the
        # visibility timeout, but its start re-armed the game's timer (or beat's sweep came first)
        enforced = poll(
            lambda: any(
                line.rstrip().endswith((": 1", ": True"))
                for line in second.messages("succeeded")
                if "sweep_deadlines" in line or "enforce_deadline" in line
            ),
            timeout=10,
        )
        assert enforced, f"no task of the restarted worker enforced the deadline\n{second.tail()}"
        assert second.matching("re-armed the timers of"), second.tail()
        game.refresh_from_db()
        assert game.status == PoolGame.Status.RUNNING and game.deadline_at is not None
    finally:
        first.stop()
        if second is not None:
            second.stop()
