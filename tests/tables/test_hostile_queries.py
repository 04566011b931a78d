"""Hostile query strings on every page and API a player or staff member can open: never a 500.

A hostile client adds what it likes to any address: a NUL byte (which PostgreSQL refuses in
a string), digits no integer holds, digits that are not ASCII, quotes. Each page must answer
it as bad input (ignored, an empty list, a 400 or a 404), never a server error, on the
database production runs on; a NUL is refused with a 400 before any view
(``rummy_site.nul_bytes``).
"""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from tables.models import Deal
from tests.tables.conftest import FakeClock, make_player
from tests.tables.scenarios import three_player_game

pytestmark = pytest.mark.django_db

VALUES = ["\x00", "--5", "²", "9" * 5000, "' OR 1=1--", "99999999999999999999"]
PARAMS = ["format", "status", "min_fee", "max_fee", "ids", "page", "next", "turn", "deal"]


@pytest.mark.slow  # every page with every hostile string
def test_hostile_query_strings_get_no_server_error(clock: FakeClock) -> None:
    game, users, _ = three_player_game(clock)
    deal = Deal.objects.filter(game=game).first()
    assert deal is not None
    player = Client(raise_request_exception=False)
    player.force_login(next(iter(users.values())))
    boss = make_player("boss")
    User.objects.filter(pk=boss.pk).update(is_staff=True, is_superuser=True)
    staff = Client(raise_request_exception=False)
    staff.force_login(boss)
    pages = [
        "/",
        f"/tables/{game.table_id}/",
        "/history/",
        f"/history/games/{game.pk}/",
        f"/history/deals/{deal.pk}/",
        "/api/tables/",
        f"/api/tables/{game.table_id}/",
        "/api/history/deals/",
        f"/api/history/deals/{deal.pk}/",
        f"/api/history/games/{game.pk}/",
        "/api/wallet/",
        "/api/wallet/transactions/",
        "/wallet/",
        "/accounts/profile/",
        "/accounts/login/",
        "/rules/",
    ]
    staff_pages = [
        "/admin/",
        "/admin/dashboard/",
        "/admin/tables/table/",
        "/admin/tables/poolgame/",
        "/admin/tables/deal/",
        "/admin/tables/gameevent/",
        "/admin/wallet/account/",
        "/admin/wallet/ledgertransaction/",
        "/admin/accounts/user/",
    ]
    failures = []
    for client, paths in ((player, pages), (staff, staff_pages)):
        for path in paths:
            for name in PARAMS:
                for value in VALUES:
                    answer = client.get(path, {name: value})
                    if answer.status_code >= 500 or (value == "\x00" and answer.status_code != 400):
                        failures.append((path, name, value[:12], answer.status_code))
    assert failures == [], failures
