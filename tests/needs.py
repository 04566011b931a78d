"""What a test needs of the machine: in CI a missing server fails the test, elsewhere it skips it."""

from __future__ import annotations

import os

import pytest

#: The suite runs in CI (``CI=true``): PostgreSQL, Redis and the browser must be there.
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing(what: str, why: str) -> None:
    """Fail in CI, skip elsewhere: ``what`` (a server, a program) is not available, ``why``."""
    if IN_CI:
        pytest.fail(f"{what} is required in CI and is not available: {why}")
    pytest.skip(f"{what} not available: {why}")
