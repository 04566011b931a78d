"""The README's first command, as a newcomer runs it: ``scripts/run``, then a game on a phone.

Every other browser test serves the site against the test database (PostgreSQL in CI).
This one runs the command the README gives for a fresh machine, on its embedded
defaults: SQLite (a new file), the in-memory channel layer, the Celery worker inside the
server, the demo data it seeds. Then a demo player logs in through the log-in form on a
phone, starts practice from the lobby and plays turns against the bots, tapping the deck,
the drawn card and Discard: the player's moves and the bots' (the in-process worker's)
write to one SQLite file at once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ARTIFACTS, NOT_ON_A_FRESH_MACHINE, PHONE, serving
from tests.e2e.pages import Player, play_practice_now
from tests.tables.procs import free_port

pytestmark = [pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def run_command(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in NOT_ON_A_FRESH_MACHINE}
    # a database file of its own (not the checkout's db.sqlite3), bots that think for a moment
    env.update(
        PORT=str(port),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        BOT_THINK_MIN_MS="150",
        BOT_THINK_MAX_MS="400",
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / "scripts-run.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            ["bash", "scripts/run"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            # it installs first (already there: a few seconds)
            if not serving(url, proc, timeout=300):
                pytest.fail(f"scripts/run did not serve the site:\n{log_path.read_text()[-3000:]}")
            yield url
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def test_the_run_command_serves_a_game_a_newcomer_plays_on_a_phone(run_command: str, browser: Any) -> None:
    asha = Player(browser, run_command, "Asha", PHONE)
    page = asha.page
    # the demo login the README prints, through the log-in form
    asha.goto("/accounts/login/")
    page.fill("#id_username", "asha")
    page.fill("#id_password", "rummy-asha-2026")
    page.tap("#login-form button[type=submit]")
    page.wait_for_selector("#practice-start")
    play_practice_now(page, "101", 3)
    page.wait_for_selector("#groups .card", timeout=30_000)
    assert len(asha.hand()) == 13

    played, deadline = 0, time.monotonic() + 120
    while played < 3:
        assert time.monotonic() < deadline, f"{played} turns in 120 s; view {asha.view()}"
        if asha.my_turn():
            asha.play_a_turn()
            played += 1
        else:
            page.wait_for_timeout(150)
    view = asha.view()
    assert view is not None and view["phase"] == "playing" and len(asha.hand()) == 13, view
    # the bots (the in-process worker) played between her turns, each discard reaching her page;
    # a bot may have dropped a hopeless hand at its first turn, as a person would
    events = [e for f in asha.frames for e in f.get("events") or [] if e.get("seat") != view["seat"]]
    bot_discards = [e for e in events if e["type"] == "discard" and not e["auto"]]
    bots_playing = 2 - len({e["seat"] for e in events if e["type"] == "drop"})
    assert len(bot_discards) >= bots_playing * (played - 1) and bots_playing >= 1, events
    asha.shot("scripts-run-phone")
    asha.assert_clean()
    asha.close()
