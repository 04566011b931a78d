"""Staff in the Game integrity role, players, and a paid two-seat table."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from accounts.models import User
from tables.models import Table, TableSettings
from wallet.services import grant


def make_staff(username: str, group: str) -> User:
    user = User.objects.create_user(username, password="x-staff-2026", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def investigator(db: None) -> User:
    return make_staff("sleuth", "Game integrity")


@pytest.fixture
def administrator(db: None) -> User:
    return make_staff("boss", "Administrator")


@pytest.fixture
def support(db: None) -> User:
    return make_staff("helper", "Support agent")


def player(name: str, chips: int = 100_000) -> User:
    user = User.objects.create_user(name, email=f"{name}@example.com", password="x-player-2026")
    grant(user=user, amount=chips, idempotency_key=f"test-grant:{name}")
    return user


@pytest.fixture
def table(db: None) -> Table:
    kind = TableSettings.objects.create(name="Integrity 61", format="61", entry_fee=1_000, seats=3)
    return Table.objects.create(settings=kind, name="Integrity table")
