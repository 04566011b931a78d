"""What the phone benchmarks share: the issue's network profiles, the phone, and a dealt game.

Used by bench/lost_signal_bench.py and bench/page_load_bench.py (issue 41): Chromium at 375x740
(touch, scale 2) with the Chrome DevTools Protocol's throttling; ``fast3g`` is 150 ms round trip
and 1.6 Mbps down, ``slow3g`` 400 ms and 400 kbps, both with the CPU slowed 4x.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "load"))
from run import (  # noqa: E402
    flush_redis,
    reset_database,
    session_cookies,
    setup_django,
    site_env,
    start_daphnes,
    wait_for_daphnes,
)

PROFILES: dict[str, dict[str, Any] | None] = {
    "none": None,
    "fast3g": {"latency": 150, "down_kbps": 1600, "up_kbps": 750},
    "slow3g": {"latency": 400, "down_kbps": 400, "up_kbps": 400},
}
#: The CPU slowdown that goes with a throttled profile.
CPU_SLOWDOWN = 4
PHONE = {
    "viewport": {"width": 375, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


def make_game(tag: str) -> tuple[int, str, int]:
    """A dealt two-seat game at a free table with long turns: its table, the cookie of the player
    on turn, and the game's id."""
    from accounts.models import User
    from game_engine.game import GameState
    from tables.models import Table, TableSettings
    from tables.services import table_join

    kind = TableSettings.objects.create(
        name=f"signal {tag}", format="101", entry_fee=0, seats=2, turn_seconds=600, extra_time_seconds=60
    )
    table = Table.objects.create(settings=kind, name=f"signal {tag}")
    users = [User.objects.create(username=f"signal-{tag}-{i}", display_name=f"Player {i}") for i in range(2)]
    for user in users:
        table_join(table_id=table.pk, user=user)
    game = table.games.get()
    state = GameState.from_dict(game.state)
    assert state.deal is not None
    mover = next(u for u in users if str(u.pk) == state.players[state.deal.turn].id)
    return table.pk, session_cookies([mover])[mover.pk], game.pk


def network(cdp: Any, profile: dict[str, Any] | None, *, offline: bool = False) -> None:
    """The page's network as ``profile`` says (``None``: unthrottled), or offline."""
    p = profile or {"latency": 0, "down_kbps": -1, "up_kbps": -1}
    rate = lambda kbps: kbps * 1000 / 8 if kbps > 0 else -1  # noqa: E731
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": offline,
            "latency": p["latency"],
            "downloadThroughput": rate(p["down_kbps"]),
            "uploadThroughput": rate(p["up_kbps"]),
        },
    )


def throttle(cdp: Any, profile: dict[str, Any] | None) -> None:
    """The network of ``profile`` and its CPU slowdown, on the page of ``cdp``."""
    cdp.send("Network.enable")
    network(cdp, profile)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN if profile else 1})


def until(page: Any, script: str, timeout: float = 60) -> float:
    """Seconds until ``script`` is true in the page (polled every 10 ms)."""
    start = time.monotonic()
    while not page.evaluate(script):
        if time.monotonic() - start > timeout:
            raise TimeoutError(script)
        time.sleep(0.01)
    return time.monotonic() - start


def add_arguments(parser: argparse.ArgumentParser, *, db_name: str, redis_db: int) -> None:
    """The options every phone benchmark takes: profiles, browser, database and Redis."""
    parser.add_argument("--profiles", default="none,fast3g,slow3g")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379")
    parser.add_argument("--db-name", default=db_name)
    parser.add_argument("--redis-db", type=int, default=redis_db)


@contextlib.contextmanager
def served_site(
    args: argparse.Namespace,
    tags: list[str],
    env: dict[str, str],
    *,
    daphnes: int,
    tag: str,
    make: Callable[[str], Any] = make_game,
) -> Iterator[tuple[list[int], dict[str, Any]]]:
    """This checkout's site as production runs it (``DEBUG`` off after ``collectstatic``) in
    ``daphnes`` Daphnes on loopback, with a dealt game for each of ``tags``: their ports and the
    games (``make``'s, make_game's by default). A fresh database and Redis database; the Daphnes
    always stopped."""
    env = {
        **site_env(f"{args.pg}/{args.db_name}", f"{args.redis}/{args.redis_db}"),
        "DB_CONN_MAX_AGE": "0",
        "DB_POOL_SIZE": "4",
        **env,
    }
    reset_database(args.db_name, f"{args.pg}/postgres")
    flush_redis(env["REDIS_URL"])
    setup_django(env)
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    games = {name: make(name) for name in tags}
    connections.close_all()
    logdir = Path(tempfile.mkdtemp(prefix=f"{tag}-bench-"))
    procs, ports = start_daphnes(daphnes, {**os.environ, **env, "PYTHONUNBUFFERED": "1"}, logdir, tag=tag)
    try:
        wait_for_daphnes(procs, ports)
        yield ports, games
    finally:
        for proc in procs:
            proc.stop()
        shutil.rmtree(logdir, ignore_errors=True)
