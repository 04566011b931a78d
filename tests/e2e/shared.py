"""What the browser tests keep from one test to the next, as the rest of the suite sees it: stopped
before any test that does not use it.

Each xdist worker keeps one Daphne for its browser tests and one Chromium (``tests/e2e/conftest.py``).

- The Daphne runs the embedded Celery worker and beat on the worker's test database, whose sweep
  enforces every overdue deadline there: left running, it moved the games of the tests that came
  after (a turn timer test saw its deadline enforced with no worker up).
- Playwright's sync API marks its event loop as running in this thread between its calls, which
  Django's and asgiref's guards against blocking calls in an event loop then refuse.

So ``tests/conftest.py`` stops each before any test that does not ask for its fixture.
"""

from __future__ import annotations

from collections.abc import Callable

#: The fixture a kept thing serves, and how to stop it (stopping one that is not running does nothing).
STOP: list[tuple[str, Callable[[], None]]] = []


def stop_unless_used(fixtures: list[str]) -> None:
    """Stop what this worker keeps for the browser tests, but what the test's ``fixtures`` use."""
    for fixture, stop in STOP:
        if fixture not in fixtures:
            stop()
