"""A worker restarted without beat resumes every game's clock: the overdue and the pending.

The first worker takes two games' timers off the queue and is killed (SIGKILL): Redis
keeps them unacknowledged for the visibility timeout (an hour). A second worker, without
beat, must enforce the deadline that came due meanwhile within seconds, and the one still
ahead on time, though the timer that would have enforced it is still held by the dead worker.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.utils import timezone

from tables import services
from tables.models import GameEvent, PoolGame
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import Proc, point_celery_at, private_redis, start_worker
from tests.waiting import poll

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
]

WAIT = 40.0


def _fail(message: str, *procs: Proc) -> None:
    pytest.fail("\n".join([message, *(p.tail(80) for p in procs)]))


def test_a_restarted_worker_without_beat_enforces_overdue_deadlines_and_rearms_the_lost_timers(
    require_postgres: None, require_redis: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Deadlines do not depend on beat: the worker's own (re)start resumes every game's clock.

    The first worker takes both games' timers off the queue and is killed (SIGKILL): Redis
    keeps them unacknowledged for the visibility timeout (an hour). A second worker, started
    without beat, enforces the overdue deadline within seconds and the other one on time.
    """
    with private_redis(require_redis) as url:
        point_celery_at(url, monkeypatch)
        first = start_worker(url, tmp_path, name="first", beat=False)
        second: Proc | None = None
        try:
            games = {}
            for name, turn in (("soon", 3), ("later", 30)):
                table = make_table(
                    seats=2,
                    fee=1_000,
                    seed=70 + turn,
                    turn_seconds=turn,
                    extra_time_seconds=0,
                    pause_seconds=600,
                )
                a, b = make_player(f"{name}-a"), make_player(f"{name}-b")
                services.table_join(table_id=table.pk, user=a)
                services.table_join(table_id=table.pk, user=b)
                games[name] = table.games.get()
            if not first.wait_for("Task tables.tasks.enforce_deadline", timeout=WAIT, times=2):
                _fail("the first worker never received both timers", first)
            first.kill()
            soon, later = games["soon"], games["later"]
            assert soon.deadline_at is not None and later.deadline_at is not None
            # time passes on purpose: the short deadline comes due while no worker runs
            time.sleep(max(0.0, (soon.deadline_at - timezone.now()).total_seconds()) + 1.5)
            assert PoolGame.objects.get(pk=soon.pk).version == soon.version

            second = start_worker(url, tmp_path, name="second", beat=False)
            started = time.monotonic()

            def moved(game: PoolGame) -> bool:
                return PoolGame.objects.get(pk=game.pk).version > game.version

            if not poll(lambda: moved(soon), timeout=10, interval=0.1):
                _fail("the overdue deadline was not enforced within 10 s of the restart", first, second)
            print(f"overdue deadline enforced {time.monotonic() - started:.1f} s after the restart")
            assert timezone.now() < later.deadline_at, "the machine was too slow: the later deadline passed"
            assert not moved(later), "the later deadline was enforced early"
            # its timer was lost with the first worker; the restart armed it again, with no beat to sweep
            wait = (later.deadline_at - timezone.now()).total_seconds() + 10
            if not poll(lambda: moved(later), timeout=wait, interval=0.2):
                _fail("the later deadline was never enforced without beat", first, second)
            late_by = (timezone.now() - later.deadline_at).total_seconds()
            print(f"later deadline enforced {late_by:.1f} s after it came due")
            assert late_by < 5, late_by
            for game in (soon, later):
                assert (
                    GameEvent.objects.filter(game=game, version=game.version + 1, type="turn_missed").count()
                    == 1
                )
        finally:
            first.stop()
            if second is not None:
                second.stop()
