"""Fixtures for the ledger tests: players, staff, and wallets funded through the real services."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from accounts.models import BonusMailbox, User
from wallet import services

_seq = itertools.count(1)


@pytest.fixture
def make_user(db: None) -> Callable[..., User]:
    def make(username: str | None = None, **extra: object) -> User:
        return User.objects.create_user(
            username=username or f"player{next(_seq)}", password="pw-123456789", **extra
        )

    return make


def earned_mailbox_bonus(user: User) -> User:
    """Record that ``user`` earned their mailbox's sign-up bonus (as migration accounts 0009 does for
    the accounts made before confirmation): daily chips follow it (``wallet.services``)."""
    BonusMailbox.objects.create(key=f"{user.username}@example.com", user=user)
    return user


@pytest.fixture
def player(make_user: Callable[..., User]) -> User:
    return make_user("alice")


@pytest.fixture
def other_player(make_user: Callable[..., User]) -> User:
    return make_user("bob")


@pytest.fixture
def staff(make_user: Callable[..., User]) -> User:
    return make_user("staffer", is_staff=True, is_superuser=True)


@pytest.fixture
def fund() -> Callable[[User, int], None]:
    """Give a player exactly ``amount`` paise via a staff-style grant."""

    def do(user: User, amount: int) -> None:
        services.grant(user=user, amount=amount, idempotency_key=f"test-fund:{user.pk}:{next(_seq)}")

    return do
