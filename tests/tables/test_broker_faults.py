"""The game clock through broker faults: Redis restarted under a worker that holds timers, a worker restarted.

Each test runs its own redis-server on a free port (never the shared one), a
real Celery worker on it, and this process as the web server scheduling the
timers. Every game always has one timer task in flight, held by the worker
until its ETA: this is what the worker holds whenever Redis goes away.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.utils import timezone

from tables import services
from tables.models import GameEvent, PoolGame
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import (
    Proc,
    free_port,
    point_celery_at,
    start_redis_server,
    start_worker,
)
from tests.waiting import poll
from wallet.audit import check_ledger

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.redis]

WAIT = 40.0


@pytest.fixture
def own_redis(require_postgres: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Proc, int, str]]:
    """A redis-server of this test's own; this process's Celery app sends to it."""
    port = free_port()
    server = start_redis_server(port)
    url = f"redis://127.0.0.1:{port}/0"
    point_celery_at(url, monkeypatch)
    try:
        yield server, port, url
    finally:
        server.stop()


def _fail(message: str, *procs: Proc) -> None:
    pytest.fail("\n".join([message, *(p.tail() for p in procs)]))


def _start_game(seed: int, turn_seconds: int) -> PoolGame:
    table = make_table(
        seats=2, fee=1_000, seed=seed, turn_seconds=turn_seconds, extra_time_seconds=0, pause_seconds=600
    )
    services.table_join(table_id=table.pk, user=make_player(f"p{seed}a"))
    # the second join starts the game: its timer is sent
    services.table_join(table_id=table.pk, user=make_player(f"p{seed}b"))
    return table.games.get()


def _moved_past(game: PoolGame, version: int) -> bool:
    game.refresh_from_db()
    return game.version > version


def test_the_worker_survives_a_redis_restart_while_it_holds_timers(
    own_redis: tuple[Proc, int, str], tmp_path: Path
) -> None:
    """celery 5.7.0 + kombu 5.7.0 exited with "Unrecoverable error: AttributeError(... 'hostname')"."""
    server, port, url = own_redis
    # no sweep during the test: the timers alone must move the games on
    worker = start_worker(url, tmp_path, sweep_seconds=3600)
    restarted: Proc | None = None
    try:
        games = [_start_game(seed=70 + i, turn_seconds=6) for i in range(3)]
        versions = {g.pk: g.version for g in games}
        if not worker.wait_for("Task tables.tasks.enforce_deadline", timeout=WAIT, times=len(games)):
            _fail("the worker never received the turn timers", worker)
        server.kill()  # Redis dies with the timers held (unacknowledged) by the worker ...
        time.sleep(1.0)  # time passes on purpose: Redis stays away a while, as in a restart
        restarted = start_redis_server(port, name="redis-again")  # ... and is back a second later
        if not worker.wait_for("Connected to", timeout=WAIT, times=2):
            _fail("the worker did not reconnect to the restarted Redis", worker, restarted)
        # every game's deadline is still enforced, by a timer, with no sweep and no restart by hand
        for game in games:
            if not poll(lambda g=game: _moved_past(g, versions[g.pk]), timeout=WAIT, interval=0.2):
                _fail(f"game {game.pk}'s deadline was not enforced after Redis restarted", worker, restarted)
            missed = GameEvent.objects.filter(game=game, version=versions[game.pk] + 1, type="turn_missed")
            assert missed.count() == 1
        assert worker.alive(), worker.tail()
        assert not worker.matching("Unrecoverable error"), worker.tail()
    finally:
        worker.stop()
        if restarted is not None:
            restarted.stop()
    assert check_ledger() == []


def test_a_restarted_worker_without_beat_enforces_overdue_deadlines_within_seconds(
    own_redis: tuple[Proc, int, str], tmp_path: Path
) -> None:
    """The timers a killed worker held waited for Redis' visibility timeout (an hour) before."""
    _, _, url = own_redis
    first = start_worker(url, tmp_path, name="worker1", beat=False)
    second: Proc | None = None
    try:
        games = [_start_game(seed=80 + i, turn_seconds=3) for i in range(2)]
        versions = {g.pk: g.version for g in games}
        if not first.wait_for("Task tables.tasks.enforce_deadline", timeout=WAIT, times=len(games)):
            _fail("the worker never received the turn timers", first)
        first.kill()  # it held every timer
        due = max(g.deadline_at for g in games if g.deadline_at is not None)
        # time passes on purpose: every deadline comes due while no worker runs, and nothing enforces it
        time.sleep(max(0.0, (due - timezone.now()).total_seconds()) + 1.0)
        assert not any(_moved_past(g, versions[g.pk]) for g in games), "something enforced a deadline"

        second = start_worker(url, tmp_path, name="worker2", beat=False)  # no beat: the worker alone
        started = time.monotonic()
        for game in games:
            if not poll(lambda g=game: _moved_past(g, versions[g.pk]), timeout=15, interval=0.2):
                _fail(f"game {game.pk}'s overdue deadline was not enforced after the restart", first, second)
        print(f"overdue deadlines enforced {time.monotonic() - started:.1f} s after the worker was ready")
        for game in games:
            missed = GameEvent.objects.filter(game=game, version=versions[game.pk] + 1, type="turn_missed")
            assert missed.count() == 1
    finally:
        first.stop()
        if second is not None:
            second.stop()
