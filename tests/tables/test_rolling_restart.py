"""An upgrade's rolling restart during play: every Daphne, the worker and beat, one at a time.

Two Daphnes share a Redis of the test's own (the channel layer and the broker) and the test
database; games are played by real sockets, each table's two players on different Daphnes.
As docs/operations.md ("Upgrades") tells an operator, each process is stopped gracefully
(SIGTERM) and started again before the next one goes: a Daphne's players reconnect to the
other; the worker's timers come back with it. Then every game must finish with no move lost
(each acknowledged move in the event log, no version applied twice), no chip lost (the ledger
clean, every wallet what the results say) and no missed turn charged to anyone: every player
acts within a second of being shown the turn, and a reconnection costs a second or two of a
20 s turn, so a ``turn_missed`` could only be a turn the player never saw.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from django.db import connection

from tables import services
from tables.models import GameEvent, PoolGame
from tests.helpers import session_cookie
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import PRODUCTION, Proc, start_beat, start_daphne, start_worker
from tests.tables.socketbots import Bot, acked_missing, charged_behind, failure_report
from tests.waiting import poll
from wallet.audit import check_ledger
from wallet.selectors import wallet_balance

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
]

TABLES = 2
GAMES_SECONDS = 240.0
FEE = 1_000
TABLE = {"seats": 2, "fee": FEE, "turn_seconds": 20, "extra_time_seconds": 0, "pause_seconds": 1}


def test_a_rolling_restart_of_every_daphne_the_worker_and_beat_loses_no_move_chip_or_turn(
    redis_db: str,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    procs: dict[str, Proc] = {}
    log: list[str] = []
    done_at: list[float] = []
    try:
        procs["worker"] = start_worker(redis_db, tmp_path, beat=False)
        procs["beat"] = start_beat(redis_db, tmp_path, sweep_seconds=2)
        procs["daphne-a"], port_a = start_daphne(redis_db, name="daphne-a", **PRODUCTION)
        procs["daphne-b"], port_b = start_daphne(redis_db, name="daphne-b", **PRODUCTION)
        ports = [port_a, port_b]

        games: list[PoolGame] = []
        seated: list[tuple[Bot, int, int]] = []  # (bot, table id, index of its first Daphne)
        bot_of: dict[int, Bot] = {}
        game_of: dict[str, PoolGame] = {}
        for i in range(TABLES):
            table = make_table("101", seed=110 + i, **TABLE)
            dropper, player = make_player(f"drop{i}"), make_player(f"play{i}")
            services.table_join(table_id=table.pk, user=dropper)
            services.table_join(table_id=table.pk, user=player)
            game = table.games.get()
            games.append(game)
            for first, (user, strategy) in enumerate(((dropper, "drop"), (player, "play"))):
                bot = Bot(
                    user.username, session_cookie(user), strategy, may_drop=lambda: bool(done_at), resume=True
                )
                seated.append((bot, table.pk, first))
                bot_of[user.pk] = bot
                game_of[bot.name] = game

        def events() -> int:
            return GameEvent.objects.filter(game__in=games).count()

        def restart_one(name: str) -> None:
            """Stop one process gracefully, then start it again, as ``systemctl restart`` does."""
            stopped = time.monotonic()
            procs[name].stop()
            log.append(f"{name} stopped in {time.monotonic() - stopped:.1f} s")
            again = f"{name}-again"
            if name == "worker":
                procs[name] = start_worker(redis_db, tmp_path, name=again, beat=False)
            elif name == "beat":
                procs[name] = start_beat(redis_db, tmp_path, name=again, sweep_seconds=2)
            else:
                procs[name], port = start_daphne(redis_db, name=again, **PRODUCTION)
                ports[0 if name == "daphne-a" else 1] = port
            log.append(f"{name} back {time.monotonic() - stopped:.1f} s after its stop")

        def rolling_restart() -> None:
            try:
                for name in ("daphne-a", "daphne-b", "worker", "beat"):
                    start = events()
                    # the next restart once the games moved on, or after 30 s all the same
                    poll(lambda start=start: events() >= start + 3, timeout=30, interval=0.2)
                    restart_one(name)
                done_at.append(time.monotonic())
                log.append("restarts done")
            except Exception as exc:  # reported by the main thread
                log.append(f"rolling restart failed: {exc!r}")
            finally:
                connection.close()

        restarts = threading.Thread(target=rolling_restart, name="rolling-restart", daemon=True)

        async def play_all() -> None:
            until = time.monotonic() + GAMES_SECONDS
            await asyncio.gather(
                *(bot.play(table_id, ports, until, first=first) for bot, table_id, first in seated)
            )

        restarts.start()
        try:
            asyncio.run(play_all())
        except Exception as exc:
            pytest.fail(failure_report(exc, games, procs.values(), "restarts", log))
        restarts.join(timeout=120)
        assert "restarts done" in log, log
        # the games were still being played when the last process came back
        assert max(bot.over_at for bot, _, _ in seated) > done_at[0], log
        # every player was on a Daphne that stopped and was shown the game again on another
        assert all(len(bot.sessions) >= 2 for bot, _, _ in seated), [bot.sessions for bot, _, _ in seated]

        for game in games:
            game.refresh_from_db()
            assert game.status == PoolGame.Status.FINISHED, (game.pk, game.status)
            versions = list(GameEvent.objects.filter(game=game).values_list("version", flat=True))
            assert sorted(set(versions)) == list(range(min(versions), game.version + 1)), versions
        # no move lost
        assert acked_missing((bot, game_of[bot.name]) for bot, _, _ in seated) == []
        # no missed turn at all, so none charged to a player reconnecting or behind
        missed = list(
            GameEvent.objects.filter(game__in=games, type="turn_missed").values_list("game_id", "data")
        )
        assert missed == [], (missed, log)
        assert charged_behind(games, bot_of) == []
        # no chip lost: each table's winner has the prize, its dropper lost the fee, the house the rake
        for game in games:
            result = game.result
            assert result is not None and result["rake"] == 2 * FEE // 10, result
            prize = 2 * FEE - result["rake"]
            for seat in game.seats.select_related("user"):
                won = result["payouts"].get(str(seat.user_id), 0)
                assert won in (0, prize), result
                assert wallet_balance(user=seat.user) == 100 * 100 - FEE + won
        # the restarted worker re-armed the open games' timers when it connected
        assert procs["worker"].messages("re-armed the timers of"), procs["worker"].tail()
        print(f"rolling restart: {log}; games finished at versions {[g.version for g in games]}")
    finally:
        for proc in reversed(list(procs.values())):
            proc.stop()
    assert check_ledger() == []
