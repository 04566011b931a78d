"""Staff users in the two roles the data migration creates."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from accounts.models import User


def make_staff(username: str, group: str) -> User:
    user = User.objects.create_user(username, password="x-staff-2026", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def administrator(db: None) -> User:
    return make_staff("boss", "Administrator")


@pytest.fixture
def support(db: None) -> User:
    return make_staff("helper", "Support agent")


@pytest.fixture
def client_for() -> Callable[[User], Client]:
    def make(user: User) -> Client:
        client = Client()
        client.force_login(user)
        return client

    return make
