"""The ``servers`` mark and the fast lane (``scripts/test --fast``), as pytest's own collection sees them.

The collections run in child processes, so the split cannot rot unseen: a browser test or a test
that starts a Daphne left unmarked, an in-process test marked, or a lane that runs another kind of
test or a ``slow`` one fails here. The helpers below are named by strings, so that no test here
reaches a server itself.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import lanes

ROOT = Path(__file__).resolve().parents[2]
BROWSER = "tests/e2e/test_site_pages.py"
REGISTRY = "tests/tables/test_socket_registry.py"
#: Starts two Daphnes and a redis-server through a ``contextmanager`` helper of its module.
SERVERS = f"{REGISTRY}::test_a_player_on_a_killed_server_is_away_at_the_table_once_their_socket_expires"
#: The same module's test of the process's own cap, in-process.
IN_PROCESS = f"{REGISTRY}::test_with_redis_unreachable_the_processs_own_cap_decides_and_the_count_is_local"
ITSELF = "tests/foundation/test_lanes.py"
SERVICES = "tests/tables/test_services.py"
ARRANGE = "tests/game_engine/test_arrange.py"
#: Marked ``slow``, in a module of the fast lane.
SLOW = f"{ARRANGE}::test_thousands_of_seeded_deals_match_reference"
#: Runs the engine's CLI to its end (``subprocess.run``), which is no server.
COMMAND = "tests/game_engine/test_cli.py::test_cli_score_valid_hand"


def _collected(*args: str) -> set[str]:
    """The tests ``pytest --co`` with ``args`` collects, in a child process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}  # not this run's worker
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return {line for line in done.stdout.splitlines() if "::" in line}


def _defined(test: str) -> bool:
    path, name = test.split("::")
    return f"def {name}(" in (ROOT / path).read_text()


def test_browser_and_server_tests_are_marked_and_in_process_ones_are_not() -> None:
    assert "\ndef test_" in (ROOT / BROWSER).read_text()
    assert _defined(SERVERS) and _defined(IN_PROCESS)
    unmarked = _collected("-m", f"not {lanes.MARK}", BROWSER, REGISTRY, ITSELF)
    assert not any(test.startswith(BROWSER) for test in unmarked)
    assert SERVERS not in unmarked
    assert IN_PROCESS in unmarked
    # this module calls tests/lanes.py, which names Popen to look for it and starts nothing
    assert (
        f"{ITSELF}::{test_a_helper_reaches_a_server_process_only_through_one_that_starts_it.__name__}[start_daphne-True]"
        in unmarked
    )


def test_the_fast_lane_is_the_fast_kinds_less_the_slow_and_server_tests() -> None:
    assert _defined(SLOW) and _defined(COMMAND)
    fast = _collected("--fast", BROWSER, REGISTRY, SERVICES, ARRANGE, COMMAND.split("::")[0])
    assert {path.split("::")[0] for path in fast} == {SERVICES, ARRANGE, COMMAND.split("::")[0]}
    assert SLOW not in fast
    assert COMMAND in fast
    assert f"{ARRANGE}::test_empty_and_tiny_hands" in fast


@pytest.mark.parametrize(
    ("name", "starts"),
    [
        ("start_daphne", True),  # through Proc, which opens subprocess.Popen
        ("start_redis_server", True),
        ("start_worker", True),
        ("private_redis", False),  # a helper a decorator wraps, which starts nothing
        ("free_port", False),
        ("open_socket", False),  # a socket to a server, not a server
    ],
)
def test_a_helper_reaches_a_server_process_only_through_one_that_starts_it(name: str, starts: bool) -> None:
    helper = vars(importlib.import_module("tests.tables.procs"))[name]
    assert lanes.Reach()(helper) is starts
