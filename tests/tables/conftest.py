"""Fixtures for the live tables: a movable clock, funded players and tables."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from accounts.models import User
from tables import clock as table_clock
from tables.clock import OffsetClock
from tables.models import Table, TableSettings
from tests.tables.procs import point_celery_at, private_redis
from wallet.services import grant

FakeClock = OffsetClock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(table_clock, "now", fake.now)
    return fake


def make_player(username: str, chips: int = 100) -> User:
    user = User.objects.create_user(username, password="x-rummy-2026", display_name=username.title())
    if chips:
        grant(user=user, amount=chips * 100, idempotency_key=f"test-grant:{username}")
    return user


def make_table(
    fmt: str = "101", *, fee: int = 1_000, seats: int = 3, seed: int | None = None, **extra: Any
) -> Table:
    settings = TableSettings.objects.create(
        name=f"{fmt} test {TableSettings.objects.count() + 1}",
        format=fmt,
        entry_fee=fee,
        seats=seats,
        **extra,
    )
    return Table.objects.create(settings=settings, name=settings.name)


@pytest.fixture
def player() -> Callable[..., User]:
    return make_player


@pytest.fixture
def table() -> Callable[..., Table]:
    return make_table


@pytest.fixture
def redis_db(require_postgres: None, require_redis: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A private Redis database: the channel layer, the broker and beat of this test's servers."""
    with private_redis(require_redis) as url:
        point_celery_at(url, monkeypatch)  # the joins schedule the first turn timer on this Redis too
        yield url
