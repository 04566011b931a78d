"""A real Prometheus scrapes a real Daphne, Celery worker and beat while a practice game is played.

The worker runs its tasks in a prefork child (as in production), so its endpoint serves what
that child recorded only through multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``). The player
plays turns over a real socket while the bot's moves run on the worker; Prometheus, scraping
every second with the project's alert rules loaded, must then see the table socket open, the
player's actions, the notices and the bot's tasks counted, beat's sends, and every target up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import time
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tables.game.seating import practice_table_start
from tests.helpers import session_cookie
from tests.needs import missing
from tests.tables.conftest import make_player
from tests.tables.procs import (
    ROOT,
    Proc,
    free_ports,
    open_socket,
    start_beat,
    start_daphne,
    start_worker,
)
from tests.tables.turns import Turns
from tests.waiting import eventually, poll, wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
]

TURNS = 3


def _prometheus_binary() -> str:
    found = shutil.which("prometheus")
    if found is None:
        missing("prometheus", "install Debian's prometheus package (scripts/test does)")
    return str(found)


def _start_prometheus(workdir: Path, port: int, targets: dict[str, int]) -> Proc:
    workdir.mkdir()
    rules = workdir / "alerts.yml"
    shutil.copy(ROOT / "deploy" / "prometheus" / "alerts.yml", rules)
    jobs = "".join(
        f"  - job_name: {job}\n    static_configs:\n      - targets: ['127.0.0.1:{target}']\n"
        for job, target in targets.items()
    )
    config = workdir / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        f"rule_files:\n  - {rules}\nscrape_configs:\n{jobs}"
    )
    proc = Proc(
        "prometheus",
        [
            _prometheus_binary(),
            f"--config.file={config}",
            f"--storage.tsdb.path={workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--log.level=warn",
        ],
        {"PATH": "/usr/bin:/bin"},
    )

    def ready() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=1) as answer:
                return bool(answer.status == 200)
        except OSError:
            return not proc.alive()

    if not poll(ready, timeout=30, interval=0.2) or not proc.alive():
        tail = proc.tail()
        proc.stop()
        raise AssertionError(f"Prometheus did not start\n{tail}")
    return proc


def _query(port: int, expr: str) -> dict[str, float]:
    """``expr`` evaluated now by Prometheus: each series' ``job`` label ("" without one) -> value."""
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=5) as answer:
        body = json.load(answer)
    assert body["status"] == "success", body
    return {r["metric"].get("job", ""): float(r["value"][1]) for r in body["data"]["result"]}


def _total(port: int, expr: str) -> float:
    return sum(_query(port, f"sum({expr})").values())


async def _play_turns(
    port: int, cookie: str, table_id: int, turns: int, hold: Callable[[], Awaitable[None]]
) -> int:
    """Draw and discard on the player's turns until ``turns`` were played; the actions sent.

    The player decides from the newest view once its last action is answered (``Turns``); the
    socket closes once ``hold`` returns.
    """
    ws = await open_socket(port, cookie, f"/ws/tables/{table_id}/")
    player, played = Turns("p"), 0
    seen: list[str] = []  # what came, for the message of a test that waited in vain
    end = time.monotonic() + 90  # a worker starved by a loaded machine moves its bot late
    try:
        while played < turns:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, end - time.monotonic()))
            except TimeoutError:
                raise AssertionError(
                    f"{played} of {turns} turns played; the last messages: {seen[-6:]}"
                ) from None
            message = json.loads(raw)
            kind = message.get("type")
            answered = player.take(message)
            assert answered is None or answered["ok"], answered
            if kind != "pong":
                shown = (player.latest or {}).get("view") or {}
                seen.append(
                    f"{kind} v{message.get('version')} {shown.get('deal_phase')} turn {shown.get('turn')}"
                )
            view = player.view()
            if view is None or view.get("deal_phase") != "turn" or view.get("turn") != view.get("seat"):
                continue
            if view["has_drawn"]:
                action: dict[str, Any] = {"type": "discard", "card": view["drawn_card"]}
                played += 1
            else:
                action = {"type": "draw", "source": "closed"}
            await ws.send(player.act(action))
        # the last result, and the bot's answer to it, before the socket closes
        while player.pending is not None:
            player.take(
                json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.1, end - time.monotonic())))
            )
        await hold()
        return player.sent
    finally:
        await ws.close()


def test_prometheus_sees_the_metrics_of_daphne_worker_and_beat_move_when_a_game_is_played(
    redis_db: str, tmp_path: Path
) -> None:
    worker_port, beat_port, prometheus_port = free_ports(3)
    quick_bots = {"BOT_THINK_MIN_MS": "100", "BOT_THINK_MAX_MS": "200"}
    worker_metrics = tmp_path / "worker-metrics"  # the unit's own, empty at its start
    worker_metrics.mkdir()
    procs: list[Proc] = []
    try:
        with ThreadPoolExecutor(3) as starting:  # their start-ups (Django's, mostly) side by side
            worker = starting.submit(
                start_worker,
                redis_db,
                tmp_path,
                beat=False,
                pool="prefork",
                METRICS_PORT=str(worker_port),
                PROMETHEUS_MULTIPROC_DIR=str(worker_metrics.resolve()),
                **quick_bots,
            )
            beat = starting.submit(start_beat, redis_db, tmp_path, METRICS_PORT=str(beat_port))
            daphne = starting.submit(start_daphne, redis_db, **quick_bots)
            for started in (worker, beat, daphne):
                with contextlib.suppress(Exception):  # raised again below, once every one is in procs
                    result = started.result()
                    procs.append(result[0] if isinstance(result, tuple) else result)
        for started in (worker, beat, daphne):
            started.result()  # a start that failed fails the test here, its output printed below
        daphne_port = daphne.result()[1]
        procs.append(
            _start_prometheus(
                tmp_path / "prometheus",
                prometheus_port,
                {"rummy-daphne": daphne_port, "rummy-worker": worker_port, "rummy-beat": beat_port},
            )
        )

        def q(expr: str) -> dict[str, float]:
            return _query(prometheus_port, expr)

        def total(expr: str) -> float:
            return _total(prometheus_port, expr)

        every_job_up = {"rummy-beat": 1.0, "rummy-daphne": 1.0, "rummy-worker": 1.0}
        wait_until(
            lambda: q("up") == every_job_up, "every job up", timeout=20, interval=0.5, detail=lambda: q("up")
        )
        assert total("rummy_table_action_duration_seconds_count") == 0  # nothing played yet
        assert total('rummy_celery_task_duration_seconds_count{task="tables.tasks.bot_move"}') == 0

        player = make_player("watched")
        table = practice_table_start(user=player, fmt="101", seats=2)
        cookie = session_cookie(player)

        def both_open() -> bool:
            return all(total(f'rummy_sockets_open{{kind="{kind}"}}') == 1 for kind in ("table", "lobby"))

        async def scraped_open() -> None:
            """Until Prometheus has scraped both pages open."""
            await eventually(
                lambda: asyncio.to_thread(both_open),
                "both pages scraped open",
                within=15,
                interval=0.5,
                detail=lambda: q("rummy_sockets_open"),
            )

        async def play() -> int:
            lobby = await open_socket(daphne_port, cookie, "/ws/lobby/")  # a lobby page open meanwhile
            try:
                return await _play_turns(daphne_port, cookie, table.pk, TURNS, scraped_open)
            finally:
                await lobby.close()

        sent = asyncio.run(play())
        assert sent == 2 * TURNS  # a draw and a discard a turn

        def seen() -> bool:
            return (
                total('rummy_table_action_duration_seconds_count{job="rummy-daphne", outcome="ok"}') == sent
                and total('rummy_table_action_duration_seconds_count{action="discard"}') == TURNS
                and total(
                    'rummy_celery_task_duration_seconds_count{job="rummy-worker", task="tables.tasks.bot_move"}'
                )
                >= TURNS
            )

        wait_until(
            seen,
            "every move and bot move scraped",
            timeout=15,
            interval=0.5,
            detail=lambda: q("rummy_table_action_duration_seconds_count"),
        )
        # the game's notices, on the Daphne
        assert total('rummy_notices_sent_total{job="rummy-daphne", type="table.changed"}') >= sent
        assert total("rummy_table_updates_rebuilt_total") == 0  # every notice came, in order
        # both pages were seen open, and are closed again
        assert total('max_over_time(rummy_sockets_open{kind="table"}[1m])') == 1
        assert total('max_over_time(rummy_sockets_open{kind="lobby"}[1m])') == 1
        wait_until(
            lambda: total("rummy_sockets_open") == 0, "both pages scraped closed", timeout=10, interval=0.5
        )
        # the bot's moves ran in the worker's prefork child: how late each started after it was due
        assert total('rummy_celery_task_delay_seconds_count{task="tables.tasks.bot_move"}') >= TURNS
        # beat sent its sweeps and the worker ran them; the worker's heartbeat is fresh
        assert (
            total('rummy_celery_tasks_sent_total{job="rummy-beat", task="tables.tasks.sweep_deadlines"}') > 0
        )
        assert total('rummy_celery_task_duration_seconds_count{task="tables.tasks.sweep_deadlines"}') > 0
        assert total("rummy_worker_heartbeat_age_seconds") < 30
        # the gauges read from the database at each scrape: nothing overdue or stuck, no ledger check yet
        assert total("rummy_timers_overdue") == 0 and total("rummy_games_stuck") == 0
        assert total("rummy_ledger_check_ok") == 0
        assert total('rummy_http_request_duration_seconds_count{view="metrics"}') > 0
        # the rules loaded; none of the alerts a healthy site playing a game must not raise fires
        with urllib.request.urlopen(
            f"http://127.0.0.1:{prometheus_port}/api/v1/rules?type=alert", timeout=5
        ) as r:
            loaded = [rule["name"] for group in json.load(r)["data"]["groups"] for rule in group["rules"]]
        assert "RummyTimersOverdue" in loaded and len(loaded) >= 10
        firing = q('count by (alertname) (ALERTS{alertstate="firing"})')
        for alert in ("RummySiteDown", "RummyWorkerSilent", "RummyTimersOverdue", "RummyGamesStuck"):
            assert not q(f'ALERTS{{alertname="{alert}", alertstate="firing"}}'), firing
    except BaseException:
        for proc in procs:
            print(proc.tail(40))
        raise
    finally:
        for proc in reversed(procs):
            proc.stop()
