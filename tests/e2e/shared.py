"""The browser tests' server, as the rest of the suite sees it: stopped before any other test.

Each xdist worker keeps one Daphne for its browser tests (``tests/e2e/conftest.py``). It runs the
embedded Celery worker and beat on the worker's test database, whose sweep enforces every overdue
deadline there: left running, it moved the games of the tests that came after (a turn timer test
saw its deadline enforced with no worker up). So ``tests/conftest.py`` stops it before any test
that does not use it.
"""

from __future__ import annotations

from collections.abc import Callable

#: How to stop the server (once made for this worker; stopping one that is not running does nothing).
STOP: list[Callable[[], None]] = []


def stop() -> None:
    for stop_server in STOP:
        stop_server()
