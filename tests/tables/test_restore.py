"""A backup taken during a game, restored into a fresh database with an empty Redis: the game goes on.

The site (a Daphne and a worker on a Redis of the test's own) runs a game that two players
play over real sockets. Mid-game, ``pg_dump`` backs the database up as docs/operations.md
("Backup and restore") tells an operator to, while the players go on moving; then the site
dies. The steps of the docs' restore follow: a new database, ``pg_restore``, an emptied Redis
(another database number), ``migrate --check``, ``check_ledger``, the worker, then the
Daphne. The worker alone (no beat, nothing in Redis) must enforce the deadline the backup
holds, and move the practice bot whose turn the backup holds: its start re-armed the timers
and the bots' moves. The players come back with the version they last saw,
ahead of the restored game (the moves after the backup are lost by design): each is shown
the restored game and plays it to the end; the ledger is clean.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection

from game_engine.game import GameState
from tables import services
from tables.game import practice
from tables.models import GameEvent, PoolGame
from tests.helpers import session_cookie
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import (
    BIN,
    PRODUCTION,
    ROOT,
    Proc,
    child_database_url,
    child_env,
    flush_redis,
    private_redis,
    start_daphne,
    start_worker,
)
from tests.tables.socketbots import Bot
from tests.waiting import eventually, poll

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
]

FEE = 1_000
#: Turns short enough that the deadline the backup holds passes while the site is down.
TABLE = {"seats": 2, "fee": FEE, "turn_seconds": 6, "extra_time_seconds": 0, "pause_seconds": 1}
#: A practice table: a person who moves at once, a bot whose move the first site never makes.
PRACTICE = {"seats": 2, "fee": 0, "practice": True, "bot_wait_seconds": 1, "turn_seconds": 90}
#: The first site's bots think for ten minutes: the backup holds a bot due to move.
SLOW_BOTS = {"BOT_THINK_MIN_MS": "600000", "BOT_THINK_MAX_MS": "600000"}
WAIT = 40.0


def _run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A command of the docs' steps; fails the test with its output if it fails."""
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, (
        f"{args[0]} {args[1:3]} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    )
    return done


@contextlib.contextmanager
def fresh_database(name: str) -> Iterator[str]:
    """A new, empty database on the test server: its URL; dropped afterwards, its sessions ended."""
    s = connection.settings_dict
    env = {**os.environ, "PGPASSWORD": s.get("PASSWORD") or ""}
    server = ["--host", s.get("HOST") or "127.0.0.1", "--port", str(s.get("PORT") or 5432)]
    server += ["--username", s.get("USER") or "postgres"]
    subprocess.run(
        ["dropdb", *server, "--if-exists", "--force", name], env=env, capture_output=True, check=False
    )
    _run(["createdb", *server, name], env)
    try:
        yield child_database_url().rsplit("/", 1)[0] + f"/{name}"
    finally:
        subprocess.run(
            ["dropdb", *server, "--if-exists", "--force", name], env=env, capture_output=True, check=False
        )


def _game_row(url: str, game_id: int) -> tuple[str, int, Any]:
    with psycopg.connect(url, connect_timeout=5) as db:
        row = db.execute(
            "SELECT status, version, result FROM tables_poolgame WHERE id = %s", [game_id]
        ).fetchone()
    assert row is not None
    return row[0], row[1], row[2]


def _events(url: str, game_id: int) -> list[tuple[int, str, Any]]:
    with psycopg.connect(url, connect_timeout=5) as db:
        return db.execute(
            "SELECT version, type, data FROM tables_gameevent WHERE game_id = %s ORDER BY seq", [game_id]
        ).fetchall()


def test_a_backup_taken_mid_game_restores_into_a_fresh_database_and_empty_redis_and_the_game_goes_on(
    redis_db: str,  # noqa: F811 (the fixture)
    require_redis: str,
    tmp_path: Path,
) -> None:
    procs: list[Proc] = []
    dump = tmp_path / "rummy.dump"
    try:
        procs.append(start_worker(redis_db, tmp_path, name="worker", beat=False, **SLOW_BOTS))
        daphne, port = start_daphne(redis_db, name="daphne", **PRODUCTION, **SLOW_BOTS)
        procs.append(daphne)
        table = make_table("101", seed=130, **TABLE)
        dropper, player = make_player("dropper"), make_player("player")
        services.table_join(table_id=table.pk, user=dropper)
        services.table_join(table_id=table.pk, user=player)
        game = table.games.get()
        practice_table = make_table("101", seed=131, **PRACTICE)
        learner = make_player("learner")
        services.table_join(table_id=practice_table.pk, user=learner)
        practice_game = practice_table.games.get()
        restored_play: list[bool] = []
        bots = [
            Bot(
                "dropper", session_cookie(dropper), "drop", may_drop=lambda: bool(restored_play), resume=True
            ),
            Bot("player", session_cookie(player), "play", resume=True),
        ]
        ports = [port]
        learning = Bot("learner", session_cookie(learner), "play")

        def bot_due() -> bool:
            try:
                row = PoolGame.objects.values_list("status", "state", "bot_seats").get(pk=practice_game.pk)
            finally:
                connection.close()
            return row[0] == PoolGame.Status.RUNNING and bool(
                practice.seats_to_act(GameState.from_dict(row[1]), row[2])
            )

        def version() -> int:
            try:
                return PoolGame.objects.values_list("version", flat=True).get(pk=game.pk)
            finally:
                connection.close()

        def backup() -> None:  # the docs' nightly backup, of the live database
            _run(["pg_dump", "--format=custom", f"--file={dump}", child_database_url()])

        async def until_version(at_least: int) -> None:
            async def reached() -> bool:
                return await asyncio.to_thread(version) >= at_least

            await eventually(reached, f"the game to reach version {at_least}", WAIT, 0.2)

        async def before_the_crash() -> int:
            until = time.monotonic() + 120
            playing = [asyncio.create_task(bot.play(table.pk, ports, until)) for bot in bots]
            playing.append(asyncio.create_task(learning.play(practice_table.pk, ports, until)))
            try:
                await until_version(game.version + 6)
                await eventually(
                    lambda: asyncio.to_thread(bot_due), "the practice bot's turn to act", WAIT, 0.2
                )
                await asyncio.to_thread(backup)  # the players go on meanwhile
                after = await asyncio.to_thread(version)
                await until_version(after + 4)  # moves the backup does not hold
                return await asyncio.to_thread(version)
            finally:
                for task in playing:
                    task.cancel()
                await asyncio.gather(*playing, return_exceptions=True)

        try:
            crashed_at = asyncio.run(before_the_crash())
        except Exception as exc:
            pytest.fail(f"{exc!r}\n" + "\n".join(p.tail(30) for p in procs))
        for proc in procs:  # the site is lost
            proc.kill()
        procs.clear()
        shown_before = {bot.name: bot.last_shown() for bot in bots}

        with (
            fresh_database(f"{connection.settings_dict['NAME']}_restored") as restored,
            private_redis(require_redis) as new_redis,
        ):
            # the docs' restore: the dump into the new database, an empty Redis, the checks
            _run(["pg_restore", "--exit-on-error", "--no-password", f"--dbname={restored}", str(dump)])
            _, practice_backed_up, _ = _game_row(restored, practice_game.pk)
            flush_redis(new_redis)
            env = child_env(new_redis, DATABASE_URL=restored)
            _run([str(BIN / "python"), "manage.py", "migrate", "--check"], env)
            ledger = _run([str(BIN / "python"), "manage.py", "check_ledger"], env)
            assert "ledger OK" in ledger.stdout, ledger.stdout
            status, backed_up, _ = _game_row(restored, game.pk)
            assert status == PoolGame.Status.RUNNING and game.version + 6 <= backed_up < crashed_at
            # the backup is the log as it was: every event up to its version, none after
            original = list(GameEvent.objects.filter(game=game).values_list("version", "type", "data"))
            assert _events(restored, game.pk) == [e for e in original if e[0] <= backed_up]

            # the worker, alone on the empty Redis (no beat, no Daphne): it re-arms the game's timer
            worker = start_worker(
                new_redis, tmp_path, name="worker-restored", beat=False, DATABASE_URL=restored
            )
            procs.append(worker)
            assert worker.wait_for("re-armed the timers of 2 games", timeout=WAIT), worker.tail()
            assert worker.wait_for("re-armed the moves of 1 bots", timeout=WAIT), worker.tail()
            if not poll(lambda: _game_row(restored, game.pk)[1] > backed_up, timeout=WAIT, interval=0.2):
                pytest.fail("the restored game's deadline was never enforced\n" + worker.tail())
            kinds = [kind for v, kind, _ in _events(restored, game.pk) if v == backed_up + 1]
            assert "turn_missed" in kinds, kinds  # its clock ran out while the site was down
            # the bot due in the backup moved (its turn's 90 s had not run out): the re-armed move
            if not poll(lambda: _game_row(restored, practice_game.pk)[1] > practice_backed_up, WAIT, 0.2):
                pytest.fail("the practice bot never moved after the restore\n" + worker.tail())
            moved = [
                kind for v, kind, _ in _events(restored, practice_game.pk) if v == practice_backed_up + 1
            ]
            assert "draw" in moved, moved

            daphne, port = start_daphne(
                new_redis, name="daphne-restored", DATABASE_URL=restored, **PRODUCTION
            )
            procs.append(daphne)
            ports[0] = port
            restored_play.append(True)

            async def after_the_restore() -> None:
                until = time.monotonic() + 120
                await asyncio.gather(*(bot.play(table.pk, ports, until) for bot in bots))

            try:
                asyncio.run(after_the_restore())
            except Exception as exc:
                pytest.fail(f"{exc!r}\n" + "\n".join(p.tail(30) for p in procs))

            for bot in bots:
                # back with a version ahead of the restored game's, each was shown the restored game
                first = bot.firsts[-1]
                assert first["type"] == "snapshot" and first["version"] < shown_before[bot.name], (
                    first["version"],
                    shown_before,
                )
                assert bot.over, bot.name
            status, finished_at, result = _game_row(restored, game.pk)
            assert status == PoolGame.Status.FINISHED, status
            assert result["winner"] == str(player.pk) and result["payouts"][str(player.pk)] == 2 * FEE - 200
            ledger = _run([str(BIN / "python"), "manage.py", "check_ledger"], env)
            assert "ledger OK" in ledger.stdout, ledger.stdout
            for proc in procs:
                proc.stop()
            print(
                f"backed up at v{backed_up}, crashed at v{crashed_at} (lost {crashed_at - backed_up} versions), "
                f"restored game finished at v{finished_at}"
            )
    finally:
        for proc in reversed(procs):
            proc.stop()
