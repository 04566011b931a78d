"""The admin as each staff role sees it, for the tests of bounded admin pages."""

from __future__ import annotations

import re
from html import unescape

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from tables.models import GameEvent, PoolGame, Table, TableSettings
from tests.staff.conftest import make_staff

#: A statement row's three amounts (change, balance after, and the third number column).
NUMS = r'<td class="num">([^<]*)</td><td class="num">([^<]*)</td>\s*<td class="num">([^<]*)</td>'
ROLES = ("superuser", "Support agent", "Game integrity", "Administrator")


def staff_clients() -> dict[str, Client]:
    out = {}
    for role in ROLES:
        if role == "superuser":
            user = User.objects.create_superuser("root", email="root@example.com", password="x-root-2026")
        else:
            user = make_staff(role.lower().replace(" ", "-"), role)
        client = Client()
        client.force_login(user)
        out[role] = client
    return out


def game_with_events(n: int) -> PoolGame:
    game = PoolGame.objects.create(
        table=Table.objects.create(settings=TableSettings.objects.create(name="s", entry_fee=0), name="t")
    )
    GameEvent.objects.bulk_create(
        GameEvent(game=game, version=i, seq=i, type="drew" if i % 2 else "discarded") for i in range(n)
    )
    return game


def anchor_href(page: str, anchor: str) -> str | None:
    found = re.search(rf'<a href="([^"]*)"[^>]*id="{anchor}"', page)
    return unescape(found.group(1)) if found else None


def load_with_queries(client: Client, url: str) -> tuple[str, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode(), [q["sql"] for q in captured.captured_queries]
