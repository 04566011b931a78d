"""Fixtures for the live tables: a movable clock, funded players and tables."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from tables import clock as table_clock
from tables.models import Table, TableSettings
from wallet.services import grant


class FakeClock:
    """Real time plus an offset the test moves forward; the engine sees time only through it."""

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def now(self) -> datetime:
        return timezone.now() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += timedelta(seconds=seconds)


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
